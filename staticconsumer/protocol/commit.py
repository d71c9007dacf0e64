"""Build and read OffsetCommit (api key 8): v6 (Kafka 2.1/2.2, for a member without an instance
id on those brokers) and the versions that carry ``group_instance_id``.

v7 adds ``group_instance_id`` (KIP-345), v8 is flexible, v9 is the same request (the first one a
KIP-848 consumer group accepts). v10 names topics by id only; a classic consumer has topic names,
and Java's ``OffsetCommitRequest.Builder.forTopicNames`` stops at v9 too, so v9 is our highest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: ``committed_leader_epoch`` when the leader epoch is unknown.
NO_LEADER_EPOCH = -1


@dataclass(frozen=True)
class CommitOffset:
    """One partition's offset to commit: the offset of the next record to consume."""

    topic: str
    partition: int
    offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str | None = ""


@dataclass(frozen=True)
class CommitPartitionResult:
    topic: str
    partition: int
    error_code: int


@dataclass(frozen=True)
class OffsetCommitResult:
    """An OffsetCommit response: one error code per partition (there is no top-level one)."""

    partitions: tuple[CommitPartitionResult, ...]
    throttle_time_ms: int = 0

    @property
    def failed(self) -> tuple[CommitPartitionResult, ...]:
        """The partitions whose error code is not 0."""
        return tuple(p for p in self.partitions if p.error_code != 0)


def build_offset_commit(
    version: int,
    *,
    group_id: str,
    generation_id: int,
    member_id: str,
    group_instance_id: str | None,
    offsets: Sequence[CommitOffset],
) -> PinnedRequest:
    """An OffsetCommit request. Topics and partitions are sent sorted, so equal input gives equal
    bytes; naming one partition twice is a ``ValueError``."""
    by_topic: dict[str, dict[int, CommitOffset]] = {}
    for item in offsets:
        partitions = by_topic.setdefault(item.topic, {})
        if item.partition in partitions:
            raise ValueError(f"offset for {item.topic}-{item.partition} given more than once")
        partitions[item.partition] = item
    topics = [
        {
            "name": topic,
            "partitions": [
                {
                    "partition_index": p.partition,
                    "committed_offset": p.offset,
                    "committed_leader_epoch": p.leader_epoch,
                    "committed_metadata": p.metadata,
                }
                for _, p in sorted(by_topic[topic].items())
            ],
        }
        for topic in sorted(by_topic)
    ]
    return build_request(
        ApiKey.OFFSET_COMMIT,
        version,
        {
            "group_id": group_id,
            "generation_id": generation_id,
            "member_id": member_id,
            "group_instance_id": group_instance_id,
            "topics": topics,
        },
    )


def parse_offset_commit(response: Any) -> OffsetCommitResult:
    """Read an OffsetCommit response of any implemented version."""
    obj = response_object(response, ApiKey.OFFSET_COMMIT, "OffsetCommit")
    return OffsetCommitResult(
        partitions=tuple(
            CommitPartitionResult(
                topic=topic["name"],
                partition=p["partition_index"],
                error_code=p["error_code"],
            )
            for topic in obj["topics"] or ()
            for p in topic["partitions"] or ()
        ),
        throttle_time_ms=obj["throttle_time_ms"],
    )
