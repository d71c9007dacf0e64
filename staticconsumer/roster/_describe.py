"""``describe_group`` with the group's roster beside its members (what ``staticconsumer
describe`` prints): the admin's describe (``staticconsumer._admin.describe``), then, unless
``roster_topic`` is None, the roster read with the admin's own client (:mod:`._store`).

It lives here, not in ``_admin``, so that the roster stays in one package and ``_admin`` never
imports it back. Internal: the public face is :func:`staticconsumer.admin.describe_group`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Any

from .._admin.client import DEFAULT_TIMEOUT_S, check_common
from .._admin.describe import GroupDescription
from .._admin.describe import describe_group as describe_members
from .._compat.auth import who
from .._roster_status import RosterStatus
from ..errors import StaticConsumerError
from ..options import DEFAULTS
from ..security import SecuritySettings
from ._record import DEFAULT_ROSTER_TOPIC
from ._store import read_with, roster_client

log = logging.getLogger(__name__)


async def describe_group(
    bootstrap_servers: str | list[str],
    group_id: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    roster_topic: str | None = DEFAULT_ROSTER_TOPIC,
    metadata_recovery_strategy: str = DEFAULTS["metadata_recovery_strategy"],
    metadata_recovery_rebootstrap_trigger_ms: int = DEFAULTS[
        "metadata_recovery_rebootstrap_trigger_ms"
    ],
    **security_kwargs: Any,
) -> GroupDescription:
    """Describe ``group_id``: state, selected protocol and every member with its
    ``group_instance_id``, client id, host and decoded assignment (DescribeGroups v4+).

    When the group has a roster in ``roster_topic`` (None: do not look), ``roster`` shows it
    beside the members; a roster that cannot be read is logged as a WARNING and left out.

    An unknown group comes back as state ``"Dead"`` with no members. Raises
    :class:`~staticconsumer.errors.GroupAdminError` when the broker refuses (e.g.
    GROUP_AUTHORIZATION_FAILED: :class:`~staticconsumer.errors.GroupAdminAuthorizationError`) or
    cannot be reached; :class:`~staticconsumer.errors.AuthenticationError` when the login fails.
    """
    check_common(bootstrap_servers, group_id, timeout_s)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    description = await describe_members(
        bootstrap_servers, group_id, timeout_s=timeout_s, security=settings,
        metadata_recovery_strategy=metadata_recovery_strategy,
        metadata_recovery_rebootstrap_trigger_ms=metadata_recovery_rebootstrap_trigger_ms,
    )  # fmt: skip
    if roster_topic is None:
        return description
    status = await roster_status(bootstrap_servers, description, settings, roster_topic, timeout_s)
    return description if status is None else replace(description, roster=status)


async def roster_status(
    bootstrap_servers: str | list[str], description: GroupDescription,
    settings: SecuritySettings, topic: str, timeout_s: float,
) -> RosterStatus | None:  # fmt: skip
    """The group's roster beside ``description``'s members; None without one, or (a WARNING)
    when it cannot be read."""
    group_id = description.group_id
    try:
        async with roster_client(bootstrap_servers, settings, timeout_s) as client:
            roster = await asyncio.wait_for(
                read_with(client, group_id, topic, who(settings), timeout_s), timeout_s
            )
    except (StaticConsumerError, TimeoutError) as exc:
        log.warning("group %r: its roster is not shown: %s", group_id, exc or "timed out")
        return None
    if roster is None:
        return None
    present = [m.group_instance_id for m in description.members]
    return roster.status(present, time.time_ns() // 1_000_000)
