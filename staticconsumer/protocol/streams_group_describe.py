"""Build and read StreamsGroupDescribe (api key 89, KIP-1071): a streams group's state, group and
assignment epochs, its topology, and each member with its epoch, instance id, process id,
endpoint, client tags, task offsets, current and target tasks. v1 adds the topology description
(when asked for), its status and the assignor's name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import TAGGED_FIELDS, PinnedRequest, response_object
from staticconsumer.protocol.streams_group import (
    Endpoint,
    StreamsTopology,
    Subtopology,
    TaskIds,
    TaskOffset,
    TopicInfo,
    read_endpoint,
    read_tasks,
)


@dataclass(frozen=True)
class StreamsTasks:
    """A member's active, standby and warm-up tasks."""

    active: tuple[TaskIds, ...]
    standby: tuple[TaskIds, ...]
    warmup: tuple[TaskIds, ...]


@dataclass(frozen=True)
class DescribedStreamsGroupMember:
    member_id: str
    member_epoch: int
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    topology_epoch: int
    process_id: str
    user_endpoint: Endpoint | None
    client_tags: Mapping[str, str]
    task_offsets: tuple[TaskOffset, ...]
    task_end_offsets: tuple[TaskOffset, ...]
    assignment: StreamsTasks
    target_assignment: StreamsTasks
    is_classic: bool


@dataclass(frozen=True)
class DescribedStreamsGroup:
    """One group of the answer. ``topology_description`` (v1, when asked for) is the raw
    description: ``{"subtopologies": [...], "global_stores": [...]}``."""

    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    group_epoch: int
    assignment_epoch: int
    topology: StreamsTopology | None
    members: tuple[DescribedStreamsGroupMember, ...]
    authorized_operations: int
    topology_description: Mapping[str, Any] | None = None
    topology_description_status: int = 0
    assignor_name: str | None = None


def build_streams_group_describe(
    version: int, group_ids: Sequence[str], *, include_authorized_operations: bool = False,
    include_topology_description: bool = False,
) -> PinnedRequest:  # fmt: skip
    """A StreamsGroupDescribe request for ``group_ids`` (the topology description: v1)."""
    if include_topology_description and version < 1:
        raise ValueError("include_topology_description needs StreamsGroupDescribe v1")
    fields = {
        "group_ids": list(group_ids),
        "include_authorized_operations": include_authorized_operations,
        "include_topology_description": include_topology_description,
    }
    return build_request(ApiKey.STREAMS_GROUP_DESCRIBE, version, fields)


def _topic_infos(rows: Sequence[Mapping[str, Any]] | None) -> tuple[TopicInfo, ...]:
    return tuple(
        TopicInfo(r["name"], r["partitions"], r["replication_factor"],
                  tuple((c["key"], c["value"]) for c in r["topic_configs"] or ()))
        for r in rows or ()
    )  # fmt: skip


def _topology(row: Mapping[str, Any] | None) -> StreamsTopology | None:
    if row is None:
        return None
    return StreamsTopology(row["epoch"], tuple(
        Subtopology(s["subtopology_id"], source_topics=tuple(s["source_topics"] or ()),
                    repartition_sink_topics=tuple(s["repartition_sink_topics"] or ()),
                    state_changelog_topics=_topic_infos(s["state_changelog_topics"]),
                    repartition_source_topics=_topic_infos(s["repartition_source_topics"]))
        for s in row["subtopologies"] or ()))  # fmt: skip


def _tasks(row: Mapping[str, Any]) -> StreamsTasks:
    return StreamsTasks(read_tasks(row["active_tasks"]) or (),
                        read_tasks(row["standby_tasks"]) or (),
                        read_tasks(row["warmup_tasks"]) or ())  # fmt: skip


def _offsets(rows: Sequence[Mapping[str, Any]] | None) -> tuple[TaskOffset, ...]:
    return tuple(TaskOffset(r["subtopology_id"], r["partition"], r["offset"]) for r in rows or ())


def _member(m: Mapping[str, Any]) -> DescribedStreamsGroupMember:
    return DescribedStreamsGroupMember(
        member_id=m["member_id"], member_epoch=m["member_epoch"], instance_id=m["instance_id"],
        rack_id=m["rack_id"], client_id=m["client_id"], client_host=m["client_host"],
        topology_epoch=m["topology_epoch"], process_id=m["process_id"],
        user_endpoint=read_endpoint(m["user_endpoint"]),
        client_tags={t["key"]: t["value"] for t in m["client_tags"] or ()},
        task_offsets=_offsets(m["task_offsets"]), task_end_offsets=_offsets(m["task_end_offsets"]),
        assignment=_tasks(m["assignment"]), target_assignment=_tasks(m["target_assignment"]),
        is_classic=bool(m["is_classic"]),
    )  # fmt: skip


def _untagged(value: Any) -> Any:
    """A decoded struct's plain data: its tagged fields (none defined here) left out."""
    if isinstance(value, dict):
        return {k: _untagged(v) for k, v in value.items() if k != TAGGED_FIELDS}
    if isinstance(value, list):
        return [_untagged(item) for item in value]
    return value


def parse_streams_group_describe(response: Any) -> tuple[DescribedStreamsGroup, ...]:
    """Read a StreamsGroupDescribe response of any implemented version: each group asked for."""
    obj = response_object(response, ApiKey.STREAMS_GROUP_DESCRIBE, "StreamsGroupDescribe")
    return tuple(
        DescribedStreamsGroup(
            error_code=g["error_code"], error_message=g["error_message"], group_id=g["group_id"],
            group_state=g["group_state"], group_epoch=g["group_epoch"],
            assignment_epoch=g["assignment_epoch"], topology=_topology(g["topology"]),
            members=tuple(_member(m) for m in g["members"] or ()),
            authorized_operations=g["authorized_operations"],
            topology_description=_untagged(g.get("topology_description")),
            topology_description_status=g.get("topology_description_status", 0),
            assignor_name=g.get("assignor_name"),
        )
        for g in obj["groups"] or ()
    )  # fmt: skip
