"""A plain ``aiokafka.AIOKafkaConsumer`` with this project's instance-id-first range assignor.

No StaticConsumer here: three ordinary aiokafka consumers join one group, each configured with::

    AIOKafkaConsumer(topic, group_id=..., partition_assignment_strategy=(
        for_aiokafka(RangeAssignor.for_instance("svc-0")),
    ))

The instance id rides in each member's subscription user data, so whichever consumer leads the
group hands out partitions by instance id ("svc-0", "svc-1", "svc-2"), not by member id. The
script prints the assignment per instance id, restarts "svc-1" (a fresh consumer, so the broker
gives it a NEW member id), and prints the assignment again: it is the same. (While svc-1 is away
the other two cover for it: a plain aiokafka member leaves the group when it stops. A
StaticConsumer would not, and its restart would cause no rebalance at all.)

aiokafka's own ``RangePartitionAssignor`` sorts members by member id (``<client id>-<random
UUID>``), so after such a restart it may hand the partitions out differently. The script computes
what it would have done with the same member ids, for comparison.

    python examples/plain_aiokafka_plugin.py                    # starts a local Apache Kafka
    python examples/plain_aiokafka_plugin.py --bootstrap-servers 127.0.0.1:9092 [--topic T]

Without ``--bootstrap-servers`` a broker comes from ``staticconsumer.localkafka``
(``KAFKA_BOOTSTRAP_SERVERS``, else Docker, else Java and Kafka's jars from Maven Central) and is
stopped at the end. ``--topic`` names a topic to use (created with 6 partitions when missing; it
needs at least 3). Exit status 0 when the assignment by instance id survived the restart, 1 when
it did not (or the group never settled).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import uuid
from dataclasses import dataclass, field

from aiokafka import AIOKafkaConsumer
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.protocol import ConsumerProtocolMemberMetadata

from assignors import RangeAssignor, for_aiokafka
from staticconsumer.admin import describe_group
from staticconsumer.localkafka import ExternalCluster, KafkaCluster, cluster_from_environment

INSTANCE_IDS = ("svc-0", "svc-1", "svc-2")
RESTARTED = "svc-1"
DEFAULT_PARTITIONS = 6
SETTLE_TIMEOUT_S = 90.0

#: instance id -> (member id, sorted partitions)
Snapshot = dict[str, tuple[str, tuple[int, ...]]]


def say(text: str = "") -> None:
    print(text, flush=True)


@dataclass
class Worker:
    """One plain aiokafka consumer and the task that polls it."""

    instance_id: str
    consumer: AIOKafkaConsumer
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
        await self.consumer.stop()


async def start_worker(bootstrap: str, group: str, topic: str, instance_id: str) -> Worker:
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        # The whole integration: a fresh assignor object per consumer, told its instance id.
        partition_assignment_strategy=(for_aiokafka(RangeAssignor.for_instance(instance_id)),),
        session_timeout_ms=10_000,
        heartbeat_interval_ms=500,
        auto_offset_reset="earliest",
    )
    await consumer.start()
    worker = Worker(instance_id, consumer)
    worker.task = asyncio.create_task(worker.poll(), name=f"poll-{instance_id}")
    return worker


async def settle(bootstrap: str, group: str, workers: list[Worker], partitions: int) -> Snapshot:
    """Wait until the group is Stable, the workers own every partition exactly once between
    them, and the broker's view (DescribeGroups) matches each worker's own assignment; return
    instance id -> (member id, partitions). Member ids are matched through the assignments."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_TIMEOUT_S
    while loop.time() < deadline:
        mine = {w.instance_id: w.partitions() for w in workers}
        owned = sorted(p for ps in mine.values() for p in ps)
        if owned == list(range(partitions)) and all(mine.values()):
            description = await describe_group(bootstrap, group)
            by_assignment = {
                tuple(p for _, p in m.assignment): m.member_id for m in description.members
            }
            if (
                description.state == "Stable"
                and len(description.members) == len(workers)
                and all(ps in by_assignment for ps in mine.values())
            ):
                return {i: (by_assignment[ps], ps) for i, ps in sorted(mine.items())}
        await asyncio.sleep(0.25)
    raise TimeoutError(f"group {group} did not settle within {SETTLE_TIMEOUT_S:g}s")


class _Partitions:
    """The one ``ClusterMetadata`` method aiokafka's RangePartitionAssignor uses."""

    def __init__(self, topic: str, count: int) -> None:
        self.topic, self.count = topic, count

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return set(range(self.count)) if topic == self.topic else None


def aiokafka_range(snapshot: Snapshot, topic: str, partitions: int) -> dict[str, tuple[int, ...]]:
    """What aiokafka's RangePartitionAssignor (sorting on member id) gives the same members."""
    members = {member_id: ConsumerProtocolMemberMetadata(0, [topic], b"") for member_id, _ in
               snapshot.values()}  # fmt: skip
    plan = RangePartitionAssignor.assign(_Partitions(topic, partitions), members)
    return {
        instance: tuple(sorted(tp.partition for tp in plan[member_id].partitions()))
        for instance, (member_id, _) in snapshot.items()
    }


def show(title: str, snapshot: Snapshot) -> None:
    say(title)
    for instance, (member_id, parts) in snapshot.items():
        say(f"  {instance}  partitions {list(parts)}  member id {member_id}")


def plan_text(plan: dict[str, tuple[int, ...]]) -> str:
    return ", ".join(f"{instance} {list(parts)}" for instance, parts in sorted(plan.items()))


def moved(before: dict[str, tuple[int, ...]], after: dict[str, tuple[int, ...]]) -> int:
    return sum(len(set(before[i]) - set(after[i])) for i in before)


async def topic_partitions(bootstrap: str, topic: str) -> int | None:
    probe = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await probe.start()
    try:
        if topic not in await probe.topics():
            return None
        return len(probe.partitions_for_topic(topic) or ())
    finally:
        await probe.stop()


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
    say(f"group {group}, topic {topic} ({partitions} partitions), bootstrap {bootstrap}")
    say("three plain AIOKafkaConsumers, each with "
        "for_aiokafka(RangeAssignor.for_instance(<instance id>))")

    workers = [await start_worker(bootstrap, group, topic, i) for i in INSTANCE_IDS]
    try:
        before = await settle(bootstrap, group, workers, partitions)
        show("assignment by instance id:", before)

        index = INSTANCE_IDS.index(RESTARTED)
        say(f"restarting {RESTARTED}: stop its consumer, start a new one (new member id)")
        await workers[index].stop()
        # A plain aiokafka member sends LeaveGroup when it stops, so the others cover for it.
        gap = await settle(bootstrap, group, workers[:index] + workers[index + 1 :], partitions)
        show(f"while {RESTARTED} is away (it left the group):", gap)
        workers[index] = await start_worker(bootstrap, group, topic, RESTARTED)
        after = await settle(bootstrap, group, workers, partitions)
        show(f"assignment by instance id after restarting {RESTARTED}:", after)
    finally:
        for worker in workers:
            await worker.stop()

    ours_before = {i: parts for i, (_, parts) in before.items()}
    ours_after = {i: parts for i, (_, parts) in after.items()}
    theirs_before = aiokafka_range(before, topic, partitions)
    theirs_after = aiokafka_range(after, topic, partitions)
    say("for comparison, aiokafka's RangePartitionAssignor (orders members by member id):")
    say(f"  before: {plan_text(theirs_before)}")
    say(f"  after:  {plan_text(theirs_after)}")
    say(f"  {moved(theirs_before, theirs_after)} partition(s) moved between instance ids "
        f"(member ids end in a random UUID, so with it this is chance)")  # fmt: skip
    new_member_id = before[RESTARTED][0] != after[RESTARTED][0]
    unchanged = ours_before == ours_after
    if new_member_id and unchanged:
        say(f"OK: {RESTARTED} came back with a new member id and every instance id kept its "
            f"partitions (0 moved)")  # fmt: skip
        return True
    if not new_member_id:
        say(f"FAILED: {RESTARTED} kept its member id {before[RESTARTED][0]}; nothing was shown")
    if not unchanged:
        say(f"FAILED: {moved(ours_before, ours_after)} partition(s) moved between instance ids")
    return False


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
