"""One chaos run: an ETL group under the nemesis, then the verdict read from Kafka.

A run: an input and an output topic (6 partitions each); ``members`` ETL members
(``_etl_member.py``) started and settled; the reliability suite's idempotent producer writing
to the input all along; the nemesis applying its schedule (``_nemesis.py``); then the producer
stops, and the run measures **liveness**: the time from the last fault until the group is
settled (every running member holds partitions, no change for 2 s) and caught up (committed ==
end of input), bounded by ``liveness_s``. The members then stop cleanly and the verdict
(``_verdict.py``) is read from the two topics and the group's committed offsets.

Besides the verdict, a run checks its members: none died unasked (a process that exited without
the nemesis ending it), none failed to start, none was handed records of a partition it no
longer owned (``stale``), none was fenced but the one replaced while frozen, and that one
committed nothing after it was thawed.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from staticconsumer.localkafka import create_topic

from .. import _processes
from ..reliability._harness import PARTITIONS, Producer, Settings, rebalances_of, settled
from ._nemesis import CRASH_KINDS, KINDS, Applied, EtlMember, Fault, Group, Nemesis
from ._verdict import KafkaView, Verdict, Window, copies_of, judge


@dataclass(frozen=True)
class ChaosConfig:
    kind: str = "staticconsumer"  # or "aiokafka": plain AIOKafkaConsumer, dynamic members
    group_protocol: str = "classic"
    strategy: str = "range"  # "" with the consumer protocol (the broker assigns)
    members: int = 3
    session_timeout_ms: int = 10000  # classic; the consumer protocol's is the broker's
    rate_per_s: float = 200.0
    liveness_s: float = 60.0

    @property
    def static(self) -> bool:
        return self.kind == "staticconsumer"

    @property
    def label(self) -> str:
        how = self.strategy or "broker-assigned"
        return f"{self.kind} {self.group_protocol} {how}"


@dataclass
class ChaosResult:
    config: ChaosConfig
    verdict: Verdict = field(default_factory=Verdict)
    applied: list[Applied] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    liveness_s: float = 0.0
    rebalances: int = 0
    events: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def failures(self) -> list[str]:
        return self.problems + self.verdict.problems()

    def costs(self) -> dict[str, dict[str, float]]:
        """Per fault kind: how many were applied, duplicates they explain, recovery (s)."""
        out: dict[str, dict[str, float]] = {}
        for kind in KINDS:
            times = [s for k, s in self.verdict.recovery_s if k == kind]
            out[kind] = {
                "count": sum(1 for a in self.applied if a.fault.kind == kind and not a.skipped),
                "duplicates": self.verdict.explained.get(kind, 0),
                "recovery_median_s": statistics.median(times) if times else float("nan"),
                "recovery_max_s": max(times, default=float("nan")),
            }
        return out


async def run_chaos(bootstrap: str, config: ChaosConfig, faults: list[Fault],
                    log_dir: Path) -> ChaosResult:  # fmt: skip
    began = time.monotonic()
    suffix = f"{int(time.time())}-{uuid.uuid4().hex[:6]}"
    source, sink = f"chaos-in-{suffix}", f"chaos-out-{suffix}"
    for topic in (source, sink):
        await create_topic(bootstrap, topic, partitions=PARTITIONS)
    settings = Settings(config.kind, bootstrap, source, f"chaos-{suffix}", static=config.static,
                        session_timeout_ms=config.session_timeout_ms,
                        group_protocol=config.group_protocol)  # fmt: skip
    group = Group(lambda name, n: EtlMember(name, n, settings, log_dir, sink, config.strategy))
    producer = Producer(bootstrap, source, config.rate_per_s)
    replace_timeout_s = 2 * max(config.session_timeout_ms, 10000) / 1000 + 30
    nemesis = Nemesis(group, _ports(bootstrap), config.static, replace_timeout_s)
    result = ChaosResult(config, applied=nemesis.applied)
    async with KafkaView(bootstrap) as view:
        try:
            await _run(view, settings, sink, group, producer, nemesis, faults, result)
        finally:
            result.seconds = time.monotonic() - began
            with (log_dir / "chaos-events.json").open("w") as out:  # a failure's post-mortem
                json.dump({f"{m.name}#{m.incarnation}": m.events for m in group.all}, out)
            for member in group.all:
                await member.kill()
            if producer.started_at and not producer.stopped_at:
                await producer.stop()
    return result


async def _run(view: KafkaView, settings: Settings, sink: str, group: Group, producer: Producer,
               nemesis: Nemesis, faults: list[Fault], result: ChaosResult) -> None:  # fmt: skip
    config = result.config
    for _ in range(config.members):
        await group.spawn(group.new_name())
    for member in group.all:
        await member.wait_for(lambda e: e["ev"] == "started", 120)
    await settled(list(group.running.values()), 90)
    await producer.start()
    await asyncio.sleep(1)
    chaos_began = time.monotonic()
    await nemesis.run(faults)
    chaos_ended = time.monotonic()
    await producer.stop()
    result.liveness_s = await _liveness(view, group, settings, config.liveness_s, chaos_ended)
    result.problems += nemesis.problems
    await _processes.stop_all([m.stop() for m in group.running.values()])
    result.problems += _member_problems(group)
    result.rebalances = sum(rebalances_of(m, chaos_began) for m in group.all)
    for member in group.all:
        result.events.update(e["ev"] for e in member.events)
    committed, ends = await view.committed_and_ends(settings.group, settings.topic)
    inputs = {(r.partition, r.offset): r.timestamp for r in await view.read(settings.topic)}
    missing = producer.acked - inputs.keys()
    if missing:
        result.problems.append(f"{len(missing)} acknowledged input records not in the topic")
    copies = copies_of(await view.read(sink))
    faulted = [(a.fault.kind, a.wall) for a in nemesis.applied if not a.skipped]
    result.verdict = judge(inputs, copies, windows_of(group), committed, ends, faulted)


def summary(result: ChaosResult) -> str:
    """The run in a few lines: what was applied, the verdict, the figures, what failed."""
    v = result.verdict
    lines = [
        f"{result.config.label}: {result.seconds:.0f} s, {v.inputs} records, {v.outputs} written, "
        f"{len(v.lost)} lost, {v.duplicates} duplicates ({dict(v.explained)} in crash windows, "
        f"{len(v.unexplained)} outside), {result.rebalances} member rebalances, liveness "
        f"{result.liveness_s:.1f} s, lag max {v.max_lag_s:.2f} s median {v.median_lag_s:.2f} s, "
        f"committed at end: {v.committed_at_end}",
        "faults: " + ", ".join(f"{a.fault.at_s:.1f}s {a.fault.kind} {a.victim}"
                               f"{' skipped: ' + a.skipped if a.skipped else ''}"
                               f"{' ' + ' '.join(a.notes) if a.notes else ''}"
                               for a in result.applied),
        "events: " + ", ".join(f"{k} {n}" for k, n in sorted(result.events.items())),
    ]  # fmt: skip
    lines += [f"FAILED: {p}" for p in result.failures()]
    return "\n".join(lines)


async def _liveness(view: KafkaView, group: Group, settings: Settings, bound_s: float,
                    since: float) -> float:  # fmt: skip
    """Seconds from ``since`` until the group is settled and caught up; the bound breaks it."""
    await settled(list(group.running.values()), bound_s)
    deadline = since + bound_s
    while True:
        committed, ends = await view.committed_and_ends(settings.group, settings.topic)
        if all(committed.get(p, 0) == end for p, end in ends.items()):
            return time.monotonic() - since
        if time.monotonic() > deadline:
            raise AssertionError(f"not caught up {bound_s} s after the chaos: {committed} of "
                                 f"{ends}")  # fmt: skip
        await asyncio.sleep(0.5)


def windows_of(group: Group) -> list[Window]:
    """Each incarnation's crash windows: killed, or frozen (by a freeze or a replacement). A
    window closes, per partition, at the first commit of a batch written after the thaw (a
    commit sent before the freeze may be answered after it: it closes nothing)."""
    out = []
    for member in group.all:
        commits: dict[int, int] = {}
        window: Window | None = None
        thawed = wrote = False
        for event in in_order(member):
            kind = event["ev"]
            if kind == "commit":
                positions = {int(p): o for p, o in event["positions"].items()}
                if window is not None and wrote:
                    for p, o in positions.items():
                        window.until.setdefault(p, o)
                commits.update(positions)
            elif kind in ("killed", "frozen"):
                window = Window(member.name, member.incarnation, event.get("fault", "kill"),
                                dict(commits))  # fmt: skip
                out.append(window)
                thawed = wrote = False
            elif kind == "thawed":
                thawed = True
            elif kind == "produced" and thawed:
                wrote = True
    return out


def in_order(member: EtlMember) -> list[dict[str, Any]]:
    """A member's events by time: the nemesis's marks (``frozen``) and the member's own lines
    (read from its pipe a little later) on one clock, CLOCK_MONOTONIC."""
    return sorted(member.events, key=lambda e: float(e.get("t", 0.0)))


def _member_problems(group: Group) -> list[str]:
    problems = []
    expected_exit = {"": 0, "stop": 0, "leave": 0, "kill": -9, "fence": 4}
    for member in group.all:
        who = f"{member.name}#{member.incarnation}"
        kinds = [e["ev"] for e in in_order(member)]
        code = member.process.returncode if member.process else None
        if code != expected_exit[member.ended_by]:
            problems.append(f"{who} (ended by {member.ended_by or 'the final stop'}) exited "
                            f"with status {code}: {member.events[-3:]}")  # fmt: skip
        for bad in ("start_failed", "stale"):
            if bad in kinds:
                problems.append(f"{who}: {bad} {[e for e in member.events if e['ev'] == bad]}")
        if "fenced" in kinds and member.ended_by != "fence":
            problems.append(f"{who} fenced unasked")
        if member.ended_by == "fence":
            # A commit sent before the freeze may be answered after the thaw; a batch written
            # after the thaw must not be committed.
            thawed = max(i for i, k in enumerate(kinds) if k == "thawed")
            after = kinds[thawed:]
            if "produced" in after and "commit" in after[after.index("produced") :]:
                problems.append(f"{who} committed after it was replaced and thawed")
    return problems


def _ports(bootstrap: str) -> list[int]:
    return [int(address.rsplit(":", 1)[1]) for address in bootstrap.split(",")]


__all__ = ["CRASH_KINDS", "ChaosConfig", "ChaosResult", "run_chaos", "summary", "windows_of"]
