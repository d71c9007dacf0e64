"""Time our assignors against aiokafka's built-in ones and Java's (same inputs, same run).

    PYTHONPATH=. python benchmarks/assignors_bench.py [--members 2000] [--partitions 20000]
        [--no-curve] [--no-java]

Prints milliseconds per plan (best of several runs) and the time ratios ours/aiokafka and
ours/Java (below 1: ours is faster). Not a test. Scenario: every member subscribes to all topics
(20 topics of equal size); "one joins" adds one member to a group whose members already own a
balanced plan (the realistic sticky case); "uneven subs" has every other member subscribe to the
first half of the topics only.

Java's figures come from kafka-clients 4.3.1 (``RangeAssignor``, ``RoundRobinAssignor``,
``StickyAssignor`` and ``CooperativeStickyAssignor``), timed inside one JVM after warm-up by
``tests/java/AssignorBench.java``, which builds the same inputs (the same member, instance and
topic names). That JVM is built and started with ``tests/java/assignor_harness.py``; without a JDK
the Java columns show ``-`` and the reason is printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from aiokafka.cluster import ClusterMetadata
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from aiokafka.coordinator.protocol import ConsumerProtocolMemberMetadata
from aiokafka.protocol.metadata import MetadataResponse_v0

from assignors import Member, assign_range, assign_roundrobin, assign_sticky

TOPICS = 20
HARNESS = Path(__file__).resolve().parents[1] / "tests" / "java" / "assignor_harness.py"
# Our row -> Java's (assignor, scenario) on the same input; sticky rows also time Java's
# cooperative sticky assignor ("coop" column).
JAVA_ROWS = {
    "range": ("range", "fresh"),
    "roundrobin": ("roundrobin", "fresh"),
    "sticky (fresh)": ("sticky", "fresh"),
    "sticky (one joins)": ("sticky", "joins"),
    "sticky (uneven subs)": ("sticky", "uneven"),
}

Row = tuple[float, float | None]


def timed(fn: Callable[[], object], budget: float = 2.0) -> float:
    """Best of up to 25 runs; stops early once ~budget seconds are spent (a slow run counts)."""
    best = float("inf")
    spent = 0.0
    for _ in range(25):
        if spent >= budget:
            break
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        best = min(best, took)
        spent += took
    return best


def _load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("assignor_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class JavaBench:
    """One JVM running ``AssignorBench`` for the whole run; a line in, a figure out."""

    def __init__(self) -> None:
        command = _load_harness().build("AssignorBench")
        self._stderr = tempfile.TemporaryFile(mode="w+")  # SLF4J's no-logger notice goes here
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True
        )

    def seconds(self, algo: str, scenario: str, members: int, partitions: int) -> float:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(f"bench {algo} {scenario} {members} {partitions} {TOPICS}\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        fields = line.split()
        if fields[:3] != ["bench", algo, scenario]:
            self._stderr.seek(0)
            raise RuntimeError(
                f"AssignorBench answered {line!r} (exit {self._process.poll()}):\n"
                + self._stderr.read()[-2000:]
            )
        return float(fields[3])

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._stderr.close()


def scenario(members: int, partitions: int) -> dict[str, Row]:
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

    rows: dict[str, Row] = {
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


def _cell(seconds: float | None, width: int) -> str:
    """Milliseconds, three decimals (Java's small plans take microseconds)."""
    return f"{seconds * 1000:{width}.3f}" if seconds is not None else f"{'-':>{width}}"


def _ratio(ours: float, theirs: float | None, width: int) -> str:
    return f"{ours / theirs:{width}.3g}" if theirs else f"{'-':>{width}}"


def report(members: int, partitions: int, java: JavaBench | None) -> None:
    print(f"\n{members} members x {partitions} partitions ({TOPICS} topics)")
    print(
        f"  {'assignor':20} {'ours ms':>9} {'aiokafka ms':>11} {'Java ms':>9} {'coop ms':>9}"
        f" {'ours/aiokafka':>13} {'ours/Java':>9}"
    )
    for name, (ours, theirs) in scenario(members, partitions).items():
        java_s = coop_s = None
        if java is not None:
            algo, kind = JAVA_ROWS[name]
            java_s = java.seconds(algo, kind, members, partitions)
            if algo == "sticky":
                coop_s = java.seconds("cooperative-sticky", kind, members, partitions)
        cells = [_cell(ours, 9), _cell(theirs, 11), _cell(java_s, 9), _cell(coop_s, 9)]
        ratios = [_ratio(ours, theirs, 13), _ratio(ours, java_s, 9)]
        print(f"  {name:20} {' '.join(cells)} {' '.join(ratios)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--partitions", type=int, default=20000)
    parser.add_argument("--no-curve", action="store_true", help="skip the scaling curve")
    parser.add_argument("--no-java", action="store_true", help="skip Java's assignors")
    args = parser.parse_args()
    java = None
    if not args.no_java:
        try:
            java = JavaBench()
        except Exception as exc:  # no JDK, no Maven, no network: our figures still count
            print(f"Java assignors not timed: {exc}")
    try:
        report(args.members, args.partitions, java)
        if not args.no_curve:
            print("\nscaling curve (partitions = 10 x members)")
            for members in (50, 100, 200, 500, 1000, 2000):
                if (members, members * 10) != (args.members, args.partitions):
                    report(members, members * 10, java)
    finally:
        if java is not None:
            java.close()


if __name__ == "__main__":
    main()
