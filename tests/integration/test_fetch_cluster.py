"""Fetch behaviours that need a cluster of their own, on both fetch paths (issue 43 item 2): a
leader change on three brokers and a corrupt batch on a broker's disk. Fetching from a follower
(KIP-392) needs brokers configured otherwise: test_fetch_follower.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import TopicPartition
from aiokafka.errors import CorruptRecordException, KafkaError

from staticconsumer.localkafka import LocalKafkaCluster
from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG

from ._fetch_paths import (
    HANG_BOUND_S,
    fetch_path,
    new_topic,
    placement,
    produce,
    read,
    read_kept_frames,
    start_consumer,
    started_cluster,
)

__all__ = ["fetch_path"]  # a fixture, used by name


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalKafkaCluster]:
    yield from started_cluster(DEFAULT_TEST_BROKER_CONFIG)


async def _new_leader(survivors: str, topic: str, followers: list[int]) -> int:
    """The partition's leader once it is one of ``followers``: at once after a controlled
    shutdown (the broker hands leadership over as it stops); after ``kill -9``, once the
    controller fences the dead broker (``broker.session.timeout.ms``, 9 s by default)."""
    deadline = asyncio.get_running_loop().time() + HANG_BOUND_S
    leader: int | str = "not described yet"
    while True:
        try:  # the admin client may pick the dead broker, still in the metadata, to ask
            leader = (await placement(survivors, topic))[0]
        except KafkaError:
            pass
        if leader in followers:
            return int(leader)
        assert asyncio.get_running_loop().time() < deadline, f"leader still {leader}"
        await asyncio.sleep(0.5)


@pytest.mark.parametrize("how", ["controlled shutdown", "kill -9"])
async def test_consumption_continues_across_a_leader_change(
    fetch_path: str, cluster: LocalKafkaCluster, how: str
) -> None:
    """Replication 3; the leader stops while the consumer reads: a controlled shutdown, as in a
    rolling restart, or ``kill -9``, as in a crash (the fetch connection is reset under a fetch
    in flight, and the dead broker stays in the metadata until the controller fences it).
    Every record comes once, in order, the later ones from the new leader."""
    bootstrap = cluster.bootstrap_servers
    topic = await new_topic(cluster, [1, 2, 3])
    tp = TopicPartition(topic, 0)
    await produce(bootstrap, topic, [b"%d" % n for n in range(20)])
    leader, followers = await placement(bootstrap, topic)
    assert len(followers) == 2, "every replica in sync"
    consumer = await start_consumer(fetch_path, bootstrap, [tp])
    try:
        got = await read(consumer, 20)
        if how == "kill -9":
            await asyncio.sleep(0.2)  # the next fetch is in flight, held by the broker
            cluster.kill_broker(leader)
        else:
            cluster.stop_broker(leader)
        try:
            survivors = ",".join(cluster.broker(n).address for n in followers)
            await _new_leader(survivors, topic, followers)
            await produce(survivors, topic, [b"%d" % n for n in range(20, 40)])
            got += await read(consumer, 20)
        finally:
            cluster.restart_broker(leader)
        assert [(r.offset, r.value) for r in got] == [(n, b"%d" % n) for n in range(40)]
        assert await consumer.getmany(timeout_ms=500) == {}
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()


def _segment(cluster: LocalKafkaCluster, node: int, topic: str) -> Path:
    return cluster.broker(node).directory / "data" / f"{topic}-0" / ("0" * 20 + ".log")


def _flip_last_byte_of_batch(segment: Path, index: int) -> None:
    """Corrupt batch ``index`` of a segment on disk: its last byte, under its CRC (the broker
    serves fetches from the file and checks no CRC on the way out)."""
    with segment.open("r+b") as file:
        data = file.read()
        start = 0
        for _ in range(index):
            start += 12 + int.from_bytes(data[start + 8 : start + 12], "big")
        end = start + 12 + int.from_bytes(data[start + 8 : start + 12], "big")
        file.seek(end - 1)
        file.write(bytes([data[end - 1] ^ 0xFF]))


async def test_a_corrupt_batch_is_an_error_until_the_application_seeks_past_it(
    fetch_path: str, cluster: LocalKafkaCluster
) -> None:
    """aiokafka's test_consumer_invalid_crc_in_records (it corrupts a response through its
    client's private send): a batch whose CRC does not match is ``CorruptRecordException``,
    not records and not a silent skip; the records before it are handed out, the position stays
    at it, and the consumer reads on once the application seeks past it."""
    topic = await new_topic(cluster, [3])
    tp = TopicPartition(topic, 0)
    bootstrap = cluster.bootstrap_servers
    await produce(bootstrap, topic, [b"good", b"corrupt", b"after"])
    _flip_last_byte_of_batch(_segment(cluster, 3, topic), 1)
    consumer = await start_consumer(fetch_path, bootstrap, [tp])
    try:
        first = await asyncio.wait_for(consumer.getone(), HANG_BOUND_S)
        assert (first.offset, first.value) == (0, b"good")
        for _ in range(2):  # refetched, it is still corrupt
            with pytest.raises(CorruptRecordException):
                await asyncio.wait_for(consumer.getmany(timeout_ms=10_000), HANG_BOUND_S)
            assert await consumer.position(tp) == 1
        consumer.seek(tp, 2)
        assert [(r.offset, r.value) for r in await read(consumer, 1)] == [(2, b"after")]
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()
