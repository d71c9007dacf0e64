"""Consumer group admin for static members (KIP-345): describe a group, remove members by
``group.instance.id``.

A static member does not leave the group when it stops, so its partitions wait for it until
``session.timeout.ms`` runs out. When it is not coming back (a scale-down, a retired host), an
admin removes it by instance id and the group rebalances at once::

    from staticconsumer.admin import describe_group, remove_members

    description = await describe_group("localhost:9092", "orders")
    for member in description.members:
        print(member.group_instance_id, member.assignment)   # ('orders', 0), ...

    await remove_members("localhost:9092", "orders", ["orders-3"])

Every function takes the client's TLS/SASL settings as aiokafka's keyword arguments
(``security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_plain_username=...``) or as
``security=SecuritySettings(...)`` (:mod:`staticconsumer.security`). A refused login raises
:class:`~staticconsumer.errors.AuthenticationError`, a missing ACL
:class:`~staticconsumer.errors.GroupAdminAuthorizationError`; neither is retried.

:func:`remove_members` raises when some instance id could not be removed;
:func:`try_remove_members` does the same request and returns a :class:`RemovalOutcome` that says,
per instance id, removed or Kafka's error name (the CLI uses it to print both lists).

:func:`remove_members` sends ONE LeaveGroup v3+ request (batched, KIP-345) naming every instance id
with member id ``""``, as Java's ``Admin.removeMembersFromConsumerGroup`` does; from v5 each
member carries a reason (KIP-800, default ``"member was removed by an admin"``), which the broker
writes to its log. The broker removes the known members and answers UNKNOWN_MEMBER_ID for each
unknown one; the batch causes one rebalance.

:func:`describe_group` describes a KIP-848 consumer group with ConsumerGroupDescribe (member
epochs, assignments and target assignments; ``group_protocol == "consumer"``) and any other group
with DescribeGroups v4+ (negotiated), the first version that reports ``group_instance_id``. An
unknown group is described as state ``"Dead"`` with no members, whatever the broker's version: up
to v5 the broker answers that way itself, v6 answers GROUP_ID_NOT_FOUND (KIP-1043) and we
translate it. :func:`remove_members` works on both kinds of group: the coordinator removes a
consumer group's static member by instance id too.

Coordinator lookup and retries (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
COORDINATOR_LOAD_IN_PROGRESS) are described in :mod:`staticconsumer._admin.coordinator`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import aiokafka.errors as Errors

from ._admin.coordinator import check_code, send, with_coordinator
from ._compat import close_client, open_admin_client
from ._compat.auth import explain_bootstrap_failure, who
from ._instance_id import InstanceId
from .errors import ConfigurationError, GroupAdminError, ProtocolError, UnknownMemberError
from .membership._reasons import ADMIN_REMOVE_REASON
from .protocol import (
    CONSUMER_PROTOCOL_TYPE,
    UNKNOWN_MEMBER_ID,
    DescribedTopicPartitions,
    ErrorCode,
    GroupApiVersions,
    MemberIdentity,
    build_consumer_group_describe,
    build_describe_groups,
    build_leave_group,
    decode_assignment,
    error_name,
    negotiate_consumer_group_describe,
    parse_consumer_group_describe,
    parse_describe_groups,
    parse_leave_group,
)
from .security import SecuritySettings

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "GroupDescription",
    "GroupMemberDescription",
    "ReconcilePlan",
    "RemovalOutcome",
    "RemoveMembersResult",
    "describe_group",
    "describe_group_with_client",
    "desired_count_ids",
    "reconcile",
    "remove_members",
    "try_remove_members",
]

log = logging.getLogger("staticconsumer.admin")

#: Default bound on each request (and on connecting), in seconds.
DEFAULT_TIMEOUT_S = 30.0
#: ``state`` of a group the coordinator does not know.
DEAD = "Dead"


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

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``json.dumps(description.to_dict())``); a consumer group's also
        has ``group_protocol``, ``group_epoch`` and each member's epoch and target assignment."""
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
        return out


@dataclass(frozen=True)
class RemoveMembersResult:
    """What :func:`remove_members` did: every instance id it was given was removed."""

    group_id: str
    removed: tuple[str, ...]


@dataclass(frozen=True)
class RemovalOutcome:
    """What :func:`try_remove_members` did, per instance id, in the order given: ``removed``
    ids, and ``failed`` pairs of ``(instance id, Kafka error name)``, e.g.
    ``("svc-9", "UNKNOWN_MEMBER_ID")``."""

    group_id: str
    removed: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]


# --- validation --------------------------------------------------------------------------------


def _check_common(bootstrap_servers: object, group_id: object, timeout_s: object) -> None:
    if not bootstrap_servers or not isinstance(bootstrap_servers, (str, list, tuple)):
        raise ConfigurationError(
            "bootstrap_servers (Java: bootstrap.servers) must be a non-empty 'host:port' string "
            f"or list, got {bootstrap_servers!r}"
        )
    _check_group(group_id, timeout_s)


def _check_group(group_id: object, timeout_s: object) -> None:
    if not isinstance(group_id, str) or not group_id:
        raise ConfigurationError(
            f"group_id (Java: group.id) must be a non-empty str, got {group_id!r}"
        )
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
        raise ConfigurationError(f"timeout_s must be a number > 0, got {timeout_s!r}")


def _check_instance_ids(instance_ids: object) -> tuple[str, ...]:
    if isinstance(instance_ids, str) or not isinstance(instance_ids, Iterable):
        raise ConfigurationError(
            "instance_ids must be a list of group.instance.id strings (KIP-345), "
            f"got {instance_ids!r}"
        )
    ids = tuple(instance_ids)
    if not ids:
        raise ConfigurationError("instance_ids must name at least one group.instance.id")
    for value in ids:
        InstanceId.validate(value, field="instance_ids")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ConfigurationError(f"instance_ids lists {', '.join(duplicates)} more than once")
    return ids


# --- DescribeGroups ----------------------------------------------------------------------------


def _assignment(protocol_type: str, data: bytes, member_id: str) -> tuple[tuple[str, int], ...]:
    if protocol_type != CONSUMER_PROTOCOL_TYPE or not data:
        return ()
    try:
        return tuple(sorted(decode_assignment(data).topic_partitions))
    except ProtocolError as exc:
        # A member from another client may put anything here; describing must not fail on it.
        log.warning("could not decode the assignment of member %s: %s", member_id, exc)
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
    """ConsumerGroupDescribe (KIP-848); None when the group is no consumer group (a classic
    group or an unknown one: DescribeGroups says which)."""
    request = build_consumer_group_describe(version, [group_id])
    response = await send(
        client, node_id, request, group_id=group_id, api="ConsumerGroupDescribe",
        timeout_s=timeout_s,
    )  # fmt: skip
    groups = [g for g in parse_consumer_group_describe(response) if g.group_id == group_id]
    if not groups or groups[0].error_code == ErrorCode.GROUP_ID_NOT_FOUND:
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
                assignment=_assignment(g.protocol_type, m.member_assignment, m.member_id),
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
    _check_group(group_id, timeout_s)
    try:
        description: GroupDescription = await with_coordinator(
            client, group_id, _describe_request(group_id, timeout_s, client), timeout_s=timeout_s
        )
    except Errors.KafkaError as exc:  # e.g. a metadata refresh failing under us
        raise GroupAdminError(f"DescribeGroups for group {group_id!r} failed: {exc!r}") from exc
    log.debug(
        "group %r is %s with %d member(s)", group_id, description.state, len(description.members)
    )
    return description


async def _client(
    bootstrap_servers: str | list[str], timeout_s: float, security: SecuritySettings
) -> Any:
    from aiokafka.client import AIOKafkaClient

    kwargs = security.aiokafka_kwargs()
    try:
        return await open_admin_client(
            bootstrap_servers,
            request_timeout_ms=int(timeout_s * 1000),
            client_id="staticconsumer-admin",
            security=kwargs,
        )
    except Errors.KafkaError as exc:
        probe = AIOKafkaClient(
            bootstrap_servers=bootstrap_servers, request_timeout_ms=int(timeout_s * 1000),
            client_id="staticconsumer-admin", **kwargs,
        )  # fmt: skip
        explained = await explain_bootstrap_failure(probe, who(security))
        if explained is not None:
            raise explained from None
        raise GroupAdminError(f"could not reach Kafka at {bootstrap_servers!r}: {exc}") from exc


async def describe_group(
    bootstrap_servers: str | list[str],
    group_id: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    **security_kwargs: Any,
) -> GroupDescription:
    """Describe ``group_id``: state, selected protocol and every member with its
    ``group_instance_id``, client id, host and decoded assignment (DescribeGroups v4+).

    An unknown group comes back as state ``"Dead"`` with no members. Raises
    :class:`~staticconsumer.errors.GroupAdminError` when the broker refuses (e.g.
    GROUP_AUTHORIZATION_FAILED: :class:`~staticconsumer.errors.GroupAdminAuthorizationError`) or
    cannot be reached; :class:`~staticconsumer.errors.AuthenticationError` when the login fails.
    """
    _check_common(bootstrap_servers, group_id, timeout_s)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    client = await _client(bootstrap_servers, timeout_s, settings)
    try:
        return await describe_group_with_client(client, group_id, timeout_s)
    finally:
        await close_client(client)


# --- LeaveGroup --------------------------------------------------------------------------------


async def try_remove_members(
    bootstrap_servers: str | list[str],
    group_id: str,
    instance_ids: Iterable[str],
    reason: str | None = None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    **security_kwargs: Any,
) -> RemovalOutcome:
    """:func:`remove_members`, but an instance id the broker refused (e.g. UNKNOWN_MEMBER_ID)
    is reported in :attr:`RemovalOutcome.failed` instead of raised. Raises, as
    :func:`remove_members` does, for invalid arguments (``ConfigurationError``, before any I/O)
    and for failures of the whole request (``GroupAdminError``)."""
    _check_common(bootstrap_servers, group_id, timeout_s)
    ids = _check_instance_ids(instance_ids)
    if reason is not None and not isinstance(reason, str):
        raise ConfigurationError(f"reason must be a str or None, got {reason!r}")
    why = reason or ADMIN_REMOVE_REASON
    settings = SecuritySettings.coerce(security, **security_kwargs)
    log.info("removing %s from group %r (reason: %s)", ", ".join(ids), group_id, why)

    client = await _client(bootstrap_servers, timeout_s, settings)

    async def leave(node_id: int, versions: GroupApiVersions) -> RemovalOutcome:
        request = build_leave_group(
            versions.leave_group,
            group_id=group_id,
            members=[MemberIdentity(UNKNOWN_MEMBER_ID, i, why) for i in ids],
        )
        response = await send(
            client, node_id, request, group_id=group_id, api="LeaveGroup", timeout_s=timeout_s
        )
        result = parse_leave_group(response)
        if result.error_code == ErrorCode.UNKNOWN_MEMBER_ID:
            # The coordinator does not know the group at all: none of the ids is a member.
            return RemovalOutcome(
                group_id, (), tuple((i, error_name(result.error_code)) for i in ids)
            )
        check_code(group_id, "LeaveGroup", result.error_code)
        codes = {m.group_instance_id: m.error_code for m in result.members}
        missing = [i for i in ids if i not in codes]
        if missing:
            raise GroupAdminError(
                f"LeaveGroup for group {group_id!r}: the broker did not answer for {missing}"
            )
        removed = tuple(i for i in ids if codes[i] == ErrorCode.NONE)
        failed = tuple((i, error_name(codes[i])) for i in ids if codes[i] != ErrorCode.NONE)
        return RemovalOutcome(group_id, removed, failed)

    try:
        outcome: RemovalOutcome = await with_coordinator(
            client, group_id, leave, timeout_s=timeout_s
        )
    except Errors.KafkaError as exc:
        raise GroupAdminError(f"LeaveGroup for group {group_id!r} failed: {exc!r}") from exc
    finally:
        await close_client(client)
    if outcome.removed:
        log.info("removed %s from group %r", ", ".join(outcome.removed), group_id)
    for instance_id, name in outcome.failed:
        log.warning("could not remove %s from group %r: %s", instance_id, group_id, name)
    return outcome


def _raise_for_failures(outcome: RemovalOutcome) -> None:
    if not outcome.failed:
        return
    group = outcome.group_id
    done = f"; removed: {', '.join(outcome.removed)}" if outcome.removed else "; none removed"
    unknown = tuple(i for i, name in outcome.failed if name == ErrorCode.UNKNOWN_MEMBER_ID.name)
    if len(unknown) == len(outcome.failed):
        raise UnknownMemberError(
            f"group {group!r} has no member with group.instance.id {', '.join(unknown)}{done}",
            instance_ids=unknown,
        )
    listed = ", ".join(f"{i} ({name})" for i, name in outcome.failed)
    raise GroupAdminError(f"LeaveGroup for group {group!r} failed for {listed}{done}")


async def remove_members(
    bootstrap_servers: str | list[str],
    group_id: str,
    instance_ids: Iterable[str],
    reason: str | None = None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    **security_kwargs: Any,
) -> RemoveMembersResult:
    """Remove static members from ``group_id`` by ``group.instance.id`` (KIP-345), in one
    LeaveGroup batch; the group rebalances once, at once, instead of after the session timeout.

    ``reason`` (default ``"member was removed by an admin"``, as Java's admin client) is sent to
    the broker on LeaveGroup v5+ (KIP-800), truncated to 255 characters, and shows up in its log.

    Raises :class:`~staticconsumer.errors.ConfigurationError` (a ``ValueError``) before any I/O
    for an empty list, an invalid instance id or a duplicate;
    :class:`~staticconsumer.errors.UnknownMemberError` naming the instance ids the group does
    not have (``.instance_ids``) — the known ones in the same call ARE removed;
    :class:`~staticconsumer.errors.GroupAdminError` for any other failure.
    """
    outcome = await try_remove_members(
        bootstrap_servers, group_id, instance_ids, reason, timeout_s=timeout_s,
        security=security, **security_kwargs,
    )  # fmt: skip
    _raise_for_failures(outcome)
    return RemoveMembersResult(group_id, outcome.removed)


# reconcile() is built on the functions above (a scale-down: describe, then one removal batch).
from ._admin.reconcile import ReconcilePlan, desired_count_ids, reconcile  # noqa: E402
