"""A static group of 4 grows to 8 (issue 21, KIP-469 kept by the client), same run, side by side.

    python benchmarks/scaleup_bench.py [--rounds 1] [--stagger-s 3] [--bootstrap-servers H:P]

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
* **seconds**: from the first new member's start until the group of 8 is stable.

Ratios are against ``range`` without a roster in the same run. Goal (issue 21): with the roster,
moves == needed (no partition moved twice), whatever the arrival order; with cooperative-sticky,
fewer rebalances, and the running members never stop for the arrivals that take nothing. A local
broker is started unless ``--bootstrap-servers`` is given.
"""

from __future__ import annotations

import argparse
import asyncio
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

from staticconsumer import StaticConsumer
from staticconsumer.admin import describe_group, register_members

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
        common: dict[str, Any] = {"roster_barrier": self.barrier}
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

    async def start(i: int) -> Member:
        consumer = StaticConsumer(
            bootstrap_servers=bootstrap, group_id=group, group_instance_id=f"m-{i}",
            enable_auto_commit=False, auto_offset_reset="earliest", **scenario.consumer_args(),
        )  # fmt: skip
        consumer.subscribe([topic], listener=recorder.listener(f"m-{i}"))
        await consumer.start()
        return Member(consumer)

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
    result = figures(recorder.calls, t0)
    result["moves"], result["moved_twice"] = moves(recorder.calls, t0, owners)
    final = {(tp.topic, tp.partition): f"m-{i}"
             for i, m in enumerate(members) for tp in m.consumer.assignment()}  # fmt: skip
    result["needed"] = sum(1 for tp, who in final.items() if owners.get(tp) != who)
    result["rebalances"] = await _epoch(bootstrap, group, members, scenario) - epoch
    result["seconds"] = took
    stop.set()
    await producing
    for m in members:
        await m.stop()
    return result


SCENARIOS = (
    Scenario("range"), Scenario("range", roster=True), Scenario("range", True, True),
    Scenario("cooperative-sticky"), Scenario("cooperative-sticky", roster=True),
    Scenario("cooperative-sticky", True, True),
    Scenario(CONSUMER), Scenario(CONSUMER, True, True),
)  # fmt: skip
KEYS = ("rebalances", "moves", "needed", "moved_twice", "paused_partition_s", "seconds")


async def run(bootstrap: str, rounds: int, stagger_s: float) -> None:
    for label, stagger in (("staggered", stagger_s), ("together", 0.0)):
        results: dict[str, list[dict[str, float]]] = {}
        for r in range(rounds):
            for scenario in SCENARIOS:
                got = await scenario_run(bootstrap, scenario, stagger)
                results.setdefault(scenario.name, []).append(got)
                print(f"  {label} round {r + 1} {scenario.name:36} {got}", file=sys.stderr)
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
    base = medians["range"]
    for name, m in medians.items():
        print(f"{name:36} " + " ".join(f"{m[k]:13.2f}" for k in KEYS))
    for name, m in medians.items():
        if name == "range":
            continue
        ratios = [f"{k} {m[k] / base[k]:.2f}" if base[k] else f"{k} -" for k in KEYS]
        print(f"  ratio to range, {name}: " + ", ".join(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--stagger-s", type=float, default=3.0)
    parser.add_argument("--bootstrap-servers")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    with bootstrap_servers(args.bootstrap_servers) as bootstrap:
        asyncio.run(run(bootstrap, args.rounds, args.stagger_s))


if __name__ == "__main__":
    main()
