"""A static group of 4 grows to 8 (issue 21, KIP-469 kept by the client), same run, side by side.

    python benchmarks/scaleup_bench.py [--rounds 1] [--stagger-s 3] [--bootstrap-servers H:P]

4 static StaticConsumers own a 16-partition topic with a producer running; 4 new static members
then start, either one every ``--stagger-s`` seconds (as a StatefulSet with the default
``OrderedReady`` policy brings pods up) or all at once (``Parallel``). For each assignor
(eager ``range``, ``cooperative-sticky``), without and with the 4 new ids registered first
(``register_members``, the roster the classic leader plans under), it prints, from the rebalance
listeners' calls and the generations:

* **rebalances**: generations gone through until the 8 are stable;
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

from _broker import bootstrap_servers, produce_until  # benchmarks/, the script's own folder
from cooperative_bench import Member, Recorder, figures

from staticconsumer import StaticConsumer
from staticconsumer.admin import register_members

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


async def stable(members: list[Member], quiet_s: float = 2.0) -> None:
    """Every partition owned once, every member stable on one generation, for ``quiet_s``."""
    async with asyncio.timeout(180):
        quiet_since: float | None = None
        while True:
            owned = [tp for m in members for tp in m.consumer.assignment()]
            gens = {m.consumer.generation_id for m in members}
            states = {m.consumer.membership.state.value for m in members}
            ok = len(owned) == len(set(owned)) == PARTITIONS and len(gens) == 1
            ok = ok and states == {"stable"}
            now = time.monotonic()
            quiet_since = (quiet_since or now) if ok else None
            if quiet_since is not None and now - quiet_since >= quiet_s:
                return
            await asyncio.sleep(0.05)


async def scenario(
    bootstrap: str, strategy: str, roster: bool, stagger_s: float
) -> dict[str, float]:
    from staticconsumer.localkafka import create_topic

    tag = uuid.uuid4().hex[:8]
    topic, group = f"scaleup-{tag}", f"scaleup-{tag}"
    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    recorder, stop = Recorder(0.0), asyncio.Event()
    producing = asyncio.create_task(produce_until(bootstrap, topic, PARTITIONS, stop))

    async def start(i: int) -> Member:
        consumer = StaticConsumer(
            bootstrap_servers=bootstrap, group_id=group, group_instance_id=f"m-{i}",
            partition_assignment_strategy=strategy, session_timeout_ms=30_000,
            heartbeat_interval_ms=500, enable_auto_commit=False, auto_offset_reset="earliest",
        )  # fmt: skip
        consumer.subscribe([topic], listener=recorder.listener(f"m-{i}"))
        await consumer.start()
        return Member(consumer)

    members = [await start(i) for i in range(RUNNING)]
    await stable(members)
    if roster:
        ids = [f"m-{i}" for i in range(RUNNING + ARRIVING)]
        await register_members(bootstrap, group, ids, wait_ms=120_000)
    generation = members[0].consumer.generation_id
    owners = {(tp.topic, tp.partition): f"m-{i}"
              for i, m in enumerate(members) for tp in m.consumer.assignment()}  # fmt: skip
    t0 = time.monotonic()
    if stagger_s > 0:
        for i in range(RUNNING, RUNNING + ARRIVING):
            members.append(await start(i))
            await asyncio.sleep(stagger_s)
    else:
        members += await asyncio.gather(*(start(i) for i in range(RUNNING, RUNNING + ARRIVING)))
    await stable(members)
    took = time.monotonic() - t0
    result = figures(recorder.calls, t0)
    result["moves"], result["moved_twice"] = moves(recorder.calls, t0, owners)
    final = {(tp.topic, tp.partition): f"m-{i}"
             for i, m in enumerate(members) for tp in m.consumer.assignment()}  # fmt: skip
    result["needed"] = sum(1 for tp, who in final.items() if owners.get(tp) != who)
    result["rebalances"] = members[0].consumer.generation_id - generation
    result["seconds"] = took
    stop.set()
    await producing
    for m in members:
        await m.stop()
    return result


SCENARIOS = (
    ("range", False), ("range", True),
    ("cooperative-sticky", False), ("cooperative-sticky", True),
)  # fmt: skip
KEYS = ("rebalances", "moves", "needed", "moved_twice", "paused_partition_s", "seconds")


async def run(bootstrap: str, rounds: int, stagger_s: float) -> None:
    for label, stagger in (("staggered", stagger_s), ("together", 0.0)):
        results: dict[str, list[dict[str, float]]] = {}
        for r in range(rounds):
            for strategy, roster in SCENARIOS:
                name = f"{strategy}{' + roster' if roster else ''}"
                got = await scenario(bootstrap, strategy, roster, stagger)
                results.setdefault(name, []).append(got)
                print(f"  {label} round {r + 1} {name:28} {got}", file=sys.stderr)
        report(label, stagger, results)


def report(label: str, stagger_s: float, results: dict[str, list[dict[str, float]]]) -> None:
    how = f"one every {stagger_s:g} s" if stagger_s else "all at once"
    rounds = len(next(iter(results.values())))
    print(f"\n{RUNNING} static members + {ARRIVING} new ones, {how} ({label}); {PARTITIONS} "
          f"partitions, live producer; median of {rounds} round(s)")  # fmt: skip
    print(f"{'assignor':28} " + " ".join(f"{k:>13}" for k in KEYS))
    medians = {
        name: {k: statistics.median(r[k] for r in rows) for k in KEYS}
        for name, rows in results.items()
    }
    base = medians["range"]
    for name, m in medians.items():
        print(f"{name:28} " + " ".join(f"{m[k]:13.2f}" for k in KEYS))
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
