"""The aiokafka internals the tooling (``staticconsumer.localkafka``) needs: requests aiokafka's
public clients do not make. The tooling reaches aiokafka's internals only here (issue 42)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiokafka.cluster import ClusterMetadata
from aiokafka.structs import TopicPartition

from .requests import create_acls_request, metadata_request


@dataclass(frozen=True)
class AclBinding:
    """One CreateAcls creation, in Kafka's enum codes (``org.apache.kafka.common.acl``)."""

    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int


async def create_acl(client: Any, node_id: int, binding: AclBinding) -> list[tuple[int, str]]:
    """Send one CreateAcls (api key 30; aiokafka's admin client has no ACL calls) to
    ``node_id`` on ``client`` (an ``AIOKafkaClient``): ``(error code, message)`` per creation."""
    request = create_acls_request((
        binding.resource_type, binding.resource_name, binding.pattern_type, binding.principal,
        binding.host, binding.operation, binding.permission_type,
    ))  # fmt: skip
    response = await client.send(node_id, request)
    return [(int(row[0]), row[1]) for row in response.creation_responses]


async def partitions_led(client: Any, node_id: int, topic: str) -> tuple[int, int]:
    """What broker ``node_id`` itself says of ``topic`` (a Metadata request that never creates
    it): ``(partitions, partitions with a leader)``."""
    response = await client.send(node_id, metadata_request([topic]))
    view = ClusterMetadata()
    view.update_metadata(response)
    found = view.partitions_for_topic(topic) or set()
    leaders = [view.leader_for_partition(TopicPartition(topic, p)) for p in found]
    return len(found), len([leader for leader in leaders if leader is not None and leader >= 0])
