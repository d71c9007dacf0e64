"""The table-aware plan (``assignors._tables``): tables of cases, then Hypothesis properties:
complete, exclusive, balanced, standbys never on the active's member, deterministic, sticky by
instance id (a member away moves its own partitions and guests only, and gets its own back),
and a scale-up moves the fewest."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignors import Member
from assignors._tables import (
    MAX_ROSTER,
    TablePlan,
    assign_tables,
    copartitioned_groups,
    homes,
    natural_key,
    roster_of,
)


def workers(*ids: str, topics: tuple[str, ...] = ("orders", "t-changelog"),
            restart: int = 0) -> list[Member]:  # fmt: skip
    """Static members; ``restart`` changes every member id, as restarted processes get."""
    return [Member(f"{i}-{restart}-uuid", i, topics) for i in ids]


def by_instance(plan: TablePlan, members: list[Member], which: str = "actives") -> dict:
    table = getattr(plan, which)
    return {m.group_instance_id: table[m.member_id] for m in members}


# -- tables -----------------------------------------------------------------------------------


def test_the_worked_example_of_the_module_docstring() -> None:
    members = workers("w-0", "w-1", "w-2", topics=("t",))
    plan = assign_tables(members, {"t": 6}, standby_replicas=1)
    assert by_instance(plan, members) == {
        "w-0": {"t": (0, 1)},
        "w-1": {"t": (3, 4)},
        "w-2": {"t": (2, 5)},
    }
    assert by_instance(plan, members, "standbys") == {
        "w-0": {"t": (2, 5)},
        "w-1": {"t": (0, 1)},
        "w-2": {"t": (3, 4)},
    }
    assert plan.roster == ("w-0", "w-1", "w-2")
    away = [m for m in members if m.group_instance_id != "w-1"]
    plan = assign_tables(away, {"t": 6}, standby_replicas=1, remembered=plan.roster)
    assert by_instance(plan, away) == {"w-0": {"t": (0, 1, 4)}, "w-2": {"t": (2, 3, 5)}}
    assert by_instance(plan, away, "guests") == {"w-0": {"t": (4,)}, "w-2": {"t": (3,)}}
    assert plan.roster == ("w-0", "w-1", "w-2")  # remembered while away


@pytest.mark.parametrize(
    ("roster", "partitions", "want"),
    [
        (["a"], 3, {"a": [0, 1, 2]}),
        (["a", "b"], 3, {"a": [0, 1], "b": [2]}),
        (["a", "b", "c", "d"], 8, {"a": [0, 1], "b": [4, 5], "c": [3, 7], "d": [2, 6]}),
        (["a", "b", "c"], 2, {"a": [0], "b": [1], "c": []}),
        (["a", "b"], 0, {"a": [], "b": []}),
    ],
)
def test_homes(roster: list[str], partitions: int, want: dict[str, list[int]]) -> None:
    assert homes(roster, partitions) == want


def test_copartitioned_topics_share_their_partition_numbers() -> None:
    members = workers("w-0", "w-1", "w-2", topics=("orders", "app-counts-changelog", "audit"))
    counts = {"orders": 6, "app-counts-changelog": 6, "audit": 4}
    assert copartitioned_groups(members, counts) == [
        (("audit",), 4),
        (("app-counts-changelog", "orders"), 6),
    ]
    plan = assign_tables(members, counts, standby_replicas=1)
    for member in members:
        active = plan.actives[member.member_id]
        assert active["orders"] == active["app-counts-changelog"]
        assert (
            plan.standbys[member.member_id]["orders"]
            == (plan.standbys[member.member_id]["app-counts-changelog"])
        )
    assert plan.topic_groups == {"audit": 0, "app-counts-changelog": 1, "orders": 1}


def test_topics_read_by_other_members_are_another_group() -> None:
    a = Member("a-1", "a", ("orders", "extra"))
    b = Member("b-1", "b", ("orders",))
    plan = assign_tables([a, b], {"orders": 2, "extra": 2})
    assert plan.actives["a-1"]["extra"] == (0, 1)
    assert "extra" not in plan.actives["b-1"]
    assert plan.topic_groups["extra"] != plan.topic_groups["orders"]


def test_a_restarted_group_with_new_member_ids_gets_the_same_plan() -> None:
    first = workers("w-0", "w-1", "w-2")
    again = workers("w-2", "w-0", "w-1", restart=1)
    counts = {"orders": 12, "t-changelog": 12}
    one = assign_tables(first, counts, standby_replicas=1)
    two = assign_tables(again, counts, standby_replicas=1, remembered=one.roster)
    assert by_instance(one, first) == by_instance(two, again)
    assert by_instance(one, first, "standbys") == by_instance(two, again, "standbys")


def test_new_ids_join_the_roster_in_natural_order_after_the_remembered_ones() -> None:
    assert roster_of(["w-3", "w-1"], ["w-10", "w-2", "w-1"]) == ("w-3", "w-1", "w-2", "w-10")
    assert sorted(["w-10", "w-9", "w-1"], key=natural_key) == ["w-1", "w-9", "w-10"]


def test_the_roster_forgets_the_oldest_absent_ids_past_its_bound() -> None:
    remembered = [f"old-{n}" for n in range(MAX_ROSTER)]
    roster = roster_of(remembered, ["new-0", "old-5"])
    assert len(roster) == MAX_ROSTER
    assert roster[0] == "old-1" and "old-5" in roster and roster[-1] == "new-0"


def test_standbys_are_capped_by_the_members_present() -> None:
    members = workers("a", "b", topics=("t",))
    plan = assign_tables(members, {"t": 4}, standby_replicas=3)
    assert by_instance(plan, members, "standbys") == {"a": {"t": (2, 3)}, "b": {"t": (0, 1)}}
    lone = assign_tables(members[:1], {"t": 4}, standby_replicas=3)
    assert lone.standbys == {"a-0-uuid": {"t": ()}}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"standby_replicas": -1}, "standby_replicas must be an int >= 0"),
        ({"standby_replicas": True}, "standby_replicas must be an int >= 0"),
    ],
)
def test_bad_input_is_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        assign_tables(workers("a"), {"orders": 1}, **kwargs)


def test_two_members_with_one_instance_id_are_refused() -> None:
    with pytest.raises(ValueError, match="share the key 'a'"):
        assign_tables([Member("a-1", "a", ("t",)), Member("a-2", "a", ("t",))], {"t": 1})


def test_dynamic_members_come_after_the_roster_and_are_not_remembered() -> None:
    members = [Member("zz", None, ("t",)), Member("w-0-x", "w-0", ("t",))]
    plan = assign_tables(members, {"t": 4})
    assert plan.actives == {"w-0-x": {"t": (0, 1)}, "zz": {"t": (2, 3)}}
    assert plan.roster == ("w-0",)


# -- properties -------------------------------------------------------------------------------

POOL = [f"w-{n}" for n in range(10)]


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], list[str], dict[str, int], int]:
    """(remembered roster, ids here, partition counts, standby replicas)."""
    roster = draw(st.lists(st.sampled_from(POOL), min_size=0, max_size=8, unique=True))
    here = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=8, unique=True))
    count = draw(st.integers(0, 24))
    other = draw(st.integers(1, 24))
    return (
        roster,
        here,
        {"orders": count, "t-changelog": count, "audit": other},
        draw(st.integers(0, 3)),
    )


def _plan(roster: list[str], here: list[str], counts: dict[str, int], replicas: int,
          restart: int = 0) -> tuple[TablePlan, list[Member]]:  # fmt: skip
    members = workers(*here, topics=tuple(counts), restart=restart)
    return assign_tables(members, counts, standby_replicas=replicas, remembered=roster), members


@given(case=cases())
def test_complete_exclusive_balanced_and_standbys_apart(case: tuple) -> None:
    roster, here, counts, replicas = case
    plan, members = _plan(roster, here, counts, replicas)
    for topic, count in counts.items():
        actives = Counter(p for m in members for p in plan.actives[m.member_id].get(topic, ()))
        assert actives == Counter(range(count)), topic  # complete and exclusive
        sizes = [len(plan.actives[m.member_id].get(topic, ())) for m in members]
        assert max(sizes) - min(sizes) <= 1, (topic, sizes)  # balanced
        want = min(replicas, len(members) - 1)
        for p in range(count):
            holders = [m for m in members if p in plan.standbys[m.member_id].get(topic, ())]
            assert len(holders) == want, (topic, p)
            assert all(p not in plan.actives[m.member_id][topic] for m in holders)
    assert set(here) <= set(plan.roster) and list(plan.roster[: len(roster)]) == roster


@given(case=cases(), seed=st.integers(0, 1000))
def test_deterministic_and_keyed_by_instance_id(case: tuple, seed: int) -> None:
    roster, here, counts, replicas = case
    one, first = _plan(roster, here, counts, replicas)
    shuffled = list(here)
    random.Random(seed).shuffle(shuffled)
    two, again = _plan(roster, shuffled, counts, replicas, restart=1)
    assert by_instance(one, first) == by_instance(two, again)
    assert by_instance(one, first, "standbys") == by_instance(two, again, "standbys")
    assert one.roster == two.roster


@given(case=cases(), data=st.data())
def test_a_member_away_moves_only_its_own_and_gets_them_back(
    case: tuple, data: st.DataObject
) -> None:
    roster, here, counts, replicas = case
    everyone, members = _plan(roster, here, counts, replicas)
    if len(here) < 2:
        return
    gone = data.draw(st.sampled_from(here))
    rest = [i for i in here if i != gone]
    away, left = _plan(list(everyone.roster), rest, counts, replicas, restart=1)
    before, during = by_instance(everyone, members), by_instance(away, left)
    guests = by_instance(everyone, members, "guests")
    for instance in rest:
        for topic, partitions in before[instance].items():
            own = set(partitions) - set(guests[instance].get(topic, ()))
            assert own <= set(during[instance][topic])  # nobody else loses one of its own
    back, returned = _plan(list(away.roster), here, counts, replicas, restart=2)
    assert by_instance(back, returned) == before
    assert by_instance(back, returned, "standbys") == by_instance(everyone, members, "standbys")


@given(case=cases(), newcomer=st.sampled_from(["x-0", "x-1"]))
def test_a_scale_up_moves_the_fewest(case: tuple, newcomer: str) -> None:
    """All of the roster here; one new id: old members only lose, and exactly
    P // (N + 1) actives of each copartitioned group move (all to the newcomer)."""
    roster, here, counts, replicas = case
    full = list(roster_of(roster, here))
    before, members = _plan(full, full, counts, replicas)
    after, grown = _plan(full, [*full, newcomer], counts, replicas, restart=1)
    old, new = by_instance(before, members), by_instance(after, grown)
    for topic, count in counts.items():
        moved = sum(len(set(old[i].get(topic, ())) - set(new[i].get(topic, ()))) for i in full)
        assert moved == count // (len(full) + 1) == len(new[newcomer].get(topic, ()))
        assert all(set(new[i].get(topic, ())) <= set(old[i].get(topic, ())) for i in full)
