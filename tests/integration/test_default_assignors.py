"""StaticConsumer's default assignors: instance-id-first range, then round-robin (real broker).

aiokafka's default is its own round-robin, which orders members by member id; ours offers
``range`` first (as Java's default list does) and ``roundrobin`` second, so a group with
default-configured aiokafka consumers still forms.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer

from assignors import Member, RangeAssignor, RoundRobinAssignor, assign_range
from staticconsumer import StaticConsumer

from ._group import FAST, owned, start_member, wait_stable, wait_until

pytestmark = pytest.mark.kafka


async def test_default_strategy_is_instance_id_first() -> None:
    consumer = StaticConsumer("t", group_id="g", group_instance_id="i-0")
    strategies = consumer._partition_assignment_strategy
    assert [type(s) for s in strategies] == [RangeAssignor, RoundRobinAssignor]


async def test_given_strategy_is_kept() -> None:
    consumer = StaticConsumer(
        "t", group_id="g", group_instance_id="i-0",
        partition_assignment_strategy=(RoundRobinAssignor,),
    )  # fmt: skip
    assert [type(s) for s in consumer._partition_assignment_strategy] == [RoundRobinAssignor]


async def test_default_group_uses_range_on_instance_ids(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[[], str]
) -> None:
    topic, group = topic_factory(partitions=5), unique_group_id()
    # Started in reverse order so that join order and instance-id order differ.
    members = [await start_member(topic, kafka_bootstrap, group, f"svc-{k}") for k in (2, 1, 0)]
    try:
        await wait_stable(members, 5)
        got = {m.consumer.group_instance_id: sorted(owned(m)) for m in members}
        expected = assign_range(
            [Member(m.consumer.member_id, m.consumer.group_instance_id, [topic]) for m in members],
            {topic: 5},
        )
        by_instance = {
            m.consumer.group_instance_id: [p for _, p in expected[m.consumer.member_id]]
            for m in members
        }
        assert got == by_instance == {"svc-0": [0, 1], "svc-1": [2, 3], "svc-2": [4]}
    finally:
        for m in members:
            await m.stop()


async def test_mixed_with_default_aiokafka_consumer_forms_on_roundrobin(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[[], str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    plain = AIOKafkaConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group, **FAST)
    await plain.start()
    member = await start_member(topic, kafka_bootstrap, group, "svc-0")
    try:

        def both_own_partitions() -> bool:
            mine, theirs = member.consumer.assignment(), plain.assignment()
            return len(mine | theirs) == 4 and bool(mine) and bool(theirs) and not mine & theirs

        await wait_until(both_own_partitions, 60, "both members to own partitions")
        assert len(member.consumer.assignment()) == 2
    finally:
        await member.stop()
        await plain.stop()
