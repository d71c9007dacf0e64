"""``start()`` rides over a dead broker and a moving coordinator, and says so in our error type
when no broker answers at all (issue 15, fault 2).

Before the fix, ``start()`` asked the first broker of aiokafka's metadata for its API versions;
when that broker had just died (KRaft lists it until ``broker.session.timeout.ms`` passes) it
raised aiokafka's ``NodeNotReadyError``. The test makes that happen on purpose: it kills the
broker this process's metadata lists first, after picking a group that broker coordinates (so
the coordinator moves too) whenever the cluster has one.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.client import AIOKafkaClient
from aiokafka.errors import GroupCoordinatorNotAvailableError

from staticconsumer import ClusterUnavailableError, StaticConsumer
from staticconsumer.localkafka import LocalKafkaCluster
from staticconsumer.localkafka._cluster import free_port

from ._harness import live_bootstrap
from .test_broker_faults import REPEAT


async def first_listed_broker(bootstrap: str) -> int:
    client = AIOKafkaClient(bootstrap_servers=bootstrap)
    await client.bootstrap()
    try:
        return int(next(iter(client.cluster.brokers())).nodeId)
    finally:
        await client.close()


async def group_coordinated_by(bootstrap: str, node_id: int, prefix: str) -> str:
    """A group whose coordinator is ``node_id`` when one of 200 candidates is (after earlier
    broker restarts a node may lead no ``__consumer_offsets`` partition until Kafka's preferred
    leader election runs); else the first candidate."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        for i in range(200):
            group = f"{prefix}-{i}"
            async with asyncio.timeout(60):
                while True:  # the first lookup in a new cluster creates __consumer_offsets
                    try:
                        coordinator = await admin.find_coordinator(group)
                        break
                    except GroupCoordinatorNotAvailableError:
                        await asyncio.sleep(0.5)
            if coordinator == node_id:
                return group
    finally:
        await admin.close()
    return f"{prefix}-0"


@pytest.mark.parametrize("attempt", REPEAT)
async def test_start_succeeds_when_the_first_listed_broker_is_dead(
    kafka_cluster_3: LocalKafkaCluster,
    unique_topic: Callable[..., str],
    unique_group_id: Callable[..., str],
    attempt: int,
) -> None:
    cluster = kafka_cluster_3
    topic = cluster.create_topic(unique_topic(), partitions=3, replication_factor=3)
    first = await first_listed_broker(cluster.bootstrap_servers)
    group = await group_coordinated_by(cluster.bootstrap_servers, first, unique_group_id())
    cluster.kill_broker(first)
    consumer = StaticConsumer(
        topic, bootstrap_servers=live_bootstrap(cluster), group_id=group,
        group_instance_id="svc-0", session_timeout_ms=30000, auto_offset_reset="earliest",
    )  # fmt: skip
    try:
        async with asyncio.timeout(120):
            await consumer.start()
        assert {tp.partition for tp in consumer.assignment()} == {0, 1, 2}
        assert consumer.generation_id >= 1
    finally:
        await consumer.stop()
        await asyncio.to_thread(cluster.restart_broker, first)


async def test_start_with_no_broker_raises_cluster_unavailable_in_bounded_time() -> None:
    consumer = StaticConsumer(
        "t", bootstrap_servers=f"127.0.0.1:{free_port()}", group_id="g",
        group_instance_id="svc-0", request_timeout_ms=3000,
    )  # fmt: skip
    with pytest.raises(ClusterUnavailableError, match="reached no broker") as caught:
        async with asyncio.timeout(60):
            await consumer.start()
    assert not caught.value.fatal


def test_a_broker_restarted_from_a_worker_thread_outlives_the_thread(
    kafka_cluster_3: LocalKafkaCluster,
) -> None:
    """Found while writing these scenarios: a broker restarted through ``asyncio.to_thread`` died
    as soon as the event loop's worker thread ended (the kernel's parent-death signal follows
    the forking thread)."""
    cluster = kafka_cluster_3
    broker = cluster.brokers[-1]
    cluster.stop_broker(broker.node_id)
    worker = threading.Thread(target=cluster.restart_broker, args=(broker.node_id,))
    worker.start()
    worker.join()
    time.sleep(2)  # the parent-death signal, if any, is immediate
    assert broker.is_running(), broker.log_tail()
