"""Worked examples: tables of members, partition counts and the plan we want."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence

import pytest

from assignors import (
    Member,
    RosterAssignor,
    assign_range,
    assign_roster,
    assign_roundrobin,
    assign_sticky,
    encode_sticky_user_data,
)

Plan = dict[str, list[tuple[str, int]]]
Assign = Callable[[Sequence[Member], Mapping[str, int]], Plan]


def tps(spec: str) -> list[tuple[str, int]]:
    """'t0p0 t1p2' -> [('t0', 0), ('t1', 2)]"""
    out = []
    for item in spec.split():
        topic, partition = item.rsplit("p", 1)
        out.append((topic, int(partition)))
    return sorted(out)


def test_kip345_range_survives_restart_with_new_member_ids() -> None:
    before = [Member("1", "A", ["t"]), Member("2", "B", ["t"]), Member("3", "C", ["t"])]
    after = [Member("4", "A", ["t"]), Member("2", "B", ["t"]), Member("3", "C", ["t"])]
    plan_before = assign_range(before, {"t": 9})
    plan_after = assign_range(after, {"t": 9})
    assert plan_before["1"] == tps("tp0 tp1 tp2")
    assert plan_after["4"] == plan_before["1"]
    assert plan_after["2"] == plan_before["2"] == tps("tp3 tp4 tp5")
    assert plan_after["3"] == plan_before["3"] == tps("tp6 tp7 tp8")
    # Sorting by member id (what a leader without instance ids does) reshuffles everything.
    dynamic = [Member(m.member_id, None, m.topics) for m in after]
    by_member_id = assign_range(dynamic, {"t": 9})
    assert by_member_id["2"] == tps("tp0 tp1 tp2")
    assert by_member_id["4"] == tps("tp6 tp7 tp8")


CASES: list[tuple[str, Assign, list[Member], dict[str, int], dict[str, str]]] = [
    (
        "range two topics",
        assign_range,
        [Member("c1", None, ["t0", "t1"]), Member("c0", None, ["t0", "t1"])],
        {"t0": 3, "t1": 3},
        {"c0": "t0p0 t0p1 t1p0 t1p1", "c1": "t0p2 t1p2"},
    ),
    (
        "range static before dynamic",
        assign_range,
        [Member("a", None, ["t0"]), Member("z", "i0", ["t0"])],
        {"t0": 3},
        {"z": "t0p0 t0p1", "a": "t0p2"},
    ),
    (
        "range fewer partitions than members",
        assign_range,
        [Member(f"c{i}", f"s{i}", ["t0"]) for i in range(4)],
        {"t0": 2},
        {"c0": "t0p0", "c1": "t0p1", "c2": "", "c3": ""},
    ),
    (
        "roundrobin identical (Java doc)",
        assign_roundrobin,
        [Member("C0", None, ["t0", "t1"]), Member("C1", None, ["t0", "t1"])],
        {"t0": 3, "t1": 3},
        {"C0": "t0p0 t0p2 t1p1", "C1": "t0p1 t1p0 t1p2"},
    ),
    (
        "roundrobin uneven (Java doc)",
        assign_roundrobin,
        [
            Member("C0", None, ["t0"]),
            Member("C1", None, ["t0", "t1"]),
            Member("C2", None, ["t0", "t1", "t2"]),
        ],
        {"t0": 1, "t1": 2, "t2": 3},
        {"C0": "t0p0", "C1": "t1p0", "C2": "t1p1 t2p0 t2p1 t2p2"},
    ),
    (
        "sticky fresh uneven (Java doc example 2)",
        assign_sticky,
        [
            Member("C0", None, ["t0"]),
            Member("C1", None, ["t0", "t1"]),
            Member("C2", None, ["t0", "t1", "t2"]),
        ],
        {"t0": 1, "t1": 2, "t2": 3},
        {"C0": "t0p0", "C1": "t1p0 t1p1", "C2": "t2p0 t2p1 t2p2"},
    ),
    (
        "sticky C0 removed (Java doc example 2)",
        assign_sticky,
        [
            Member("C1", None, ["t0", "t1"], tps("t1p0 t1p1"), 1),
            Member("C2", None, ["t0", "t1", "t2"], tps("t2p0 t2p1 t2p2"), 1),
        ],
        {"t0": 1, "t1": 2, "t2": 3},
        {"C1": "t0p0 t1p0 t1p1", "C2": "t2p0 t2p1 t2p2"},
    ),
    (
        "sticky two new members (module docstring)",
        assign_sticky,
        [
            Member("C0", None, ["t0"], tps("t0p0 t0p1 t0p2 t0p3"), 3),
            Member("C1", None, ["t0"]),
            Member("C2", None, ["t0"]),
        ],
        {"t0": 4},
        {"C0": "t0p0 t0p1", "C1": "t0p2", "C2": "t0p3"},
    ),
    (
        "sticky reads Java user data when owned_partitions is empty",
        assign_sticky,
        [
            Member("x", None, ["t0"], user_data=encode_sticky_user_data(tps("t0p2 t0p3"), 4)),
            Member("y", None, ["t0"], user_data=encode_sticky_user_data(tps("t0p0 t0p1"), 4)),
        ],
        {"t0": 4},
        {"x": "t0p2 t0p3", "y": "t0p0 t0p1"},
    ),
    (
        "sticky higher generation wins a conflict",
        assign_sticky,
        [
            Member("a", "i-a", ["t0"], tps("t0p0 t0p1"), 3),
            Member("b", "i-b", ["t0"], tps("t0p0"), 4),
        ],
        {"t0": 2},
        {"a": "t0p1", "b": "t0p0"},
    ),
    (
        "sticky equal generations: instance-id order wins",
        assign_sticky,
        [
            Member("m-9", "i-b", ["t0"], tps("t0p0 t0p1"), 4),
            Member("m-1", "i-a", ["t0"], tps("t0p0 t0p1"), 4),
        ],
        {"t0": 2},
        {"m-1": "t0p0", "m-9": "t0p1"},
    ),
    (
        "sticky drops claims on deleted partitions and unsubscribed topics",
        assign_sticky,
        [
            Member("a", None, ["t0"], tps("t0p5 t1p0"), 2),
            Member("b", None, ["t0"], tps("t0p1"), 2),
        ],
        {"t0": 2, "t1": 1},
        {"a": "t0p0", "b": "t0p1"},
    ),
]


@pytest.mark.parametrize(
    ("assign", "members", "counts", "want"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_table(
    assign: Assign, members: list[Member], counts: dict[str, int], want: dict[str, str]
) -> None:
    assert assign(members, counts) == {m: tps(spec) for m, spec in want.items()}


def owning(member_id: str, instance_id: str, spec: str, generation: int = 1) -> Member:
    return Member(member_id, instance_id, ["t0"], tps(spec), generation)


def test_roster_worked_example() -> None:
    """The module docstring's example: a..d own two each of 8, e and f join; 2 move, once."""
    before = [
        owning("m1", "a", "t0p0 t0p1"),
        owning("m2", "b", "t0p2 t0p3"),
        owning("m3", "c", "t0p4 t0p5"),
        owning("m4", "d", "t0p6 t0p7"),
    ]
    joined = [*before, Member("m5", "e", ["t0"]), Member("m6", "f", ["t0"])]
    assert assign_roster(joined, {"t0": 8}) == {
        "m1": tps("t0p0 t0p1"),
        "m2": tps("t0p2 t0p3"),
        "m3": tps("t0p4"),
        "m4": tps("t0p6"),
        "m5": tps("t0p5"),
        "m6": tps("t0p7"),
    }


def test_roster_growth_stays_balanced() -> None:
    """Issue 21's case: roster a..d over 8 partitions once gave a:[0] b:[1] c:[2,4,5] d:[3,6,7]
    (homes re-cut by roster index, orphans stuck with their holder). Now: two each, and c and d
    (who joined the pair a, b) take exactly what balance needs."""
    pair = [owning("m1", "a", "t0p0 t0p1 t0p2 t0p3"), owning("m2", "b", "t0p4 t0p5 t0p6 t0p7")]
    four = [*pair, Member("m3", "c", ["t0"]), Member("m4", "d", ["t0"])]
    plan = assign_roster(four, {"t0": 8})
    assert sorted(len(p) for p in plan.values()) == [2, 2, 2, 2]
    assert plan["m1"] == tps("t0p0 t0p1") and plan["m2"] == tps("t0p4 t0p5")


def test_roster_members_outside_the_roster_are_planned_alike() -> None:
    """No more hot standbys: a member outside any roster and a dynamic member share the load."""
    members = [Member("m1", "a", ["t0"]), Member("s", "spare", ["t0"]), Member("d", None, ["t0"])]
    plan = assign_roster(members, {"t0": 6})
    assert sorted(len(p) for p in plan.values()) == [2, 2, 2]


def test_roster_argument_is_deprecated_and_ignored() -> None:
    members = [Member("m1", "a", ["t0"]), Member("m2", "b", ["t0"])]
    with pytest.warns(DeprecationWarning, match="register_members"):
        old = assign_roster(members, {"t0": 4}, ["b", "a", "c"])
    assert old == assign_roster(members, {"t0": 4})
    with pytest.warns(DeprecationWarning, match="deprecated"):
        assignor = RosterAssignor.with_roster(["b", "a"], group_instance_id="a")
    assert assignor.roster == ("a", "b")
    with pytest.warns(DeprecationWarning, match="deprecated"):
        RosterAssignor.for_instance("a", roster=["a"])
    with pytest.warns(DeprecationWarning, match="deprecated"):
        RosterAssignor(["a"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert RosterAssignor.for_instance("a").roster == ()
        planned = RosterAssignor().assign_group(members, {"t0": 4})
        assert list(planned["m1"].partitions) == tps("t0p0 t0p1")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: assign_range([Member("a", None, ["t"])] * 2, {"t": 1}), "duplicate member_id"),
        (lambda: assign_sticky([Member("a", None, ["t"])], {"t": -1}), "partition count"),
        (lambda: assign_roundrobin([Member("a", None, ["t"])], {"t": 1.5}), "partition count"),
        (lambda: assign_roster([], {}, ["a", "a"]), "duplicate roster entry 'a'"),
        (lambda: assign_roster([], {}, ["ok", "bad id"]), "'bad id'"),
        (lambda: assign_roster([], {}, [".."]), "not a valid group.instance.id"),
        (lambda: assign_roster([], {}, ["x" * 250]), "at most 249"),
        (lambda: RosterAssignor.with_roster(["a", ""]), "''"),
        (lambda: Member("a", None, "t0"), "single string"),
    ],
)
def test_invalid_input_raises_value_error(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("'", "'")):
        call()


def test_range_rack_aware_docstring_example() -> None:
    members = [Member("c0", "C0", ["t0"], rack="a"), Member("c1", "C1", ["t0"], rack="b")]
    racks = {("t0", 0): {"b"}, ("t0", 1): {"a"}}
    assert assign_range(members, {"t0": 2}, partition_racks=racks) == {
        "c0": tps("t0p1"),
        "c1": tps("t0p0"),
    }
    assert assign_range(members, {"t0": 2}) == {"c0": tps("t0p0"), "c1": tps("t0p1")}


def test_range_rack_aware_keeps_co_partitioned_topics_together() -> None:
    # t0 and t1: same subscribers, same partition count; partition n of both on one rack.
    members = [
        Member("c0", "C0", ["t0", "t1"], rack="a"),
        Member("c1", "C1", ["t0", "t1"], rack="b"),
    ]
    racks = {(t, p): {"b" if p < 2 else "a"} for t in ("t0", "t1") for p in range(4)}
    assert assign_range(members, {"t0": 4, "t1": 4}, partition_racks=racks) == {
        "c0": tps("t0p2 t0p3 t1p2 t1p3"),
        "c1": tps("t0p0 t0p1 t1p0 t1p1"),
    }


def test_range_ignores_racks_when_every_partition_is_on_every_rack() -> None:
    members = [Member("c0", "C0", ["t0"], rack="b"), Member("c1", "C1", ["t0"], rack="a")]
    racks = {("t0", p): {"a", "b"} for p in range(3)}
    assert assign_range(members, {"t0": 3}, partition_racks=racks) == assign_range(
        members, {"t0": 3}
    )


def test_range_rejects_a_bare_string_of_racks() -> None:
    with pytest.raises(ValueError, match="single string 'ab'"):
        assign_range([Member("c0", None, ["t0"])], {"t0": 1}, partition_racks={("t0", 0): "ab"})
