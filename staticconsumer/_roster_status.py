"""A group's roster seen beside its members now (:class:`RosterStatus`), a pure value.

It sits below both of its users so that neither imports the other: ``roster/`` computes it
(:meth:`staticconsumer.roster.Roster.status`) and ``_admin/``'s :class:`GroupDescription` carries
it, and ``roster/`` already stands on ``_admin/`` (its admin calls use the admin coordinator).
Its public names are :class:`staticconsumer.roster.RosterStatus` and
:class:`staticconsumer.admin.RosterStatus`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RosterStatus:
    """A roster seen beside the group's members now: who is registered (with the ms each was
    registered at), who of them is not a member, the deadline, and whether it has passed."""

    registered: tuple[tuple[str, int], ...]
    missing: tuple[str, ...]
    updated_at_ms: int
    wait_ms: int
    deadline_ms: int
    expired: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "registered": [{"group_instance_id": i, "registered_at_ms": at}
                           for i, at in self.registered],
            "missing": list(self.missing), "updated_at_ms": self.updated_at_ms,
            "wait_ms": self.wait_ms, "deadline_ms": self.deadline_ms, "expired": self.expired,
        }  # fmt: skip
