"""The member's state as the application (and a Kubernetes probe) sees it: one value, one table.

An engine has its own states (:class:`~._io.MemberState` for the classic protocol); the
application wants fewer and plainer ones, the same whichever protocol runs the member:

=============  ===================================================================  ======  ====
state          meaning                                                              ready   live
=============  ===================================================================  ======  ====
not_started    ``start()`` has not been called                                      no      yes
unsubscribed   started, but in no group: no group_id, no subscription yet, or       no      yes
               partitions assigned by hand (``assign()``)
waiting        a registered new member waiting at the roster's barrier before its   yes     yes
               first join, for the other registered members (at most until the
               roster's deadline; ``docs/scaling.md``)
joining        looking for the coordinator or joining, in no generation yet         no      yes
               (the first join, or a re-join after the generation was lost)
rebalancing    in a generation, but a rebalance is in progress or partitions are    member  yes
               still being handed to (or taken from) the application
stable         in a generation, heartbeating; the application holds the             yes     yes
               generation's assignment (possibly empty: more members than
               partitions)
fenced         another process took this ``group_instance_id``                      no      no
               (FENCED_INSTANCE_ID, KIP-345); terminal
failed         another fatal error (e.g. INVALID_SESSION_TIMEOUT); terminal         no      no
stopped        ``stop()`` was called                                                no      yes
=============  ===================================================================  ======  ====

**The readiness contract** (issues 21 and 22): *ready* means "a member of its group". A member
is one once it has held an assignment (possibly empty: more members than partitions, or a
roster barrier holding it back) since it last joined from scratch, and stays one through every
rebalance it takes part in: a classic rebalance with its generation (eager or cooperative), a
KIP-848 reconciliation. So ``rebalancing`` is ready for a member (``member`` above:
:attr:`Membership.in_group`), and not ready during the first join, including the first
hand-over to the rebalance listener. Losing the membership ends it until the next assignment is
held: the generation lost (session expired, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
FENCED_MEMBER_EPOCH: ``joining``), a poll timeout, and every terminal state. Why: a group
rebalance involves every member at once, and a probe that failed during it would turn every
pod NotReady together (a PodDisruptionBudget then blocks node drains mid-deploy); a pod that
is not in the group yet is what an ``OrderedReady`` StatefulSet must wait for before starting
the next one. A registered arrival waiting at the roster's barrier (``waiting``) is ready:
the barrier ends when the next pods arrive, so holding the StatefulSet back would make every
arrival wait until the roster's deadline. *Live* means "not finished by a fatal error": only
``fenced`` and ``failed`` fail it. The engines keep the fact (``in_group``: set when the driver
polls again after performing an assignment, cleared when the generation or member epoch is
lost).

``fenced`` and ``failed`` stick, also after ``stop()`` (STYLE rule 7: error states stick).
:data:`CLASSIC_STATES` maps the classic engine's states; :func:`classic_state` adds what the
engine's state alone does not say. The KIP-848 engine maps its own states onto the same
:class:`MembershipState`; :class:`Membership` is the same value for both. Each engine answers
with its ``membership_state(subscribed=, handing_over=)``: whether a fatal member is ``fenced``
is the engine's verdict (its reaction was FENCED, ``membership._reactions``), not the driver's.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._io import MemberState, TopicPartition


class MembershipState(enum.Enum):
    """What :attr:`StaticConsumer.membership.state <Membership.state>` says (module docstring)."""

    NOT_STARTED = "not_started"
    UNSUBSCRIBED = "unsubscribed"
    WAITING = "waiting"
    JOINING = "joining"
    REBALANCING = "rebalancing"
    STABLE = "stable"
    FENCED = "fenced"
    FAILED = "failed"
    STOPPED = "stopped"

    @property
    def ready(self) -> bool:
        """Ready by the state alone: ``stable``, ``waiting``. :attr:`Membership.ready` adds
        ``rebalancing`` for a member that stays in its group (module docstring: the readiness
        contract)."""
        return self in (MembershipState.STABLE, MembershipState.WAITING)

    @property
    def live(self) -> bool:
        """The member is not finished by a fatal error: a liveness probe passes."""
        return self not in (MembershipState.FENCED, MembershipState.FAILED)


class Lifecycle(enum.Enum):
    """The consumer's own part: ``start()`` not called yet, waiting at the roster's barrier
    (before the engine exists), called, ``stop()`` called."""

    NOT_STARTED = "not_started"
    AT_BARRIER = "at_barrier"
    STARTED = "started"
    STOPPED = "stopped"


#: The classic engine's states, before :func:`classic_state` refines them.
CLASSIC_STATES: Mapping[MemberState, MembershipState] = MappingProxyType({
    MemberState.UNJOINED: MembershipState.JOINING,
    MemberState.JOINING: MembershipState.JOINING,
    MemberState.ASSIGNING: MembershipState.REBALANCING,
    MemberState.SYNCING: MembershipState.REBALANCING,
    MemberState.STABLE: MembershipState.STABLE,
    MemberState.FATAL: MembershipState.FAILED,
    MemberState.CLOSED: MembershipState.STOPPED,
})  # fmt: skip


def classic_state(
    state: MemberState,
    generation_id: int,
    *,
    subscribed: bool,
    handing_over: bool,
    fenced: bool = False,
) -> MembershipState:
    """:data:`CLASSIC_STATES`, refined by what the engine's state alone does not say:

    * FATAL because the member was ``fenced`` (the engine's verdict, ``ClassicMember.fenced``:
      its reaction was FENCED) is ``fenced``, else ``failed``;
    * not ``subscribed`` (no subscription, or partitions assigned by hand) is ``unsubscribed``;
    * UNJOINED or JOINING while still in a generation (``generation_id >= 0``: a re-join, not a
      first join or one after the generation was lost) is ``rebalancing``;
    * STABLE while the driver is still ``handing_over`` partitions (the rebalance listener is
      running) is ``rebalancing``: the application does not hold its assignment yet.
    """
    mapped = CLASSIC_STATES[state]
    if mapped is MembershipState.JOINING and generation_id >= 0 and subscribed:
        mapped = MembershipState.REBALANCING
    return refine(mapped, subscribed=subscribed, handing_over=handing_over, fenced=fenced)


def refine(
    mapped: MembershipState, *, subscribed: bool, handing_over: bool, fenced: bool = False
) -> MembershipState:
    """What every engine's mapped state becomes with what the state alone does not say: FAILED
    because the member was ``fenced`` is ``fenced``; a member not ``subscribed`` is
    ``unsubscribed``; STABLE while the driver is ``handing_over`` partitions is ``rebalancing``."""
    if mapped is MembershipState.FAILED:
        return MembershipState.FENCED if fenced else mapped
    if mapped is MembershipState.STOPPED:
        return mapped
    if not subscribed:
        return MembershipState.UNSUBSCRIBED
    if mapped is MembershipState.STABLE and handing_over:
        return MembershipState.REBALANCING
    return mapped


def membership_state(
    lifecycle: Lifecycle, engine: MembershipState | None, *, group: bool
) -> MembershipState:
    """The consumer's lifecycle combined with the engine's state (None: no engine yet, or none
    at all without a ``group``). A fatal state sticks; otherwise not started and stopped are the
    consumer's to say, and a started consumer with a group but no engine yet (``start()`` is
    still connecting) is joining."""
    if engine in (MembershipState.FENCED, MembershipState.FAILED):
        return engine
    if lifecycle is Lifecycle.NOT_STARTED:
        return MembershipState.NOT_STARTED
    if lifecycle is Lifecycle.STOPPED:
        return MembershipState.STOPPED
    if lifecycle is Lifecycle.AT_BARRIER:
        return MembershipState.WAITING
    if engine is None:
        return MembershipState.JOINING if group else MembershipState.UNSUBSCRIBED
    return engine


@dataclass(frozen=True)
class Membership:
    """A snapshot of this member's group membership (KIP-345 static membership).

    ``member_id`` is ``""`` and ``generation_id`` is ``-1`` while the member has none;
    ``generation_id`` is the member epoch under the consumer protocol (KIP-848).
    ``assignment`` holds ``(topic, partition)`` pairs (equal to aiokafka's ``TopicPartition``):
    what the member holds while ``stable`` or ``rebalancing``, empty in every other state.
    ``in_group``: the member has held an assignment since it last joined from scratch (the
    engine's fact; it counts only while ``stable`` or ``rebalancing``).
    """

    state: MembershipState
    group_id: str | None
    group_instance_id: str | None
    member_id: str = ""
    generation_id: int = -1
    assignment: frozenset[TopicPartition] = frozenset()
    in_group: bool = False

    @property
    def ready(self) -> bool:
        """A member of its group: ``stable``, or ``rebalancing`` while :attr:`in_group` (module
        docstring: the readiness contract)."""
        return is_ready(self.state, in_group=self.in_group)

    @property
    def live(self) -> bool:
        return self.state.live

    def to_dict(self) -> dict[str, Any]:
        """The JSON body of the health endpoint (``docs/kubernetes.md``)."""
        return {
            "state": self.state.value,
            "ready": self.ready,
            "live": self.live,
            "group_id": self.group_id,
            "group_instance_id": self.group_instance_id,
            "member_id": self.member_id,
            "generation_id": self.generation_id,
            "assignment": [{"topic": t, "partition": p} for t, p in sorted(self.assignment)],
        }


def is_ready(state: MembershipState, *, in_group: bool) -> bool:
    """The readiness contract (module docstring): ``stable``, or ``rebalancing`` for a member
    that has held an assignment since it last joined from scratch."""
    return state.ready or (state is MembershipState.REBALANCING and in_group)


def snapshot(
    state: MembershipState,
    *,
    group_id: str | None,
    group_instance_id: str | None,
    member_id: str,
    generation_id: int,
    owned: Iterable[TopicPartition],
    in_group: bool = False,
) -> Membership:
    """The :class:`Membership` value; ``owned`` and ``in_group`` count only while the member is
    in a generation."""
    holds = state in (MembershipState.STABLE, MembershipState.REBALANCING)
    return Membership(
        state, group_id, group_instance_id, member_id, generation_id,
        frozenset((t, p) for t, p in owned) if holds else frozenset(), in_group and holds,
    )  # fmt: skip
