"""The figures the reliability scenarios assert on, computed from made-up member events (so that
a miscount cannot hide a rebalance or a duplicate in the broker tests)."""

from __future__ import annotations

import time
from pathlib import Path

from ._harness import (
    MemberProcess,
    Producer,
    Settings,
    figures,
    rebalance_reasons,
    rebalances_of,
)


def member(name: str, events: list[dict[str, object]]) -> MemberProcess:
    m = MemberProcess(name, Settings("staticconsumer", "b", "t", "g"), Path("."))
    m.events = [dict(e) for e in events]
    return m


def ev(kind: str, t: float, **fields: object) -> dict[str, object]:
    return {"ev": kind, "t": t, **fields}


def test_only_assignments_after_the_first_and_after_the_stable_point_are_rebalances() -> None:
    m = member("m0", [
        ev("spawned", 0), ev("assigned", 1, partitions=[0, 1]),
        ev("revoked", 2, partitions=[0, 1]), ev("assigned", 2.1, partitions=[0]),  # start-up
        ev("revoked", 6, partitions=[0]), ev("assigned", 6.1, partitions=[0]),      # a rebalance
        ev("stop_requested", 7), ev("revoked", 7.1, partitions=[0]), ev("stopped", 7.2),
        ev("spawned", 8), ev("assigned", 9, partitions=[0]),                        # a restart
    ])  # fmt: skip
    assert rebalances_of(m, since=5) == 1
    assert rebalances_of(m, since=0) == 2


def test_duplicates_losses_and_stalls() -> None:
    producer = Producer("b", "t")
    producer.acked = {(0, 0), (0, 1), (0, 2), (1, 0)}
    producer.started_at, producer.stopped_at = 0.0, 100.0
    a = member("m0", [ev("records", 1, partition=0, offsets=[0, 1]),
                      ev("records", 2, partition=0, offsets=[0, 1, 2])])  # fmt: skip
    b = member("m1", [ev("records", 9, partition=1, offsets=[1]),
                      ev("start_failed", 9.5, error="X")])  # fmt: skip
    out = figures("s", [a, b], producer, committed={0: 3, 1: 2}, since=0)
    assert out.duplicates == 2  # offsets 0 and 1 of partition 0, read twice
    assert out.lost == 1  # (1, 0) was acknowledged and never consumed
    assert out.consumed == {0: 5, 1: 1} and out.consumed != out.committed
    assert out.failed_starts == 1
    assert out.stall_s == 7.0


def test_the_last_position_of_a_partition_comes_from_its_last_owner_to_stop() -> None:
    producer = Producer("b", "t")
    # m1 stopped early owning partition 0; m0 took it over and stopped last.
    early = member("m1", [ev("stopped", 5, positions={"0": 37})])
    late = member("m0", [ev("stopped", 9, positions={"0": 245, "1": 245})])
    for order in ([early, late], [late, early]):
        assert figures("s", order, producer, {}, since=0).last_positions == {0: 245, 1: 245}


def test_a_counted_rebalance_is_explained_by_the_coordinators_log_line() -> None:
    logs = "\n".join([
        "[2026-11-25 02:09:55,711] INFO [GroupCoordinator id=3 topic=__consumer_offsets "
        "partition=2] Preparing to rebalance group g-1 in state PreparingRebalance with old "
        "generation 2 (reason: Adding new member m0-1 with group instance id m0; client reason: "
        "initial join of the consumer). (org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "[2026-11-25 02:10:20,001] INFO [GroupCoordinator id=1 topic=__consumer_offsets "
        "partition=2] Preparing to rebalance group g-1 in state PreparingRebalance with old "
        "generation 3 (reason: Updating metadata for static member m0-2 with instance id m0; "
        "client reason: rejoining after an error from the group coordinator). "
        "(org.apache.kafka.coordinator.group.GroupMetadataManager)",
        "[2026-11-25 02:10:21,001] INFO [GroupCoordinator id=1] Preparing to rebalance group "
        "g-10 in state PreparingRebalance with old generation 1 (reason: other group)",
    ])  # fmt: skip
    since = time.mktime(time.strptime("2026-11-25 02:10:00", "%Y-%m-%d %H:%M:%S"))
    assert rebalance_reasons(logs, "g-1", since) == [
        "gen 3: reason: Updating metadata for static member m0-2 with instance id m0; client "
        "reason: rejoining after an error from the group coordinator"
    ]
