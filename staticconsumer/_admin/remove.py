"""Remove static members by ``group.instance.id`` (KIP-345): one LeaveGroup v3+ batch with
member id ``""`` and a reason (KIP-800).

Internal: the public face is :mod:`staticconsumer.admin` (its docstring says more).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import aiokafka.errors as Errors

from .._compat import RecoverySettings, close_client
from .._error_map import removal_error
from .._instance_id import check_instance_ids
from ..errors import GroupAdminError, StaticConsumerError
from ..membership import admin_remove_reason
from ..options import DEFAULTS
from ..protocol import (
    UNKNOWN_MEMBER_ID,
    ErrorCode,
    GroupApiVersions,
    MemberIdentity,
    build_leave_group,
    error_name,
    parse_leave_group,
)
from ..security import SecuritySettings
from .client import DEFAULT_TIMEOUT_S, check_common, check_reason, open_client
from .coordinator import check_code, send, with_coordinator

log = logging.getLogger(__name__)


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


async def try_remove_members(
    bootstrap_servers: str | list[str],
    group_id: str,
    instance_ids: Iterable[str],
    reason: str | None = None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    metadata_recovery_strategy: str = DEFAULTS["metadata_recovery_strategy"],
    metadata_recovery_rebootstrap_trigger_ms: int = DEFAULTS[
        "metadata_recovery_rebootstrap_trigger_ms"
    ],
    **security_kwargs: Any,
) -> RemovalOutcome:
    """:func:`remove_members`, but an instance id the broker refused (e.g. UNKNOWN_MEMBER_ID)
    is reported in :attr:`RemovalOutcome.failed` instead of raised. Raises, as
    :func:`remove_members` does, for invalid arguments (``ConfigurationError``, before any I/O)
    and for failures of the whole request (``GroupAdminError``)."""
    check_common(bootstrap_servers, group_id, timeout_s)
    ids = check_instance_ids(instance_ids)
    check_reason(reason)
    why = admin_remove_reason(reason)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    recovery = RecoverySettings(
        metadata_recovery_strategy, metadata_recovery_rebootstrap_trigger_ms
    )
    log.info("removing %s from group %r (reason: %s)", ", ".join(ids), group_id, why)

    client = await open_client(bootstrap_servers, timeout_s, settings, recovery)

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
    except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
        raise
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
    error = removal_error(outcome.group_id, outcome.removed, outcome.failed)
    if error is not None:
        raise error


async def remove_members(
    bootstrap_servers: str | list[str],
    group_id: str,
    instance_ids: Iterable[str],
    reason: str | None = None,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    metadata_recovery_strategy: str = DEFAULTS["metadata_recovery_strategy"],
    metadata_recovery_rebootstrap_trigger_ms: int = DEFAULTS[
        "metadata_recovery_rebootstrap_trigger_ms"
    ],
    **security_kwargs: Any,
) -> RemoveMembersResult:
    """Remove static members from ``group_id`` by ``group.instance.id`` (KIP-345), in one
    LeaveGroup batch; the group rebalances once, at once, instead of after the session timeout.

    The LeaveGroup v5+ reason (KIP-800) is ``"member was removed by an admin"`` (Java's admin
    client's default), or with a ``reason`` ``"member was removed by an admin: <reason>"`` as
    KIP-800 words it (Java's admin client sends a given reason as is); truncated to 255
    characters, it shows up in the broker's log.

    Raises :class:`~staticconsumer.errors.ConfigurationError` (a ``ValueError``) before any I/O
    for an empty list, an invalid instance id or a duplicate;
    :class:`~staticconsumer.errors.UnknownMemberError` naming the instance ids the group does
    not have (``.instance_ids``) — the known ones in the same call ARE removed;
    :class:`~staticconsumer.errors.InvalidGroupIdError` (INVALID_GROUP_ID) and
    :class:`~staticconsumer.errors.GroupAdminUnsupportedVersionError` (UNSUPPORTED_VERSION)
    when the whole request, or every id that failed, got that answer (``.instance_ids``);
    :class:`~staticconsumer.errors.GroupAdminError` for any other failure.
    """
    outcome = await try_remove_members(
        bootstrap_servers, group_id, instance_ids, reason, timeout_s=timeout_s,
        security=security, metadata_recovery_strategy=metadata_recovery_strategy,
        metadata_recovery_rebootstrap_trigger_ms=metadata_recovery_rebootstrap_trigger_ms,
        **security_kwargs,
    )  # fmt: skip
    _raise_for_failures(outcome)
    return RemoveMembersResult(group_id, outcome.removed)
