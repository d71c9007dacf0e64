"""The leader's plan under a roster (issue 21, KIP-469 kept by the client): one move for N
arrivals. Pure: no I/O, no clock (the driver passes ``now_ms``, wall-clock milliseconds).

A roster is the set of ``group.instance.id``\\ s registered for the group and the deadline of the
wait for them (``updated_at_ms + wait_ms``, so it does not depend on which member leads). With
``missing`` = registered ids that are not present, :func:`plan_under_roster` returns one of:

* ``NONE`` — no roster (none registered, or it could not be read): the configured assignor's
  plan, exactly as :func:`~._plan.plan_with_group_assignor` makes it today;
* ``COMPLETE`` — nobody registered is missing: the configured assignor's plan, unchanged;
* ``EXPIRED`` — ids are missing and ``now_ms >= deadline_ms``: the configured assignor's plan,
  plus :attr:`RosterPlan.missing` and a reason (:func:`roster_wait_reason`) for the log line;
* ``HOLD`` — ids are missing and the deadline has not passed: the **hold plan** below, plus
  :attr:`RosterPlan.next_decision_ms` (the deadline) and :attr:`RosterPlan.reason`, with which
  the driver schedules one rebalance at the deadline (``enforce_rebalance(reason)``, KIP-800:
  ``roster wait ended: svc-6, svc-7 did not join within 120000 ms``).

The hold plan:

1. every present member keeps exactly what it validly owns: a partition of a topic it still
   subscribes to, that still exists, and that no other member claims (owned partitions from
   ConsumerProtocolSubscription v1+, else a Java StickyAssignor body in its user data). An owned
   partition of a topic no longer subscribed to is dropped;
2. a partition claimed by two members is kept by neither; with the eager protocol it is planned
   like an orphan (3), with the cooperative one (``cooperative=True``) it is handed to nobody in
   this generation (both claimants revoke it; it is an orphan in the next), as KIP-429 asks;
3. *orphans* (partitions nobody validly owns: a member left, a topic grew, a claim was contested)
   go through the configured assignor among the members that hold partitions, each given its kept
   partitions as owned; from the assignor's answer only orphans are taken, so no kept partition
   moves. Orphans of topics no holder subscribes to (a fresh group; a topic only arrivals read) go
   through the assignor among every present subscriber of those topics: a partition consumed
   by an arrival now beats one consumed by nobody until the deadline, and nobody owned it before;
4. arrivals get nothing else. That includes a member that is not registered (a plain new member
   while registered ones are missing): it would take partitions that move again when the roster
   completes, so it waits with the registered arrivals.

So nothing held moves while the roster waits, and when it completes one plan moves each partition
at most once. With a cooperative assignor (KIP-429) the hold plan never hands a partition to a new
owner while another member owns it (nothing owned moves), so members that keep their partitions
never stop. With an eager assignor every member still revokes everything at each rebalance, the
hold rebalances included, and gets the same partitions back: no partition moves more than once,
but eager members pay one stop-the-world per arrival. Use cooperative-sticky for scale-ups.

Worked example: a, b own t0 (four partitions); c and d are registered, c has joined::

    HOLD   a: [t0p0, t0p1]  b: [t0p2, t0p3]  c: []          (next decision at the deadline)
    # d joins: COMPLETE, cooperative-sticky: a [t0p0], b [t0p2], c [], d [] this generation,
    # then a [t0p0], b [t0p2], c [t0p1], d [t0p3] (t0p1 and t0p3 move once)
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from assignors import Member, MemberAssignment, decode_sticky_user_data

from ..membership import encode_assignments, plain_members
from ..protocol import Subscription, truncate_reason

TopicPartition = tuple[str, int]
PartitionRacks = Mapping[TopicPartition, Collection[str]]


class RegisteredRoster(Protocol):
    """What the plan reads of a roster: the registered ids, the deadline of the wait for them
    (None: no deadline, hold until they join), and the wait (for the reason text).
    ``staticconsumer.roster.Roster`` satisfies it; so does :class:`RosterWait`."""

    @property
    def instance_ids(self) -> Collection[str]: ...

    @property
    def deadline_ms(self) -> int | None: ...

    @property
    def wait_ms(self) -> int | None: ...


@dataclass(frozen=True)
class RosterWait:
    """A plain :class:`RegisteredRoster`: registered ids, deadline and wait, in milliseconds."""

    instance_ids: frozenset[str]
    deadline_ms: int | None
    wait_ms: int | None = None


class RosterVerdict(enum.Enum):
    """What the roster made of this rebalance (module docstring)."""

    NONE = "none"
    COMPLETE = "complete"
    HOLD = "hold"
    EXPIRED = "expired"


@dataclass(frozen=True)
class RosterPlan:
    """The leader's plan and what the driver does next.

    ``assignments``: ``member_id -> MemberAssignment`` for every member (:meth:`encoded` gives the
    SyncGroup bytes). ``missing``: registered ids not present (Java string order).
    ``next_decision_ms``: HOLD only, the deadline at which the driver rebalances with ``reason``;
    ``reason``: HOLD, the rebalance reason for that deadline; EXPIRED, the log line's reason.
    """

    verdict: RosterVerdict
    assignments: Mapping[str, MemberAssignment] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    next_decision_ms: int | None = None
    reason: str | None = None

    def encoded(self) -> dict[str, bytes]:
        return encode_assignments(self.assignments)


def roster_wait_reason(missing: Iterable[str], wait_ms: int | None) -> str:
    """``roster wait ended: svc-6, svc-7 did not join within 120000 ms``, cut to the 255
    characters a KIP-800 reason may have (as the Java client cuts it)."""
    ids = ", ".join(sorted(missing)) or "(none)"
    within = f" within {wait_ms} ms" if wait_ms is not None else ""
    text = f"roster wait ended: {ids} did not join{within}"
    return truncate_reason(text) or text


def plan_under_roster(
    assignor: Any,
    members: Mapping[str, tuple[str | None, Subscription]],
    partitions_per_topic: Mapping[str, int],
    roster: RegisteredRoster | None,
    now_ms: int,
    *,
    cooperative: bool = False,
    partition_racks: PartitionRacks | None = None,
) -> RosterPlan:
    """The leader's plan for the decoded subscriptions (``member_id -> (group_instance_id,
    Subscription)``) under ``roster`` at wall-clock ``now_ms``. ``cooperative``: the group's
    rebalance protocol is KIP-429's. See the module docstring."""
    return plan_members_under_roster(
        assignor, plain_members(members), partitions_per_topic, roster, now_ms,
        cooperative=cooperative, partition_racks=partition_racks,
    )  # fmt: skip


def plan_members_under_roster(
    assignor: Any,
    members: Sequence[Member],
    partitions_per_topic: Mapping[str, int],
    roster: RegisteredRoster | None,
    now_ms: int,
    *,
    cooperative: bool = False,
    partition_racks: PartitionRacks | None = None,
) -> RosterPlan:
    """:func:`plan_under_roster` on the ``assignors`` package's plain members."""
    members = list(members)
    missing: tuple[str, ...] = ()
    if roster is None:
        verdict = RosterVerdict.NONE
    else:
        present = {m.group_instance_id for m in members if m.group_instance_id is not None}
        missing = tuple(sorted(set(roster.instance_ids) - present))
        deadline = roster.deadline_ms
        if not missing:
            verdict = RosterVerdict.COMPLETE
        elif deadline is not None and now_ms >= deadline:
            verdict = RosterVerdict.EXPIRED
        else:
            verdict = RosterVerdict.HOLD
    if verdict is not RosterVerdict.HOLD:
        plan = assignor.assign_group(members, partitions_per_topic, partition_racks=partition_racks)
        reason = None
        if verdict is RosterVerdict.EXPIRED:
            assert roster is not None
            reason = roster_wait_reason(missing, roster.wait_ms)
        return RosterPlan(verdict, plan, missing, None, reason)
    assert roster is not None
    held = hold_plan(
        assignor, members, partitions_per_topic,
        cooperative=cooperative, partition_racks=partition_racks,
    )  # fmt: skip
    return RosterPlan(
        verdict, held, missing, roster.deadline_ms, roster_wait_reason(missing, roster.wait_ms)
    )


def _claimed(member: Member) -> tuple[TopicPartition, ...]:
    """What a member says it owns: subscription v1+ owned partitions, else a Java StickyAssignor
    body in its user data (an eager Java member sends no owned partitions)."""
    if member.owned_partitions:
        return tuple(member.owned_partitions)
    return tuple(decode_sticky_user_data(member.user_data).owned_partitions)


def valid_claims(
    members: Sequence[Member], partitions_per_topic: Mapping[str, int]
) -> tuple[dict[str, list[TopicPartition]], set[TopicPartition]]:
    """(member_id -> partitions it alone validly owns, sorted; partitions two members claim).
    Valid: the topic is subscribed to and has the partition."""
    claimants: dict[TopicPartition, list[str]] = {}
    for member in members:
        for topic, partition in dict.fromkeys(_claimed(member)):
            if topic in member.topics and 0 <= partition < partitions_per_topic.get(topic, 0):
                claimants.setdefault((topic, partition), []).append(member.member_id)
    kept: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    contested: set[TopicPartition] = set()
    for tp, who in sorted(claimants.items()):
        if len(who) == 1:
            kept[who[0]].append(tp)
        else:
            contested.add(tp)
    return kept, contested


def hold_plan(
    assignor: Any,
    members: Sequence[Member],
    partitions_per_topic: Mapping[str, int],
    *,
    cooperative: bool = False,
    partition_racks: PartitionRacks | None = None,
) -> dict[str, MemberAssignment]:
    """The hold plan (module docstring): kept partitions stay, orphans go through ``assignor``
    among the holders (then among every subscriber for topics no holder reads), arrivals get
    nothing else. A partition the assignor leaves out stays unassigned until the next plan."""
    kept, contested = valid_claims(members, partitions_per_topic)
    taken = {tp for partitions in kept.values() for tp in partitions}
    topics = sorted({t for m in members for t in m.topics if t in partitions_per_topic})
    orphans = {
        (t, p)
        for t in topics
        for p in range(partitions_per_topic[t])
        if (t, p) not in taken and not (cooperative and (t, p) in contested)
    }
    got: dict[str, list[TopicPartition]] = {m.member_id: list(kept[m.member_id]) for m in members}
    user_data: dict[str, bytes] = {}
    holders = [
        Member(m.member_id, m.group_instance_id, m.topics, kept[m.member_id], m.generation,
               m.rack, m.user_data)
        for m in members if kept[m.member_id]
    ]  # fmt: skip
    _take_orphans(assignor, holders, partitions_per_topic, orphans, got, user_data, partition_racks)
    if orphans:  # topics no holder subscribes to: every present subscriber, nothing owned
        left = {t for t, _ in orphans}
        readers = [
            Member(m.member_id, m.group_instance_id, [t for t in m.topics if t in left],
                   (), m.generation, m.rack)
            for m in members if left.intersection(m.topics)
        ]  # fmt: skip
        counts = {t: partitions_per_topic[t] for t in left}
        _take_orphans(assignor, readers, counts, orphans, got, user_data, partition_racks)
    shared = next(iter(user_data.values()), b"")
    return {
        m.member_id: MemberAssignment(
            tuple(sorted(got[m.member_id])), user_data.get(m.member_id, shared)
        )
        for m in members
    }


def _take_orphans(
    assignor: Any,
    members: Sequence[Member],
    partitions_per_topic: Mapping[str, int],
    orphans: set[TopicPartition],
    got: dict[str, list[TopicPartition]],
    user_data: dict[str, bytes],
    partition_racks: PartitionRacks | None,
) -> None:
    """Run ``assignor`` on ``members``; each takes only the orphans it was given (removed from
    ``orphans``), never a partition someone keeps."""
    if not members:
        return
    plan = assignor.assign_group(members, partitions_per_topic, partition_racks=partition_racks)
    for member in members:
        result = plan.get(member.member_id)
        if result is None:
            continue
        user_data.setdefault(member.member_id, result.user_data)
        for tp in result.partitions:
            if tp in orphans:
                orphans.discard(tp)
                got[member.member_id].append(tp)
