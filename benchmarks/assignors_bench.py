"""Time our assignors against aiokafka's built-in ones (same inputs, same run).

    PYTHONPATH=. python benchmarks/assignors_bench.py [--members 2000] [--partitions 20000]

Prints seconds per plan and the ratio aiokafka / ours. Not a test. Scenario: every member
subscribes to all topics (20 topics of equal size); "sticky rebalance" adds one member to a group
whose members already own a balanced plan (the realistic sticky case).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from aiokafka.cluster import ClusterMetadata
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from aiokafka.coordinator.protocol import ConsumerProtocolMemberMetadata
from aiokafka.protocol.metadata import MetadataResponse_v0

from assignors import Member, assign_range, assign_roundrobin, assign_sticky

TOPICS = 20


def timed(fn: Callable[[], object], budget: float = 2.0) -> float:
    """Best of up to five runs; stops early once ~budget seconds are spent (a slow run counts)."""
    best = float("inf")
    spent = 0.0
    for _ in range(5):
        if spent >= budget:
            break
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        best = min(best, took)
        spent += took
    return best


def scenario(members: int, partitions: int) -> dict[str, tuple[float, float | None]]:
    per_topic = max(1, partitions // TOPICS)
    counts = {f"topic-{t:02d}": per_topic for t in range(TOPICS)}
    topics = sorted(counts)
    group = [Member(f"member-{i:05d}", f"svc-{i:05d}", topics) for i in range(members)]
    cluster = ClusterMetadata()
    cluster.update_metadata(
        MetadataResponse_v0(
            [(0, "localhost", 9092)],
            [(0, t, [(0, p, 0, [0], [0]) for p in range(n)]) for t, n in counts.items()],
        )
    )
    meta = {m.member_id: ConsumerProtocolMemberMetadata(0, topics, b"") for m in group}

    plan = assign_sticky(group, counts)
    owned = [Member(m.member_id, m.group_instance_id, topics, plan[m.member_id], 1) for m in group]
    joined = [*owned, Member("member-new", "svc-new", topics)]
    # Half the members subscribe to half the topics: the general (non-identical) sticky path.
    uneven = [
        Member(m.member_id, m.group_instance_id, topics if i % 2 else topics[: TOPICS // 2])
        for i, m in enumerate(group)
    ]
    uneven_meta = {
        m.member_id: ConsumerProtocolMemberMetadata(0, list(m.topics), b"") for m in uneven
    }

    def aiokafka_sticky_uneven() -> None:
        StickyPartitionAssignor.member_assignment = None
        StickyPartitionAssignor.assign(cluster, uneven_meta)

    def aiokafka_sticky() -> None:
        StickyPartitionAssignor.member_assignment = None  # its class-level state
        StickyPartitionAssignor.assign(cluster, meta)

    rows: dict[str, tuple[float, float | None]] = {
        "range": (
            timed(lambda: assign_range(group, counts)),
            timed(lambda: RangePartitionAssignor.assign(cluster, meta)),
        ),
        "roundrobin": (
            timed(lambda: assign_roundrobin(group, counts)),
            timed(lambda: RoundRobinPartitionAssignor.assign(cluster, meta)),
        ),
        "sticky (fresh)": (
            timed(lambda: assign_sticky(group, counts)),
            timed(aiokafka_sticky, budget=2.0) if members * partitions <= 4_000_000 else None,
        ),
        "sticky (one joins)": (timed(lambda: assign_sticky(joined, counts)), None),
        "sticky (uneven subs)": (
            timed(lambda: assign_sticky(uneven, counts)),
            timed(aiokafka_sticky_uneven, budget=2.0)
            if members * partitions <= 4_000_000
            else None,
        ),
    }
    return rows


def report(members: int, partitions: int) -> None:
    print(f"\n{members} members x {partitions} partitions ({TOPICS} topics)")
    print(f"  {'assignor':20} {'ours s':>10} {'aiokafka s':>11} {'aiokafka/ours':>14}")
    for name, (ours, theirs) in scenario(members, partitions).items():
        other = f"{theirs:11.4f}" if theirs is not None else f"{'skipped':>11}"
        ratio = f"{theirs / ours:14.1f}" if theirs is not None else f"{'-':>14}"
        print(f"  {name:20} {ours:10.4f} {other} {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--partitions", type=int, default=20000)
    parser.add_argument("--no-curve", action="store_true", help="skip the scaling curve")
    args = parser.parse_args()
    report(args.members, args.partitions)
    if not args.no_curve:
        print("\nscaling curve (partitions = 10 x members)")
        for members in (50, 100, 200, 500, 1000, 2000):
            report(members, members * 10)


if __name__ == "__main__":
    main()
