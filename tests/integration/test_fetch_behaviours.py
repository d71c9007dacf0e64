"""What a fetch does, as a user sees it, on both fetch paths (issue 43 item 2), on the real broker:
read_committed with an aborted transaction, an out-of-range offset under each
``auto_offset_reset``, a record larger than the fetch sizes (KIP-74), pause and seek while a
fetch is in flight, ``max_records``; and, through public API, what five of aiokafka's own
consumer tests check by reaching into its fetcher (they fail on the kept path by design:
scripts/aiokafka_suite/intended_differences.txt). The leader change, the follower fetch
(KIP-392) and a corrupt batch need brokers of their own: test_fetch_cluster.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.errors import OffsetOutOfRangeError

from ._fetch_paths import HANG_BOUND_S, fetch_path, produce, read, read_kept_frames, start_consumer

__all__ = ["fetch_path"]  # a fixture, used by name

# A fetch the broker holds until its wait is over: the response comes while the test acts.
HELD = {"fetch_min_bytes": 1_000_000, "fetch_max_wait_ms": 3000}


async def test_read_committed_skips_aborted_records_and_steps_over_control_records(
    fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap,
                                transactional_id=unique_group_id("tx"))  # fmt: skip
    await producer.start()
    try:
        for values, commit in (("a0 a1 a2", True), ("b0 b1 b2", False), ("c0 c1 c2", True)):
            await producer.begin_transaction()
            for value in values.split():
                await producer.send_and_wait(topic, value.encode(), partition=0)
            await (producer.commit_transaction() if commit else producer.abort_transaction())
    finally:
        await producer.stop()
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp],
                                    isolation_level="read_committed")  # fmt: skip
    try:
        # offsets: a 0-2, marker 3, b 4-6, marker 7, c 8-10, marker 11
        assert (await consumer.end_offsets([tp]))[tp] == 12
        got = await read(consumer, 6)
        assert [(r.offset, r.value) for r in got] == [
            (0, b"a0"), (1, b"a1"), (2, b"a2"), (8, b"c0"), (9, b"c1"), (10, b"c2"),
        ]  # fmt: skip

        async def past_the_last_marker() -> None:
            while await consumer.position(tp) != 12:
                assert await consumer.getmany(timeout_ms=200) == {}

        await asyncio.wait_for(past_the_last_marker(), HANG_BOUND_S)
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


@pytest.mark.parametrize("reset", ["earliest", "latest", "none"])
async def test_an_out_of_range_offset_follows_auto_offset_reset(
    reset: str, fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    await produce(kafka_bootstrap, topic, [b"%d" % n for n in range(5)])
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp], auto_offset_reset=reset)
    try:
        consumer.seek(tp, 1000)
        if reset == "none":
            with pytest.raises(OffsetOutOfRangeError) as raised:
                await asyncio.wait_for(consumer.getmany(timeout_ms=30_000), HANG_BOUND_S)
            assert raised.value.args == ({tp: 1000},)
            consumer.seek(tp, 2)  # the application decides where to go on
            assert [r.value for r in await read(consumer, 3)] == [b"2", b"3", b"4"]
        elif reset == "earliest":
            assert [r.offset for r in await read(consumer, 5)] == [0, 1, 2, 3, 4]
        else:

            async def reset_to_the_end() -> None:
                while await consumer.position(tp) == 1000:
                    assert await consumer.getmany(timeout_ms=200) == {}

            await asyncio.wait_for(reset_to_the_end(), HANG_BOUND_S)
            assert await consumer.position(tp) == 5
            await produce(kafka_bootstrap, topic, [b"5", b"6"])
            assert [r.value for r in await read(consumer, 2)] == [b"5", b"6"]
        assert await consumer.getmany(timeout_ms=0) == {}
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


@pytest.mark.parametrize("limit", ["max_partition_fetch_bytes", "fetch_max_bytes"])
async def test_a_record_larger_than_the_fetch_size_is_still_delivered(
    limit: str, fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    """KIP-74: the broker returns the first batch whole even when it exceeds the limits."""
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    values = [b"small", bytes(range(256)) * 800, b"after"]  # 200 KiB in the middle
    await produce(kafka_bootstrap, topic, values)
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp], **{limit: 1024})
    try:
        assert [r.value for r in await read(consumer, 3)] == values
        assert await consumer.position(tp) == 3
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


async def test_pause_while_a_fetch_is_in_flight_holds_back_that_partition(
    fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    """No record of a paused partition is handed out once ``pause`` returns, though the fetch
    in flight when it was called brings some; after ``resume`` each comes exactly once."""
    topic = topic_factory(partitions=2)
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp0, tp1], **HELD)
    try:
        assert await consumer.getmany(timeout_ms=300) == {}  # a fetch is now held by the broker
        await produce(kafka_bootstrap, topic, [b"p0-%d" % n for n in range(3)], partition=0)
        await produce(kafka_bootstrap, topic, [b"p1-%d" % n for n in range(3)], partition=1)
        consumer.pause(tp0)
        while_paused = await read(consumer, 3)  # tp1's: the held response has come back
        assert [(r.partition, r.value) for r in while_paused] == [(1, b"p1-0"), (1, b"p1-1"),
                                                                  (1, b"p1-2")]  # fmt: skip
        assert await consumer.getmany(timeout_ms=500) == {}
        consumer.resume(tp0)
        after = await read(consumer, 3)
        assert [(r.partition, r.offset) for r in after] == [(0, 0), (0, 1), (0, 2)]
        assert await consumer.getmany(timeout_ms=0) == {}
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


@pytest.mark.parametrize("to", [3, 11])
async def test_seek_while_a_fetch_is_in_flight_is_honoured(
    to: int, fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    """The fetch in flight at the old position brings records from there; after ``seek`` the
    records start at the new position, and none from before the seek is handed out."""
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    await produce(kafka_bootstrap, topic, [b"%d" % n for n in range(10)])
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp], **HELD)
    try:
        assert [r.offset for r in await read(consumer, 10)] == list(range(10))
        # the next fetch, at 10, is held by the broker while these arrive
        await produce(kafka_bootstrap, topic, [b"%d" % n for n in range(10, 13)])
        consumer.seek(tp, to)
        got = await read(consumer, 13 - to)
        assert [(r.offset, r.value) for r in got] == [(n, b"%d" % n) for n in range(to, 13)]
        assert await consumer.getmany(timeout_ms=0) == {}
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


@pytest.mark.parametrize("how", ["getmany", "max_poll_records"])
async def test_max_records_is_respected(
    how: str, fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=2)
    tps = [TopicPartition(topic, 0), TopicPartition(topic, 1)]
    for tp in tps:
        await produce(kafka_bootstrap, topic, [b"%d" % n for n in range(25)], tp.partition,
                      linger_ms=20)  # fmt: skip
    settings = {"max_poll_records": 7} if how == "max_poll_records" else {}
    consumer = await start_consumer(fetch_path, kafka_bootstrap, tps, **settings)
    try:
        batches = []

        async def loop() -> None:
            while sum(map(len, batches)) < 50:
                batch = await consumer.getmany(
                    timeout_ms=1000, max_records=7 if how == "getmany" else None
                )
                batches.append([r for records in batch.values() for r in records])

        await asyncio.wait_for(loop(), HANG_BOUND_S)
        assert max(map(len, batches)) <= 7
        for tp in tps:
            offsets = [r.offset for b in batches for r in b if r.partition == tp.partition]
            assert offsets == list(range(25)), tp
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


# -- aiokafka's tests that reach into its fetcher, asserted through public API -------------------


async def test_a_fetch_inside_a_compressed_batch_hands_out_only_what_follows(
    fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    """aiokafka's test_consumer_compressed_returns_older_msgs: a fetch at an offset inside a
    compressed batch gets the whole batch from the broker; only the records from that offset
    on are handed out, and the position ends after the batch."""
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, compression_type="gzip")
    await producer.start()
    try:
        batch = producer.create_batch()
        for n in range(10):
            batch.append(key=b"k", value=b"%d" % n, timestamp=None)
        base = (await (await producer.send_batch(batch, topic, partition=0))).offset
    finally:
        await producer.stop()
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp])
    try:
        consumer.seek(tp, base + 5)
        got = await read(consumer, 5)
        assert [(r.offset, r.value) for r in got] == [(base + n, b"%d" % n) for n in range(5, 10)]
        assert await consumer.getmany(timeout_ms=0) == {}
        assert await consumer.position(tp) == base + 10
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


@pytest.mark.parametrize("then", ["getone", "getmany"])
async def test_seek_within_fetched_records_drops_the_rest(
    then: str, fetch_path: str, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    """aiokafka's test_consumer_seek_backward and test_consumer_seek_forward_getone/_getmany
    (they count fetches through its PartitionRecords): after ``getone`` took the first of three
    fetched records, a seek backward hands them out again from there and a seek forward skips
    to its offset; nothing the seek passed over comes later."""
    topic = topic_factory()
    tp = TopicPartition(topic, 0)
    await produce(kafka_bootstrap, topic, [b"1", b"2", b"3"])
    consumer = await start_consumer(fetch_path, kafka_bootstrap, [tp])
    try:

        async def next_values(count: int) -> list[bytes]:
            if then == "getone":
                one = [await asyncio.wait_for(consumer.getone(), HANG_BOUND_S)
                       for _ in range(count)]  # fmt: skip
                return [r.value for r in one]
            return [r.value for r in await read(consumer, count, max_records=count)]

        first = await asyncio.wait_for(consumer.getone(), HANG_BOUND_S)
        assert (first.offset, first.value) == (0, b"1")
        consumer.seek(tp, 0)  # backward: the one handed out comes again
        assert await next_values(2) == [b"1", b"2"]
        consumer.seek(tp, 1)
        assert await next_values(2) == [b"2", b"3"]
        consumer.seek(tp, 0)
        assert (await asyncio.wait_for(consumer.getone(), HANG_BOUND_S)).value == b"1"
        consumer.seek(tp, 2)  # forward, past a record fetched and not handed out
        assert await next_values(1) == [b"3"]
        assert await consumer.getmany(timeout_ms=0) == {}
        assert await consumer.position(tp) == 3
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()
