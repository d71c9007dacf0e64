"""Roster assignment: the client side of KIP-469 (pre-registration), which Kafka never adopted.

Since issue 21 the roster is a *registration*, not a constructor argument: an admin registers the
``group.instance.id`` values a group should have (``staticconsumer.admin.register_members``), the
leader reads that registration at each rebalance and, while registered members are missing,
holds arrivals (``staticconsumer.membership`` ``plan_under_roster``): everyone keeps what it owns,
so N arrivals cost one move. This module is the plan the leader runs once the roster is complete
(or its wait ran out), and it is built so a roster change moves only what must move:

* a partition's *home* is the member that owns it now (``Member.owned_partitions``, or Java
  StickyAssignor user data when that is empty); claims are resolved as :func:`assign_sticky`
  resolves them (higher generation, then member order);
* the plan is balanced first, then keeps as many homes as balance allows: with identical
  subscriptions every member ends with ``P // M`` or ``P // M + 1`` partitions and the number of
  partitions that change owner is the theoretical minimum; with different subscriptions, two
  members with the same subscription differ by at most one partition, and no member two
  partitions above another holds a partition that member could take.

That is the sticky plan (:func:`assign_sticky`) under the protocol name "roster", and it is
computed by it: one algorithm, one set of properties (``tests/assignors``).

Example: four members a..d own 8 partitions of t0, two each; e and f are registered and join::

    before: a: [t0p0, t0p1]  b: [t0p2, t0p3]  c: [t0p4, t0p5]  d: [t0p6, t0p7]
    after:  a: [t0p0, t0p1]  b: [t0p2, t0p3]  c: [t0p4]        d: [t0p6]
            e: [t0p5]        f: [t0p7]

Moved: 2 partitions, the least that 6 members over 8 partitions (2, 2, 1, 1, 1, 1) need.

What changed from the roster-index plan (before issue 21), and why:

* homes came from the roster's sorted order, so adding or removing a roster entry re-cut every
  range (a roster a..d over 8 partitions could end ``a:[0] b:[1] c:[2,4,5] d:[3,6,7]``); now
  homes are what members own, and a roster change moves only what balance needs;
* members outside the roster were hot standbys that received only orphans; now every member is
  planned alike (a standby that holds nothing is what a registered member held back by the leader
  is, while the roster waits);
* partition *n* of co-partitioned topics no longer shares a home by construction (use range for
  that).

The ``roster`` argument is deprecated: it is still validated (``ValueError`` on a bad entry) and
then ignored, with a ``DeprecationWarning``. ``Member.rack`` is ignored.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence

from ._member import Member, Plan, java_key
from ._sticky import assign_sticky

_INSTANCE_ID = re.compile(r"[a-zA-Z0-9._-]+")
_MAX_INSTANCE_ID = 249

ROSTER_ARGUMENT_DEPRECATED = (
    "the roster argument is deprecated and no longer changes the plan: register the group's "
    "instance ids with staticconsumer.admin.register_members (the leader reads them at each "
    "rebalance; docs/scaling.md)"
)


def check_roster(roster: Sequence[str]) -> list[str]:
    """The roster in Java string order; ``ValueError`` names an invalid or duplicate id.

    Ids follow Java's ``group.instance.id`` rules: non-empty, not "." or "..", at most 249
    characters of ``[a-zA-Z0-9._-]``.
    """
    if isinstance(roster, str):
        raise ValueError(f"roster must be a sequence of instance ids, not the string {roster!r}")
    seen: set[str] = set()
    for entry in roster:
        if not isinstance(entry, str):
            raise ValueError(f"roster entry {entry!r} is not a str")
        if entry in ("", ".", ".."):
            raise ValueError(f"roster entry {entry!r} is not a valid group.instance.id")
        if len(entry) > _MAX_INSTANCE_ID:
            raise ValueError(
                f"roster entry {entry[:40]!r}... is {len(entry)} characters; "
                f"a group.instance.id has at most {_MAX_INSTANCE_ID}"
            )
        if not _INSTANCE_ID.fullmatch(entry):
            raise ValueError(
                f"roster entry {entry!r} may only contain ASCII letters, digits, '.', '_' and '-'"
            )
        if entry in seen:
            raise ValueError(f"duplicate roster entry {entry!r}")
        seen.add(entry)
    return sorted(roster, key=java_key)


def warn_roster_argument(roster: Sequence[str] | None, *, stacklevel: int) -> None:
    """Validate a roster given the old way, then say once per call site that it is ignored."""
    if roster is None:
        return
    check_roster(roster)
    warnings.warn(ROSTER_ARGUMENT_DEPRECATED, DeprecationWarning, stacklevel=stacklevel + 1)


def assign_roster(
    members: Iterable[Member],
    partitions_per_topic: Mapping[str, int],
    roster: Sequence[str] | None = None,
) -> Plan:
    """Roster plan: ``member_id -> sorted [(topic, partition)]``, one entry per member; homes are
    what members own, balance first, then the fewest moves (module docstring).

    ``roster`` is deprecated (validated, then ignored with a ``DeprecationWarning``). Raises
    ``ValueError`` on duplicate member ids, a negative partition count, or a bad roster entry.
    """
    warn_roster_argument(roster, stacklevel=2)
    return assign_sticky(members, partitions_per_topic)
