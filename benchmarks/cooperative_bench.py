"""Eager ``range`` vs ``cooperative-sticky`` (KIP-429) for a static group, same run.

    python benchmarks/cooperative_bench.py [--rounds 2] [--revoke-ms 0,250]
                                           [--bootstrap-servers HOST:PORT]

For each protocol: 6 static StaticConsumers on a 12-partition topic with a producer running; once
the group is stable a 7th member joins, and once stable again one of the first six leaves for
good (``stop(leave_group=True, ...)``). It runs once per ``--revoke-ms`` value: the time each
member spends in ``on_partitions_revoked`` when it gives partitions up (a stateful consumer
flushes state there; 0 is a stateless one). From the rebalance listeners' calls it prints:

* **paused partition-seconds**: per partition, the time from being taken from a member
  (``on_partitions_revoked``, or the leaver's stop) until some member is handed it again
  (``on_partitions_assigned``), summed;
* **revoked but kept**: partitions revoked from a member that got them back in its next
  assignment (the eager protocol revokes everything; the cooperative one only what moves);
* **rebalances** (generations gone through) and the wall time of the two steps.

Goal (issue 11): cooperative pauses <= 1/3 of eager's partition-seconds and revokes nothing that
stays put. A local broker is started unless ``--bootstrap-servers`` is given.
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
from typing import Any

from _broker import bootstrap_servers, produce_until  # benchmarks/, the script's own folder
from aiokafka import ConsumerRebalanceListener
from aiokafka.errors import CommitFailedError

from assignors import CooperativeStickyAssignor, RangeAssignor
from staticconsumer import StaticConsumer

PARTITIONS = 12
TP = tuple[str, int]


class Recorder:
    """Listener calls of every member, with monotonic times. ``revoke_s``: what a stateful
    consumer spends in ``on_partitions_revoked`` (flushing state for what it gives up)."""

    def __init__(self, revoke_s: float) -> None:
        self.calls: list[tuple[float, str, str, frozenset[TP]]] = []  # (t, kind, member, tps)
        self.revoke_s = revoke_s

    def listener(self, member: str, commit: Any = None) -> ConsumerRebalanceListener:
        """``commit``: a consumer that commits what it consumed of the partitions it gives up,
        as Java's docs advise in ``onPartitionsRevoked`` (else the next owner reads again what
        was consumed since the last commit that the rebalance refused)."""
        calls, revoke_s = self.calls, self.revoke_s

        class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
            async def on_partitions_revoked(self, revoked: Any) -> None:
                calls.append((time.monotonic(), "revoked", member,
                              frozenset((tp.topic, tp.partition) for tp in revoked)))  # fmt: skip
                if revoked:
                    await asyncio.sleep(revoke_s)
                if revoked and commit is not None:
                    with contextlib.suppress(CommitFailedError):  # fenced or a failed rebalance
                        await commit.commit()

            def on_partitions_assigned(self, assigned: Any) -> None:
                calls.append((time.monotonic(), "assigned", member,
                              frozenset((tp.topic, tp.partition) for tp in assigned)))  # fmt: skip

        return Listener()


def figures(calls: list[tuple[float, str, str, frozenset[TP]]], since: float) -> dict[str, float]:
    paused_since: dict[TP, float] = {}
    paused = 0.0
    revoked_kept = 0
    pending: dict[str, frozenset[TP]] = {}  # member -> revoked, until its next assignment
    for t, kind, member, tps in sorted(c for c in calls if c[0] >= since):
        if kind == "revoked":
            for tp in tps:
                paused_since.setdefault(tp, t)
            pending[member] = pending.get(member, frozenset()) | tps
        else:
            for tp in tps:
                if tp in paused_since:
                    paused += t - paused_since.pop(tp)
            if member in pending:
                owned_now = tps  # eager: the whole assignment; cooperative: what was added
                revoked_kept += len(pending.pop(member) & owned_now)
    return {"paused_partition_s": paused, "revoked_but_kept": revoked_kept}


class Member:
    def __init__(self, consumer: StaticConsumer) -> None:
        self.consumer = consumer
        self.running = True
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while self.running:
            batch = await self.consumer.getmany(timeout_ms=100)
            if batch:
                self.consumed(batch)
                with contextlib.suppress(CommitFailedError):  # refused while rebalancing
                    await self.consumer.commit()

    def consumed(self, batch: dict[Any, list[Any]]) -> None:
        """A batch the member is about to commit (a subclass keeps what it needs of it)."""

    async def stop(self, **kw: Any) -> None:
        self.running = False
        await self.task
        await self.consumer.stop(**kw)


async def stable(
    members: list[Member], *, partitions: int = PARTITIONS, quiet_s: float = 1.0,
    settled: bool = False, timeout_s: float = 120,
) -> None:  # fmt: skip
    """Every partition owned once, one generation, for ``quiet_s``; with ``settled``, every
    member's membership state ``stable`` too."""
    async with asyncio.timeout(timeout_s):
        quiet_since: float | None = None
        while True:
            owned = [tp for m in members for tp in m.consumer.assignment()]
            gens = {m.consumer.generation_id for m in members}
            ok = len(owned) == len(set(owned)) == partitions and len(gens) == 1
            if settled:
                ok = ok and {m.consumer.membership.state.value for m in members} == {"stable"}
            now = time.monotonic()
            quiet_since = (quiet_since or now) if ok else None
            if quiet_since is not None and now - quiet_since >= quiet_s:
                return
            await asyncio.sleep(0.05)


async def scenario(bootstrap: str, name: str, strategy: Any, revoke_s: float) -> dict[str, float]:
    from staticconsumer.localkafka import create_topic

    topic, group = f"coop-bench-{uuid.uuid4().hex[:8]}", f"coop-bench-{uuid.uuid4().hex[:8]}"
    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    recorder, stop = Recorder(revoke_s), asyncio.Event()
    producing = asyncio.create_task(produce_until(bootstrap, topic, PARTITIONS, stop))

    async def start(i: int) -> Member:
        consumer = StaticConsumer(
            bootstrap_servers=bootstrap, group_id=group, group_instance_id=f"{name}-{i}",
            partition_assignment_strategy=(strategy(),), session_timeout_ms=30_000,
            heartbeat_interval_ms=500, enable_auto_commit=False, auto_offset_reset="earliest",
        )  # fmt: skip
        consumer.subscribe([topic], listener=recorder.listener(f"{name}-{i}"))
        await consumer.start()
        return Member(consumer)

    members = [await start(i) for i in range(6)]
    await stable(members)
    generation = members[0].consumer.generation_id
    t0 = time.monotonic()
    members.append(await start(6))
    await stable(members)
    leaver = members.pop(2)
    held = frozenset((tp.topic, tp.partition) for tp in leaver.consumer.assignment())
    recorder.calls.append((time.monotonic(), "revoked", f"{name}-2-left", held))
    await leaver.stop(leave_group=True, reason="benchmark scale-down")
    await stable(members)
    took = time.monotonic() - t0
    result = figures(recorder.calls, t0)
    result["rebalances"] = members[0].consumer.generation_id - generation
    result["seconds"] = took
    stop.set()
    await producing
    for m in members:
        await m.stop()
    return result


async def run(bootstrap: str, rounds: int, revoke_s: float) -> dict[str, list[dict[str, float]]]:
    results: dict[str, list[dict[str, float]]] = {"range (eager)": [], "cooperative-sticky": []}
    for r in range(rounds):
        for label, strategy in (("range (eager)", RangeAssignor),
                                ("cooperative-sticky", CooperativeStickyAssignor)):  # fmt: skip
            got = await scenario(bootstrap, f"r{r}-{strategy.name}", strategy, revoke_s)
            results[label].append(got)
            print(f"  round {r + 1} {label:20} {got}", file=sys.stderr)
    return results


def report(results: dict[str, list[dict[str, float]]], revoke_ms: int) -> None:
    keys = ("paused_partition_s", "revoked_but_kept", "rebalances", "seconds")
    print("7th static member joins, then one leaves for good; 12 partitions, live producer, "
          f"{revoke_ms} ms in on_partitions_revoked "
          f"(median of {len(next(iter(results.values())))} rounds)")  # fmt: skip
    print(f"{'protocol':20} " + " ".join(f"{k:>20}" for k in keys))
    medians = {
        label: {k: statistics.median(r[k] for r in rows) for k in keys}
        for label, rows in results.items()
    }
    for label, row in medians.items():
        print(f"{label:20} " + " ".join(f"{row[k]:20.2f}" for k in keys))
    eager, coop = medians["range (eager)"], medians["cooperative-sticky"]
    ratio = coop["paused_partition_s"] / eager["paused_partition_s"]
    print(f"paused partition-seconds, cooperative / eager: {ratio:.2f} (goal <= 0.33)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--revoke-ms",
        default="0,250",
        help="time spent in on_partitions_revoked; comma-separated: one table each",
    )
    parser.add_argument("--bootstrap-servers", default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    fast_joins = {"group.initial.rebalance.delay.ms": "0"}
    with bootstrap_servers(args.bootstrap_servers, fast_joins) as bootstrap:
        for revoke_ms in (int(x) for x in args.revoke_ms.split(",")):
            report(asyncio.run(run(bootstrap, args.rounds, revoke_ms / 1000)), revoke_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
