"""Static members on the classic protocol vs the consumer group protocol (KIP-848), same run.

    python benchmarks/protocol_bench.py [--members 6] [--rounds 1] [--bootstrap-servers HOST:PORT]

For each protocol: ``--members`` static StaticConsumers on a 12-partition topic with a producer
running. Once the group is stable:

1. **rolling bounce**: each member in turn stops cleanly (classic: no LeaveGroup; consumer: epoch
   -2) and a new process with the same instance id starts 1 s later;
2. **crash restart**: each of two members in turn stops without telling the coordinator (as a
   SIGKILLed process) and a new process with the same instance id starts 2 s later (as the issue
   measured with Java); under the consumer protocol once plainly (the coordinator refuses it
   until the old session expires) and once with ``instance_takeover=True``.

Printed per protocol and scenario:

* **restart to first record** (median, max): from the new process's ``start()`` call to the first
  record it consumes;
* **paused partition-seconds**: per partition, from the moment its owner stopped (or a member's
  ``on_partitions_revoked``) until some member is handed it again, summed;
* **epoch/generation bumps** seen by members that stayed up, and their revocations.

The broker is started with the test configuration (consumer groups: 10 s session, 500 ms
heartbeat; classic members use a 10 s session too), unless ``--bootstrap-servers`` is given.
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

from staticconsumer import StaticConsumer, StaticConsumerError
from staticconsumer._compat import coordinator_of
from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG

PARTITIONS = 12
SETTINGS: dict[str, dict[str, Any]] = {
    "classic": {"session_timeout_ms": 10_000, "heartbeat_interval_ms": 500},
    "consumer": {"group_protocol": "consumer"},
}


class Member:
    """One process's consumer, recording when it got partitions and its first record."""

    def __init__(self, name: str, log: list[tuple[float, str, str, frozenset[int]]]) -> None:
        self.name, self.log = name, log
        self.consumer: StaticConsumer | None = None
        self.started_at = 0.0
        self.first_record_at: float | None = None
        self.task: asyncio.Task[None] | None = None

    def listener(self) -> ConsumerRebalanceListener:
        member = self

        class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
            def on_partitions_revoked(self, revoked: Any) -> None:
                member.log.append((time.monotonic(), "revoked", member.name,
                                   frozenset(tp.partition for tp in revoked)))  # fmt: skip

            def on_partitions_assigned(self, assigned: Any) -> None:
                member.log.append((time.monotonic(), "assigned", member.name,
                                   frozenset(tp.partition for tp in assigned)))  # fmt: skip

        return Listener()

    async def start(self, bootstrap: str, topic: str, group: str, options: dict[str, Any]) -> None:
        self.started_at = time.monotonic()
        self.consumer = StaticConsumer(
            bootstrap_servers=bootstrap, group_id=group, group_instance_id=self.name,
            enable_auto_commit=False, auto_offset_reset="earliest", **options,
        )  # fmt: skip
        self.consumer.subscribe([topic], listener=self.listener())
        self.task = asyncio.create_task(self._consume())

    async def _consume(self) -> None:
        assert self.consumer is not None
        with contextlib.suppress(StaticConsumerError):  # an UnreleasedInstanceIdError: go on
            await self.consumer.start()
        while True:
            try:
                batch = await self.consumer.getmany(timeout_ms=100)
            except StaticConsumerError:
                continue
            if batch and self.first_record_at is None:
                self.first_record_at = time.monotonic()
            if batch:
                with contextlib.suppress(CommitFailedError):
                    await self.consumer.commit()

    async def stop(self, *, crash: bool = False) -> float:
        """Stop (``crash``: without the leave the protocol sends); the owned partitions are
        logged as paused from now. Returns the time of the stop."""
        assert self.consumer is not None and self.task is not None
        at = time.monotonic()
        owned = frozenset(tp.partition for tp in self.consumer.assignment())
        self.log.append((at, "revoked", self.name, owned))
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        if crash:
            coordinator_of(self.consumer).engine.close = lambda *_: []
        await self.consumer.stop()
        return at


def paused_partition_seconds(log: list[tuple[float, str, str, frozenset[int]]]) -> float:
    paused_since: dict[int, float] = {}
    total = 0.0
    for t, kind, _member, partitions in sorted(log):
        for p in partitions:
            if kind == "revoked":
                paused_since.setdefault(p, t)
            elif p in paused_since:
                total += t - paused_since.pop(p)
    return total


async def stable(members: list[Member]) -> None:
    """Every partition owned once, balanced, for a whole second."""
    async with asyncio.timeout(120):
        quiet_since: float | None = None
        while True:
            owned = [tp for m in members if m.consumer for tp in m.consumer.assignment()]
            sizes = [len(m.consumer.assignment()) for m in members if m.consumer]
            ok = len(owned) == len(set(owned)) == PARTITIONS and max(sizes) - min(sizes) <= 1
            now = time.monotonic()
            quiet_since = (quiet_since or now) if ok else None
            if quiet_since is not None and now - quiet_since >= 1.0:
                return
            await asyncio.sleep(0.05)


async def scenario(bootstrap: str, protocol: str, kind: str, members_n: int) -> dict[str, float]:
    """One group: wait stable, then bounce (``kind``: bounce, crash, crash+takeover)."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic, group = f"bench-{uuid.uuid4().hex[:8]}", f"bench-{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(topic, PARTITIONS, 1)])
    await admin.close()
    options = dict(SETTINGS[protocol])
    log: list[tuple[float, str, str, frozenset[int]]] = []
    members = [Member(f"bench-{i}", log) for i in range(members_n)]
    stop = asyncio.Event()
    producer = asyncio.create_task(produce_until(bootstrap, topic, PARTITIONS, stop))
    for m in members:
        await m.start(bootstrap, topic, group, options)
    await stable(members)
    crash = kind != "bounce"
    if kind == "crash+takeover":
        options["instance_takeover"] = True
    bounced = members[:2] if crash else members
    restart_s: list[float] = []
    stayer_bumps = stayer_revocations = 0
    since = time.monotonic()

    def revocations(name: str) -> int:  # by members other than ``name``
        return sum(1 for e in log if e[1] == "revoked" and e[3] and e[2] != name)

    for old in bounced:
        stayers = [m for m in members if m is not old]
        epochs = [m.consumer.generation_id for m in stayers if m.consumer]
        revoked_before = revocations(old.name)
        await old.stop(crash=crash)
        await asyncio.sleep(2.0 if crash else 1.0)
        new = Member(old.name, log)
        members[members.index(old)] = new
        await new.start(bootstrap, topic, group, options)
        async with asyncio.timeout(120):
            while new.first_record_at is None:  # noqa: ASYNC110  (set by the member's task)
                await asyncio.sleep(0.02)
        restart_s.append(new.first_record_at - new.started_at)
        await stable(members)
        now = [m.consumer.generation_id for m in stayers if m.consumer]
        stayer_bumps += sum(a != b for a, b in zip(epochs, now, strict=True))
        stayer_revocations += revocations(old.name) - revoked_before
    stop.set()
    await producer
    for m in members:
        await m.stop()
    return {
        "restart_median_s": statistics.median(restart_s), "restart_max_s": max(restart_s),
        "paused_partition_s": paused_partition_seconds([e for e in log if e[0] >= since]),
        "stayer_bumps": stayer_bumps, "stayer_revocations": stayer_revocations,
    }  # fmt: skip


async def run(bootstrap: str, members: int, rounds: int) -> dict[tuple[str, str], list[Any]]:
    results: dict[tuple[str, str], list[Any]] = {}
    plan = [("classic", "bounce"), ("consumer", "bounce"), ("classic", "crash"),
            ("consumer", "crash"), ("consumer", "crash+takeover")]  # fmt: skip
    for _ in range(rounds):
        for protocol, kind in plan:
            print(f"... {protocol} {kind}", file=sys.stderr, flush=True)
            results.setdefault((protocol, kind), []).append(
                await scenario(bootstrap, protocol, kind, members)
            )
    return results


def report(results: dict[tuple[str, str], list[Any]]) -> None:
    print(f"{'scenario':<16} {'protocol':<9} {'restart->record s (median/max)':>31} "
          f"{'paused partition-s':>19} {'stayers: bumps/revokes':>23}")  # fmt: skip
    for (protocol, kind), runs in results.items():

        def med(key: str, runs: list[Any] = runs) -> float:
            return statistics.median(r[key] for r in runs)

        print(f"{kind:<16} {protocol:<9} {med('restart_median_s'):>20.2f} / "
              f"{med('restart_max_s'):>7.2f} {med('paused_partition_s'):>19.1f} "
              f"{med('stayer_bumps'):>14.0f} / {med('stayer_revocations'):>6.0f}")  # fmt: skip
    for kind in ("bounce", "crash"):
        classic, consumer = results.get(("classic", kind)), results.get(("consumer", kind))
        if classic and consumer:
            ratio = statistics.median(r["paused_partition_s"] for r in consumer) / max(
                1e-9, statistics.median(r["paused_partition_s"] for r in classic)
            )
            print(f"{kind}: paused partition-seconds consumer/classic = {ratio:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--bootstrap-servers")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    with bootstrap_servers(args.bootstrap_servers, DEFAULT_TEST_BROKER_CONFIG) as bootstrap:
        report(asyncio.run(run(bootstrap, args.members, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
