"""A Kafka 4.4 cluster whose ``group.version`` is finalized at 0 (formatted so, as a cluster
upgraded from 3.x stays until ``kafka-features.sh upgrade``): it announces
ConsumerGroupHeartbeat and answers every heartbeat UNSUPPORTED_VERSION. The cluster's finalized
features (ApiVersions v3, asked at start) decide before the first heartbeat: ``"auto"`` runs the
classic protocol, ``"consumer"`` is refused in one sentence naming the feature to upgrade (it
was a bare UnsupportedVersionError from the first heartbeat)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest

from staticconsumer import StaticConsumer, UnsupportedBrokerError
from staticconsumer.localkafka import LocalKafkaCluster
from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG

#: The launcher's default broker (group.version exists from Kafka 4.0).
KAFKA_VERSION = "4.4.0"


@pytest.fixture(scope="module")
def classic_only() -> Iterator[LocalKafkaCluster]:
    cluster = LocalKafkaCluster(1, kafka_version=KAFKA_VERSION, group_version=0,
                                broker_config=DEFAULT_TEST_BROKER_CONFIG)  # fmt: skip
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def consumer(cluster: LocalKafkaCluster, topic: str, group: str, protocol: str) -> StaticConsumer:
    return StaticConsumer(topic, bootstrap_servers=cluster.bootstrap_servers, group_id=group,
                          group_instance_id="orders-0", group_protocol=protocol,
                          auto_offset_reset="earliest")  # fmt: skip


async def test_auto_runs_the_classic_protocol_where_group_version_is_0(
    classic_only: LocalKafkaCluster, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic = topic_factory(2, cluster=classic_only)
    member = consumer(classic_only, topic, unique_group_id("auto"), "auto")
    await member.start()
    try:
        assert member.group_protocol == "classic"
        reason = member.group_protocol_reason or ""
        assert "group.version feature at 1 or more, and it is finalized at 0" in reason
        async with asyncio.timeout(30):
            while len(member.assignment()) < 2:
                await member.getmany(timeout_ms=200)
        assert member.generation_id > 0
    finally:
        await member.stop()


async def test_the_consumer_protocol_is_refused_at_start_naming_the_feature(
    classic_only: LocalKafkaCluster, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic = topic_factory(1, cluster=classic_only)
    member = consumer(classic_only, topic, unique_group_id("consumer"), "consumer")
    with pytest.raises(UnsupportedBrokerError) as info:
        await asyncio.wait_for(member.start(), 30)
    message = str(info.value)
    assert "group_protocol='consumer' (KIP-848) needs the cluster's group.version" in message
    assert "upgrade --feature group.version=1" in message
    assert message.endswith("use group_protocol='classic' on this cluster")
