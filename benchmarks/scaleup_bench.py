"""A static group of 4 grows to 8 (issue 21, KIP-469 kept by the client), same run, side by side.

    python benchmarks/scaleup_bench.py [--rounds 1] [--stagger-s 3] [--no-java]
        [--bootstrap-servers H:P]

4 static StaticConsumers own a 16-partition topic with a producer running; 4 new static members
then start, either one every ``--stagger-s`` seconds (as a StatefulSet with the default
``OrderedReady`` policy brings pods up: a member waiting at the roster's barrier is ready) or all
at once (``Parallel``). Scenarios: eager ``range`` and ``cooperative-sticky`` (classic protocol)
alone, with the 4 new ids registered first (``register_members``: the leader plans under the
roster; ``roster_barrier=False``), and registered with the join barrier (the default); the
consumer protocol (KIP-848, the broker's default assignor) alone and registered with the barrier.
From the rebalance listeners' calls and the group it prints:

* **rebalances**: generations gone through until the 8 are stable (KIP-848: group epochs, which
  move once per joining member, batched or not);
* **moves**: times a partition was handed to a member other than its last owner;
* **needed**: partitions whose final owner is not their first (the fewest moves that reach the
  final plan: 8 for a sticky assignor; ``range`` re-cuts its ranges, 14 here);
* **moved twice**: partitions that changed owner more than once;
* **paused partition-seconds**: per partition, the time from being revoked until it is handed
  out again, summed (the eager protocol pauses every partition at each rebalance);
* **all own s**: from the first new member's start until all 8 own partitions at once;
* **seconds**: from the first new member's start until the group of 8 is stable;
* **lost**, **duplicates**: after the producer stops and the group drains the topic, records
  never consumed, and records consumed more than once (members commit after every batch and in
  ``on_partitions_revoked``, as Java's docs advise).

The Java client (kafka-clients 4.3.1, ``scaleup_java.py``: classic with Java's
``CooperativeStickyAssignor``, and ``group.protocol=consumer``) runs the same growth as the
reference (its records are not tracked: lost and duplicates show ``-``); it needs a JDK and Maven
(``tests/java``), and is skipped with a line saying so without them.

Ratios are against ``range`` without a roster in the same run. Goal (issue 21): with the roster,
moves == needed (no partition moved twice), whatever the arrival order; with cooperative-sticky,
fewer rebalances, and the running members never stop for the arrivals that take nothing. A local
broker is started unless ``--bootstrap-servers`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

from _broker import bootstrap_servers, produce_until  # benchmarks/, the script's own folder
from cooperative_bench import Member, Recorder, figures
from cooperative_bench import stable as settled_group
from scaleup_java import JAVA_SCENARIOS, java_command, java_run, owners_at, take

from staticconsumer import StaticConsumer
from staticconsumer.admin import DEFAULT_ROSTER_TOPIC, describe_group, register_members

PARTITIONS = 16
RUNNING, ARRIVING = 4, 4
TP = tuple[str, int]
Calls = list[tuple[float, str, str, frozenset[TP]]]


def moves(calls: Calls, since: float, owners: dict[TP, str]) -> tuple[int, int]:
    """(moves, partitions moved more than once) from ``owners`` at ``since`` on."""
    last = dict(owners)
    changed: dict[TP, int] = {}
    for _t, kind, member, tps in sorted(c for c in calls if c[0] >= since):
        if kind != "assigned":
            continue
        for tp in tps:
            if last.get(tp) != member:
                changed[tp] = changed.get(tp, 0) + 1
                last[tp] = member
    return sum(changed.values()), sum(1 for n in changed.values() if n > 1)


def all_own_s(calls: Calls, since: float, owners: dict[TP, str], members: list[str]) -> float:
    """Seconds from ``since`` until every one of ``members`` owned partitions at once."""
    owned: dict[str, set[TP]] = {m: set() for m in members}
    for tp, who in owners.items():
        owned.setdefault(who, set()).add(tp)
    for t, kind, who, tps in sorted(c for c in calls if c[0] >= since):
        take(owned, kind, who, tps)
        if all(owned[m] for m in members):
            return t - since
    return float("nan")


def summary(
    calls: Calls, since: float, owners: dict[TP, str], final: dict[TP, str], members: list[str]
) -> dict[str, float]:
    """The figures one growth gives (module docstring), from the listeners' calls after
    ``since``, the owners then and at the end; rebalances, seconds, lost and duplicates are the
    caller's."""
    result = figures(calls, since)
    result["moves"], result["moved_twice"] = moves(calls, since, owners)
    result["needed"] = sum(1 for tp, who in final.items() if owners.get(tp) != who)
    result["all_own_s"] = all_own_s(calls, since, owners, members)
    return result


class Tracked(Member):
    """A member that remembers every offset it consumed (lost and duplicates)."""

    def __init__(self, consumer: StaticConsumer, seen: dict[TP, dict[int, int]]) -> None:
        self.seen = seen
        super().__init__(consumer)

    def consumed(self, batch: dict[Any, list[Any]]) -> None:
        for tp, records in batch.items():
            counts = self.seen.setdefault((tp.topic, tp.partition), {})
            for r in records:
                counts[r.offset] = counts.get(r.offset, 0) + 1


async def drained(members: list[Member], seen: dict[TP, dict[int, int]]) -> tuple[int, int]:
    """(lost, duplicates) once every record up to the end offsets is consumed, or 60 s."""
    from aiokafka import TopicPartition

    tps = [TopicPartition(*tp) for tp in sorted({tp for m in members for tp in _owned(m)})]
    ends = await members[0].consumer.end_offsets(tps)
    want = {(tp.topic, tp.partition): end for tp, end in ends.items()}
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(60):
            while any(len(seen.get(tp, {})) < end for tp, end in want.items()):  # noqa: ASYNC110
                await asyncio.sleep(0.2)
    lost = sum(max(0, end - len(seen.get(tp, {}))) for tp, end in want.items())
    dups = sum(n - 1 for counts in seen.values() for n in counts.values())
    return lost, dups


def _owned(member: Member) -> set[TP]:
    return {(tp.topic, tp.partition) for tp in member.consumer.assignment()}


async def stable(members: list[Member]) -> None:
    """Every partition owned once, every member stable on one generation, for 2 s."""
    await settled_group(members, partitions=PARTITIONS, quiet_s=2.0, settled=True, timeout_s=180)


@dataclass(frozen=True)
class Scenario:
    """One way to grow the group: the assignor (classic) or ``"consumer"`` (KIP-848), whether
    the new ids are registered first, and whether the arrivals wait at the roster's barrier."""

    assignor: str
    roster: bool = False
    barrier: bool = False

    @property
    def name(self) -> str:
        what = "consumer protocol" if self.assignor == CONSUMER else self.assignor
        return what + (" + roster" if self.roster else "") + (" + barrier" if self.barrier else "")

    def consumer_args(self) -> dict[str, Any]:
        # Pre-registration is opt-in (issue 31): only the roster scenarios read a roster.
        common: dict[str, Any] = {
            "roster_barrier": self.barrier,
            "roster_topic": DEFAULT_ROSTER_TOPIC if self.roster else None,
        }
        if self.assignor == CONSUMER:
            return {**common, "group_protocol": "consumer"}
        return {**common, "partition_assignment_strategy": self.assignor,
                "session_timeout_ms": 30_000, "heartbeat_interval_ms": 500}  # fmt: skip


CONSUMER = "consumer"


async def _epoch(bootstrap: str, group: str, members: list[Member], scenario: Scenario) -> int:
    """The classic generation, or the KIP-848 group epoch (it moves on every join)."""
    if scenario.assignor != CONSUMER:
        return int(members[0].consumer.generation_id)
    return (await describe_group(bootstrap, group)).group_epoch or 0


async def scenario_run(bootstrap: str, scenario: Scenario, stagger_s: float) -> dict[str, float]:
    from staticconsumer.localkafka import create_topic

    tag = uuid.uuid4().hex[:8]
    topic, group = f"scaleup-{tag}", f"scaleup-{tag}"
    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    recorder, stop = Recorder(0.0), asyncio.Event()
    producing = asyncio.create_task(produce_until(bootstrap, topic, PARTITIONS, stop))
    seen: dict[TP, dict[int, int]] = {}

    async def start(i: int) -> Member:
        consumer = StaticConsumer(
            bootstrap_servers=bootstrap, group_id=group, group_instance_id=f"m-{i}",
            enable_auto_commit=False, auto_offset_reset="earliest", **scenario.consumer_args(),
        )  # fmt: skip
        consumer.subscribe([topic], listener=recorder.listener(f"m-{i}", commit=consumer))
        await consumer.start()
        return Tracked(consumer, seen)

    members = [await start(i) for i in range(RUNNING)]
    await stable(members)
    if scenario.roster:
        ids = [f"m-{i}" for i in range(RUNNING + ARRIVING)]
        await register_members(bootstrap, group, ids, wait_ms=120_000)
    epoch = await _epoch(bootstrap, group, members, scenario)
    owners = {(tp.topic, tp.partition): f"m-{i}"
              for i, m in enumerate(members) for tp in m.consumer.assignment()}  # fmt: skip
    t0 = time.monotonic()
    # Pods start stagger_s apart (start() may still be waiting at the barrier: a waiting member
    # is ready, so an OrderedReady StatefulSet goes on).
    arriving = []
    for i in range(RUNNING, RUNNING + ARRIVING):
        arriving.append(asyncio.create_task(start(i)))
        await asyncio.sleep(stagger_s)
    members += await asyncio.gather(*arriving)
    await stable(members)
    took = time.monotonic() - t0
    final = {(tp.topic, tp.partition): f"m-{i}"
             for i, m in enumerate(members) for tp in m.consumer.assignment()}  # fmt: skip
    names = [f"m-{i}" for i in range(RUNNING + ARRIVING)]
    result = summary(recorder.calls, t0, owners, final, names)
    result["rebalances"] = await _epoch(bootstrap, group, members, scenario) - epoch
    result["seconds"] = took
    stop.set()
    await producing
    result["lost"], result["duplicates"] = await drained(members, seen)
    for m in members:
        await m.stop()
    return result


SCENARIOS = (
    Scenario("range"), Scenario("range", roster=True), Scenario("range", True, True),
    Scenario("cooperative-sticky"), Scenario("cooperative-sticky", roster=True),
    Scenario("cooperative-sticky", True, True),
    Scenario(CONSUMER), Scenario(CONSUMER, True, True),
)  # fmt: skip
KEYS = ("rebalances", "moves", "needed", "moved_twice", "paused_partition_s", "all_own_s",
        "seconds", "lost", "duplicates")  # fmt: skip


async def java_scenario_run(
    command: list[str], bootstrap: str, name: str, stagger_s: float
) -> dict[str, float]:
    from staticconsumer.localkafka import create_topic

    tag = uuid.uuid4().hex[:8]
    topic, group = f"scaleup-java-{tag}", f"scaleup-java-{tag}"
    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    stop = asyncio.Event()
    producing = asyncio.create_task(produce_until(bootstrap, topic, PARTITIONS, stop))

    async def epoch() -> int:
        return (await describe_group(bootstrap, group)).group_epoch or 0

    try:
        calls, t0, owners, rebalances = await java_run(
            command, bootstrap, name, topic, group, (RUNNING, ARRIVING, PARTITIONS), stagger_s,
            epoch,
        )  # fmt: skip
    finally:
        stop.set()
        await producing
    names = sorted({c[2] for c in calls})
    result = summary(calls, t0, owners, owners_at(calls, float("inf")), names)
    result["rebalances"] = rebalances
    result["seconds"] = max(c[0] for c in calls) - t0
    result["lost"] = result["duplicates"] = float("nan")
    return result


async def run(
    bootstrap: str, rounds: int, stagger_s: float, java: bool, only: str | None = None
) -> None:
    command = java_command() if java else None
    scenarios = [s for s in SCENARIOS if only is None or s.name.startswith(only)]
    for label, stagger in (("staggered", stagger_s), ("together", 0.0)):
        results: dict[str, list[dict[str, float]]] = {}
        for r in range(rounds):
            for scenario in scenarios:
                got = await scenario_run(bootstrap, scenario, stagger)
                results.setdefault(scenario.name, []).append(got)
                print(f"  {label} round {r + 1} {scenario.name:36} {got}", file=sys.stderr)
            for name in JAVA_SCENARIOS if command and only is None else ():
                got = await java_scenario_run(command or [], bootstrap, name, stagger)
                results.setdefault(name, []).append(got)
                print(f"  {label} round {r + 1} {name:36} {got}", file=sys.stderr)
        report(label, stagger, results)


def report(label: str, stagger_s: float, results: dict[str, list[dict[str, float]]]) -> None:
    how = f"one every {stagger_s:g} s" if stagger_s else "all at once"
    rounds = len(next(iter(results.values())))
    print(f"\n{RUNNING} static members + {ARRIVING} new ones, {how} ({label}); {PARTITIONS} "
          f"partitions, live producer; median of {rounds} round(s)")  # fmt: skip
    print(f"{'assignor':36} " + " ".join(f"{k:>13}" for k in KEYS))
    medians = {
        name: {k: statistics.median(r[k] for r in rows) for k in KEYS}
        for name, rows in results.items()
    }
    for name, m in medians.items():
        print(f"{name:36} " + " ".join(f"{m[k]:13.2f}" if m[k] == m[k] else f"{'-':>13}"
                                       for k in KEYS))  # fmt: skip
    base = medians.get("range")
    for name, m in medians.items():
        if name == "range" or base is None:
            continue
        ratios = [f"{k} {m[k] / base[k]:.2f}" if base[k] else f"{k} -" for k in KEYS]
        print(f"  ratio to range, {name}: " + ", ".join(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--stagger-s", type=float, default=3.0)
    parser.add_argument("--bootstrap-servers")
    parser.add_argument("--no-java", action="store_true", help="skip the Java reference")
    parser.add_argument("--only", help="only the scenarios whose name starts with this "
                        "(e.g. 'consumer'); no Java reference then")  # fmt: skip
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    with bootstrap_servers(args.bootstrap_servers) as bootstrap:
        asyncio.run(run(bootstrap, args.rounds, args.stagger_s, not args.no_java, args.only))


if __name__ == "__main__":
    main()
