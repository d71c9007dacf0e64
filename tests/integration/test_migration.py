"""KIP-345's migration paths (``docs/migration.md``) on the real broker: one group walked from
dynamic to static members, one member renamed, and back to dynamic, with records produced before
each step. Nothing is lost and nothing is consumed twice, and the committed offsets end where the
producer did.

The renamed member shows the cost the guide names: a static member that stopped keeps its
partitions in the group (nobody consumes them) until its session times out, unless an admin
removes it; here the session timeout is 30 s and the survivor owns everything well before that,
so only the removal can have freed them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from aiokafka import AIOKafkaProducer

from staticconsumer.admin import describe_group, remove_members

from ..reliability._harness import committed_offsets
from ._group import Member, duplicates, owned, start_member, wait_stable

PARTITIONS = 2
PER_PARTITION = 5
#: Far longer than any step below waits: partitions freed sooner were freed by the test's act.
STATIC_SESSION_TIMEOUT_MS = 30_000
FREED_WITHIN_S = 15


class Ledger:
    """What was produced, per partition, so that each step can wait until it is committed."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.sent: list[bytes] = []
        self.per_partition = dict.fromkeys(range(PARTITIONS), 0)

    async def produce(self, step: str) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all")
        await producer.start()
        try:
            for p in range(PARTITIONS):
                for i in range(PER_PARTITION):
                    value = f"{step}-p{p}-{i}".encode()
                    await producer.send_and_wait(self.topic, value, partition=p)
                    self.sent.append(value)
                    self.per_partition[p] += 1
        finally:
            await producer.stop()

    async def drained(self, group: str, timeout_s: float = 30) -> None:
        """Until the group's committed offsets reach what was produced (before a step, so that
        no member holds consumed-but-uncommitted records when it stops)."""
        async with asyncio.timeout(timeout_s):
            # Polls the broker's committed offsets: there is no event to wait on.
            while await committed_offsets(self.bootstrap, group) != self.per_partition:  # noqa: ASYNC110
                await asyncio.sleep(0.2)


async def instance_ids(bootstrap: str, group: str) -> list[str]:
    """The group's members as the coordinator lists them: instance ids, "-" for a dynamic one."""
    members = (await describe_group(bootstrap, group)).members
    return sorted(m.group_instance_id or "-" for m in members)


async def start_static(topic: str, bootstrap: str, group: str, instance_id: str) -> Member:
    return await start_member(
        topic, bootstrap, group, instance_id, session_timeout_ms=STATIC_SESSION_TIMEOUT_MS
    )


async def test_dynamic_to_static_rename_and_back_lose_nothing_and_repeat_nothing(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=PARTITIONS), unique_group_id("migration")
    ledger = Ledger(kafka_bootstrap, topic)
    stopped: list[Member] = []
    group_members = [await start_member(topic, kafka_bootstrap, group, None) for _ in range(2)]
    try:
        await wait_stable(group_members, PARTITIONS)
        await ledger.produce("dynamic")
        await ledger.drained(group)

        # 1. Dynamic -> static, one member at a time (each: a leave, then a new instance id).
        for index, instance_id in enumerate(("svc-0", "svc-1")):
            stopped.append(group_members[index])
            await group_members[index].stop()
            group_members[index] = await start_static(topic, kafka_bootstrap, group, instance_id)
            await wait_stable(group_members, PARTITIONS)
            await ledger.produce(f"to-static-{index}")
            await ledger.drained(group)
        assert await instance_ids(kafka_bootstrap, group) == ["svc-0", "svc-1"]

        # 2. Rename svc-1 -> svc-1b: the stopped static member stays until removed.
        renamed = group_members.pop(1)
        stopped.append(renamed)
        await renamed.stop()
        description = await describe_group(kafka_bootstrap, group)
        held = {m.group_instance_id: m.assignment for m in description.members}
        assert held.get("svc-1"), f"svc-1 still holds its partitions after stop(): {held}"
        await remove_members(kafka_bootstrap, group, ["svc-1"], reason="renamed to svc-1b")
        await wait_stable(group_members, PARTITIONS, timeout_s=FREED_WITHIN_S)
        group_members.append(await start_static(topic, kafka_bootstrap, group, "svc-1b"))
        await wait_stable(group_members, PARTITIONS)
        await ledger.produce("renamed")
        await ledger.drained(group)
        assert await instance_ids(kafka_bootstrap, group) == ["svc-0", "svc-1b"]

        # 3. Static -> dynamic: each static member leaves on its last stop (one rebalance),
        #    instead of holding its partitions for the session timeout; a dynamic one joins.
        for index in range(2):
            stopped.append(group_members[index])
            await group_members[index].stop(leave_group=True, reason="migrating to dynamic")
            survivors = [m for m in group_members if m not in stopped]
            await wait_stable(survivors, PARTITIONS, timeout_s=FREED_WITHIN_S)
            group_members[index] = await start_member(topic, kafka_bootstrap, group, None)
            await wait_stable(group_members, PARTITIONS)
            await ledger.produce(f"to-dynamic-{index}")
            await ledger.drained(group)
        assert await instance_ids(kafka_bootstrap, group) == ["-", "-"]
        assert all(owned(m) for m in group_members), "both dynamic members consume"
    finally:
        for member in group_members:
            if member not in stopped:
                await member.stop()
    everyone = stopped + group_members
    consumed = [value for member in everyone for value in member.seen]
    assert duplicates(consumed) == [], "nothing consumed twice"
    assert sorted(consumed) == sorted(ledger.sent), "nothing lost"
    assert sum(m.commit_failures for m in everyone) == 0
    assert await committed_offsets(kafka_bootstrap, group) == ledger.per_partition
