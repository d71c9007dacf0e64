"""Readiness and small admin chores against a running cluster, run with aiokafka.

These functions are synchronous so that fixtures and the CLI can call them from anywhere; each runs
its own event loop in a worker thread (so it also works when the caller's loop is running).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from aiokafka import AIOKafkaClient, AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError

from .._compat.tooling import partitions_led
from ..security import SecuritySettings
from . import _retry

T = TypeVar("T")


def _kw(security: SecuritySettings | None) -> dict[str, object]:
    """aiokafka keyword arguments for ``security`` (none for a plaintext cluster)."""
    return security.aiokafka_kwargs() if security is not None else {}


def run_sync(factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion in a private event loop on a worker thread."""

    async def runner() -> T:
        return await factory()

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="localkafka") as pool:
        return pool.submit(asyncio.run, runner()).result()


class TopicCreation:
    """``create_topic`` for any cluster object that has ``bootstrap_servers`` (an attribute on
    some clusters, a property on others, hence the getattr)."""

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int = 1,
        config: Mapping[str, str] | None = None,
    ) -> str:
        """Create ``name`` and wait until every partition has a leader; returns the name."""
        bootstrap = str(getattr(self, "bootstrap_servers"))  # noqa: B009
        # A secured local cluster creates topics as its super user (see _secure.py).
        security = getattr(self, "admin_security", None)
        run_sync(
            lambda: create_topic(
                bootstrap,
                name,
                partitions=partitions,
                replication_factor=replication_factor,
                config=dict(config or {}),
                security=security,
            )
        )
        return name


async def create_topic(
    bootstrap: str,
    name: str,
    *,
    partitions: int = 1,
    replication_factor: int = 1,
    replica_assignment: dict[int, list[int]] | None = None,
    config: dict[str, str] | None = None,
    timeout_s: float = 30.0,
    security: SecuritySettings | None = None,
) -> None:
    """Create a topic and wait until every partition has a leader in the metadata."""
    admin = AIOKafkaAdminClient(
        bootstrap_servers=bootstrap, request_timeout_ms=10000, **_kw(security)
    )
    await admin.start()
    try:
        if replica_assignment:
            topic = NewTopic(
                name, -1, -1, replica_assignments=replica_assignment, topic_configs=config or {}
            )
        else:
            topic = NewTopic(name, partitions, replication_factor, topic_configs=config or {})
        try:
            await admin.create_topics([topic])
        except TopicAlreadyExistsError:
            pass
    finally:
        await admin.close()
    expected = len(replica_assignment) if replica_assignment else partitions
    await _wait_for_leaders(bootstrap, name, expected, timeout_s, security)


async def _wait_for_leaders(
    bootstrap: str, topic: str, partitions: int, timeout_s: float,
    security: SecuritySettings | None,
) -> None:  # fmt: skip
    """Wait, under the ``topic_metadata`` policy, until *every* broker's metadata shows ``topic``
    with ``partitions`` partitions, each with a leader.

    Every broker, not the first that answers: the others learn of a new topic from the controller
    a moment later, and a client that asks one of them right away (``describe_topics`` on another
    connection) would see the topic without partitions.
    """
    client = AIOKafkaClient(bootstrap_servers=bootstrap, request_timeout_ms=10000, **_kw(security))
    await client.bootstrap()
    try:
        async for attempt in _retry.topic_metadata(timeout_s):
            with attempt:
                await _every_broker_sees(client, topic, partitions)
    except _retry.NotYet as exc:
        raise TimeoutError(f"topic {topic} not ready within {timeout_s:g}s: {exc}") from None
    finally:
        await client.close()


async def _every_broker_sees(client: AIOKafkaClient, topic: str, partitions: int) -> None:
    """Raise :class:`~._retry.NotYet` unless each broker in the cluster's metadata
    answers a Metadata request for ``topic`` with every partition led."""
    await client.force_metadata_update()
    nodes = sorted(b.nodeId for b in client.cluster.brokers())
    if not nodes:
        raise _retry.NotYet("no broker in the metadata yet")
    for node in nodes:
        try:
            found, led = await partitions_led(client, node, topic)
        except (KafkaError, OSError) as exc:  # a broker restarting: ask again
            raise _retry.NotYet(f"broker {node} did not answer: {exc!r}") from exc
        if found != partitions or led != partitions:
            raise _retry.NotYet(
                f"broker {node} sees {found} partitions, {led} with a leader, of {partitions}"
            )


async def produce_and_consume(
    bootstrap: str, topic: str, partition: int, timeout_s: float,
    security: SecuritySettings | None = None,
) -> None:  # fmt: skip
    """Write one record to ``topic``/``partition`` and read it back: the broker really serves."""
    payload = f"probe-{time.time_ns()}".encode()
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", request_timeout_ms=10000, **_kw(security)
    )
    await producer.start()
    try:
        meta = await asyncio.wait_for(
            producer.send_and_wait(topic, payload, partition=partition), timeout_s
        )
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, **_kw(security)
    )
    await consumer.start()
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        consumer.seek(tp, meta.offset)
        record = await asyncio.wait_for(consumer.getone(), timeout_s)
        if record.value != payload:
            raise RuntimeError(f"probe read back {record.value!r}, wrote {payload!r}")
    finally:
        await consumer.stop()


async def probe_brokers(
    bootstrap: str, node_ids: list[int], timeout_s: float,
    security: SecuritySettings | None = None,
) -> None:  # fmt: skip
    """Every broker in ``node_ids`` leads a probe partition that can be written and read."""
    await _wait_for_registration(bootstrap, node_ids, timeout_s, security)
    topic = f"__staticconsumer_probe_{time.time_ns()}"
    assignment = {index: [node] for index, node in enumerate(node_ids)}
    await create_topic(
        bootstrap, topic, replica_assignment=assignment, timeout_s=timeout_s, security=security
    )
    for index in assignment:
        await produce_and_consume(bootstrap, topic, index, timeout_s, security)
    with contextlib.suppress(KafkaError):
        await delete_topics(bootstrap, [topic], security=security)


async def _wait_for_registration(
    bootstrap: str, node_ids: list[int], timeout_s: float,
    security: SecuritySettings | None,
) -> None:  # fmt: skip
    """Until the metadata lists every broker in ``node_ids``. A broker opens its port before it
    has registered (Kafka 3.3 to 3.5 answer Metadata with no broker at all meanwhile, which
    aiokafka's admin client cannot start on)."""
    client = AIOKafkaClient(bootstrap_servers=bootstrap, request_timeout_ms=10000, **_kw(security))
    await client.bootstrap()
    try:
        async for attempt in _retry.topic_metadata(timeout_s):
            with attempt:
                await client.force_metadata_update()
                registered = {b.nodeId for b in client.cluster.brokers()}
                if not set(node_ids) <= registered:
                    raise _retry.NotYet(f"registered brokers {sorted(registered)}")
    except _retry.NotYet as exc:
        raise TimeoutError(f"brokers {node_ids} not registered in {timeout_s:g}s: {exc}") from None
    finally:
        await client.close()


async def delete_topics(
    bootstrap: str, topics: list[str], *, security: SecuritySettings | None = None
) -> None:
    """Delete ``topics`` (the counterpart of :func:`create_topic`)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **_kw(security))
    await admin.start()
    try:
        await admin.delete_topics(topics)
    finally:
        await admin.close()
