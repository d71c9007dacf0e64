"""Build and read the requests admin code needs: DescribeGroups and FindCoordinator.

DescribeGroups v4+ reports each member's ``group_instance_id`` (KIP-345; None before, as for a
dynamic member), v3+ the authorized operations (KIP-430); v6 adds a per-group
``error_message`` and answers GROUP_ID_NOT_FOUND for an unknown group (KIP-1043) where older
versions describe it as ``Dead``. FindCoordinator v1-v3 look up one key; v4+ batch keys (KIP-699).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: ``authorized_operations`` when they were not requested (Kafka's ``Integer.MIN_VALUE``).
AUTHORIZED_OPERATIONS_OMITTED = -(2**31)


# --- DescribeGroups (api key 15) -------------------------------------------------------------


@dataclass(frozen=True)
class DescribedMember:
    """A member as DescribeGroups reports it. Metadata and assignment are only filled in while
    the group is ``Stable``."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    member_metadata: bytes
    member_assignment: bytes


@dataclass(frozen=True)
class DescribedGroup:
    """One group; ``error_message`` is None before v6."""

    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    protocol_type: str
    protocol_data: str
    members: tuple[DescribedMember, ...]
    authorized_operations: int = AUTHORIZED_OPERATIONS_OMITTED


@dataclass(frozen=True)
class DescribeGroupsResult:
    groups: tuple[DescribedGroup, ...]
    throttle_time_ms: int = 0


def build_describe_groups(
    version: int,
    *,
    group_ids: Sequence[str],
    include_authorized_operations: bool = False,
) -> PinnedRequest:
    """A DescribeGroups request for ``group_ids`` (send it to each group's coordinator)."""
    return build_request(
        ApiKey.DESCRIBE_GROUPS,
        version,
        {
            "groups": list(group_ids),
            "include_authorized_operations": include_authorized_operations,
        },
    )


def parse_describe_groups(response: Any) -> DescribeGroupsResult:
    """Read a DescribeGroups response of any implemented version."""
    obj = response_object(response, ApiKey.DESCRIBE_GROUPS, "DescribeGroups")
    return DescribeGroupsResult(
        groups=tuple(
            DescribedGroup(
                error_code=g["error_code"],
                error_message=g.get("error_message"),
                group_id=g["group_id"],
                group_state=g["group_state"],
                protocol_type=g["protocol_type"],
                protocol_data=g["protocol_data"],
                members=tuple(
                    DescribedMember(
                        member_id=m["member_id"],
                        group_instance_id=m.get("group_instance_id"),
                        client_id=m["client_id"],
                        client_host=m["client_host"],
                        member_metadata=m["member_metadata"] or b"",
                        member_assignment=m["member_assignment"] or b"",
                    )
                    for m in g["members"] or ()
                ),
                authorized_operations=g.get("authorized_operations", AUTHORIZED_OPERATIONS_OMITTED),
            )
            for g in obj["groups"] or ()
        ),
        throttle_time_ms=obj["throttle_time_ms"],
    )


# --- FindCoordinator (api key 10) ------------------------------------------------------------


class CoordinatorType(enum.IntEnum):
    """FindCoordinator ``key_type`` (Kafka's ``FindCoordinatorRequest.CoordinatorType``)."""

    GROUP = 0
    TRANSACTION = 1
    SHARE = 2


@dataclass(frozen=True)
class Coordinator:
    """Where one key's coordinator lives. ``key`` is None below v4: the response does not echo it
    (it answers the single key of the request)."""

    key: str | None
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


@dataclass(frozen=True)
class FindCoordinatorResult:
    coordinators: tuple[Coordinator, ...]
    throttle_time_ms: int = 0


def build_find_coordinator(
    version: int,
    *,
    keys: Sequence[str],
    key_type: int = CoordinatorType.GROUP,
) -> PinnedRequest:
    """A FindCoordinator request. Below v4 exactly one key may be given."""
    if not keys:
        raise ValueError("build_find_coordinator needs at least one key")
    if version < 4 and len(keys) != 1:
        raise ValueError(f"FindCoordinator v{version} looks up one key; got {len(keys)}")
    return build_request(
        ApiKey.FIND_COORDINATOR,
        version,
        {"key": keys[0], "key_type": int(key_type), "coordinator_keys": list(keys)},
    )


def parse_find_coordinator(response: Any) -> FindCoordinatorResult:
    """Read a FindCoordinator response of any implemented version."""
    obj = response_object(response, ApiKey.FIND_COORDINATOR, "FindCoordinator")
    if "coordinators" in obj:
        rows = obj["coordinators"] or ()
    else:
        rows = [{**obj, "key": None}]
    return FindCoordinatorResult(
        coordinators=tuple(
            Coordinator(
                key=row["key"],
                node_id=row["node_id"],
                host=row["host"],
                port=row["port"],
                error_code=row["error_code"],
                error_message=row["error_message"],
            )
            for row in rows
        ),
        throttle_time_ms=obj["throttle_time_ms"],
    )
