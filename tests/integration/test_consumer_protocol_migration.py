"""A group of classic StaticConsumers moved to the consumer protocol (KIP-848) by a rolling
restart, on the real broker: the broker's ``group.consumer.migration.policy`` (``bidirectional``
by default in Kafka 4.x) turns the classic group into a consumer group when the first
consumer-protocol member joins; classic and consumer-protocol members share it meanwhile; nothing
is lost, nothing is consumed twice, and the committed offsets carry over."""

from __future__ import annotations

from collections.abc import Callable

from aiokafka import TopicPartition

from staticconsumer import MembershipState, StaticConsumer
from staticconsumer._compat import coordinator_of
from staticconsumer.membership._consumer_group import ConsumerGroupMember

from ._group import Member, Producer, duplicates, owned, start_member, wait_until
from .test_consumer_protocol import CONSUMER, start


async def test_a_rolling_restart_moves_a_classic_static_group_to_the_consumer_protocol(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=6), unique_group_id()
    ids = [f"mig-{i}" for i in range(3)]
    members = [await start_member(topic, kafka_bootstrap, group, i) for i in ids]
    retired: list[Member] = []

    def covered() -> bool:
        owners = sorted(p for m in members for p in owned(m))
        states = {m.consumer.membership.state for m in members}
        return owners == list(range(6)) and states == {MembershipState.STABLE}

    await wait_until(covered, 60, "the classic group to own every partition")
    async with Producer(kafka_bootstrap, topic) as producer:
        for i, instance_id in enumerate(ids):
            wanted = 50 * (i + 1)
            await wait_until(lambda: len(producer.sent) > wanted, 30, "records")  # noqa: B023
            await members[i].stop()  # a classic static member: no LeaveGroup
            retired.append(members[i])
            members[i] = await start(topic, kafka_bootstrap, group, instance_id)
            await wait_until(covered, 60, f"every partition owned once after moving {instance_id}")
    await wait_until(lambda: len({v for m in members + retired for v in m.seen})
                     >= len(producer.sent), 60, "every record consumed")  # fmt: skip
    assert all(isinstance(coordinator_of(m.consumer).engine, ConsumerGroupMember)
               for m in members)  # fmt: skip
    for m in members:
        await m.stop()
    consumed = [v for m in members + retired for v in m.seen]
    assert set(consumed) == set(producer.sent), "nothing lost"
    assert duplicates(consumed) == [], "committed offsets carried over: nothing consumed twice"
    assert sum(m.commit_failures for m in members + retired) == 0
    reader = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group, **CONSUMER)
    await reader.start()
    try:
        positions = [await reader.committed(TopicPartition(topic, p)) or 0 for p in range(6)]
    finally:
        await reader.stop()
    assert sum(positions) == len(consumed), "committed position == records consumed"
