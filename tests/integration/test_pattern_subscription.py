"""A topic created under a group's pattern subscription costs one rebalance, not two, even when
the members' metadata is refreshed at very different times: a member refreshes its metadata
before it joins, as Java's ``ConsumerCoordinator.poll`` and aiokafka's ``ensure_active_group``
do. The member that sees the topic first starts the rebalance; the other, whose own metadata is
refreshed every 4 s, fetches it before it joins and so joins with the new topic too."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

from aiokafka import ConsumerRebalanceListener, TopicPartition

from staticconsumer import StaticConsumer


class Assignments(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    def __init__(self) -> None:
        self.assigned: list[set[TopicPartition]] = []

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        pass

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.assigned.append(set(assigned))


async def _poll_until(members: list[StaticConsumer], done: Callable[[], bool], s: float) -> None:
    async with asyncio.timeout(s):
        while not done():
            await asyncio.gather(*(m.getmany(timeout_ms=100) for m in members))


async def test_a_new_topic_under_the_pattern_costs_one_rebalance(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    prefix, group = f"pattern-{uuid.uuid4().hex[:8]}", unique_group_id()
    first = topic_factory(partitions=2, prefix=prefix)
    listeners = [Assignments(), Assignments()]
    members = []
    # the first member sees new topics within 200 ms, the second only every 4 s
    for n, age_ms in enumerate((200, 4_000)):
        member = StaticConsumer(
            bootstrap_servers=kafka_bootstrap, group_id=group, group_instance_id=f"pat-{n}",
            metadata_max_age_ms=age_ms, heartbeat_interval_ms=100, session_timeout_ms=30_000,
        )  # fmt: skip
        member.subscribe(pattern=f"^{prefix}-.*", listener=listeners[n])
        members.append(member)
    for member in members:
        await member.start()
    try:
        every = {TopicPartition(first, p) for p in range(2)}
        await _poll_until(members, lambda: members[0].assignment() | members[1].assignment()
                          == every and not members[0].assignment() & members[1].assignment(),
                          30)  # fmt: skip
        await asyncio.sleep(1)  # settled: nothing more is due
        before = [len(listener.assigned) for listener in listeners]
        second = topic_factory(partitions=2, prefix=prefix)
        every |= {TopicPartition(second, p) for p in range(2)}
        await _poll_until(members, lambda: members[0].assignment() | members[1].assignment()
                          == every, 30)  # fmt: skip
        # the second member's own metadata shows the topic within 4 s: watch 6 s more
        loop = asyncio.get_running_loop()
        until = loop.time() + 6
        await _poll_until(members, lambda: loop.time() >= until, 10)
        after = [listener.assigned[n:] for listener, n in zip(listeners, before, strict=True)]
        assert [len(a) for a in after] == [1, 1], after  # one rebalance, each member once
        assert after[0][0] | after[1][0] == every
    finally:
        for member in members:
            await member.stop()
