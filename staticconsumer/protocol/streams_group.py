"""Build and read StreamsGroupHeartbeat (api key 88, KIP-1071), the one request of a member of a
streams group: join (epoch 0, with the topology), heartbeat and acknowledge its tasks (its
current epoch, with the three task lists it owns), leave (epoch -1), or leave for now as a
static member (epoch -2, Kafka 4.4: the coordinator keeps its tasks until the session times
out). Fields the spec marks "null if unchanged since the last heartbeat" are ``None`` by
default, so a full heartbeat is the caller's choice. A task is (subtopology, partition): the
member processes partition p of its subtopology's source and repartition-source topics. v1
sends the acceptable recovery lag as an int64 and says whether the broker needs the topology
description (StreamsGroupTopologyDescriptionUpdate, not sent by this package).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: ``member_epoch`` to join the group (with the topology).
JOIN_STREAMS_GROUP_EPOCH = 0
#: ``member_epoch`` to leave the group for good.
LEAVE_STREAMS_GROUP_EPOCH = -1
#: ``member_epoch`` of a static member leaving for now (Kafka 4.4, KAFKA-20169).
LEAVE_STREAMS_GROUP_STATIC_EPOCH = -2


class StreamsGroupStatus(enum.IntEnum):
    """The status codes a StreamsGroupHeartbeat response carries (its spec's list)."""

    STALE_TOPOLOGY = 0
    MISSING_SOURCE_TOPICS = 1
    INCORRECTLY_PARTITIONED_TOPICS = 2
    MISSING_INTERNAL_TOPICS = 3
    SHUTDOWN_APPLICATION = 4
    ASSIGNMENT_DELAYED = 5
    MISSING_CLIENT_TAGS = 6


@dataclass(frozen=True)
class TopicInfo:
    """A topic the broker creates or checks: a changelog (partitions 0: as the source) or a
    repartition topic (partitions 0: the broker decides), with its configs."""

    name: str
    partitions: int = 0
    replication_factor: int = 0
    topic_configs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CopartitionGroup:
    """Source topics that must be copartitioned, by index into the subtopology's lists."""

    source_topics: tuple[int, ...] = ()
    source_topic_regex: tuple[int, ...] = ()
    repartition_source_topics: tuple[int, ...] = ()


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    source_topic_regex: tuple[str, ...] = ()
    state_changelog_topics: tuple[TopicInfo, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[TopicInfo, ...] = ()
    copartition_groups: tuple[CopartitionGroup, ...] = ()


@dataclass(frozen=True)
class StreamsTopology:
    epoch: int
    subtopologies: tuple[Subtopology, ...]


@dataclass(frozen=True)
class TaskIds:
    """The tasks of one subtopology: its partitions."""

    subtopology_id: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class Endpoint:
    """An interactive-queries endpoint; ``port`` is a uint16 on the wire."""

    host: str
    port: int


@dataclass(frozen=True)
class TaskOffset:
    subtopology_id: str
    partition: int
    offset: int


@dataclass(frozen=True)
class EndpointPartitions:
    """The partitions one member's endpoint serves (``{topic: partitions}``)."""

    user_endpoint: Endpoint
    active: Mapping[str, tuple[int, ...]]
    standby: Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class StreamsGroupHeartbeatResult:
    """A StreamsGroupHeartbeat response. A task list is None when the coordinator sent none (no
    change); ``acceptable_recovery_lag`` is v0's int32 or v1's int64 (-1: not supported)."""

    error_code: int
    error_message: str | None
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    acceptable_recovery_lag: int
    task_offset_interval_ms: int
    statuses: tuple[tuple[int, str], ...]
    active_tasks: tuple[TaskIds, ...] | None
    standby_tasks: tuple[TaskIds, ...] | None
    warmup_tasks: tuple[TaskIds, ...] | None
    endpoint_information_epoch: int
    partitions_by_user_endpoint: tuple[EndpointPartitions, ...] | None
    topology_description_required: bool = False
    throttle_time_ms: int = field(default=0, compare=False)


def _topic_info(t: TopicInfo) -> dict[str, Any]:
    return {"name": t.name, "partitions": t.partitions,
            "replication_factor": t.replication_factor,
            "topic_configs": [{"key": k, "value": v} for k, v in t.topic_configs]}  # fmt: skip


def _subtopology(s: Subtopology) -> dict[str, Any]:
    return {
        "subtopology_id": s.subtopology_id,
        "source_topics": list(s.source_topics),
        "source_topic_regex": list(s.source_topic_regex),
        "state_changelog_topics": [_topic_info(t) for t in s.state_changelog_topics],
        "repartition_sink_topics": list(s.repartition_sink_topics),
        "repartition_source_topics": [_topic_info(t) for t in s.repartition_source_topics],
        "copartition_groups": [
            {
                "source_topics": list(g.source_topics),
                "source_topic_regex": list(g.source_topic_regex),
                "repartition_source_topics": list(g.repartition_source_topics),
            }
            for g in s.copartition_groups
        ],
    }


def _tasks(tasks: Sequence[TaskIds] | None) -> list[dict[str, Any]] | None:
    if tasks is None:
        return None
    return [{"subtopology_id": t.subtopology_id, "partitions": list(t.partitions)} for t in tasks]


def _offsets(offsets: Sequence[TaskOffset] | None) -> list[dict[str, Any]] | None:
    if offsets is None:
        return None
    return [{"subtopology_id": o.subtopology_id, "partition": o.partition, "offset": o.offset}
            for o in offsets]  # fmt: skip


def build_streams_group_heartbeat(
    version: int,
    *,
    group_id: str,
    member_id: str,
    member_epoch: int,
    endpoint_information_epoch: int,
    instance_id: str | None = None,
    rack_id: str | None = None,
    rebalance_timeout_ms: int = -1,
    topology: StreamsTopology | None = None,
    active_tasks: Sequence[TaskIds] | None = None,
    standby_tasks: Sequence[TaskIds] | None = None,
    warmup_tasks: Sequence[TaskIds] | None = None,
    process_id: str | None = None,
    user_endpoint: Endpoint | None = None,
    client_tags: Mapping[str, str] | None = None,
    task_offsets: Sequence[TaskOffset] | None = None,
    task_end_offsets: Sequence[TaskOffset] | None = None,
    shutdown_application: bool = False,
) -> PinnedRequest:
    """A StreamsGroupHeartbeat request; lists keep the caller's order (the topology's order is
    the application's). A port outside 0-65535 is a ``ValueError``."""
    if user_endpoint is not None and not 0 <= user_endpoint.port <= 65535:
        raise ValueError(f"an endpoint's port is a uint16 (0 to 65535), got {user_endpoint.port}")
    fields: dict[str, Any] = {
        "group_id": group_id, "member_id": member_id, "member_epoch": member_epoch,
        "endpoint_information_epoch": endpoint_information_epoch, "instance_id": instance_id,
        "rack_id": rack_id, "rebalance_timeout_ms": rebalance_timeout_ms,
        "topology": None if topology is None else {
            "epoch": topology.epoch,
            "subtopologies": [_subtopology(s) for s in topology.subtopologies]},
        "active_tasks": _tasks(active_tasks), "standby_tasks": _tasks(standby_tasks),
        "warmup_tasks": _tasks(warmup_tasks), "process_id": process_id,
        "user_endpoint": None if user_endpoint is None else {
            "host": user_endpoint.host, "port": user_endpoint.port},
        "client_tags": None if client_tags is None else [
            {"key": k, "value": v} for k, v in client_tags.items()],
        "task_offsets": _offsets(task_offsets), "task_end_offsets": _offsets(task_end_offsets),
        "shutdown_application": shutdown_application,
    }  # fmt: skip
    return build_request(ApiKey.STREAMS_GROUP_HEARTBEAT, version, fields)


def read_tasks(rows: Sequence[Mapping[str, Any]] | None) -> tuple[TaskIds, ...] | None:
    if rows is None:
        return None
    return tuple(TaskIds(r["subtopology_id"], tuple(r["partitions"] or ())) for r in rows)


def read_endpoint(row: Mapping[str, Any] | None) -> Endpoint | None:
    return None if row is None else Endpoint(row["host"], row["port"])


def _by_topic(rows: Sequence[Mapping[str, Any]] | None) -> dict[str, tuple[int, ...]]:
    return {r["topic"]: tuple(r["partitions"] or ()) for r in rows or ()}


def parse_streams_group_heartbeat(response: Any) -> StreamsGroupHeartbeatResult:
    """Read a StreamsGroupHeartbeat response of any implemented version."""
    obj = response_object(response, ApiKey.STREAMS_GROUP_HEARTBEAT, "StreamsGroupHeartbeat")
    lag = obj.get("acceptable_recovery_lag")
    by_endpoint = obj["partitions_by_user_endpoint"]
    return StreamsGroupHeartbeatResult(
        error_code=obj["error_code"], error_message=obj["error_message"],
        member_id=obj["member_id"], member_epoch=obj["member_epoch"],
        heartbeat_interval_ms=obj["heartbeat_interval_ms"],
        acceptable_recovery_lag=obj["acceptable_recovery_lag_legacy"] if lag is None else lag,
        task_offset_interval_ms=obj["task_offset_interval_ms"],
        statuses=tuple((s["status_code"], s["status_detail"]) for s in obj["status"] or ()),
        active_tasks=read_tasks(obj["active_tasks"]),
        standby_tasks=read_tasks(obj["standby_tasks"]),
        warmup_tasks=read_tasks(obj["warmup_tasks"]),
        endpoint_information_epoch=obj["endpoint_information_epoch"],
        partitions_by_user_endpoint=None if by_endpoint is None else tuple(
            EndpointPartitions(Endpoint(e["user_endpoint"]["host"], e["user_endpoint"]["port"]),
                               _by_topic(e["active_partitions"]),
                               _by_topic(e["standby_partitions"]))
            for e in by_endpoint),
        topology_description_required=bool(obj.get("topology_description_required", False)),
        throttle_time_ms=obj["throttle_time_ms"],
    )  # fmt: skip
