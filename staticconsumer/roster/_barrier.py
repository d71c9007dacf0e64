"""The roster's join barrier (issue 21): registered members that arrive for a scale-up join
together, so the group rebalances once for them rather than once each. Pure: no I/O, no clock.

A new member whose ``group.instance.id`` is registered in its group's roster, and that the group
does not have yet (a restarting static member never waits), writes an *arrival* record beside the
roster, then waits before its first JoinGroup (classic) or ConsumerGroupHeartbeat (KIP-848) until
every other registered member the group lacks has arrived too, or the roster's deadline passes
(``updated_at_ms + wait_ms``, the wait the leader honours too). An arrival older than the roster's
last change is from an earlier scale-up and does not count.

When everyone has arrived, they all join at one moment: :data:`JOIN_ALIGN_MS` after the latest
arrival, a time every waiting member computes alike from the same records (each notices the last
arrival within its poll interval, shorter than that). So their JoinGroups reach the coordinator
together, inside the rebalance the first one starts (the running members take until their next
heartbeat to re-join), and their first ConsumerGroupHeartbeats inside one assignment interval.

An arrival record is keyed ``{"arrival":"<instance id>","group":"<group id>"}`` (compact JSON,
keys sorted, so never a roster's key, which is the bare group id) in the roster topic, its value::

    {"arrived_at_ms":1732400000000,"group_id":"orders","instance_id":"orders-6","version":1}

Worked example (roster orders-0..orders-3; orders-0 and orders-1 are in the group)::

    >>> r = Roster.create("orders", [f"orders-{i}" for i in range(4)], now_ms=0, wait_ms=60_000)
    >>> barrier(r, "orders-2", {"orders-0", "orders-1"}, {}, now_ms=1_000).waiting_for
    ('orders-3',)
    >>> d = barrier(r, "orders-2", {"orders-0", "orders-1"}, {"orders-3": 1_500}, 2_000)
    >>> d.verdict, d.join_at_ms
    (<BarrierVerdict.ALL_ARRIVED: 'every registered member arrived'>, 2500)
"""

from __future__ import annotations

import enum
import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RosterFormatError
from ._record import Roster

ARRIVAL_FORMAT_VERSION = 1
#: Everyone joins this long after the latest arrival (longer than a waiting member's poll).
JOIN_ALIGN_MS = 1_000


class BarrierVerdict(enum.Enum):
    """Why a member joins now, or that it waits."""

    NO_ROSTER = "the group has no roster"
    NOT_REGISTERED = "this member is not registered"
    IN_GROUP = "the group has this member already"
    ALL_ARRIVED = "every registered member arrived"
    EXPIRED = "the roster's wait is over"
    WAIT = "waiting for registered members"


@dataclass(frozen=True)
class BarrierDecision:
    """``verdict``; while it is WAIT, who is awaited and until when (wall-clock ms); when
    ALL_ARRIVED with other arrivals, ``join_at_ms``, the moment they all join."""

    verdict: BarrierVerdict
    waiting_for: tuple[str, ...] = ()
    deadline_ms: int | None = None
    join_at_ms: int | None = None

    @property
    def arrives(self) -> bool:
        """The member takes part in the barrier: it writes its arrival."""
        return self.verdict in (BarrierVerdict.ALL_ARRIVED, BarrierVerdict.WAIT)

    @property
    def wait(self) -> bool:
        return self.verdict is BarrierVerdict.WAIT


def barrier(
    roster: Roster | None,
    instance_id: str | None,
    in_group: Collection[str],
    arrivals: Mapping[str, int],
    now_ms: int,
) -> BarrierDecision:
    """Whether ``instance_id`` waits before joining. ``in_group``: the instance ids the group has
    now; ``arrivals``: instance id -> ``arrived_at_ms`` of the arrival records read (this
    member's own included, once written)."""
    if roster is None:
        return BarrierDecision(BarrierVerdict.NO_ROSTER)
    if instance_id is None or instance_id not in roster:
        return BarrierDecision(BarrierVerdict.NOT_REGISTERED)
    if instance_id in in_group:
        return BarrierDecision(BarrierVerdict.IN_GROUP)
    if roster.expired(now_ms):
        return BarrierDecision(BarrierVerdict.EXPIRED)
    awaited = tuple(
        other
        for other in roster.instance_ids
        if other != instance_id
        and other not in in_group
        and arrivals.get(other, -1) < roster.updated_at_ms
    )
    if awaited:
        return BarrierDecision(BarrierVerdict.WAIT, awaited, roster.deadline_ms)
    current = [
        at for other, at in arrivals.items()
        if other in roster and other not in in_group and at >= roster.updated_at_ms
    ]  # fmt: skip
    others = [o for o in roster.instance_ids if o != instance_id and o not in in_group]
    if not others or not current:  # nobody to join with
        return BarrierDecision(BarrierVerdict.ALL_ARRIVED)
    join_at = min(max(current) + JOIN_ALIGN_MS, roster.deadline_ms)
    return BarrierDecision(BarrierVerdict.ALL_ARRIVED, join_at_ms=join_at)


def _compact(document: Mapping[str, Any]) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def arrival_key(group_id: str, instance_id: str) -> bytes:
    """The arrival record's key (module docstring)."""
    return _compact({"arrival": instance_id, "group": group_id})


def arrival_value(group_id: str, instance_id: str, now_ms: int) -> bytes:
    """The arrival record's value (module docstring)."""
    return _compact({"version": ARRIVAL_FORMAT_VERSION, "group_id": group_id,
                     "instance_id": instance_id, "arrived_at_ms": now_ms})  # fmt: skip


def read_arrival(key: bytes | None, value: bytes | None, group_id: str) -> tuple[str, int] | None:
    """``(instance id, arrived_at_ms)`` when the record is an arrival in ``group_id``; None for
    any other record (a roster, another group's arrival, a tombstone). An arrival in this group
    that this version cannot read raises :class:`RosterFormatError` (the caller joins without
    the barrier rather than wait on a record it does not understand)."""
    if key is None or value is None or not key.startswith(b'{"arrival":'):
        return None
    try:
        ident: Any = json.loads(key)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(ident, dict) or ident.get("group") != group_id:
        return None
    try:
        document: Any = json.loads(value)
    except (UnicodeDecodeError, ValueError):
        document = None
    if not isinstance(document, dict) or document.get("version") != ARRIVAL_FORMAT_VERSION:
        raise RosterFormatError(f"an arrival record of group {group_id!r} is not version 1")
    instance, at = document.get("instance_id"), document.get("arrived_at_ms")
    if instance != ident.get("arrival") or isinstance(at, bool) or not isinstance(at, int):
        raise RosterFormatError(f"an arrival record of group {group_id!r} is malformed")
    return str(instance), at


def scan_log(
    records: Iterable[tuple[bytes | None, bytes | None]], group_id: str, *, arrivals: bool = True
) -> tuple[Roster | None, dict[str, int]]:
    """``group_id``'s roster and its arrivals (instance id -> arrived_at_ms) in the roster
    topic's ``(key, value)`` records, oldest first: the last value under the group id wins and a
    tombstone (null value) deletes, as compaction will. :class:`RosterFormatError` when the
    roster (or, with ``arrivals``, an arrival of this group) is not one this version reads;
    without ``arrivals`` (the leader's read) arrival records are not looked at."""
    key = group_id.encode()
    value: bytes | None = None
    arrived: dict[str, int] = {}
    for record_key, record_value in records:
        if record_key == key:
            value = record_value
        elif arrivals and (arrival := read_arrival(record_key, record_value, group_id)):
            arrived[arrival[0]] = arrival[1]
    roster = None if value is None else Roster.from_json(value, group_id=group_id)
    return roster, arrived
