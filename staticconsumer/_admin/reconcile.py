"""Reconcile a group's static members with the instance ids that should exist (KIP-345).

The scale-down step of a StatefulSet, and the cleanup of ghosts after a rename: every static
member whose ``group.instance.id`` is not desired is removed, in ONE LeaveGroup batch with a
reason (KIP-800), so the group rebalances once, now, instead of after ``session.timeout.ms``::

    plan = await reconcile("broker:9092", "orders", desired_count_ids("orders-", 2),
                           reason="scale down to 2", apply=True)
    plan.remove     # ('orders-2',)

Without ``apply=True`` it is a dry run: it describes the group and says what it would remove.
A member counts as desired when its instance id is a desired id or a per-thread id derived from
one (``orders-0-thread-1``, :meth:`InstanceId.for_thread`). Dynamic members (no instance id)
are never touched.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._instance_id import InstanceId
from ..errors import ConfigurationError
from ..options import DEFAULTS
from ..security import SecuritySettings
from .client import DEFAULT_TIMEOUT_S, check_reason
from .describe import describe_group
from .remove import try_remove_members

log = logging.getLogger(__name__)
_THREAD_SUFFIX = re.compile(r"-thread-\d+$")


@dataclass(frozen=True)
class ReconcilePlan:
    """What :func:`reconcile` found and did. ``keep``: static members that are desired;
    ``remove``: static members that are not (removed when ``applied``); ``missing``: desired ids
    with no member now (a pod not started yet: nothing to do); ``failed``: ``(id, Kafka error
    name)`` for ids the broker refused to remove."""

    group_id: str
    desired: tuple[str, ...]
    keep: tuple[str, ...]
    remove: tuple[str, ...]
    missing: tuple[str, ...]
    applied: bool
    removed: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id, "desired": list(self.desired), "keep": list(self.keep),
            "remove": list(self.remove), "missing": list(self.missing), "applied": self.applied,
            "removed": list(self.removed),
            "failed": [{"group_instance_id": i, "error": e} for i, e in self.failed],
        }  # fmt: skip


def desired_count_ids(prefix: str, count: int) -> tuple[str, ...]:
    """``prefix0 … prefix{count-1}``: a StatefulSet's pod names (``orders-`` → ``orders-0``)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ConfigurationError(f"desired count must be an int >= 0, got {count!r}")
    if not isinstance(prefix, str) or not prefix:
        raise ConfigurationError("prefix must be a non-empty str, e.g. 'orders-'")
    return tuple(InstanceId.validate(f"{prefix}{i}", field="prefix") for i in range(count))


def _desired(instance_id: str, desired: frozenset[str]) -> bool:
    return instance_id in desired or _THREAD_SUFFIX.sub("", instance_id) in desired


async def reconcile(
    bootstrap_servers: str | list[str],
    group_id: str,
    desired_instance_ids: Iterable[str],
    reason: str | None = None,
    *,
    apply: bool = False,
    allow_empty: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    security: SecuritySettings | None = None,
    metadata_recovery_strategy: str = DEFAULTS["metadata_recovery_strategy"],
    metadata_recovery_rebootstrap_trigger_ms: int = DEFAULTS[
        "metadata_recovery_rebootstrap_trigger_ms"
    ],
    **security_kwargs: Any,
) -> ReconcilePlan:
    """Remove every static member of ``group_id`` whose instance id is not desired, in one
    LeaveGroup batch with ``reason`` (sent as ``remove_members`` sends it, KIP-800) — only with
    ``apply=True`` (a bool; anything else is refused); otherwise report what would be removed.
    An empty ``desired_instance_ids`` would remove every static member: it is refused unless
    ``allow_empty=True`` says so (as Java's ``removeMembersFromConsumerGroup`` removes all
    members only when asked with no member list, KIP-571). Security settings as in
    :func:`~staticconsumer.admin.describe_group`."""
    for name, flag in (("apply", apply), ("allow_empty", allow_empty)):
        if not isinstance(flag, bool):
            raise ConfigurationError(f"{name} must be True or False, got {flag!r}")
    if isinstance(desired_instance_ids, str):
        raise ConfigurationError("desired_instance_ids must be a list of instance ids, not a str")
    desired = tuple(desired_instance_ids)
    if not desired and not allow_empty:
        raise ConfigurationError(
            "desired_instance_ids is empty: that removes every static member of the group; "
            "pass allow_empty=True (CLI: --allow-empty) if that is what you mean"
        )
    for value in desired:
        InstanceId.validate(value, field="desired_instance_ids")
    check_reason(reason)
    settings = SecuritySettings.coerce(security, **security_kwargs)
    recovery: dict[str, Any] = {
        "metadata_recovery_strategy": metadata_recovery_strategy,
        "metadata_recovery_rebootstrap_trigger_ms": metadata_recovery_rebootstrap_trigger_ms,
    }
    description = await describe_group(
        bootstrap_servers, group_id, timeout_s=timeout_s, security=settings, **recovery
    )
    wanted = frozenset(desired)
    static = [m.group_instance_id for m in description.members if m.group_instance_id]
    keep = tuple(i for i in static if _desired(i, wanted))
    remove = tuple(i for i in static if not _desired(i, wanted))
    present = {_THREAD_SUFFIX.sub("", i) for i in static} | set(static)
    missing = tuple(i for i in desired if i not in present)
    plan = ReconcilePlan(group_id, desired, keep, remove, missing, applied=False)
    if not apply or not remove:
        return ReconcilePlan(**{**plan.__dict__, "applied": apply})
    outcome = await try_remove_members(
        bootstrap_servers, group_id, remove, reason,
        timeout_s=timeout_s, security=settings, **recovery,
    )  # fmt: skip
    log.info("reconciled group %r: removed %s", group_id, ", ".join(outcome.removed) or "none")
    return ReconcilePlan(
        group_id, desired, keep, remove, missing, applied=True,
        removed=outcome.removed, failed=outcome.failed,
    )  # fmt: skip
