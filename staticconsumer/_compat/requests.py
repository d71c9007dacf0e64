"""The aiokafka requests the seam sends besides the group APIs (those are the protocol layer's):
ApiVersions, Metadata, ListOffsets, Fetch, CreateTopics, DescribeConfigs, CreateAcls.

Each is aiokafka's request struct of one fixed version, sent as the protocol layer's requests are
(:class:`.wire.AiokafkaRequest`: every supported aiokafka's connection takes it, 0.12's as the
struct itself, 0.13 and 0.14's through ``prepare``, which refuses a version the broker does not
serve). aiokafka 0.12 has no request builders (0.13 made them, aiokafka PR #1136), so the
version is chosen here: the one aiokafka 0.14's builder picks on Kafka 2.8 and newer, which every
broker from 2.8 to 4.x serves (Kafka 4.0 removed only older ones, KIP-896). The struct classes and
their schemas are the same in 0.12, 0.13 and 0.14 (``tests/compat/test_requests.py``).
"""

from __future__ import annotations

from typing import Any

from aiokafka.protocol.admin import (
    ApiVersionRequest_v2,
    CreateAclsRequest_v1,
    CreateTopicsRequest_v3,
    DescribeConfigsRequest_v2,
)
from aiokafka.protocol.fetch import FetchRequest_v11
from aiokafka.protocol.metadata import MetadataRequest_v5
from aiokafka.protocol.offset import OffsetRequest_v3

from ..protocol import PinnedRequest
from .wire import AiokafkaRequest

#: Fetch's replica id of a consumer, and its session fields without a fetch session (KIP-227).
_CONSUMER_REPLICA, _NO_SESSION, _FINAL_EPOCH = -1, 0, -1
#: A leader epoch or a log start offset the consumer does not know.
_UNKNOWN = -1
READ_UNCOMMITTED = 0


def _pinned(struct: Any) -> AiokafkaRequest:
    return AiokafkaRequest(PinnedRequest(struct), struct.RESPONSE_TYPE)


def api_versions_request() -> AiokafkaRequest:
    return _pinned(ApiVersionRequest_v2())


def metadata_request(topics: list[str] | None) -> AiokafkaRequest:
    """Metadata for ``topics`` (None: every topic), never creating one
    (``allow_auto_topic_creation=False``)."""
    return _pinned(MetadataRequest_v5(topics, False))


def list_offsets_request(topic: str, partition: int, timestamp: int) -> AiokafkaRequest:
    """ListOffsets of one partition at ``timestamp`` (-2 the log start, -1 the high watermark),
    read uncommitted."""
    return _pinned(
        OffsetRequest_v3(_CONSUMER_REPLICA, READ_UNCOMMITTED, [(topic, [(partition, timestamp)])])
    )


def fetch_request(
    topic: str, partition: int, offset: int, *, max_bytes: int, max_wait_ms: int = 0,
    min_bytes: int = 1,
) -> AiokafkaRequest:  # fmt: skip
    """Fetch of one partition from ``offset``, read uncommitted, no fetch session, no rack."""
    partitions = [(partition, _UNKNOWN, offset, _UNKNOWN, max_bytes)]
    return _pinned(FetchRequest_v11(
        _CONSUMER_REPLICA, max_wait_ms, min_bytes, max_bytes, READ_UNCOMMITTED,
        _NO_SESSION, _FINAL_EPOCH, [(topic, partitions)], [], "",
    ))  # fmt: skip


def create_topics_request(
    topic: str, *, partitions: int, replication_factor: int, configs: dict[str, str],
    timeout_ms: int,
) -> AiokafkaRequest:  # fmt: skip
    rows: list[Any] = [(topic, partitions, replication_factor, [], list(configs.items()))]
    return _pinned(
        CreateTopicsRequest_v3(create_topic_requests=rows, timeout=timeout_ms, validate_only=False)
    )


def describe_configs_request(resources: list[tuple[int, str, list[str]]]) -> AiokafkaRequest:
    """DescribeConfigs of ``(resource type, name, config names)`` rows, without synonyms."""
    return _pinned(DescribeConfigsRequest_v2(resources, False))


def create_acls_request(creation: tuple[int, str, int, str, str, int, int]) -> AiokafkaRequest:
    """CreateAcls of one binding: resource type, name, pattern type, principal, host, operation,
    permission type (Kafka's enum codes)."""
    return _pinned(CreateAclsRequest_v1([creation]))
