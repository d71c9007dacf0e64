"""Plain ``aiokafka.AIOKafkaConsumer``s as static members, with this project's range assignor.

No StaticConsumer here: three ordinary aiokafka consumers join one group, each built with::

    AIOKafkaConsumer(topic, group_id=..., **static_membership("svc-0", RangeAssignor))

``static_membership`` gives the consumer both halves of static membership from one id: its
``group_instance_id`` (the broker keeps the member's partitions across a restart, KIP-345) and
its assignor, which carries the same id in the subscription so that the leader hands out
partitions by instance id ("svc-0", "svc-1", "svc-2"), as Java's RangeAssignor does. Two ids that
differ are refused: the script first shows the two refusals it can make before any I/O.

It prints the assignment per instance id, restarts "svc-1" (a fresh consumer: the broker gives it
a NEW member id, ``svc-1-<uuid>``) and prints the assignment again: the same, and the other two
consumers were not rebalanced (plain aiokafka sends no LeaveGroup for a static member, and the
broker hands the returning instance its partitions back).

    python examples/plain_aiokafka_plugin.py                    # starts a local Apache Kafka
    python examples/plain_aiokafka_plugin.py --bootstrap-servers 127.0.0.1:9092 [--topic T]

Without ``--bootstrap-servers`` a broker comes from ``staticconsumer.localkafka``
(``KAFKA_BOOTSTRAP_SERVERS``, else Docker, else Java and Kafka's jars from Maven Central) and is
stopped at the end. ``--topic`` names a topic to use (created with 6 partitions when missing; it
needs at least 3). Exit status 0 when svc-1 came back with a new member id, every instance id
kept its partitions and nobody else was rebalanced; 1 otherwise (or if the group never settled).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

from assignors import RangeAssignor, for_aiokafka, static_membership
from staticconsumer.admin import describe_group
from staticconsumer.localkafka import ExternalCluster, KafkaCluster, cluster_from_environment

INSTANCE_IDS = ("svc-0", "svc-1", "svc-2")
RESTARTED = "svc-1"
DEFAULT_PARTITIONS = 6
SETTLE_TIMEOUT_S = 90.0
#: Long enough for the restart below; KIP-345 asks static members to size it to theirs.
SESSION_TIMEOUT_MS = 30_000

#: instance id -> (member id, sorted partitions)
Snapshot = dict[str, tuple[str, tuple[int, ...]]]


def say(text: str = "") -> None:
    print(text, flush=True)


class CountAssignments(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    """Counts the assignments a consumer receives: one per rebalance it takes part in."""

    def __init__(self) -> None:
        self.assignments = 0

    async def on_partitions_revoked(self, revoked: Any) -> None:
        pass

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.assignments += 1


@dataclass
class Worker:
    """One plain aiokafka consumer, its rebalance count, and the task that polls it."""

    instance_id: str
    consumer: AIOKafkaConsumer
    listener: CountAssignments
    task: asyncio.Task[None] | None = None
    consumed: int = field(default=0)

    def partitions(self) -> tuple[int, ...]:
        return tuple(sorted(tp.partition for tp in self.consumer.assignment()))

    async def poll(self) -> None:
        while True:
            batch = await self.consumer.getmany(timeout_ms=200)
            self.consumed += sum(len(records) for records in batch.values())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.consumer.stop()  # a static member: no LeaveGroup, the broker keeps its place


async def start_worker(bootstrap: str, group: str, topic: str, instance_id: str) -> Worker:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        # The whole integration: one id gives the consumer its group_instance_id and its
        # assignor (a fresh object per consumer, told the same id).
        **static_membership(instance_id, RangeAssignor),
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=500,
        auto_offset_reset="earliest",
    )
    listener = CountAssignments()
    consumer.subscribe([topic], listener=listener)
    await consumer.start()
    worker = Worker(instance_id, consumer, listener)
    worker.task = asyncio.create_task(worker.poll(), name=f"poll-{instance_id}")
    return worker


async def settle(bootstrap: str, group: str, workers: list[Worker], partitions: int) -> Snapshot:
    """Wait until the group is Stable, the workers own every partition exactly once between
    them, and the broker's view (DescribeGroups: member ids and instance ids) matches each
    worker's own assignment; return instance id -> (member id, partitions)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_TIMEOUT_S
    while loop.time() < deadline:
        mine = {w.instance_id: w.partitions() for w in workers}
        owned = sorted(p for ps in mine.values() for p in ps)
        if owned == list(range(partitions)) and all(mine.values()):
            description = await describe_group(bootstrap, group)
            seen = {
                m.group_instance_id: (m.member_id, tuple(p for _, p in m.assignment))
                for m in description.members
            }
            if (
                description.state == "Stable"
                and all(seen.get(i, ("", ()))[1] == ps for i, ps in mine.items())
                and len(seen) == len(workers)
            ):
                return {i: seen[i] for i in sorted(mine)}
        await asyncio.sleep(0.25)
    raise TimeoutError(f"group {group} did not settle within {SETTLE_TIMEOUT_S:g}s")


def show(title: str, snapshot: Snapshot) -> None:
    say(title)
    for instance, (member_id, parts) in snapshot.items():
        say(f"  {instance}  partitions {list(parts)}  member id {member_id}")


def show_refusals() -> None:
    """What static_membership and for_aiokafka refuse before any I/O, and why."""
    say("refused before any I/O:")
    attempts: list[Callable[[], object]] = [
        lambda: static_membership("svc-1", RangeAssignor.for_instance("svc-0")),
        lambda: for_aiokafka(RangeAssignor()),
    ]
    for attempt in attempts:
        try:
            attempt()
        except ValueError as exc:
            say(f"  ValueError: {str(exc).split(': ', 1)[-1].split('; ')[0]}")
        else:
            raise AssertionError("not refused")


async def topic_partitions(bootstrap: str, topic: str) -> int | None:
    probe = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await probe.start()
    try:
        if topic not in await probe.topics():
            return None
        return len(probe.partitions_for_topic(topic) or ())
    finally:
        await probe.stop()


async def restart(workers: list[Worker], bootstrap: str, group: str, topic: str) -> None:
    index = INSTANCE_IDS.index(RESTARTED)
    say(f"restarting {RESTARTED}: stop its consumer, start a new one (new member id)")
    await workers[index].stop()
    workers[index] = await start_worker(bootstrap, group, topic, RESTARTED)


def verdict(before: Snapshot, after: Snapshot, rebalanced: list[str]) -> bool:
    ok = True
    if before[RESTARTED][0] == after[RESTARTED][0]:
        say(f"FAILED: {RESTARTED} kept its member id {before[RESTARTED][0]}; nothing was shown")
        ok = False
    if {i: p for i, (_, p) in before.items()} != {i: p for i, (_, p) in after.items()}:
        say("FAILED: partitions moved between instance ids")
        ok = False
    if not all(member_id.startswith(f"{i}-") for i, (member_id, _) in after.items()):
        say("FAILED: a member id is not '<group.instance.id>-<uuid>': not a static member")
        ok = False
    if rebalanced:
        say(f"FAILED: {', '.join(rebalanced)} got a new assignment: the group rebalanced")
        ok = False
    if ok:
        others = [i for i in INSTANCE_IDS if i != RESTARTED]
        say(f"OK: {RESTARTED} came back with a new member id, every instance id kept its "
            f"partitions (0 moved), and {' and '.join(others)} were not rebalanced")  # fmt: skip
    return ok


async def run(cluster: KafkaCluster, topic: str | None) -> bool:
    bootstrap = cluster.bootstrap_servers
    suffix = uuid.uuid4().hex[:8]
    group = f"plain-plugin-{suffix}"
    if topic is None:
        topic = f"plain-plugin-{suffix}"
    partitions = await topic_partitions(bootstrap, topic)
    if partitions is None:
        await asyncio.to_thread(cluster.create_topic, topic, partitions=DEFAULT_PARTITIONS)
        partitions = DEFAULT_PARTITIONS
    if partitions < len(INSTANCE_IDS):
        say(f"topic {topic} has {partitions} partition(s); this example needs at least 3")
        return False
    show_refusals()
    say(f"group {group}, topic {topic} ({partitions} partitions), bootstrap {bootstrap}")
    say('three plain AIOKafkaConsumers, each with **static_membership("<instance id>", '
        "RangeAssignor)")  # fmt: skip

    workers = [await start_worker(bootstrap, group, topic, i) for i in INSTANCE_IDS]
    try:
        before = await settle(bootstrap, group, workers, partitions)
        show("assignment by instance id:", before)
        counts = {w.instance_id: w.listener.assignments for w in workers}
        await restart(workers, bootstrap, group, topic)
        after = await settle(bootstrap, group, workers, partitions)
        show(f"assignment by instance id after restarting {RESTARTED}:", after)
        rebalanced = [w.instance_id for w in workers
                      if w.instance_id != RESTARTED
                      and w.listener.assignments != counts[w.instance_id]]  # fmt: skip
    finally:
        for worker in workers:
            await worker.stop()
    return verdict(before, after, rebalanced)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", metavar="HOST:PORT[,...]",
                        help="a running Kafka; default: start a local one")  # fmt: skip
    parser.add_argument("--topic", help="topic to consume (default: a new 6-partition topic)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # aiokafka logs every routine rebalance step (and a fresh broker's coordinator warm-up) as
    # warnings or errors; this script reports the outcome itself and fails loudly if it is wrong.
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)

    if args.bootstrap_servers:
        cluster: KafkaCluster = ExternalCluster(args.bootstrap_servers)
    else:
        say("starting a local Apache Kafka (staticconsumer.localkafka) ...")
        cluster = cluster_from_environment(
            broker_config={"group.initial.rebalance.delay.ms": "0"}
        ).start()
    try:
        return 0 if asyncio.run(run(cluster, args.topic)) else 1
    except TimeoutError as exc:
        say(f"FAILED: {exc}")
        return 1
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
