"""Describe a group: ConsumerGroupDescribe for a KIP-848 consumer group, DescribeGroups v4+
(negotiated) for any other; an unknown group is state ``"Dead"`` with no members.

DescribeGroups answers whenever ConsumerGroupDescribe does not describe the group: the group is
not a consumer group (GROUP_ID_NOT_FOUND), or the broker refuses the API although ApiVersions
lists it (Kafka 3.9 answers UNSUPPORTED_VERSION while its consumer protocol is off, its default;
see :data:`NOT_DESCRIBED`).

Internal: the public face is :mod:`staticconsumer.admin` (its docstring says more).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import aiokafka.errors as Errors

from .._compat import RecoverySettings, close_client
from .._roster_status import RosterStatus
from ..errors import GroupAdminError, ProtocolError, StaticConsumerError
from ..options import DEFAULTS
from ..protocol import (
    CONSUMER_PROTOCOL_TYPE,
    DescribedTopicPartitions,
    ErrorCode,
    GroupApiVersions,
    build_consumer_group_describe,
    build_describe_groups,
    decode_assignment,
    error_name,
    negotiate_consumer_group_describe,
    parse_consumer_group_describe,
    parse_describe_groups,
)
from ..security import SecuritySettings
from .client import DEFAULT_TIMEOUT_S, check_common, check_group, open_client
from .coordinator import check_code, send, with_coordinator

log = logging.getLogger(__name__)

#: ``state`` of a group the coordinator does not know.
DEAD = "Dead"

#: ConsumerGroupDescribe answers after which DescribeGroups describes the group: no consumer
#: group of that id, or no consumer groups at all on this broker (Kafka 3.7 to 3.9 list the API
#: but refuse it unless ``group.coordinator.rebalance.protocols`` has ``consumer``).
NOT_DESCRIBED = frozenset({ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.UNSUPPORTED_VERSION})


@dataclass(frozen=True)
class GroupMemberDescription:
    """One member as the coordinator sees it. ``assignment`` is decoded for consumer groups
    (``protocol_type == "consumer"``) and sorted; it is empty while the group rebalances."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    assignment: tuple[tuple[str, int], ...]
    #: Consumer groups (KIP-848) only: the member's epoch and the assignment the coordinator
    #: wants it to reach (it differs from ``assignment`` while the member reconciles).
    member_epoch: int | None = None
    target_assignment: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "member_id": self.member_id,
            "group_instance_id": self.group_instance_id,
            "client_id": self.client_id,
            "client_host": self.client_host,
            "assignment": [{"topic": t, "partition": p} for t, p in self.assignment],
        }
        if self.member_epoch is not None:
            out["member_epoch"] = self.member_epoch
            out["target_assignment"] = [
                {"topic": t, "partition": p} for t, p in self.target_assignment
            ]
        return out


@dataclass(frozen=True)
class GroupDescription:
    """A group as DescribeGroups reports it; members sorted by instance id, static first, then
    by member id. ``protocol`` is the selected assignor (``"range"``, ...), empty when none."""

    group_id: str
    state: str
    protocol_type: str
    protocol: str
    members: tuple[GroupMemberDescription, ...]
    #: ``"consumer"`` for a KIP-848 consumer group (described by ConsumerGroupDescribe; its
    #: ``protocol`` is the broker assignor), ``"classic"`` otherwise.
    group_protocol: str = "classic"
    #: Consumer groups only: the group epoch (it moves on every membership change).
    group_epoch: int | None = None
    #: The group's roster beside its members (registered ids, who is missing, since when, and
    #: whether the wait ran out), when it has one and :func:`staticconsumer.admin.describe_group`
    #: read it.
    roster: RosterStatus | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``json.dumps(description.to_dict())``); a consumer group's also
        has ``group_protocol``, ``group_epoch`` and each member's epoch and target assignment;
        a group with a roster also ``roster`` (:meth:`RosterStatus.to_dict`)."""
        out: dict[str, Any] = {
            "group_id": self.group_id,
            "state": self.state,
            "protocol_type": self.protocol_type,
            "protocol": self.protocol,
            "members": [m.to_dict() for m in self.members],
        }
        if self.group_epoch is not None:
            out["group_protocol"] = self.group_protocol
            out["group_epoch"] = self.group_epoch
        if self.roster is not None:
            out["roster"] = self.roster.to_dict()
        return out


def _assignment(
    group_id: str, protocol_type: str, data: bytes, member_id: str
) -> tuple[tuple[str, int], ...]:
    if protocol_type != CONSUMER_PROTOCOL_TYPE or not data:
        return ()
    try:
        return tuple(sorted(decode_assignment(data).topic_partitions))
    except ProtocolError as exc:
        # A member from another client may put anything here; describing must not fail on it.
        log.warning("group %r: could not decode the assignment of member %s: %s", group_id,
                    member_id, exc)  # fmt: skip
        return ()


def _sorted_members(
    members: Iterable[GroupMemberDescription],
) -> tuple[GroupMemberDescription, ...]:
    def key(m: GroupMemberDescription) -> tuple[bool, str, str]:
        return m.group_instance_id is None, m.group_instance_id or "", m.member_id

    return tuple(sorted(members, key=key))


def _by_name(assignment: Iterable[DescribedTopicPartitions]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((t.topic_name, p) for t in assignment for p in t.partitions))


async def _describe_consumer_group(
    client: Any, node_id: int, version: int, group_id: str, timeout_s: float
) -> GroupDescription | None:
    """ConsumerGroupDescribe (KIP-848); None when it does not describe the group (a classic
    group, an unknown one, or a broker that refuses the API: DescribeGroups says which)."""
    request = build_consumer_group_describe(version, [group_id])
    response = await send(
        client, node_id, request, group_id=group_id, api="ConsumerGroupDescribe",
        timeout_s=timeout_s,
    )  # fmt: skip
    groups = [g for g in parse_consumer_group_describe(response) if g.group_id == group_id]
    if not groups or groups[0].error_code in NOT_DESCRIBED:
        code = groups[0].error_code if groups else None
        log.debug("group %r: ConsumerGroupDescribe answered %s; asking DescribeGroups", group_id,
                  "no group" if code is None else error_name(code))  # fmt: skip
        return None
    g = groups[0]
    check_code(group_id, "ConsumerGroupDescribe", g.error_code, g.error_message)
    members = (
        GroupMemberDescription(
            member_id=m.member_id, group_instance_id=m.instance_id, client_id=m.client_id,
            client_host=m.client_host, assignment=_by_name(m.assignment),
            member_epoch=m.member_epoch, target_assignment=_by_name(m.target_assignment),
        )
        for m in g.members
    )  # fmt: skip
    return GroupDescription(group_id, g.group_state, CONSUMER_PROTOCOL_TYPE, g.assignor_name,
                            _sorted_members(members), "consumer", g.group_epoch)  # fmt: skip


def _describe_request(group_id: str, timeout_s: float, client: Any) -> Any:
    async def describe(node_id: int, versions: GroupApiVersions) -> GroupDescription:
        version = negotiate_consumer_group_describe(versions.broker)
        if version is not None:
            found = await _describe_consumer_group(client, node_id, version, group_id, timeout_s)
            if found is not None:
                return found
        request = build_describe_groups(versions.describe_groups, group_ids=[group_id])
        response = await send(
            client, node_id, request, group_id=group_id, api="DescribeGroups",
            timeout_s=timeout_s,
        )  # fmt: skip
        groups = [g for g in parse_describe_groups(response).groups if g.group_id == group_id]
        if not groups:
            raise GroupAdminError(f"DescribeGroups for group {group_id!r}: no answer for it")
        g = groups[0]
        if g.error_code == ErrorCode.GROUP_ID_NOT_FOUND:  # v6+ (KIP-1043): same as "Dead"
            return GroupDescription(group_id, DEAD, "", "", ())
        check_code(group_id, "DescribeGroups", g.error_code, g.error_message)
        members = (
            GroupMemberDescription(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                assignment=_assignment(group_id, g.protocol_type, m.member_assignment, m.member_id),
            )
            for m in g.members
        )
        return GroupDescription(group_id, g.group_state, g.protocol_type, g.protocol_data,
                                _sorted_members(members))  # fmt: skip

    return describe


async def describe_group_with_client(
    client: Any, group_id: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> GroupDescription:
    """:func:`describe_group` on an already bootstrapped ``aiokafka.AIOKafkaClient`` (the
    consumer uses its own client for fence diagnosis). The client is left open."""
    check_group(group_id, timeout_s)
    try:
        description: GroupDescription = await with_coordinator(
            client, group_id, _describe_request(group_id, timeout_s, client), timeout_s=timeout_s
        )
    except StaticConsumerError:  # ours are KafkaErrors too: already what the caller gets
        raise
    except Errors.KafkaError as exc:  # e.g. a metadata refresh failing under us
        raise GroupAdminError(f"DescribeGroups for group {group_id!r} failed: {exc!r}") from exc
    log.debug(
        "group %r is %s with %d member(s)", group_id, description.state, len(description.members)
    )
    return description


async def describe_group(
    bootstrap_servers: str | list[str],
    group_id: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    metadata_recovery_strategy: str = DEFAULTS["metadata_recovery_strategy"],
    metadata_recovery_rebootstrap_trigger_ms: int = DEFAULTS[
        "metadata_recovery_rebootstrap_trigger_ms"
    ],
    **security_kwargs: Any,
) -> GroupDescription:
    """:func:`staticconsumer.admin.describe_group` (its docstring tells the answer and the
    errors) without the roster: the members only, on a client opened and closed here. The
    roster beside them is ``staticconsumer.roster``'s part; reconcile needs only the members."""
    check_common(bootstrap_servers, group_id, timeout_s)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    recovery = RecoverySettings(
        metadata_recovery_strategy, metadata_recovery_rebootstrap_trigger_ms
    )
    client = await open_client(bootstrap_servers, timeout_s, settings, recovery)
    try:
        return await describe_group_with_client(client, group_id, timeout_s)
    finally:
        await close_client(client)
