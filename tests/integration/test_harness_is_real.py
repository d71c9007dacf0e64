"""The harness is a real Apache Kafka: plain aiokafka produces, consumes and forms groups on it,
the processes are ``kafka.Kafka``, and a 3-node cluster survives ``kill -9`` of a coordinator."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from staticconsumer.localkafka import KafkaCluster, LocalKafkaCluster

from ._group import produce


async def test_produce_and_consume(kafka_bootstrap: str, topic_factory: Callable[..., str]) -> None:
    topic = topic_factory(partitions=3)
    sent = [f"v{i}".encode() for i in range(50)]
    await produce(kafka_bootstrap, topic, sent)
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=kafka_bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        got: list[bytes] = []
        async with asyncio.timeout(30):
            while len(got) < len(sent):
                batch = await consumer.getmany(timeout_ms=1000)
                got.extend(r.value for records in batch.values() for r in records)
    finally:
        await consumer.stop()
    assert sorted(got) == sorted(sent)


async def test_two_consumers_split_a_topic(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=4)
    group = unique_group_id()
    consumers = [
        AIOKafkaConsumer(
            topic,
            bootstrap_servers=kafka_bootstrap,
            group_id=group,
            auto_offset_reset="earliest",
            session_timeout_ms=6000,
            heartbeat_interval_ms=500,
        )
        for _ in range(2)
    ]
    for consumer in consumers:
        await consumer.start()
    try:
        async with asyncio.timeout(60):
            while True:
                # getmany drives the group; stop once both own two partitions each.
                await asyncio.gather(*(c.getmany(timeout_ms=200) for c in consumers))
                owned = [c.assignment() for c in consumers]
                if all(len(a) == 2 for a in owned):
                    break
    finally:
        for consumer in consumers:
            await consumer.stop()
    assert owned[0].isdisjoint(owned[1])
    assert owned[0] | owned[1] == {TopicPartition(topic, p) for p in range(4)}


def test_brokers_run_kafka_main_class(kafka_cluster: KafkaCluster) -> None:
    assert isinstance(kafka_cluster, LocalKafkaCluster), "this check needs the local launcher"
    for broker in kafka_cluster.brokers:
        cmdline = broker.command_line()
        assert "kafka.Kafka" in cmdline
        assert any("kafka_2.13-" in part for part in cmdline)
        assert "Kafka Server started" in broker.read_log() or "started (kafka" in broker.read_log()


async def test_consumption_survives_kill_9_of_the_group_coordinator(
    kafka_cluster_3: LocalKafkaCluster,
    unique_group_id: Callable[..., str],
    unique_topic: Callable[..., str],
) -> None:
    cluster = kafka_cluster_3
    bootstrap = cluster.bootstrap_servers
    topic = cluster.create_topic(unique_topic(), partitions=3, replication_factor=3)
    group = unique_group_id()
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        session_timeout_ms=6000,
        heartbeat_interval_ms=500,
    )
    await consumer.start()
    killed = None
    try:
        before = [f"before-{i}".encode() for i in range(20)]
        await produce(bootstrap, topic, before)
        got: list[bytes] = []
        async with asyncio.timeout(60):
            while len(got) < len(before):
                batch = await consumer.getmany(timeout_ms=500)
                got.extend(r.value for rs in batch.values() for r in rs)
        await consumer.commit()
        coordinator = await admin.find_coordinator(group)
        killed = coordinator
        cluster.kill_broker(coordinator)
        assert not cluster.broker(coordinator).is_running()

        after = [f"after-{i}".encode() for i in range(20)]
        survivors = ",".join(b.address for b in cluster.brokers if b.node_id != coordinator)
        await produce(survivors, topic, after, request_timeout_ms=30000)
        async with asyncio.timeout(120):
            while len(got) < len(before) + len(after):
                batch = await consumer.getmany(timeout_ms=500)
                got.extend(r.value for rs in batch.values() for r in rs)
            while True:  # the commit goes to the new coordinator once the group has moved
                try:
                    await consumer.commit()
                    break
                except Exception:
                    await asyncio.sleep(0.5)
        admin_after = AIOKafkaAdminClient(bootstrap_servers=survivors)
        await admin_after.start()
        try:
            new_coordinator = await admin_after.find_coordinator(group)
        finally:
            await admin_after.close()
        assert new_coordinator != coordinator
        assert sorted(got) == sorted(before + after)
        committed = [await consumer.committed(TopicPartition(topic, p)) for p in range(3)]
        assert sum(c or 0 for c in committed) == len(before) + len(after)
    finally:
        await consumer.stop()
        await admin.close()
        if killed is not None:
            cluster.restart_broker(killed)
