"""The aiokafka requests the seam sends besides the group APIs (those are the protocol layer's):
ApiVersions, Metadata, ListOffsets, Fetch, CreateTopics, DescribeConfigs.

Each is aiokafka's struct of one fixed version in a :class:`~staticconsumer.protocol.PinnedRequest`,
which every supported aiokafka sends as it is (``features``: 0.12's connection takes it as the
struct, 0.13 and 0.14 call ``prepare``). The struct classes and their schemas are the same in
0.12, 0.13 and 0.14 (``tests/compat/test_requests.py`` checks them); the version is the one
aiokafka 0.14's builder picks on Kafka 2.8 and newer, and every broker from 2.8 to 4.x serves
it (Kafka 4.0 removed only older ones, KIP-896).
"""

from __future__ import annotations

from typing import Any

from aiokafka.protocol.admin import (
    ApiVersionRequest_v2,
    CreateTopicsRequest_v3,
    DescribeConfigsRequest_v2,
)
from aiokafka.protocol.fetch import FetchRequest_v11
from aiokafka.protocol.metadata import MetadataRequest_v5
from aiokafka.protocol.offset import OffsetRequest_v3

from ..protocol import PinnedRequest

#: Fetch's replica id of a consumer, and its session fields without a fetch session (KIP-227).
_CONSUMER_REPLICA, _NO_SESSION, _FINAL_EPOCH = -1, 0, -1
#: A leader epoch or a log start offset the consumer does not know.
_UNKNOWN = -1
READ_UNCOMMITTED = 0


def api_versions_request() -> PinnedRequest:
    return PinnedRequest(ApiVersionRequest_v2())


def metadata_request(topics: list[str]) -> PinnedRequest:
    """Metadata for ``topics``, never creating one (``allow_auto_topic_creation=False``)."""
    return PinnedRequest(MetadataRequest_v5(topics, False))


def list_offsets_request(topic: str, partition: int, timestamp: int) -> PinnedRequest:
    """ListOffsets of one partition at ``timestamp`` (-2 the log start, -1 the high watermark),
    read uncommitted."""
    return PinnedRequest(
        OffsetRequest_v3(_CONSUMER_REPLICA, READ_UNCOMMITTED, [(topic, [(partition, timestamp)])])
    )


def fetch_request(
    topic: str, partition: int, offset: int, *, max_bytes: int, max_wait_ms: int = 0,
    min_bytes: int = 1,
) -> PinnedRequest:  # fmt: skip
    """Fetch of one partition from ``offset``, read uncommitted, no fetch session, no rack."""
    partitions = [(partition, _UNKNOWN, offset, _UNKNOWN, max_bytes)]
    return PinnedRequest(FetchRequest_v11(
        _CONSUMER_REPLICA, max_wait_ms, min_bytes, max_bytes, READ_UNCOMMITTED,
        _NO_SESSION, _FINAL_EPOCH, [(topic, partitions)], [], "",
    ))  # fmt: skip


def create_topics_request(
    topic: str, *, partitions: int, replication_factor: int, configs: dict[str, str],
    timeout_ms: int,
) -> PinnedRequest:  # fmt: skip
    rows: list[Any] = [(topic, partitions, replication_factor, [], list(configs.items()))]
    return PinnedRequest(
        CreateTopicsRequest_v3(create_topic_requests=rows, timeout=timeout_ms, validate_only=False)
    )


def describe_configs_request(resources: list[tuple[int, str, list[str]]]) -> PinnedRequest:
    """DescribeConfigs of ``(resource type, name, config names)`` rows, without synonyms."""
    return PinnedRequest(DescribeConfigsRequest_v2(resources, False))
