"""Build and read ConsumerGroupHeartbeat (api key 68), the one request of a member of a KIP-848
consumer group: join (epoch 0), heartbeat and acknowledge (its current epoch), leave (epoch -1),
or leave for now as a static member (epoch -2: the coordinator keeps the member's assignment
until the session timeout, KIP-848's static membership).

Topics are named by topic id (KIP-516) both ways. Fields the spec marks "null if it did not
change since the last heartbeat" are ``None`` here by default, so a full heartbeat is the caller's
choice. v1 adds ``subscribed_topic_regex``, and with it member ids made by the client (KIP-1082:
the broker refuses an empty member id at v1).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: ``member_epoch`` to join the group.
JOIN_GROUP_MEMBER_EPOCH = 0
#: ``member_epoch`` to leave the group for good.
LEAVE_GROUP_MEMBER_EPOCH = -1
#: ``member_epoch`` of a static member leaving for now: it keeps its assignment until the
#: session timeout, and a member with the same instance id takes it over (KIP-848).
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2


@dataclass(frozen=True)
class TopicIdPartitions:
    """Partitions of one topic, named by its id."""

    topic_id: uuid.UUID
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class ConsumerGroupHeartbeatResult:
    """A ConsumerGroupHeartbeat response. ``assignment`` is None when the coordinator sent none
    (no change), else the member's whole target assignment."""

    error_code: int
    error_message: str | None
    member_id: str | None
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: tuple[TopicIdPartitions, ...] | None
    throttle_time_ms: int = 0


def build_consumer_group_heartbeat(
    version: int,
    *,
    group_id: str,
    member_id: str,
    member_epoch: int,
    instance_id: str | None = None,
    rack_id: str | None = None,
    rebalance_timeout_ms: int = -1,
    subscribed_topic_names: Sequence[str] | None = None,
    subscribed_topic_regex: str | None = None,
    server_assignor: str | None = None,
    owned: Sequence[TopicIdPartitions] | None = None,
) -> PinnedRequest:
    """A ConsumerGroupHeartbeat request. ``owned`` is sent sorted by topic id then partition, so
    equal input gives equal bytes; a regex before v1 is a ``ValueError``."""
    if subscribed_topic_regex is not None and version < 1:
        raise ValueError("subscribed_topic_regex needs ConsumerGroupHeartbeat v1")
    topic_partitions = None
    if owned is not None:
        topic_partitions = [
            {"topic_id": t.topic_id, "partitions": sorted(t.partitions)}
            for t in sorted(owned, key=lambda t: t.topic_id.bytes)
        ]
    fields: dict[str, Any] = {
        "group_id": group_id,
        "member_id": member_id,
        "member_epoch": member_epoch,
        "instance_id": instance_id,
        "rack_id": rack_id,
        "rebalance_timeout_ms": rebalance_timeout_ms,
        "subscribed_topic_names": (
            None if subscribed_topic_names is None else list(subscribed_topic_names)
        ),
        "subscribed_topic_regex": subscribed_topic_regex,
        "server_assignor": server_assignor,
        "topic_partitions": topic_partitions,
    }
    return build_request(ApiKey.CONSUMER_GROUP_HEARTBEAT, version, fields)


def parse_consumer_group_heartbeat(response: Any) -> ConsumerGroupHeartbeatResult:
    """Read a ConsumerGroupHeartbeat response of any implemented version."""
    obj = response_object(response, ApiKey.CONSUMER_GROUP_HEARTBEAT, "ConsumerGroupHeartbeat")
    raw = obj["assignment"]  # a nullable struct: None, or {"topic_partitions": [...], ...}
    assignment = None
    if raw is not None:
        assignment = tuple(
            TopicIdPartitions(row["topic_id"], tuple(row["partitions"]))
            for row in raw["topic_partitions"] or ()
        )
    return ConsumerGroupHeartbeatResult(
        error_code=obj["error_code"],
        error_message=obj["error_message"],
        member_id=obj["member_id"],
        member_epoch=obj["member_epoch"],
        heartbeat_interval_ms=obj["heartbeat_interval_ms"],
        assignment=assignment,
        throttle_time_ms=obj["throttle_time_ms"],
    )
