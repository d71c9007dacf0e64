"""Roster changes move only what must move (issue 21 item 4), and the leader's hold plan moves
nothing (item 2). Statements, with P partitions of the members' topics:

(a) complete and exclusive; members with the same subscription (same topics that exist) hold
    counts that differ by at most one; with identical subscriptions every member holds
    floor(P/M) or floor(P/M) + 1.
(b) k members join a balanced group of n (identical subscriptions, counts floor(P/n) or + 1):
    old members only lose partitions, each new member gets floor(P/(n+k)) or + 1, and the number
    of partitions that change owner is the least any balanced plan needs (slack 0).
(c) r members leave a balanced group of n (identical subscriptions): no remaining member loses
    a partition, so only the leavers' partitions move (slack 0), and the result is balanced.
(d) the same input in any member order gives the same plan.
(e) the hold plan keeps every partition a member alone validly owns where it is, gives members
    that own nothing nothing of a topic some holder reads, and is complete for the rest.
(f) scale-up n -> n+k through any sequence of arrivals (hold plans, then the complete plan and its
    cooperative follow-up, with cooperative-sticky) changes each partition's owner at most once,
    and a member never owns a partition another member owns in the same generation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import CooperativeStickyAssignor, Member, assign_roster
from staticconsumer.roster._plan import (
    RosterVerdict,
    RosterWait,
    plan_members_under_roster,
)

from .test_properties import TOPICS, check_complete_and_exclusive, counts_st, groups, sizes

Plan = dict[str, list[tuple[str, int]]]


def effective(member: Member, counts: dict[str, int]) -> frozenset[str]:
    return frozenset(t for t in member.topics if t in counts)


@st.composite
def claimed_groups(draw: st.DrawFn) -> tuple[list[Member], dict[str, int]]:
    """Any group with any claims: overlapping, stale, unsubscribed, out of range."""
    members = draw(groups())
    counts = draw(counts_st)
    partitions = st.tuples(st.sampled_from(TOPICS), st.integers(0, 13))
    claimed = [
        Member(
            m.member_id, m.group_instance_id, m.topics,
            draw(st.lists(partitions, max_size=8, unique=True)), draw(st.integers(-1, 3)),
        )
        for m in members
    ]  # fmt: skip
    return claimed, counts


@given(case=claimed_groups(), data=st.data())
def test_a_d_complete_exclusive_balanced_per_subscription_deterministic(
    case: tuple[list[Member], dict[str, int]], data: st.DataObject
) -> None:
    members, counts = case
    plan = assign_roster(members, counts)
    check_complete_and_exclusive(members, counts, plan)
    by_subscription: dict[frozenset[str], list[int]] = {}
    for m in members:
        by_subscription.setdefault(effective(m, counts), []).append(len(plan[m.member_id]))
    for held in by_subscription.values():
        assert max(held) - min(held) <= 1
    assert assign_roster(data.draw(st.permutations(members)), counts) == plan


@st.composite
def balanced_groups(draw: st.DrawFn) -> tuple[list[Member], dict[str, int]]:
    """n members with one subscription, owning a random balanced split (floor(P/n) or + 1)."""
    members = draw(groups(identical=True, static_only=True))
    counts = draw(counts_st)
    topics = sorted(effective(members[0], counts))
    pool = draw(st.permutations([(t, p) for t in topics for p in range(counts[t])]))
    quota, extra = divmod(len(pool), len(members))
    big = set(draw(st.permutations(range(len(members))))[:extra])
    owned, start = [], 0
    for index, m in enumerate(members):
        size = quota + (index in big)
        owned.append(Member(m.member_id, m.group_instance_id, m.topics,
                            sorted(pool[start : start + size]), 2))  # fmt: skip
        start += size
    return owned, counts


def changed_owner(before: Sequence[Member], after: Plan) -> int:
    return sum(1 for m in before for tp in m.owned_partitions if tp not in after[m.member_id])


@given(case=balanced_groups(), k=st.integers(1, 4))
def test_b_adding_k_members_moves_only_what_balance_needs(
    case: tuple[list[Member], dict[str, int]], k: int
) -> None:
    old, counts = case
    new = [Member(f"zz-new-{i}", f"zz-{i}", old[0].topics) for i in range(k)]
    plan = assign_roster([*old, *new], counts)
    total = sum(len(m.owned_partitions) for m in old)
    quota, extra = divmod(total, len(old) + k)
    for m in old:
        assert set(plan[m.member_id]) <= set(m.owned_partitions)  # old members only lose
    for m in new:
        assert len(plan[m.member_id]) in (quota, quota + 1)
    moved = changed_owner(old, plan)
    assert moved == sum(len(plan[m.member_id]) for m in new)
    above = sum(1 for m in old if len(m.owned_partitions) > quota)
    assert moved == k * quota + max(0, extra - above)  # the least a balanced plan needs


@given(case=balanced_groups(), data=st.data())
def test_c_removing_members_moves_only_theirs(
    case: tuple[list[Member], dict[str, int]], data: st.DataObject
) -> None:
    members, counts = case
    if len(members) < 2:
        return
    gone = data.draw(st.integers(1, len(members) - 1))
    rest = data.draw(st.permutations(members))[gone:]
    plan = assign_roster(rest, counts)
    check_complete_and_exclusive(rest, counts, plan)
    assert changed_owner(rest, plan) == 0
    assert max(sizes(plan)) - min(sizes(plan)) <= 1


@given(case=claimed_groups(), data=st.data(), cooperative=st.booleans())
def test_e_the_hold_plan_moves_nothing(
    case: tuple[list[Member], dict[str, int]], data: st.DataObject, cooperative: bool
) -> None:
    members, counts = case
    ids = {m.group_instance_id for m in members} - {None}
    waiting = RosterWait(frozenset({*ids, "never-comes"}), 100, 50)
    assignor = data.draw(st.sampled_from([CooperativeStickyAssignor(), assign_roster_object()]))
    result = plan_members_under_roster(assignor, members, counts, waiting, 99,
                                       cooperative=cooperative)  # fmt: skip
    assert result.verdict is RosterVerdict.HOLD and result.missing == ("never-comes",)
    plan = {m: list(a.partitions) for m, a in result.assignments.items()}
    claims = Counter(
        tp for m in members for tp in set(m.owned_partitions)
        if tp[0] in m.topics and 0 <= tp[1] < counts.get(tp[0], 0)
    )  # fmt: skip

    def valid(m: Member) -> set[tuple[str, int]]:
        return {tp for tp in m.owned_partitions if tp[0] in m.topics and claims.get(tp) == 1}

    holders = [m for m in members if valid(m)]
    held_topics = {t for m in holders for t in m.topics}
    seen = Counter(tp for partitions in plan.values() for tp in partitions)
    assert all(n == 1 for n in seen.values())
    for m in members:
        mine = set(plan[m.member_id])
        assert all(t in m.topics for t, _ in mine)
        assert valid(m) <= mine  # nothing validly owned moves
        if m not in holders:  # arrivals: only topics no holder reads
            assert not {t for t, _ in mine} & held_topics
    wanted = {(t, p) for m in members for t in effective(m, counts) for p in range(counts[t])}
    contested = {tp for tp, n in claims.items() if n > 1}
    assert set(seen) == (wanted - contested if cooperative else wanted)


def assign_roster_object() -> object:
    from assignors import RosterAssignor

    return RosterAssignor()


@given(n=st.integers(1, 5), k=st.integers(1, 5), partitions=st.integers(0, 24), data=st.data())
@settings(max_examples=150)
def test_f_scale_up_through_any_arrivals_moves_each_partition_at_most_once(
    n: int, k: int, partitions: int, data: st.DataObject
) -> None:
    counts = {"t0": partitions}
    assignor = CooperativeStickyAssignor()
    old = [f"old-{i}" for i in range(n)]
    new = [f"new-{i}" for i in range(k)]
    start = assign_roster([Member(i, i, ["t0"]) for i in old], counts)
    owner: dict[tuple[str, int], str] = {tp: m for m, tps in start.items() for tp in tps}
    owned = {m: set(start[m]) for m in old}
    moves: Counter[tuple[str, int]] = Counter()
    waiting = RosterWait(frozenset(old + new), deadline_ms=1_000, wait_ms=1_000)
    order = data.draw(st.permutations(new))
    cuts = sorted(data.draw(st.sets(st.integers(1, k - 1), max_size=k - 1))) if k > 1 else []
    batches = [order[a:b] for a, b in zip([0, *cuts], [*cuts, k], strict=True)]
    arrived: list[str] = []
    rounds = [*batches, [], []]  # then cooperative follow-up rounds: revoked first, then given
    for batch in rounds:
        arrived += batch
        group = [Member(m, m, ["t0"], sorted(owned.get(m, ())), 5) for m in old + arrived]
        result = plan_members_under_roster(assignor, group, counts, waiting, 0, cooperative=True)
        complete = len(arrived) == k
        assert result.verdict is (RosterVerdict.COMPLETE if complete else RosterVerdict.HOLD)
        for m in old + arrived:  # KIP-429: never a partition another member still owns
            taken = set(result.assignments[m].partitions) - owned.get(m, set())
            assert not any(taken & mine for o, mine in owned.items() if o != m)
        owned = {m: set(result.assignments[m].partitions) for m in old + arrived}
        for m, mine in owned.items():
            for tp in mine:
                if owner.get(tp) != m:
                    moves[tp] += tp in owner
                    owner[tp] = m
    assert all(n_moves <= 1 for n_moves in moves.values())
    final = [len(owned[m]) for m in old + new]
    assert sum(final) == partitions and max(final) - min(final) <= 1
