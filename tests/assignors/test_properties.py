"""Hypothesis properties every assignor must keep: complete, exclusive, deterministic, balanced,
and sticky moving only what must move (the roster plan's own: test_roster_properties.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import Member, assign_range, assign_roster, assign_roundrobin, assign_sticky

Plan = dict[str, list[tuple[str, int]]]
Assign = Callable[[Sequence[Member], Mapping[str, int]], Plan]
TOPICS = ["t0", "t1", "t2", "t3"]
ROSTER_POOL = [f"i{n}" for n in range(8)]

counts_st = st.dictionaries(st.sampled_from(TOPICS), st.integers(0, 12), min_size=1)


@st.composite
def groups(draw: st.DrawFn, identical: bool = False, static_only: bool = False) -> list[Member]:
    size = draw(st.integers(1, 8))
    member_ids = draw(
        st.lists(
            st.text("abcxyz-0123", min_size=1, max_size=6),
            min_size=size,
            max_size=size,
            unique=True,
        )
    )
    instances = draw(
        st.lists(
            st.sampled_from([*ROSTER_POOL, "x1", "x2"]), min_size=size, max_size=size, unique=True
        )
    )
    shared = draw(st.lists(st.sampled_from(TOPICS), min_size=1, unique=True))
    members = []
    for member_id, instance in zip(member_ids, instances, strict=True):
        static = static_only or draw(st.booleans())
        topics = (
            shared
            if identical
            else draw(st.lists(st.sampled_from(TOPICS), min_size=1, unique=True))
        )
        members.append(Member(member_id, instance if static else None, topics))
    return members


ASSIGNERS: dict[str, Assign] = {
    "range": assign_range,
    "roundrobin": assign_roundrobin,
    "sticky": assign_sticky,
    "roster": assign_roster,
}
all_assigners = pytest.mark.parametrize("assign", ASSIGNERS.values(), ids=ASSIGNERS.keys())


def check_complete_and_exclusive(
    members: Sequence[Member], counts: Mapping[str, int], plan: Plan
) -> None:
    assert set(plan) == {m.member_id for m in members}
    by_id = {m.member_id: m for m in members}
    seen = Counter(tp for partitions in plan.values() for tp in partitions)
    expected = {(t, p) for m in members for t in m.topics if t in counts for p in range(counts[t])}
    assert set(seen) == expected
    assert all(n == 1 for n in seen.values())
    for member_id, partitions in plan.items():
        assert partitions == sorted(partitions)
        assert all(t in by_id[member_id].topics for t, _ in partitions)


def sizes(plan: Plan) -> list[int]:
    return [len(partitions) for partitions in plan.values()]


@all_assigners
@given(members=groups(), counts=counts_st, data=st.data())
def test_complete_exclusive_deterministic(
    assign: Assign, members: list[Member], counts: dict[str, int], data: st.DataObject
) -> None:
    plan = assign(members, counts)
    check_complete_and_exclusive(members, counts, plan)
    shuffled = data.draw(st.permutations(members))
    assert assign(shuffled, counts) == plan


@all_assigners
@given(members=groups(static_only=True), counts=counts_st, data=st.data())
def test_restart_with_new_member_ids_changes_nothing(
    assign: Assign, members: list[Member], counts: dict[str, int], data: st.DataObject
) -> None:
    plan = assign(members, counts)
    renamed = [Member(f"new-{m.member_id}", m.group_instance_id, m.topics) for m in members]
    replan = assign(data.draw(st.permutations(renamed)), counts)
    assert {f"new-{k}": v for k, v in plan.items()} == replan


@given(members=groups(), counts=counts_st)
def test_range_balance_per_topic(members: list[Member], counts: dict[str, int]) -> None:
    plan = assign_range(members, counts)
    for topic, count in counts.items():
        subscribers = [m for m in members if topic in m.topics]
        if not subscribers:
            continue
        got = [sum(1 for t, _ in plan[m.member_id] if t == topic) for m in subscribers]
        assert sum(got) == count
        assert max(got) - min(got) <= 1  # Java's bound: floor(P/C) or one more


@given(members=groups(), counts=counts_st, data=st.data())
def test_rack_aware_range_complete_balanced_deterministic(
    members: list[Member], counts: dict[str, int], data: st.DataObject
) -> None:
    racks = st.sampled_from(["a", "b", "c", None])
    members = [
        Member(m.member_id, m.group_instance_id, m.topics, rack=data.draw(racks)) for m in members
    ]
    replicas = st.frozensets(st.sampled_from(["a", "b", "c"]))
    partition_racks = {(t, p): data.draw(replicas) for t, n in counts.items() for p in range(n)}
    plan = assign_range(members, counts, partition_racks=partition_racks)
    check_complete_and_exclusive(members, counts, plan)
    assert (
        assign_range(data.draw(st.permutations(members)), counts, partition_racks=partition_racks)
        == plan
    )
    plain = assign_range(members, counts)
    for topic in counts:
        subscribers = [m.member_id for m in members if topic in m.topics]
        got = sorted(sum(1 for t, _ in plan[m] if t == topic) for m in subscribers)
        want = sorted(sum(1 for t, _ in plain[m] if t == topic) for m in subscribers)
        assert got == want  # racks change who gets what, never how many each gets


@pytest.mark.parametrize("assign", [assign_roundrobin, assign_sticky], ids=["rr", "sticky"])
@given(members=groups(identical=True), counts=counts_st)
def test_identical_subscriptions_are_balanced(
    assign: Assign, members: list[Member], counts: dict[str, int]
) -> None:
    plan = assign(members, counts)
    assert max(sizes(plan)) - min(sizes(plan)) <= 1


@st.composite
def owned_groups(draw: st.DrawFn, identical: bool) -> tuple[list[Member], dict[str, int]]:
    """A group whose members own a random, non-overlapping part of the partitions."""
    members = draw(groups(identical=identical))
    counts = draw(counts_st)
    owners: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in members}
    for topic, count in counts.items():
        subscribers = [m.member_id for m in members if topic in m.topics]
        for partition in range(count):
            if subscribers and draw(st.booleans()):
                owners[draw(st.sampled_from(subscribers))].append((topic, partition))
    owned = [
        Member(m.member_id, m.group_instance_id, m.topics, owners[m.member_id], 5) for m in members
    ]
    return owned, counts


def moved(members: Sequence[Member], plan: Plan) -> int:
    return sum(1 for m in members for tp in m.owned_partitions if tp not in set(plan[m.member_id]))


@given(case=owned_groups(identical=True))
def test_sticky_moves_the_theoretical_minimum(case: tuple[list[Member], dict[str, int]]) -> None:
    members, counts = case
    plan = assign_sticky(members, counts)
    check_complete_and_exclusive(members, counts, plan)
    assert max(sizes(plan)) - min(sizes(plan)) <= 1
    total = sum(counts[t] for t in set(members[0].topics) if t in counts)
    quota, extra = divmod(total, len(members))
    owned = [len(m.owned_partitions) for m in members]
    best_kept = sum(min(c, quota) for c in owned) + min(extra, sum(1 for c in owned if c > quota))
    assert moved(members, plan) == sum(owned) - best_kept


@given(case=owned_groups(identical=False))
def test_sticky_uneven_subscriptions_cannot_improve_by_one_move(
    case: tuple[list[Member], dict[str, int]],
) -> None:
    members, counts = case
    plan = assign_sticky(members, counts)
    check_complete_and_exclusive(members, counts, plan)
    for rich in members:
        for poor in members:
            if len(plan[rich.member_id]) >= len(plan[poor.member_id]) + 2:
                assert not any(t in poor.topics for t, _ in plan[rich.member_id])


@given(members=groups(identical=True), counts=counts_st, data=st.data())
def test_sticky_leave_and_join_move_only_what_must(
    members: list[Member], counts: dict[str, int], data: st.DataObject
) -> None:
    plan = assign_sticky(members, counts)
    stable = [
        Member(m.member_id, m.group_instance_id, m.topics, plan[m.member_id], 1) for m in members
    ]
    # Leave: only the leaver's partitions move.
    leaver = data.draw(st.sampled_from(stable))
    rest = [m for m in stable if m is not leaver]
    if rest:
        after = assign_sticky(rest, counts)
        assert moved(rest, after) == 0
    # Join: the minimum number moves (quota for the newcomer).
    newcomer = Member("zz-new", None, members[0].topics)
    after = assign_sticky([*stable, newcomer], counts)
    total = sum(sizes(plan))
    assert moved(stable, after) == len(after["zz-new"]) == total // (len(stable) + 1)
