"""A consumer without a ``group_id``: manual assignment, replay tools, read-only jobs. aiokafka's
``start()`` does not wait for an assignment there (issue 28: StaticConsumer's hung forever)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import IllegalOperation, IllegalStateError

from .conftest import Factory, produce

START_BOUND_S = 20.0  # start() on a local broker takes well under a second


async def test_subscribe_without_a_group_starts_and_reads_every_partition(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=2)
    sent = await produce(kafka_bootstrap, topic, 0, range(5))
    sent += await produce(kafka_bootstrap, topic, 1, range(5, 10))
    consumer = make(topic)
    await asyncio.wait_for(consumer.start(), START_BOUND_S)
    assert consumer.assignment() == {TopicPartition(topic, 0), TopicPartition(topic, 1)}
    got = [(await asyncio.wait_for(consumer.getone(), 10)).value for _ in sent]
    assert sorted(got) == sorted(sent)


async def test_assign_without_a_group_reads_the_assigned_partition_only(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=2)
    first = await produce(kafka_bootstrap, topic, 0, range(3))
    await produce(kafka_bootstrap, topic, 1, range(3, 6))
    consumer = make()
    consumer.assign([TopicPartition(topic, 0)])
    await asyncio.wait_for(consumer.start(), START_BOUND_S)
    batch = await consumer.getmany(timeout_ms=5000)
    assert [r.value for records in batch.values() for r in records] == first
    assert set(batch) == {TopicPartition(topic, 0)}


async def test_async_for_without_a_group_iterates_until_stopped(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory()
    sent = await produce(kafka_bootstrap, topic, 0, range(4))
    consumer = make(topic)
    await asyncio.wait_for(consumer.start(), START_BOUND_S)
    got = []
    async for record in consumer:
        got.append(record.value)
        if len(got) == len(sent):
            await consumer.stop()
    assert got == sent, "async for ends (StopAsyncIteration) once the consumer is stopped"


async def test_seek_position_and_the_group_calls_without_a_group(
    make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    await produce(kafka_bootstrap, topic, 0, range(10))
    consumer = make()
    consumer.assign([tp])
    await consumer.start()
    await consumer.seek_to_end(tp)
    assert await consumer.position(tp) == 10
    await consumer.seek_to_beginning(tp)
    assert await consumer.position(tp) == 0
    consumer.seek(tp, 7)
    assert (await consumer.getone()).offset == 7
    assert await consumer.position(tp) == 8
    with pytest.raises(IllegalOperation):
        await consumer.commit({tp: 8})
    with pytest.raises(IllegalOperation):
        await consumer.committed(tp)
    with pytest.raises(IllegalOperation):
        await consumer.seek_to_committed(tp)
    with pytest.raises(IllegalStateError):
        consumer.subscribe([topic])  # assign() and subscribe() exclude each other


async def test_stop_twice_and_stop_before_start(
    make: Factory, topic_factory: Callable[..., str]
) -> None:
    never_started = make(topic_factory())
    await never_started.stop()
    consumer = make(topic_factory())
    await consumer.start()
    await consumer.stop()
    await consumer.stop()


def test_construction_outside_a_running_loop_with_an_explicit_loop(
    consumer_class: type[AIOKafkaConsumer], kafka_bootstrap: str,
    topic_factory: Callable[..., str],
) -> None:  # fmt: skip
    """aiokafka's consumers may be built before their loop runs, given that loop (deprecated:
    a DeprecationWarning), and started on it (``create_consumer_no_running_loop``)."""
    topic = topic_factory()
    loop = asyncio.new_event_loop()
    try:
        with pytest.deprecated_call():
            consumer = consumer_class(topic, bootstrap_servers=kafka_bootstrap, loop=loop)
        loop.run_until_complete(asyncio.wait_for(consumer.start(), START_BOUND_S))
        try:
            assert consumer.assignment() == {TopicPartition(topic, 0)}
        finally:
            loop.run_until_complete(consumer.stop())
    finally:
        loop.close()


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
async def test_records_of_every_compression_codec_are_read(
    codec: str, make: Factory, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    """Whatever codec the producer chose, the consumer reads it (Java's does out of the box;
    aiokafka needs its compression extras, which staticconsumer depends on)."""
    topic = topic_factory()
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, compression_type=codec)
    await producer.start()
    try:
        for i in range(5):
            await producer.send(topic, f"{codec}-{i}".encode())
        await producer.flush()
    finally:
        await producer.stop()
    consumer = make(topic)
    await consumer.start()
    got = [(await asyncio.wait_for(consumer.getone(), 10)).value for _ in range(5)]
    assert got == [f"{codec}-{i}".encode() for i in range(5)]
