"""Build and read the group membership requests: JoinGroup, SyncGroup, Heartbeat, LeaveGroup.

Every builder takes the version chosen by :func:`~staticconsumer.protocol.negotiate` and the same
keyword arguments whatever that version is; fields a version lacks (``reason`` before JoinGroup v8,
``protocol_type`` / ``protocol_name`` before SyncGroup v5) are left out, as Kafka's Java client
does. A ``group_instance_id`` never is: a version before KIP-345's (which only a member without
one is given) raises :class:`~staticconsumer.errors.UnsupportedBrokerError`. LeaveGroup before v3
names one member by member id. Every parser returns a frozen dataclass in which such fields take
Kafka's defaults (no instance id, no per-member answers). So the membership logic never looks at
an API version.

Error codes stay plain ``int`` (see :class:`~staticconsumer.protocol.ErrorCode` for names); turning
them into exceptions is the membership layer's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: Kafka truncates join and leave reasons to this many characters (KIP-800,
#: ``JoinGroupRequest.maybeTruncateReason``).
MAX_REASON_LENGTH = 255

#: The member id of a member that has none yet (first JoinGroup, or LeaveGroup by instance id).
UNKNOWN_MEMBER_ID = ""

#: LeaveGroup v3 (KIP-345) is the first that names members[] (by member id and instance id).
LEAVE_GROUP_BATCH_MIN_VERSION = 3


def truncate_reason(reason: str | None) -> str | None:
    """Cut ``reason`` to :data:`MAX_REASON_LENGTH` characters, as the Java client does.

    Java counts UTF-16 code units and Python counts code points, so the two differ only for text
    beyond the Basic Multilingual Plane; the broker accepts either.
    """
    if reason is None or len(reason) <= MAX_REASON_LENGTH:
        return reason
    return reason[:MAX_REASON_LENGTH]


# --- JoinGroup (api key 11) ------------------------------------------------------------------


@dataclass(frozen=True)
class JoinGroupMember:
    """One member as the coordinator reports it to the leader."""

    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(frozen=True)
class JoinGroupResult:
    """A JoinGroup response. ``members`` is empty unless this member is the leader.

    ``protocol_type`` is None before v7; ``skip_assignment`` is False before v9 (on v9 a static
    leader that re-joined a stable group gets the members but must not compute an assignment).
    """

    error_code: int
    generation_id: int
    protocol_type: str | None
    protocol_name: str | None
    leader: str
    skip_assignment: bool
    member_id: str
    members: tuple[JoinGroupMember, ...]
    throttle_time_ms: int = 0

    @property
    def is_leader(self) -> bool:
        return self.member_id != UNKNOWN_MEMBER_ID and self.member_id == self.leader


def build_join_group(
    version: int,
    *,
    group_id: str,
    session_timeout_ms: int,
    rebalance_timeout_ms: int,
    member_id: str,
    group_instance_id: str | None,
    protocol_type: str,
    protocols: Sequence[tuple[str, bytes]],
    reason: str | None = None,
) -> PinnedRequest:
    """A JoinGroup request; ``protocols`` are ``(assignor name, subscription bytes)`` in order of
    preference. ``reason`` (v8+, KIP-800) is truncated to 255 characters."""
    return build_request(
        ApiKey.JOIN_GROUP,
        version,
        {
            "group_id": group_id,
            "session_timeout_ms": session_timeout_ms,
            "rebalance_timeout_ms": rebalance_timeout_ms,
            "member_id": member_id,
            "group_instance_id": group_instance_id,
            "protocol_type": protocol_type,
            "protocols": [{"name": name, "metadata": meta} for name, meta in protocols],
            "reason": truncate_reason(reason),
        },
    )


def parse_join_group(response: Any) -> JoinGroupResult:
    """Read a JoinGroup response of any implemented version."""
    obj = response_object(response, ApiKey.JOIN_GROUP, "JoinGroup")
    return JoinGroupResult(
        error_code=obj["error_code"],
        generation_id=obj["generation_id"],
        protocol_type=obj.get("protocol_type"),
        protocol_name=obj["protocol_name"],
        leader=obj["leader"],
        skip_assignment=bool(obj.get("skip_assignment", False)),
        member_id=obj["member_id"],
        members=tuple(
            JoinGroupMember(
                member_id=m["member_id"],
                group_instance_id=m.get("group_instance_id"),
                metadata=m["metadata"] or b"",
            )
            for m in obj["members"] or ()
        ),
        throttle_time_ms=obj["throttle_time_ms"],
    )


# --- SyncGroup (api key 14) ------------------------------------------------------------------


@dataclass(frozen=True)
class SyncGroupResult:
    """A SyncGroup response; ``protocol_type`` and ``protocol_name`` are None before v5."""

    error_code: int
    protocol_type: str | None
    protocol_name: str | None
    assignment: bytes
    throttle_time_ms: int = 0


def build_sync_group(
    version: int,
    *,
    group_id: str,
    generation_id: int,
    member_id: str,
    group_instance_id: str | None,
    protocol_type: str | None,
    protocol_name: str | None,
    assignments: Sequence[tuple[str, bytes]],
) -> PinnedRequest:
    """A SyncGroup request. Followers send no ``assignments``; the leader sends
    ``(member_id, assignment bytes)`` for every member. From v5 the broker checks
    ``protocol_type`` / ``protocol_name`` against the group's (KIP-559)."""
    return build_request(
        ApiKey.SYNC_GROUP,
        version,
        {
            "group_id": group_id,
            "generation_id": generation_id,
            "member_id": member_id,
            "group_instance_id": group_instance_id,
            "protocol_type": protocol_type,
            "protocol_name": protocol_name,
            "assignments": [{"member_id": m, "assignment": a} for m, a in assignments],
        },
    )


def parse_sync_group(response: Any) -> SyncGroupResult:
    """Read a SyncGroup response of any implemented version."""
    obj = response_object(response, ApiKey.SYNC_GROUP, "SyncGroup")
    return SyncGroupResult(
        error_code=obj["error_code"],
        protocol_type=obj.get("protocol_type"),
        protocol_name=obj.get("protocol_name"),
        assignment=obj["assignment"] or b"",
        throttle_time_ms=obj["throttle_time_ms"],
    )


# --- Heartbeat (api key 12) ------------------------------------------------------------------


@dataclass(frozen=True)
class HeartbeatResult:
    error_code: int
    throttle_time_ms: int = 0


def build_heartbeat(
    version: int,
    *,
    group_id: str,
    generation_id: int,
    member_id: str,
    group_instance_id: str | None,
) -> PinnedRequest:
    """A Heartbeat request."""
    return build_request(
        ApiKey.HEARTBEAT,
        version,
        {
            "group_id": group_id,
            "generation_id": generation_id,
            "member_id": member_id,
            "group_instance_id": group_instance_id,
        },
    )


def parse_heartbeat(response: Any) -> HeartbeatResult:
    """Read a Heartbeat response of any implemented version."""
    obj = response_object(response, ApiKey.HEARTBEAT, "Heartbeat")
    return HeartbeatResult(error_code=obj["error_code"], throttle_time_ms=obj["throttle_time_ms"])


# --- LeaveGroup (api key 13) -----------------------------------------------------------------


@dataclass(frozen=True)
class MemberIdentity:
    """A member to remove. An admin removes a static member by instance id with
    ``member_id=""`` (KIP-345); ``reason`` is sent from v5 (KIP-800), truncated to 255 chars."""

    member_id: str
    group_instance_id: str | None
    reason: str | None = None


@dataclass(frozen=True)
class LeaveGroupMemberResult:
    member_id: str
    group_instance_id: str | None
    error_code: int


@dataclass(frozen=True)
class LeaveGroupResult:
    """A LeaveGroup response: a top-level error, and one error per member named in the request
    (none before v3: the top-level error is the one member's)."""

    error_code: int
    members: tuple[LeaveGroupMemberResult, ...]
    throttle_time_ms: int = 0


def build_leave_group(
    version: int,
    *,
    group_id: str,
    members: Sequence[MemberIdentity],
) -> PinnedRequest:
    """A LeaveGroup request for one or more members (batched since v3, KIP-345). Before v3 it
    names one member by member id: more members, or an instance id, raise
    :class:`~staticconsumer.errors.UnsupportedBrokerError`."""
    if not members:
        raise ValueError("build_leave_group needs at least one member")
    if version < LEAVE_GROUP_BATCH_MIN_VERSION:
        (member, *more) = members
        if more or member.group_instance_id is not None:
            raise UnsupportedBrokerError(
                f"LeaveGroup v{version} names one member by member id: removing "
                f"{len(members)} member(s) or by group_instance_id needs "
                f"v{LEAVE_GROUP_BATCH_MIN_VERSION}+ (KIP-345)"
            )
        return build_request(
            ApiKey.LEAVE_GROUP, version, {"group_id": group_id, "member_id": member.member_id}
        )
    return build_request(
        ApiKey.LEAVE_GROUP,
        version,
        {
            "group_id": group_id,
            "members": [
                {
                    "member_id": m.member_id,
                    "group_instance_id": m.group_instance_id,
                    "reason": truncate_reason(m.reason),
                }
                for m in members
            ],
        },
    )


def parse_leave_group(response: Any) -> LeaveGroupResult:
    """Read a LeaveGroup response of any implemented version."""
    obj = response_object(response, ApiKey.LEAVE_GROUP, "LeaveGroup")
    return LeaveGroupResult(
        error_code=obj["error_code"],
        members=tuple(
            LeaveGroupMemberResult(
                member_id=m["member_id"],
                group_instance_id=m["group_instance_id"],
                error_code=m["error_code"],
            )
            for m in obj.get("members") or ()
        ),
        throttle_time_ms=obj["throttle_time_ms"],
    )
