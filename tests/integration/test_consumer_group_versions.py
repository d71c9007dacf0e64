"""The launched broker speaks KIP-848: it announces ConsumerGroupHeartbeat (api key 68), and the
version negotiated with it is the newest this package implements."""

from __future__ import annotations

from aiokafka.client import AIOKafkaClient
from aiokafka.protocol.admin import ApiVersionRequest

from staticconsumer.protocol import (
    ApiKey,
    api_versions_from_response,
    negotiate_consumer_group_heartbeat,
)
from staticconsumer.protocol._messages import IMPLEMENTED_VERSIONS


async def test_launched_broker_negotiates_consumer_group_heartbeat(kafka_bootstrap: str) -> None:
    client = AIOKafkaClient(bootstrap_servers=kafka_bootstrap)
    await client.bootstrap()
    try:
        node_id = next(iter(client.cluster.brokers())).nodeId
        answer = await client.send(node_id, ApiVersionRequest())
    finally:
        await client.close()
    broker = api_versions_from_response(answer)
    assert ApiKey.CONSUMER_GROUP_HEARTBEAT in broker, sorted(broker)
    low, high = broker[ApiKey.CONSUMER_GROUP_HEARTBEAT]
    assert low <= 1 <= high, (low, high)  # v1 (KIP-1082) is what Kafka 4.x speaks
    ours_high = IMPLEMENTED_VERSIONS[ApiKey.CONSUMER_GROUP_HEARTBEAT][1]
    assert negotiate_consumer_group_heartbeat(broker) == min(high, ours_high)
