"""Build and read Metadata (api key 3) v12 and v13, for topic ids (KIP-516): the consumer group
protocol (KIP-848) names topics by id, and aiokafka 0.14's metadata (up to v5) has none. Only what
a member needs is read: each topic's name, id, error and partition indexes, and (v13, KIP-1102)
the top-level error, which says REBOOTSTRAP_REQUIRED (129) when the client must go back to its
bootstrap servers (0 before v13)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: The all-zero topic id: "no id" (a topic asked for by name that does not exist).
ZERO_TOPIC_ID = uuid.UUID(int=0)


@dataclass(frozen=True)
class MetadataTopic:
    name: str | None
    topic_id: uuid.UUID
    error_code: int
    is_internal: bool
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class MetadataResult:
    topics: tuple[MetadataTopic, ...]
    #: The top-level error (v13+, KIP-1102); 0 before v13.
    error_code: int = 0


def build_metadata(
    version: int, topics: Sequence[str] | None, *, allow_auto_topic_creation: bool = False
) -> PinnedRequest:
    """A Metadata request for ``topics`` by name (None: every topic)."""
    fields: dict[str, Any] = {
        "topics": None if topics is None else [
            {"topic_id": ZERO_TOPIC_ID, "name": name} for name in topics
        ],
        "allow_auto_topic_creation": allow_auto_topic_creation,
        "include_topic_authorized_operations": False,
    }  # fmt: skip
    return build_request(ApiKey.METADATA, version, fields)


def parse_metadata(response: Any) -> MetadataResult:
    """Read a Metadata response of an implemented version."""
    obj = response_object(response, ApiKey.METADATA, "Metadata")
    topics = tuple(
        MetadataTopic(
            name=topic["name"], topic_id=topic["topic_id"], error_code=topic["error_code"],
            is_internal=bool(topic["is_internal"]),
            partitions=tuple(sorted(p["partition_index"] for p in topic["partitions"] or ())),
        )
        for topic in obj["topics"] or ()
    )  # fmt: skip
    return MetadataResult(topics, obj.get("error_code", 0))
