"""Pre-registration (KIP-469's promise, kept by the client): declare and change a group's roster,
the ``group.instance.id``\\ s it should have, while the group runs. Members read it when their
leader plans; none of them needs a restart for a change.

Each call reads the group's current roster, changes it and writes the result as one record
(read-modify-write: two admins changing one roster at once, the last write wins). A call with
``dry_run=True`` computes the result and writes nothing (nor creates the topic).

Internal: the public face is :mod:`staticconsumer.admin`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from .._admin.client import DEFAULT_TIMEOUT_S, check_common
from .._admin.remove import try_remove_members
from .._compat.auth import who
from .._instance_id import check_instance_ids as _check_ids
from ..errors import ConfigurationError, GroupAdminError, RosterFormatError, RosterUnreadableError
from ..protocol import ErrorCode
from ..security import SecuritySettings
from ._record import DEFAULT_ROSTER_TOPIC, DEFAULT_ROSTER_WAIT_MS, Roster, check_roster_topic
from ._store import ensure_topic, read_with, roster_client, topic_exists, write_value

log = logging.getLogger(__name__)
#: The reason :func:`unregister_members` sends with ``remove=True`` (LeaveGroup v5+, KIP-800).
UNREGISTER_REASON = "unregistered from the roster by an admin (scale-down)"
_Change = Callable[[Roster | None, int], Roster | None]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def _change(
    bootstrap_servers: str | list[str], group_id: str, change: _Change, *, dry_run: bool,
    timeout_s: float, security: SecuritySettings | None, roster_topic: str, what: str,
    security_kwargs: dict[str, Any],
) -> Roster | None:  # fmt: skip
    check_common(bootstrap_servers, group_id, timeout_s)
    check_roster_topic(roster_topic)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    principal = who(settings)
    async with roster_client(bootstrap_servers, settings, timeout_s) as client:
        if not dry_run:
            await ensure_topic(client, group_id, roster_topic, timeout_s, principal)
        current = await read_with(client, group_id, roster_topic, principal, timeout_s)
    new = change(current, _now_ms())
    if dry_run or new is None or new is current:
        return new
    await write_value(bootstrap_servers, settings, roster_topic, group_id, new.to_json(), timeout_s)
    log.info("%s: group %r now registers %s (wait %d ms)", what, group_id,
             ", ".join(new.instance_ids) or "nobody", new.wait_ms)  # fmt: skip
    return new


async def register_members(
    bootstrap_servers: str | list[str], group_id: str, instance_ids: Iterable[str], *,
    wait_ms: int | None = None, dry_run: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None, roster_topic: str = DEFAULT_ROSTER_TOPIC,
    **security_kwargs: Any,
) -> Roster:  # fmt: skip
    """Add ``instance_ids`` to ``group_id``'s roster (creating the roster, and its topic, when
    there is none); the ids already registered stay, with their registration time. Returns the
    roster now stored. Adding a new id restarts the wait: the leader waits for missing ids until
    ``updated_at_ms + wait_ms``. ``wait_ms``: None keeps the roster's (a new roster gets
    120000); security settings as in :func:`~staticconsumer.admin.describe_group`.

    Raises ``ConfigurationError`` before any I/O for an invalid id, a duplicate or an empty
    list; :class:`~staticconsumer.errors.RosterAuthorizationError` (a
    ``GroupAdminAuthorizationError``) naming the ACL that is missing; ``GroupAdminError``
    for any other failure (the current roster unreadable: ``RosterUnreadableError``).
    """
    ids = _check_ids(instance_ids)

    def change(current: Roster | None, now: int) -> Roster:
        if current is None:
            return Roster.create(
                group_id,
                ids,
                now_ms=now,
                wait_ms=DEFAULT_ROSTER_WAIT_MS if wait_ms is None else wait_ms,
            )
        return current.with_added(ids, now_ms=now, wait_ms=wait_ms)  # fmt: skip

    roster = await _change(
        bootstrap_servers, group_id, change, dry_run=dry_run, timeout_s=timeout_s,
        security=security, roster_topic=roster_topic, what="registered " + ", ".join(ids),
        security_kwargs=security_kwargs,
    )  # fmt: skip
    assert roster is not None  # change() always returns one
    return roster


async def set_roster(
    bootstrap_servers: str | list[str], group_id: str, instance_ids: Iterable[str], *,
    wait_ms: int | None = None, dry_run: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None, roster_topic: str = DEFAULT_ROSTER_TOPIC,
    **security_kwargs: Any,
) -> Roster:  # fmt: skip
    """Make ``group_id``'s roster exactly ``instance_ids`` (ids kept keep their registration
    time; an empty list keeps an empty roster: use :func:`delete_roster` to drop it). Arguments
    and errors as :func:`register_members`."""
    ids = _check_ids(instance_ids, allow_empty=True)

    def change(current: Roster | None, now: int) -> Roster:
        wait = DEFAULT_ROSTER_WAIT_MS if wait_ms is None else wait_ms
        base = current or Roster(group_id, (), now, wait)
        return base.replaced(ids, now_ms=now, wait_ms=wait_ms)

    roster = await _change(
        bootstrap_servers, group_id, change, dry_run=dry_run, timeout_s=timeout_s,
        security=security, roster_topic=roster_topic, what="set", security_kwargs=security_kwargs,
    )  # fmt: skip
    assert roster is not None  # change() always returns one
    return roster


async def unregister_members(
    bootstrap_servers: str | list[str], group_id: str, instance_ids: Iterable[str], *,
    remove: bool = False, reason: str | None = None, dry_run: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S, security: SecuritySettings | None = None,
    roster_topic: str = DEFAULT_ROSTER_TOPIC, **security_kwargs: Any,
) -> Roster | None:  # fmt: skip
    """Take ``instance_ids`` off ``group_id``'s roster (ids it lacks are ignored). With
    ``remove=True`` those static members are also removed from the group at once, as
    :func:`~staticconsumer.admin.remove_members` does (one LeaveGroup with ``reason``, default
    :data:`UNREGISTER_REASON`, KIP-800), so their partitions move now instead of after
    ``session.timeout.ms``; an id that is no member (UNKNOWN_MEMBER_ID) is fine, any other
    refusal raises ``GroupAdminError`` after the roster was written. Returns the roster now
    stored (None when the group had none: nothing is written). Other arguments and errors as
    :func:`register_members`."""
    ids = _check_ids(instance_ids)
    if not isinstance(remove, bool):
        raise ConfigurationError(f"remove must be True or False, got {remove!r}")
    settings = SecuritySettings.coerce(security, **security_kwargs)

    def change(current: Roster | None, now: int) -> Roster | None:
        return current.without(ids, now_ms=now) if current is not None else None

    roster = await _change(
        bootstrap_servers, group_id, change, dry_run=dry_run, timeout_s=timeout_s,
        security=settings, roster_topic=roster_topic, what="unregistered " + ", ".join(ids),
        security_kwargs={},
    )  # fmt: skip
    if remove and not dry_run:
        outcome = await try_remove_members(
            bootstrap_servers, group_id, ids, reason or UNREGISTER_REASON, timeout_s=timeout_s,
            security=settings,
        )  # fmt: skip
        refused = [(i, name) for i, name in outcome.failed
                   if name != ErrorCode.UNKNOWN_MEMBER_ID.name]  # fmt: skip
        if refused:
            listed = ", ".join(f"{i} ({name})" for i, name in refused)
            raise GroupAdminError(
                f"unregistered from the roster of group {group_id!r}, but LeaveGroup failed "
                f"for {listed}"
            )
    return roster


async def describe_roster(
    bootstrap_servers: str | list[str], group_id: str, *, timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None, roster_topic: str = DEFAULT_ROSTER_TOPIC,
    **security_kwargs: Any,
) -> Roster | None:  # fmt: skip
    """``group_id``'s roster, or None when it has none (no roster topic, no record, or deleted).
    Raises :class:`~staticconsumer.errors.RosterUnreadableError` when it cannot be read (a
    missing DESCRIBE/READ ACL: :class:`~staticconsumer.errors.RosterAuthorizationError`)."""
    check_common(bootstrap_servers, group_id, timeout_s)
    check_roster_topic(roster_topic)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    async with roster_client(bootstrap_servers, settings, timeout_s) as client:
        return await read_with(client, group_id, roster_topic, who(settings), timeout_s)


async def delete_roster(
    bootstrap_servers: str | list[str], group_id: str, *, dry_run: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S, security: SecuritySettings | None = None,
    roster_topic: str = DEFAULT_ROSTER_TOPIC, **security_kwargs: Any,
) -> Roster | None:  # fmt: skip
    """Delete ``group_id``'s roster: a tombstone (null value) under its key, which compaction
    removes; the group's leader plans as it did before pre-registration. Returns the roster
    that was deleted (None when there was none to read; a record this version cannot decode is
    deleted all the same). Nothing is written when the roster topic does not exist."""
    check_common(bootstrap_servers, group_id, timeout_s)
    check_roster_topic(roster_topic)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    async with roster_client(bootstrap_servers, settings, timeout_s) as client:
        if not await topic_exists(client, group_id, roster_topic, who(settings)):
            return None
        try:
            current = await read_with(client, group_id, roster_topic, who(settings), timeout_s)
        except RosterUnreadableError as exc:
            if not isinstance(exc.__cause__, RosterFormatError):
                raise
            current = None
    if not dry_run:
        await write_value(bootstrap_servers, settings, roster_topic, group_id, None, timeout_s)
        log.info("deleted the roster of group %r", group_id)
    return current
