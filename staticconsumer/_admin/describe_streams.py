"""Describe a streams group (KIP-1071) with StreamsGroupDescribe: its state, group and assignment
epochs, topology epoch, and each member with its instance id (Kafka 4.4's static threads),
process id, epoch, and current and target tasks as ``(subtopology, partition)``. An unknown
group is state ``"Dead"`` with no members, as :func:`~._admin.describe.describe_group` says it.

Internal: the public face is :mod:`staticconsumer.admin`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import aiokafka.errors as Errors

from .._compat import close_client
from ..errors import GroupAdminError, StaticConsumerError, UnsupportedBrokerError
from ..protocol import (
    ErrorCode,
    GroupApiVersions,
    StreamsTasks,
    TaskIds,
    build_streams_group_describe,
    parse_streams_group_describe,
)
from ..protocol.streams_versions import describe_version
from ..security import SecuritySettings
from .client import DEFAULT_TIMEOUT_S, check_common, open_client
from .coordinator import check_code, send, with_coordinator
from .describe import DEAD

Tasks = tuple[tuple[str, int], ...]


def _tasks(rows: Iterable[TaskIds]) -> Tasks:
    return tuple(sorted((t.subtopology_id, p) for t in rows for p in t.partitions))


def format_tasks(tasks: Tasks) -> str:
    """Kafka's spelling (``kafka-streams-groups.sh``): ``0:[0,1] 1:[2]``; ``-`` when none."""
    by_subtopology: dict[str, list[int]] = {}
    for subtopology, partition in tasks:
        by_subtopology.setdefault(subtopology, []).append(partition)
    return " ".join(f"{s}:[{','.join(map(str, ps))}]" for s, ps in by_subtopology.items()) or "-"


@dataclass(frozen=True)
class StreamsTaskLists:
    """A member's active, standby and warm-up tasks, sorted."""

    active: Tasks = ()
    standby: Tasks = ()
    warmup: Tasks = ()

    @classmethod
    def of(cls, tasks: StreamsTasks) -> StreamsTaskLists:
        return cls(_tasks(tasks.active), _tasks(tasks.standby), _tasks(tasks.warmup))

    def to_dict(self) -> dict[str, Any]:
        return {kind: [{"subtopology": s, "partition": p} for s, p in getattr(self, kind)]
                for kind in ("active", "standby", "warmup")}  # fmt: skip


@dataclass(frozen=True)
class StreamsMemberDescription:
    """One member (one stream thread) as the coordinator sees it."""

    member_id: str
    group_instance_id: str | None
    process_id: str
    client_id: str
    client_host: str
    member_epoch: int
    tasks: StreamsTaskLists
    #: What the coordinator wants the member to reach (it differs while it reconciles).
    target_tasks: StreamsTaskLists

    def to_dict(self) -> dict[str, Any]:
        return {
            "member_id": self.member_id, "group_instance_id": self.group_instance_id,
            "process_id": self.process_id, "client_id": self.client_id,
            "client_host": self.client_host, "member_epoch": self.member_epoch,
            "tasks": self.tasks.to_dict(), "target_tasks": self.target_tasks.to_dict(),
        }  # fmt: skip


@dataclass(frozen=True)
class StreamsGroupDescription:
    """A streams group; members sorted by instance id (static first), then member id."""

    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    topology_epoch: int | None
    members: tuple[StreamsMemberDescription, ...]

    def member(self, group_instance_id: str) -> StreamsMemberDescription | None:
        """The member with this instance id (a stream thread ``<base>-<n>``), or None."""
        return next((m for m in self.members if m.group_instance_id == group_instance_id), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id, "state": self.state, "group_protocol": "streams",
            "group_epoch": self.group_epoch, "assignment_epoch": self.assignment_epoch,
            "topology_epoch": self.topology_epoch,
            "members": [m.to_dict() for m in self.members],
        }  # fmt: skip


def _describe(client: Any, group_id: str, timeout_s: float) -> Any:
    async def describe(node_id: int, versions: GroupApiVersions) -> StreamsGroupDescription:
        version = describe_version(versions)
        if version is None:
            raise UnsupportedBrokerError(
                "describing a streams group (KIP-1071) needs StreamsGroupDescribe (api key 89): "
                "Apache Kafka 4.2 or newer with streams groups enabled"
            )
        request = build_streams_group_describe(version, [group_id])
        response = await send(client, node_id, request, group_id=group_id,
                              api="StreamsGroupDescribe", timeout_s=timeout_s)  # fmt: skip
        groups = [g for g in parse_streams_group_describe(response) if g.group_id == group_id]
        if not groups:
            raise GroupAdminError(f"StreamsGroupDescribe for group {group_id!r}: no answer")
        g = groups[0]
        if g.error_code == ErrorCode.GROUP_ID_NOT_FOUND:
            return StreamsGroupDescription(group_id, DEAD, -1, -1, None, ())
        check_code(group_id, "StreamsGroupDescribe", g.error_code, g.error_message)
        members = sorted(
            (StreamsMemberDescription(
                m.member_id, m.instance_id, m.process_id, m.client_id, m.client_host,
                m.member_epoch, StreamsTaskLists.of(m.assignment),
                StreamsTaskLists.of(m.target_assignment))
             for m in g.members),
            key=lambda m: (m.group_instance_id is None, m.group_instance_id or "", m.member_id),
        )  # fmt: skip
        topology_epoch = g.topology.epoch if g.topology is not None else None
        return StreamsGroupDescription(
            group_id,
            g.group_state,
            g.group_epoch,
            g.assignment_epoch,
            topology_epoch,
            tuple(members),
        )

    return describe


async def describe_streams_group(
    bootstrap_servers: str | list[str], group_id: str, *, timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None, **security_kwargs: Any,
) -> StreamsGroupDescription:  # fmt: skip
    """:func:`staticconsumer.admin.describe_streams_group`."""
    check_common(bootstrap_servers, group_id, timeout_s)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    client = await open_client(bootstrap_servers, timeout_s, settings)
    try:
        return await with_coordinator(client, group_id, _describe(client, group_id, timeout_s),
                                      timeout_s=timeout_s)  # fmt: skip
    except StaticConsumerError:  # ours are KafkaErrors too: already what the caller gets
        raise
    except Errors.KafkaError as exc:
        raise GroupAdminError(
            f"StreamsGroupDescribe for group {group_id!r} failed: {exc!r}"
        ) from exc
    finally:
        await close_client(client)
