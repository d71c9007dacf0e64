"""A consumer in a group (dynamic members: aiokafka's contract), on both classes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from ._listener import Recorder
from .conftest import Factory, is_static, produce

BOTH = frozenset({0, 1})


async def test_the_listener_hears_revoked_empty_then_assigned_on_the_first_join(
    make: Factory, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """Eager: ``on_partitions_revoked(set())`` before every join, the first included."""
    topic = topic_factory(partitions=2)
    listener = Recorder()
    consumer = make(group_id=unique_group_id())
    consumer.subscribe([topic], listener=listener)
    await consumer.start()
    assert listener.calls == [("revoked", frozenset()), ("assigned", BOTH)]


async def test_a_second_member_makes_the_first_revoke_everything_then_share(
    make: Factory, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    first, second = Recorder(), Recorder()
    c1 = make(group_id=group, heartbeat_interval_ms=200)
    c1.subscribe([topic], listener=first)
    await c1.start()
    c2 = make(group_id=group, heartbeat_interval_ms=200)
    c2.subscribe([topic], listener=second)
    await c2.start()
    await asyncio.wait_for(first.assigned.wait(), 30)
    assert first.calls[:3] == [("revoked", frozenset()), ("assigned", BOTH), ("revoked", BOTH)]
    assert second.calls[0] == ("revoked", frozenset())
    mine, theirs = first.calls[3][1], second.calls[1][1]
    assert len(mine) == len(theirs) == 1 and mine | theirs == BOTH


async def test_unsubscribe_leaves_so_a_manual_assignment_can_commit(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """aiokafka sends LeaveGroup on ``unsubscribe()`` (a dynamic member): the group is empty
    again, so a commit of a manual assignment (generation -1) is accepted."""
    topic = topic_factory(partitions=2)
    sent = await produce(kafka_bootstrap, topic, 0, range(5))
    consumer = make(topic, group_id=unique_group_id(), enable_auto_commit=False)
    await consumer.start()
    consumer.unsubscribe()
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    got = [(await asyncio.wait_for(consumer.getone(), 10)).value for _ in sent]
    assert got == sent
    await consumer.commit()
    assert await consumer.committed(tp) == len(sent)


async def test_pause_resume_and_getmany_of_chosen_partitions_with_max_records(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic = topic_factory(partitions=2)
    await produce(kafka_bootstrap, topic, 0, range(6))
    await produce(kafka_bootstrap, topic, 1, range(6, 12))
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    consumer = make(topic, group_id=unique_group_id())
    await consumer.start()
    consumer.pause(tp0)
    assert consumer.paused() == {tp0}
    batch = await consumer.getmany(timeout_ms=3000, max_records=4)
    assert set(batch) == {tp1} and len(batch[tp1]) == 4, "paused: nothing of tp0"
    consumer.resume(tp0)
    assert consumer.paused() == set()
    batch = await consumer.getmany(tp0, timeout_ms=3000, max_records=2)
    assert set(batch) == {tp0} and [r.offset for r in batch[tp0]] == [0, 1]


async def test_a_member_that_stops_polling_gets_no_record_of_partitions_it_lost(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """``max_poll_interval_ms`` passes without a poll: the coordinator gives the partitions to
    the others; the stuck member's next ``getone()`` joins again and returns only what came
    after (aiokafka's ``test_max_poll_interval_ms``; issue 28: StaticConsumer handed out records
    of the partitions another member now owned)."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    for p in (0, 1):
        await produce(kafka_bootstrap, topic, p, range(10 * p, 10 * p + 10))
    stuck_listener, worker_listener = Recorder(), Recorder()
    stuck = make(group_id=group, max_poll_interval_ms=3000, heartbeat_interval_ms=100)
    stuck.subscribe([topic], listener=stuck_listener)
    worker = make(group_id=group, heartbeat_interval_ms=100)
    worker.subscribe([topic], listener=worker_listener)
    await asyncio.gather(stuck.start(), worker.start())
    seen = [int((await asyncio.wait_for(worker.getone(), 30)).value) for _ in range(20)]
    assert sorted(seen) == list(range(20)), "the worker gets everything once the stuck one left"
    await produce(kafka_bootstrap, topic, 0, range(20, 25))
    await produce(kafka_bootstrap, topic, 1, range(25, 30))
    for _ in range(5):
        record = await asyncio.wait_for(stuck.getone(), 30)
        assert int(record.value) >= 20, f"{record} was the worker's to process"


@pytest.mark.parametrize("isolation_level", ["read_committed", "read_uncommitted"])
async def test_isolation_levels_see_aborted_records_or_not(
    isolation_level: str, make: Factory, kafka_bootstrap: str,
    topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic = topic_factory()
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap,
                                transactional_id=unique_group_id("tx"))  # fmt: skip
    await producer.start()
    try:
        async with producer.transaction():
            await producer.send_and_wait(topic, b"committed")
        await producer.begin_transaction()
        await producer.send_and_wait(topic, b"aborted")
        await producer.abort_transaction()
        async with producer.transaction():
            await producer.send_and_wait(topic, b"last")
    finally:
        await producer.stop()
    consumer = make(topic, group_id=unique_group_id(), isolation_level=isolation_level)
    await consumer.start()
    values = []
    while b"last" not in values:
        batch = await asyncio.wait_for(consumer.getmany(timeout_ms=1000), 30)
        values += [r.value for records in batch.values() for r in records]
    expected = [b"committed", b"last"]
    if isolation_level == "read_uncommitted":
        expected = [b"committed", b"aborted", b"last"]
    assert values == expected


async def test_stop_runs_the_revoke_listener_only_on_a_static_consumer_static_differs(
    consumer_class: type[AIOKafkaConsumer], make: Factory, kafka_bootstrap: str,
    topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """aiokafka's ``stop()`` calls no listener. StaticConsumer follows Java's ``close()``
    (``onLeavePrepare``): ``on_partitions_revoked`` with what it holds, after the auto-commit
    of what was consumed and before the member leaves or stays, so an application that commits
    or flushes state there does not re-process after a clean bounce
    (docs/aiokafka-differences.md)."""
    topic = topic_factory(partitions=2)
    await produce(kafka_bootstrap, topic, 0, range(3))
    listener = Recorder()
    consumer = make(group_id=unique_group_id(), group_instance_id=None)
    consumer.subscribe([topic], listener=listener)
    await consumer.start()
    await asyncio.wait_for(consumer.getone(), 10)
    before = list(listener.calls)
    await consumer.stop()
    after = listener.calls[len(before) :]
    assert after == ([("revoked", BOTH)] if is_static(consumer_class) else [])


async def test_commit_with_explicit_offsets_and_committed_reads_them_back(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic = topic_factory(partitions=2)
    await produce(kafka_bootstrap, topic, 0, range(5))
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    consumer = make(topic, group_id=unique_group_id(), enable_auto_commit=False)
    await consumer.start()
    assert await consumer.committed(tp0) is None, "nothing committed yet"
    await consumer.commit({tp0: 3})
    assert (await consumer.committed(tp0), await consumer.committed(tp1)) == (3, None)
    await consumer.seek_to_committed(tp0)
    assert (await asyncio.wait_for(consumer.getone(tp0), 10)).offset == 3
