"""Each transformation on a small hand-built set of events, against figures worked out by hand."""

from __future__ import annotations

import json
from typing import Any

from staticconsumer.analytics.schema import (
    deduplicate,
    in_range,
    input_counts,
    parse_events,
    parse_records,
)
from staticconsumer.analytics.tables_group import generations, partition_moves, pauses, rebalances
from staticconsumer.analytics.tables_instance import (
    fencing_incidents,
    restarts,
    timeline,
    unassigned_periods,
)

from ._events import Member, event

T = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _rows(frame: Any, *order: str) -> list[dict[str, Any]]:
    ordered = frame.orderBy(*order) if order else frame
    return [row.asDict(recursive=True) for row in ordered.collect()]


def test_parse_keeps_only_v1_membership_events_and_dedup_is_by_event_id(spark: Any) -> None:
    good = event("joined", T, member_id="m1", generation_id=1, event_id="a" * 32)
    texts = [
        json.dumps(good),
        json.dumps(good),  # published twice (at-least-once)
        json.dumps({**good, "event_id": "b" * 32, "version": 2}),
        json.dumps({**good, "event_id": "c" * 32, "schema": "something.else"}),
        json.dumps({**good, "event_id": None}),
        "not json at all",
    ]
    values = spark.createDataFrame([(text.encode(),) for text in texts], "value binary")
    assert _rows(input_counts(parse_records(values))) == [
        {"records": 6, "valid": 2, "distinct_events": 1}
    ]
    parsed = _rows(deduplicate(parse_events(values)))
    assert len(parsed) == 1
    assert parsed[0]["event_id"] == "a" * 32
    assert parsed[0]["generation_id"] == 1
    assert "schema" not in parsed[0]


def test_time_range_includes_since_and_excludes_until(events_frame: Any) -> None:
    frame = events_frame([event("joined", T + offset, member_id="m") for offset in (0, 5, 10)])
    assert [r["ts_ms"] for r in _rows(in_range(frame, T + 5, T + 10), "ts_ms")] == [T + 5]
    assert len(_rows(in_range(frame, None, T + 10))) == 2
    assert len(_rows(in_range(frame, T + 1, None))) == 2


def _three_generations() -> list[dict[str, Any]]:
    a, b = Member("g", "a"), Member("g", "b")
    a.member_id, b.member_id = "ma", "mb"
    return [
        a.join_reason(T, "initial"),  # before generation 1: belongs to no rebalance
        a.joined(T + 10, 1, leader=True),
        a.assigned(T + 11, [("t", 0), ("t", 1), ("t", 2)]),
        b.join_reason(T + 100, "member joined"),
        a.revoked(T + 101),
        a.join_reason(T + 102, "group is already rebalancing"),
        a.joined(T + 110, 2, leader=True),
        b.joined(T + 112, 2),
        a.assigned(T + 113, [("t", 0), ("t", 1)]),
        b.assigned(T + 114, [("t", 2)]),
        a.revoked(T + 200),
        b.revoked(T + 200),
        a.join_reason(T + 201, "rebalance enforced by user: deploy"),
        b.join_reason(T + 300, "group is already rebalancing"),  # at generation 3's first join
        a.joined(T + 300, 3, leader=True),
        b.joined(T + 301, 3),
        a.assigned(T + 302, [("t", 0), ("t", 2)]),
        b.assigned(T + 303, [("t", 1), ("t", 3)]),  # t-3 is new: it moves from nobody
    ]


def test_rebalances_have_reasons_of_their_interval_and_moved_partitions(events_frame: Any) -> None:
    events = events_frame(_three_generations())
    gens = generations(events)
    assert [
        (r["generation_id"], r["previous_generation_id"], r["first_joined_ms"], r["members"])
        for r in _rows(gens, "generation_id")
    ] == [(1, None, T + 10, 1), (2, 1, T + 110, 2), (3, 2, T + 300, 2)]
    moves = partition_moves(events, gens)
    assert [
        (r["generation_id"], r["topic"], r["partition"], r["from_owner"], r["to_owner"])
        for r in _rows(moves, "generation_id", "partition")
    ] == [
        (2, "t", 2, "a", "b"),
        (3, "t", 1, "a", "b"),
        (3, "t", 2, "b", "a"),
        (3, "t", 3, None, "b"),
    ]
    rows = _rows(rebalances(events, gens, moves), "generation_id")
    assert [(r["generation_id"], r["reasons"], r["partitions_moved"]) for r in rows] == [
        (2, ["group is already rebalancing", "member joined"], 1),
        (3, ["group is already rebalancing", "rebalance enforced by user: deploy"], 3),
    ]
    assert rows[0]["ts_ms"] == T + 110
    assert rows[0]["leader"] == "a"
    assert rows[0]["first_join_reason_ms"] == T + 100


def test_pauses_pair_each_revoke_with_the_next_assign_of_that_partition(
    events_frame: Any,
) -> None:
    a, b = Member("g", "a", member_id="ma"), Member("g", "b", member_id="mb")
    a.owned = [("t", 0), ("t", 1)]
    events = [
        a.revoked(T + 1000, reason="close"),  # t-0, t-1
        b.assigned(T + 4000, [("t", 0)]),  # t-0 paused 3 s by another member
        b.revoked(T + 5000),  # t-0 again
        b.assigned(T + 5000, [("t", 0)]),  # same millisecond: a pause of 0
    ]  # t-1 is never assigned again: open until the range end
    rows = _rows(pauses(events_frame(events), T + 10_000), "revoked_ms", "partition")
    assert [(r["partition"], r["revoked_ms"], r["assigned_ms"], r["paused_ms"]) for r in rows] == [
        (0, T + 1000, T + 4000, 3000),
        (1, T + 1000, None, 9000),
        (0, T + 5000, T + 5000, 0),
    ]
    assert rows[0]["revoked_by"] == "a"
    assert rows[0]["reason"] == "close"


def test_restarts_with_and_without_rebalance(events_frame: Any) -> None:
    old = Member("g", "a", member_id="m1")
    first = [old.joined(T, 4), old.assigned(T + 1, [("t", 0)]), old.revoked(T + 10, "close")]
    quiet = Member("g", "a")  # a new process: no member id until it joins
    second = [quiet.join_reason(T + 20, "restart"), quiet.emit("joined", T + 21, member_id="m2",
                                                               generation_id=4)]  # fmt: skip
    loud = Member("g", "a", member_id="m3")
    third = [loud.joined(T + 50, 5)]
    dynamic = Member("g", None, member_id="d1")
    others = [dynamic.joined(T, 4), dynamic.emit("joined", T + 50, member_id="d2")]
    rows = _rows(restarts(events_frame(first + second + third + others)), "ts_ms")
    assert [
        (r["previous_member_id"], r["member_id"], r["previous_generation_id"],
         r["generation_id"], r["without_rebalance"])
        for r in rows
    ] == [("m1", "m2", 4, 4, True), ("m2", "m3", 4, 5, False)]  # fmt: skip


def test_time_without_partitions_merges_steps_and_runs_to_range_end(events_frame: Any) -> None:
    a = Member("g", "a", member_id="ma")
    events = [
        a.join_reason(T, "initial"),  # nothing held until the first assignment
        a.joined(T + 100, 1),
        a.assigned(T + 200, [("t", 0)]),
        a.revoked(T + 1000),
        a.join_reason(T + 1100, "rejoin"),
        a.joined(T + 1500, 2),
        a.assigned(T + 1600, []),  # an empty assignment: still nothing
        a.assigned(T + 3000, [("t", 1)]),
        a.revoked(T + 4000, "close"),
    ]
    rows = _rows(unassigned_periods(events_frame(events), T + 5000), "from_ms")
    assert [(r["from_ms"] - T, r["to_ms"] - T, r["duration_ms"]) for r in rows] == [
        (0, 200, 200),
        (1000, 3000, 2000),
        (4000, 5000, 1000),
    ]


def test_fencing_names_both_holders(events_frame: Any) -> None:
    old = Member("g", "a", member_id="m-old", client_id="c-old", host="h-old")
    new = Member("g", "a", member_id="m-new", client_id="c-new", host="h-new")
    other_old = Member("g", "b", member_id="b-old", client_id="c-b", host="h-b")
    other_new = Member("g", "b", member_id="b-new", client_id="c-b2", host="h-b2")
    events = [
        old.joined(T, 1),
        new.joined(T + 10, 1),
        old.fenced(T + 20, api="Heartbeat", other_holder="m-new"),
        old.fenced(T + 21, api="OffsetCommit", other_holder="m-new"),  # same incident
        other_old.joined(T, 1),
        other_new.joined(T + 30, 1),
        other_old.fenced(T + 40, api="SyncGroup"),  # no holder from the coordinator
    ]
    rows = _rows(fencing_incidents(events_frame(events)), "group_instance_id")
    assert [
        (r["group_instance_id"], r["api"], r["fenced_member_id"], r["fenced_host"],
         r["holder_member_id"], r["holder_source"], r["holder_client_id"], r["holder_host"])
        for r in rows
    ] == [
        ("a", "Heartbeat", "m-old", "h-old", "m-new", "coordinator", "c-new", "h-new"),
        ("b", "SyncGroup", "b-old", "h-b", "b-new", "events", "c-b2", "h-b2"),
    ]  # fmt: skip


def test_timeline_keeps_only_changes(events_frame: Any) -> None:
    a = Member("g", "a", member_id="ma")
    dynamic = Member("g", None, member_id="d1")
    events = [
        a.assigned(T, [("t", 0), ("t", 1)]),
        a.assigned(T + 10, [("t", 0), ("t", 1)]),  # no change: not a step
        a.revoked(T + 20),
        a.assigned(T + 30, [("t", 0)]),
        dynamic.assigned(T + 5, [("t", 2)]),
        dynamic.emit("left", T + 40, reason="bye"),
    ]
    rows = _rows(timeline(events_frame(events)), "owner", "ts_ms")
    assert [(r["owner"], r["ts_ms"] - T, r["partitions"]) for r in rows] == [
        ("a", 0, 2),
        ("a", 20, 0),
        ("a", 30, 1),
        ("d1", 5, 1),
        ("d1", 40, 0),
    ]
