"""The two fetch paths every fetch-behaviour test runs on (issue 43 item 2), chosen as a user
chooses them, by ``STATICCONSUMER_KEPT_FETCH``: ``fetcher`` (``=0``, aiokafka's fetcher and its
connection, the compiled record reader over its responses) and ``kept`` (``=1``, Fetch responses
read into kept buffers on our own wire). Each test checks that its consumer runs the path asked
for, so a path that silently fell back is not counted as tested."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from staticconsumer import StaticConsumer
from staticconsumer._compat import features
from staticconsumer._compat import fetch as seam
from staticconsumer.errors import LocalKafkaError
from staticconsumer.localkafka import LocalKafkaCluster, create_topic

FETCH_PATHS = ("fetcher", "kept")
#: A bound on each wait for records, against a hang (not a speed goal).
HANG_BOUND_S = 60.0


@pytest.fixture(params=FETCH_PATHS)
def fetch_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    path: str = request.param
    monkeypatch.delenv(seam.PURE_RECORDS_ENV, raising=False)
    monkeypatch.setenv(seam.KEPT_FETCH_ENV, "1" if path == "kept" else "0")
    assert seam.compiled_available(), "the compiled record path is not built: no kept path"
    yield path


async def start_consumer(
    path: str, bootstrap: str, assign: Iterable[TopicPartition], **settings: Any
) -> StaticConsumer:
    """A started group-less StaticConsumer on ``assign``, checked to run fetch path ``path``
    (aiokafka 0.12/0.13: the kept path is the compiled one, ``features.KEPT_FETCH_AVAILABLE``)."""
    settings.setdefault("auto_offset_reset", "earliest")
    consumer = StaticConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **settings)
    consumer.assign(list(assign))
    await consumer.start()
    kept = path == "kept" and features.KEPT_FETCH_AVAILABLE
    assert (seam.kept_buffers_of(consumer) is not None) is kept, path
    return consumer


def read_kept_frames(consumer: StaticConsumer, path: str) -> None:
    """After reading: on the kept path, Fetch responses did land in kept buffers."""
    buffers = seam.kept_buffers_of(consumer)
    if path == "kept" and features.KEPT_FETCH_AVAILABLE:
        assert buffers is not None and buffers.allocated > 0


async def read(
    consumer: StaticConsumer, count: int, *, max_records: int | None = None
) -> list[Any]:
    """Exactly the next ``count`` records getmany hands out (more fails), in order."""
    got: list[Any] = []

    async def loop() -> None:
        while len(got) < count:
            batch = await consumer.getmany(timeout_ms=1000, max_records=max_records)
            got.extend(r for records in batch.values() for r in records)

    await asyncio.wait_for(loop(), HANG_BOUND_S)
    assert len(got) == count, [(r.partition, r.offset) for r in got]
    return got


async def produce(
    bootstrap: str, topic: str, values: Iterable[bytes], partition: int = 0, **settings: Any
) -> list[int]:
    """Send ``values`` one batch each; their offsets."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", **settings)
    await producer.start()
    try:
        return [
            (await producer.send_and_wait(topic, value, partition=partition)).offset
            for value in values
        ]
    finally:
        await producer.stop()


# -- a 3-node cluster of the module's own --------------------------------------------------------


def started_cluster(
    config: Mapping[str, str], node_config: Mapping[int, Mapping[str, str]] | None = None
) -> Iterator[LocalKafkaCluster]:
    """A module fixture's body: a local 3-node cluster, stopped after the module."""
    cluster = LocalKafkaCluster(3, broker_config=config, node_config=node_config)
    try:
        cluster.start()
    except (LocalKafkaError, ValueError) as exc:
        pytest.fail(f"this test needs a local 3-node Apache Kafka and none started:\n{exc}")
    try:
        yield cluster
    finally:
        cluster.stop()


async def new_topic(cluster: LocalKafkaCluster, replicas: list[int]) -> str:
    """A topic of one partition on ``replicas`` (the first the preferred leader)."""
    topic = f"fetch-{uuid.uuid4().hex[:8]}"
    await create_topic(cluster.bootstrap_servers, topic, replica_assignment={0: replicas})
    return topic


async def placement(bootstrap: str, topic: str) -> tuple[int, list[int]]:
    """The partition's leader and its in-sync followers, as the cluster describes them."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        (described,) = await admin.describe_topics([topic])
    finally:
        await admin.close()
    (partition,) = described["partitions"]
    leader: int = partition["leader"]
    return leader, sorted(n for n in partition["isr"] if n != leader)
