"""Build and read OffsetFetch (api key 9): a group's committed offsets for some partitions.

v5 carries the committed leader epoch (KIP-320) and a top-level error code, v6 is flexible, v7
adds ``require_stable`` (KIP-447: the broker answers UNSTABLE_OFFSET_COMMIT for a partition with a
pending transactional commit instead of an offset that may still change), v8 batches groups
(KIP-709), v9 adds the member id and epoch (KIP-848). v10 names topics by id only; as with
OffsetCommit, a consumer that knows topic names stops at v9.

A group-level error (v5-v7: the top-level ``error_code``; v8+: the group's) comes with **no
partitions**: the broker did not read the group's offsets at all. :class:`OffsetFetchResult` keeps
that error apart, so that no caller can read "nothing committed" out of an answer that says
"ask again" (COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from staticconsumer.errors import ProtocolError
from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: The offset the broker answers for a partition without a committed offset.
NO_COMMITTED_OFFSET = -1


@dataclass(frozen=True)
class FetchedOffset:
    """One partition's row: its committed offset (-1: none), leader epoch (-1: unknown),
    metadata, and error code."""

    topic: str
    partition: int
    offset: int
    leader_epoch: int
    metadata: str
    error_code: int


@dataclass(frozen=True)
class OffsetFetchResult:
    """An OffsetFetch response: the group-level error code, and one row per partition."""

    error_code: int
    partitions: tuple[FetchedOffset, ...]
    throttle_time_ms: int = 0


def build_offset_fetch(
    version: int,
    *,
    group_id: str,
    partitions: Iterable[tuple[str, int]],
    member_id: str | None = None,
    member_epoch: int = -1,
    require_stable: bool = True,
) -> PinnedRequest:
    """An OffsetFetch request for ``partitions`` of one group, topics and partitions sorted.
    ``member_id``/``member_epoch`` go out from v9 (KIP-848 consumer groups); -1 and None are
    "not a consumer-protocol member", as Java sends for a classic group."""
    by_topic: dict[str, set[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, set()).add(partition)
    topics = [
        {"name": topic, "partition_indexes": sorted(by_topic[topic])} for topic in sorted(by_topic)
    ]
    if version < 8:
        fields: dict[str, Any] = {
            "group_id": group_id,
            "topics": topics,
            "require_stable": require_stable,
        }
    else:
        fields = {
            "groups": [
                {
                    "group_id": group_id,
                    "member_id": member_id,
                    "member_epoch": member_epoch,
                    "topics": topics,
                }
            ],
            "require_stable": require_stable,
        }
    return build_request(ApiKey.OFFSET_FETCH, version, fields)


def parse_offset_fetch(response: Any) -> OffsetFetchResult:
    """Read an OffsetFetch response of any implemented version (one group)."""
    obj = response_object(response, ApiKey.OFFSET_FETCH, "OffsetFetch")
    if "groups" in obj:
        groups = obj["groups"] or []
        if len(groups) != 1:
            raise ProtocolError(f"OffsetFetch answered {len(groups)} groups for one asked")
        error_code, topics = groups[0]["error_code"], groups[0]["topics"]
    else:
        error_code, topics = obj["error_code"], obj["topics"]
    return OffsetFetchResult(
        error_code=error_code,
        partitions=tuple(
            FetchedOffset(
                topic=topic["name"],
                partition=p["partition_index"],
                offset=p["committed_offset"],
                leader_epoch=p["committed_leader_epoch"],
                metadata=p["metadata"] or "",
                error_code=p["error_code"],
            )
            for topic in topics or ()
            for p in topic["partitions"] or ()
        ),
        throttle_time_ms=obj["throttle_time_ms"],
    )
