"""Scaling a group of static members down without waiting out their session timeout.

Static members (KIP-345) do not leave the group when they stop, so their partitions wait for them
until ``session.timeout.ms`` runs out; static members want that timeout long (here 3 minutes).
When a member is not coming back, say so:

1. a member that is shutting down for good leaves with a reason (KIP-800)::

       await consumer.stop(leave_group=True, reason="scale down to 2")

2. a member that is already gone (crashed, its host retired) is removed by an admin, by
   ``group.instance.id``, with a reason::

       await staticconsumer.admin.remove_members(bootstrap, group, ["svc-1"],
                                                 reason="scale down to 1")

Either way the group rebalances at once and the remaining members get the partitions in
seconds. The script runs three StaticConsumers ("svc-0", "svc-1", "svc-2"), does both, and prints
the group as ``staticconsumer.admin.describe_group`` reports it after each step.

    python examples/scale_down.py                    # starts a local Apache Kafka
    python examples/scale_down.py --bootstrap-servers 127.0.0.1:9092 [--topic T]

Without ``--bootstrap-servers`` a broker comes from ``staticconsumer.localkafka``
(``KAFKA_BOOTSTRAP_SERVERS``, else Docker, else Java and Kafka's jars from Maven Central) and is
stopped at the end; the broker's own log lines for the two reasons are then printed too.
``--topic`` names a topic to use (created with 6 partitions when missing; it needs at least 3).
Exit status 0 when each step ended as described, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import uuid
from dataclasses import dataclass

from aiokafka import AIOKafkaConsumer

from assignors import RangeAssignor
from staticconsumer import StaticConsumer
from staticconsumer.admin import (
    GroupDescription,
    describe_group,
    removal_reason,
    remove_members,
)
from staticconsumer.localkafka import (
    ExternalCluster,
    KafkaCluster,
    LocalKafkaCluster,
    cluster_from_environment,
)

INSTANCE_IDS = ("svc-0", "svc-1", "svc-2")
DEFAULT_PARTITIONS = 6
SESSION_TIMEOUT_MS = 180_000
#: Each step must settle well inside the session timeout: that is the point of the example.
SETTLE_TIMEOUT_S = 60.0
LEAVE_REASON = "scale down to 2"
#: What StaticConsumer puts before a leave reason, as Java's consumer does.
LEAVE_REASON_PREFIX = "the consumer is being closed"
REMOVE_REASON = "scale down to 1"


class StepFailed(Exception):
    pass


def say(text: str = "") -> None:
    print(text, flush=True)


@dataclass
class Member:
    """One StaticConsumer and the task that polls it."""

    instance_id: str
    consumer: StaticConsumer
    task: asyncio.Task[None]

    def partitions(self) -> tuple[int, ...]:
        return tuple(sorted(tp.partition for tp in self.consumer.assignment()))

    async def stop_polling(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def start_member(bootstrap: str, group: str, topic: str, instance_id: str) -> Member:
    consumer = StaticConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        group_instance_id=instance_id,
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=500,
        partition_assignment_strategy=(RangeAssignor(),),  # instance-id order, Java's plans
        auto_offset_reset="earliest",
    )
    await consumer.start()

    async def poll() -> None:
        while True:
            await consumer.getmany(timeout_ms=200)

    return Member(instance_id, consumer, asyncio.create_task(poll(), name=f"poll-{instance_id}"))


async def settle(
    bootstrap: str, group: str, members: list[Member], partitions: int
) -> tuple[GroupDescription, float]:
    """Wait until the group is Stable with exactly ``members`` in it, they own every partition
    between them, and each one's own assignment matches what the broker reports for its instance
    id. Returns the description and the seconds it took."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    expected = {m.instance_id for m in members}
    while loop.time() - started < SETTLE_TIMEOUT_S:
        description = await describe_group(bootstrap, group)
        reported = {d.group_instance_id: tuple(p for _, p in d.assignment)
                    for d in description.members}  # fmt: skip
        owned = sorted(p for ps in reported.values() for p in ps)
        if (
            description.state == "Stable"
            and set(reported) == expected
            and owned == list(range(partitions))
            and all(reported[m.instance_id] == m.partitions() for m in members)
        ):
            return description, loop.time() - started
        await asyncio.sleep(0.25)
    raise StepFailed(
        f"group {group} did not settle on {sorted(expected)} within {SETTLE_TIMEOUT_S:g}s "
        f"(session.timeout.ms is {SESSION_TIMEOUT_MS / 1000:g}s)"
    )


def show(description: GroupDescription, generation: int) -> None:
    say(f"  group {description.group_id}: {description.state}, protocol "
        f"{description.protocol or '-'}, generation {generation}, "
        f"{len(description.members)} member(s)")  # fmt: skip
    for m in description.members:
        parts = [p for _, p in m.assignment]
        say(f"    {m.group_instance_id or '-':6} partitions {parts}  member id {m.member_id}")


async def topic_partitions(bootstrap: str, topic: str) -> int | None:
    probe = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await probe.start()
    try:
        if topic not in await probe.topics():
            return None
        return len(probe.partitions_for_topic(topic) or ())
    finally:
        await probe.stop()


async def scenario(bootstrap: str, group: str, topic: str, partitions: int) -> None:
    members = [await start_member(bootstrap, group, topic, i) for i in INSTANCE_IDS]
    running = list(members)
    try:
        description, _ = await settle(bootstrap, group, running, partitions)
        say(f"three static members, session.timeout.ms = {SESSION_TIMEOUT_MS / 1000:g}s:")
        show(description, running[0].consumer.generation_id)

        # 1. svc-2 shuts down for good and says so.
        leaving = running.pop()
        say(f'{leaving.instance_id}: stop(leave_group=True, reason="{LEAVE_REASON}")')
        await leaving.stop_polling()
        await leaving.consumer.stop(leave_group=True, reason=LEAVE_REASON)
        description, took = await settle(bootstrap, group, running, partitions)
        say(f"  the other two own all {partitions} partitions after {took:.1f}s:")
        show(description, running[0].consumer.generation_id)

        # 2. svc-1 goes away without a word: a static member stays in the group.
        gone = running.pop()
        say(f"{gone.instance_id}: stop() without leaving (a crash, a retired host)")
        await gone.stop_polling()
        await gone.consumer.stop()
        description = await describe_group(bootstrap, group)
        held = {d.group_instance_id: [p for _, p in d.assignment] for d in description.members}
        if gone.instance_id not in held:
            raise StepFailed(f"{gone.instance_id} left the group although it was static")
        say(f"  still a member: the broker keeps partitions {held[gone.instance_id]} for it, "
            f"unconsumed, for up to {SESSION_TIMEOUT_MS / 1000:g}s")  # fmt: skip

        # 3. an admin removes it by instance id, with a reason.
        say(f'admin: remove_members(..., ["{gone.instance_id}"], reason="{REMOVE_REASON}")')
        result = await remove_members(bootstrap, group, [gone.instance_id], reason=REMOVE_REASON)
        if result.removed != (gone.instance_id,):
            raise StepFailed(f"remove_members removed {result.removed}")
        description, took = await settle(bootstrap, group, running, partitions)
        say(f"  {running[0].instance_id} owns all {partitions} partitions after {took:.1f}s:")
        show(description, running[0].consumer.generation_id)
    finally:
        for member in members:  # stop() is idempotent: the two stopped above stay as they are
            await member.stop_polling()
            if member in running:  # leave, so a real cluster is not left with a waiting member
                await member.consumer.stop(leave_group=True, reason="example finished")
            await member.consumer.stop()


def reason_log_lines(cluster: KafkaCluster, group: str) -> list[str]:
    """The coordinator's log lines for this group's leaves (only for a broker we launched),
    without the timestamp and logger name."""
    if not isinstance(cluster, LocalKafkaCluster):
        return []
    marker = f"[Group {group}] "
    return [
        line.split(marker, 1)[1].rsplit(" (org.apache.kafka", 1)[0]
        for line in cluster.logs().splitlines()
        if marker in line and "client reason:" in line
    ]


async def run(cluster: KafkaCluster, topic: str | None) -> bool:
    bootstrap = cluster.bootstrap_servers
    suffix = uuid.uuid4().hex[:8]
    group = f"scale-down-{suffix}"
    if topic is None:
        topic = f"scale-down-{suffix}"
    partitions = await topic_partitions(bootstrap, topic)
    if partitions is None:
        await asyncio.to_thread(cluster.create_topic, topic, partitions=DEFAULT_PARTITIONS)
        partitions = DEFAULT_PARTITIONS
    if partitions < len(INSTANCE_IDS):
        say(f"FAILED: topic {topic} has {partitions} partition(s); this example needs 3 or more")
        return False
    say(f"group {group}, topic {topic} ({partitions} partitions), bootstrap {bootstrap}")
    try:
        await scenario(bootstrap, group, topic, partitions)
    except StepFailed as exc:
        say(f"FAILED: {exc}")
        return False
    if isinstance(cluster, LocalKafkaCluster):
        # The coordinator logs each leave with its reason (KIP-800); give the log a moment.
        wanted = (f"client reason: {LEAVE_REASON_PREFIX}: {LEAVE_REASON}",
                  f"client reason: {removal_reason(REMOVE_REASON)}")  # fmt: skip
        for _ in range(40):
            lines = reason_log_lines(cluster, group)
            if all(any(w in line for line in lines) for w in wanted):
                break
            await asyncio.sleep(0.25)
        say("broker log:")
        for line in lines:
            say(f"  {line}")
        if not all(any(w in line for line in lines) for w in wanted):
            say("FAILED: the broker did not log both reasons")
            return False
    say("OK: both members left at once with their reasons; no session timeout was waited out")
    return True


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
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
