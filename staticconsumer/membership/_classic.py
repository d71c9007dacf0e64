"""A classic-protocol group member (JoinGroup / SyncGroup / Heartbeat) as a sans-IO state machine.

:class:`ClassicMember` takes plain inputs (:mod:`._io`: parsed responses, "no answer", the
application's requests, the clock) and returns the actions the driver must perform. It never
touches a socket, a future or aiokafka; it is driven by ``staticconsumer.drivers.classic``.

States (:class:`MemberState`)::

    UNJOINED --poll--> JOINING --answer--> ASSIGNING (leader) --plan--> SYNCING --answer--> STABLE
       ^                  |                                                |                  |
       +------------------+---------- error reaction (``_reactions.TABLE``) +------------------+
    any --fatal code--> FATAL (sticks: nothing is sent again)      any --close()--> CLOSED

Eager vs cooperative (KIP-429) differs in two places only: *before* JoinGroup the eager member
revokes everything it owns, the cooperative one nothing (except partitions of topics it no longer
subscribes to); *after* SyncGroup the eager member is handed its whole assignment, the cooperative
one revokes ``owned - assigned``, is handed ``assigned - owned``, and re-joins at once if it
revoked anything. A member whose generation is gone (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION)
loses its partitions under both protocols, and nothing is committed for lost partitions.
After every SyncGroup, under both, the member's assignor hears of its own assignment (the
partitions and the user data its leader planned for it, :class:`~._io.DeliverAssignment`)
before the application does (Java's ``ConsumerPartitionAssignor.onAssignment``).

Everything that affects the machine lives in this file (h11's rule): its state, its reactions
to each error code (read from ``_reactions``), its commits and what their answers mean. It is
one state machine, so it is one class (over the 300-line guide for that reason), not a base
class and a subclass; pure functions over plain data live beside it (``_offset_fetch``,
``_plan``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from assignors import MemberAssignment

from ..errors import ProtocolError
from ..events import (
    REVOKED_CLOSE,
    REVOKED_REBALANCE,
    EnforceRebalanceRequested,
    GroupJoined,
    GroupLeft,
    JoinGroupReason,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from ..options import ConsumerOptions, MembershipOperation
from ..protocol import (
    NO_GENERATION,
    UNKNOWN_MEMBER_ID,
    ErrorCode,
    decode_assignment,
    error_name,
    truncate_reason,
)
from . import _reasons as why
from ._engine import EngineConfig
from ._io import (
    REVOKED_LOST,
    Assign,
    AssignmentComputed,
    AssignmentFailed,
    Backoff,
    BecomeFatal,
    ClassicAction,
    ClassicInput,
    CommitOutcome,
    CommonAction,
    ComputeAssignment,
    CoordinatorFound,
    DeliverAssignment,
    Emit,
    FindCoordinator,
    HeartbeatAnswered,
    JoinGroupAnswered,
    JoinRequested,
    LeaveGroupAnswered,
    MemberState,
    Partitions,
    RaiseError,
    RebalanceMetric,
    RebalanceProtocol,
    RecordRebalance,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
    TopicPartition,
    Unsubscribed,
)
from ._log import LogIdentity, MemberLog
from ._offset_fetch import offset_fetch_verdict
from ._reactions import Api, GroupProtocol, Reaction, reaction
from ._status import MembershipState, classic_state

log = logging.getLogger(__name__)

#: Which table every lookup here reads (``_reactions.CLASSIC_TABLE``).
_CLASSIC = GroupProtocol.CLASSIC


@dataclass(frozen=True)
class MemberConfig(EngineConfig):
    """The classic engine's config: the consumer's options value, read by name where it is used
    (each option's default, Java key and KIP: its row of ``staticconsumer.options.OPTIONS``),
    and what is decided from it."""

    #: As Java chooses it: the most advanced protocol every configured assignor supports, so a
    #: member offering ["cooperative-sticky", "range"] stays eager (the first bounce of an
    #: eager -> cooperative upgrade) and one offering ["cooperative-sticky"] is cooperative.
    rebalance_protocol: RebalanceProtocol

    @classmethod
    def of(cls, options: ConsumerOptions) -> MemberConfig:
        """The engine's config, from the consumer's options value (its group id is set)."""
        strategies = options.partition_assignment_strategy
        cooperative = bool(strategies) and all(
            "cooperative" in a.supported_protocols for a in strategies)  # fmt: skip
        return cls(
            options, RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER
        )


class ClassicMember:
    """One member of a classic consumer group (module docstring). Not thread-safe; no I/O."""

    def __init__(self, config: MemberConfig) -> None:
        self.config = config
        #: The consumer's options, read by name where each is used.
        self.options = config.options
        #: Who this member is in its log lines (``_log``); the driver's parts log as it too.
        self.identity = LogIdentity(config.group_id, config.group_instance_id,
                                    config.options.client_id,
                                    lambda: self.member_id)  # fmt: skip
        self.state = MemberState.UNJOINED
        self.member_id = UNKNOWN_MEMBER_ID
        self.generation_id = NO_GENERATION
        self.protocol: str | None = None
        self.is_leader = False
        self.coordinator: int | None = None
        #: Partitions handed to the application and not revoked since.
        self.owned: Partitions = ()
        self._lost = False  # owned partitions belong to a generation that is gone
        self._join_reason = why.JOIN_REASON_INITIAL
        self._enforced: list[str] = []
        self._rejoin = False  # STABLE, but a join is due
        #: The reason of a join asked for while a JoinGroup was on the wire or its plan made:
        #: the member joins again once that rebalance completes (Java's rejoinNeededOrPending
        #: compares the joined subscription and the planned metadata after each rebalance).
        self._rejoin_after: str | None = None
        self._next_heartbeat: float | None = None
        self._last_heartbeat_ok: float | None = None
        self._idle_reset = False  # reset for max_poll_interval_ms: join once the app polls again
        self._leaving: str | None = None  # reason of the LeaveGroup in flight
        self._join_unsent = False  # JOINING, but the JoinGroup is not on the wire yet
        self._join_prepared = False  # the listener heard of this rebalance (until it completes)
        #: The member has held an assignment (possibly empty) since it last joined from scratch:
        #: a rebalance keeps it a member of the group; losing the generation (:meth:`_reset`)
        #: does not. Readiness reads it (``_status.Membership.ready``).
        self.in_group = False
        #: The exception that finished this member, set by the driver after :class:`BecomeFatal`.
        self.fatal_error: BaseException | None = None
        #: The engine's verdict on its fatal reaction: fenced (:attr:`Reaction.FENCED`), not
        #: failed. Sticks with the FATAL state.
        self.fenced = False

    # -- queries -----------------------------------------------------------------------------

    @property
    def rebalance_protocol(self) -> RebalanceProtocol:
        return self.config.rebalance_protocol

    @property
    def is_static(self) -> bool:
        return self.config.group_instance_id is not None

    @property
    def terminal(self) -> bool:
        return self.state in (MemberState.FATAL, MemberState.CLOSED)

    @property
    def join_due(self) -> bool:
        return self.state is MemberState.UNJOINED or (
            self.state is MemberState.STABLE and self._rejoin
        )

    def membership_state(self, *, subscribed: bool, handing_over: bool) -> MembershipState:
        """This engine's state as the application sees it (:func:`~._status.classic_state`),
        ``fenced`` or ``failed`` as the engine decided; ``subscribed`` and ``handing_over`` are
        the driver's to say."""
        return classic_state(self.state, self.generation_id, subscribed=subscribed,
                             handing_over=handing_over, fenced=self.fenced)  # fmt: skip

    def next_wakeup(self, now: float) -> float | None:
        """Seconds until :meth:`poll` has something to do (a heartbeat), or None."""
        if self.state is not MemberState.STABLE or self._next_heartbeat is None:
            return None
        return max(0.0, self._next_heartbeat - now)

    def _request_join(self, reason: str | None) -> None:
        if reason is not None:
            self._join_reason = reason
        if self.state is MemberState.STABLE:
            self._rejoin = True
        elif reason is not None and (
            self.state in (MemberState.ASSIGNING, MemberState.SYNCING)
            or (self.state is MemberState.JOINING and not self._join_unsent)
        ):
            self._rejoin_after = reason

    def _on_no_answer(self, api: Api) -> Sequence[CommonAction]:
        """No answer: as if the coordinator answered COORDINATOR_NOT_AVAILABLE. (A LeaveGroup
        without an answer, sent when a dynamic member gives up for max_poll_interval_ms, is
        raised to the application once, as it always was, though its column says IGNORE for an
        answer: see ``_on_error``.)"""
        self._log.warning("%s got no answer", api.value)
        return self._on_error(api, ErrorCode.COORDINATOR_NOT_AVAILABLE)

    # -- errors: _reactions.TABLE decides ---------------------------------------------------------

    def _on_error(self, api: Api, code: int) -> Sequence[CommonAction]:
        what = reaction(api, code, protocol=_CLASSIC)
        self._log.warning("%s failed: %s -> %s", api.value, error_name(code), what.value)
        in_join = api in (Api.JOIN_GROUP, Api.SYNC_GROUP) and self.state in (
            MemberState.JOINING,
            MemberState.ASSIGNING,
            MemberState.SYNCING,
        )
        if what.fatal:
            self.state = MemberState.FATAL
            self.fenced = what is Reaction.FENCED
            return [BecomeFatal(api, code, fenced=self.fenced)]
        if in_join:
            self.state = MemberState.UNJOINED
            self._join_reason = why.JOIN_REASON_REJOIN_AFTER_ERROR
        if what is Reaction.FIND_COORDINATOR:
            return self._coordinator_dead()
        if what is Reaction.RETRY:
            return [Backoff()]
        if what is Reaction.REJOIN:
            self._request_join(why.JOIN_REASON_GROUP_REBALANCING)
            return []
        if what is Reaction.RESET:
            return self._reset(api)
        return [RaiseError(api, code), Backoff()]  # RAISE; IGNORE only from _on_no_answer

    def _coordinator_dead(self) -> Sequence[CommonAction]:
        """Forget the coordinator; look it up again after a backoff (Java and aiokafka back off
        too: a coordinator still loading answers NOT_COORDINATOR at once, again and again)."""
        self.coordinator = None
        return [Backoff(), FindCoordinator()]

    def _reset(self, api: Api | None) -> Sequence[CommonAction]:
        """The generation is gone: forget member id and generation; owned partitions are lost."""
        actions: list[CommonAction] = []
        if api is not None and self.member_id != UNKNOWN_MEMBER_ID:
            actions.append(self._emit(SessionExpired, api=api.value))
        self.member_id = UNKNOWN_MEMBER_ID
        self.generation_id = NO_GENERATION
        self.is_leader = False
        self.in_group = False
        self._lost = bool(self.owned)
        self._join_reason = why.JOIN_REASON_REJOIN_AFTER_ERROR
        self.state = MemberState.UNJOINED
        return actions

    # -- commits ------------------------------------------------------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None:
        """Generation and member id an OffsetCommit carries now; None while the member is not
        in a stable generation (as Java: a commit during a rebalance fails at once, and the
        member's partitions are committed on revoke instead). Commit-on-revoke before a
        JoinGroup still counts as stable: the generation is valid until the JoinGroup is sent.
        Partitions assigned by the application (``assign()``) commit outside any generation."""
        if not auto_assigned:
            return NO_GENERATION, UNKNOWN_MEMBER_ID
        if self.state is MemberState.STABLE or self._join_unsent:
            return self.generation_id, self.member_id
        return None

    def commit_not_held(self, partitions: Iterable[TopicPartition]) -> Partitions:
        """None: the coordinator checks a classic commit's generation, not its partitions."""
        return ()

    def join_sent(self) -> None:
        """The driver put the JoinGroup on the wire: commits wait for the next generation."""
        self._join_unsent = False

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, Sequence[CommonAction]]:
        """An OffsetCommit answer (first failed partition's code, or NONE): whether the commit
        is done, worth retrying, or failed; plus what it means for the membership. An answer
        about a generation the member has left already (``generation_sent``) changes nothing
        but the commit's outcome (Java's check before resetting the generation)."""
        if self.terminal:
            return CommitOutcome.FAILED, []
        what = reaction(Api.OFFSET_COMMIT, code, protocol=_CLASSIC)
        stale = generation_sent is not None and generation_sent != self.generation_id
        if stale and what in (Reaction.REJOIN, Reaction.RESET):
            return CommitOutcome.FAILED, []
        if what is Reaction.OK:
            return CommitOutcome.DONE, []
        if what is Reaction.RETRY:
            return CommitOutcome.RETRY, [Backoff()]
        if what is Reaction.FIND_COORDINATOR:
            return CommitOutcome.RETRY, self._coordinator_dead()
        if what is Reaction.RAISE:
            return CommitOutcome.FAILED, []
        return CommitOutcome.FAILED, self._on_error(Api.OFFSET_COMMIT, code)

    def commit_no_answer(self) -> tuple[CommitOutcome, Sequence[CommonAction]]:
        return CommitOutcome.RETRY, self._on_no_answer(Api.OFFSET_COMMIT)

    # -- committed offsets --------------------------------------------------------------------

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
        """An OffsetFetch answer's error codes (the group's, then each partition's): DONE when
        every offset in it can be used; RETRY when any code says "ask again" (the answer is then
        not used at all: a partition without a usable row must never start from
        ``auto_offset_reset``); FAILED with the code to raise otherwise. The outcome names the
        request, not a commit (:class:`CommitOutcome` serves both)."""
        if self.terminal:
            return CommitOutcome.FAILED, ErrorCode.NONE, []
        outcome, code, find_coordinator = offset_fetch_verdict(codes, self._log, protocol=_CLASSIC)
        if find_coordinator:
            return outcome, code, self._coordinator_dead()
        return outcome, code, [Backoff()] if outcome is CommitOutcome.RETRY else []

    def offset_fetch_identity(self) -> tuple[str | None, int]:
        """Member id and epoch an OffsetFetch carries: none for a classic member (as Java)."""
        return None, NO_GENERATION

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
        return CommitOutcome.RETRY, ErrorCode.NONE, self._on_no_answer(Api.OFFSET_FETCH)

    def _revoke(self, partitions: Partitions, *, lost: bool, reason: str) -> Sequence[CommonAction]:
        self.owned = tuple(tp for tp in self.owned if tp not in partitions)
        return [
            self._emit(PartitionsRevoked, partitions=list(partitions), reason=reason),
            Revoke(partitions, lost=lost, reason=REVOKED_LOST if lost else reason),
        ]

    def fatal(self, error: BaseException) -> None:
        """Record the exception that finished the member (after :class:`BecomeFatal`)."""
        self.state = MemberState.FATAL
        if self.fatal_error is None:
            self.fatal_error = error

    def _emit(self, kind: type, **fields: object) -> Emit:
        return Emit(kind, self.member_id, self.generation_id, dict(fields))

    @property
    def _log(self) -> MemberLog:
        return self.identity.logger(log)

    # -- the clock: what to do now --------------------------------------------------------------

    def poll(
        self, now: float, topics: Collection[str], idle_s: float = 0.0
    ) -> Sequence[ClassicAction]:
        """The next step when no request is in flight: find the coordinator, join, heartbeat,
        or give up the membership after ``max_poll_interval_ms`` without a poll."""
        if self.terminal or self.state in (
            MemberState.JOINING, MemberState.ASSIGNING, MemberState.SYNCING
        ):  # fmt: skip
            return []
        if self.state is MemberState.STABLE:
            # The driver polls again only once it performed the SyncGroup answer's actions: the
            # application holds the assignment now (the rebalance listener returned).
            self.in_group = True
        if self.coordinator is None:
            return [FindCoordinator()]
        max_poll_s = self.options.max_poll_interval_ms / 1000
        if self.join_due:
            if self._idle_reset and idle_s >= max_poll_s:
                return [Backoff()]  # the application is not polling: do not join for it
            self._idle_reset = False
            return self._begin_join(topics)
        if idle_s >= max_poll_s:
            return self._poll_timeout()
        return self._heartbeat_if_due(now)

    def _heartbeat_if_due(self, now: float) -> Sequence[ClassicAction]:
        interval = self.options.heartbeat_interval_ms / 1000
        if self._last_heartbeat_ok is None:
            self._last_heartbeat_ok = now
        if self._next_heartbeat is None:
            self._next_heartbeat = now + interval
        if now - self._last_heartbeat_ok > self.options.session_timeout_ms / 1000:
            self._log.warning("no heartbeat answered within session_timeout_ms: finding the "
                              "coordinator")  # fmt: skip
            self._last_heartbeat_ok = now
            return self._coordinator_dead()
        if now < self._next_heartbeat:
            return []
        self._next_heartbeat = now + interval
        return [SendHeartbeat(self.generation_id, self.member_id)]

    def _poll_timeout(self) -> Sequence[ClassicAction]:
        """Java's ``maybeLeaveGroup("consumer poll timeout has expired.")``: a dynamic member
        leaves; a static member sends nothing (KIP-345) but drops its generation, and both
        re-join only once the application polls again."""
        self._log.warning("no poll within max_poll_interval_ms=%s: giving up the membership",
                          self.options.max_poll_interval_ms)  # fmt: skip
        # Lost at once, before the leave: the coordinator gives them to another member, so the
        # application must get none of their records (aiokafka prepares the join here too;
        # Java's next poll() runs onPartitionsLost before it returns a record).
        actions: list[ClassicAction] = []
        if self.owned:
            actions += self._revoke(self.owned, lost=True, reason=REVOKED_LOST)
        if not self.is_static:
            self._leaving = why.LEAVE_REASON_POLL_TIMEOUT
            actions.append(SendLeaveGroup(self.member_id, why.LEAVE_REASON_POLL_TIMEOUT))
        actions += self._reset(api=None)
        self._idle_reset = True
        return actions

    # -- the join -----------------------------------------------------------------------------

    def _begin_join(self, topics: Collection[str]) -> Sequence[ClassicAction]:
        """Revoke what the protocol revokes before JoinGroup, then join. The subscription reports
        what the member held *before* an eager revocation (so sticky assignors stay sticky, as
        Java's keep their last assignment in the user data), and what it still holds under the
        cooperative protocol."""
        actions: list[ClassicAction] = []
        held_before = self.owned
        if self.owned:
            if self._lost or self.rebalance_protocol is RebalanceProtocol.EAGER:
                actions += self._revoke(self.owned, lost=self._lost, reason=REVOKED_REBALANCE)
            else:  # cooperative: keep what is still subscribed
                gone = tuple(tp for tp in self.owned if tp[0] not in topics)
                if gone:
                    actions += self._revoke(gone, lost=False, reason=REVOKED_REBALANCE)
        elif self.rebalance_protocol is RebalanceProtocol.EAGER and not self._join_prepared:
            # Eager: the listener hears of every rebalance before it joins, the first included,
            # with what it gives up (here nothing), once however often the join is retried:
            # aiokafka's and Java's eager contract. A cooperative listener hears only of
            # non-empty revocations (KIP-429).
            actions.append(Revoke((), lost=False, reason=REVOKED_REBALANCE))
        self._join_prepared = True
        self._lost = False
        reason = self._join_reason
        if self._enforced:
            reason = why.enforced_join_reason(self._enforced)
            self._enforced.clear()
        self.state = MemberState.JOINING
        self._join_unsent = True
        self._rejoin = False
        self._rejoin_after = None  # this JoinGroup is built after what asked for it
        self._log.info("(Re-)joining group (reason: %s)", reason)
        actions.append(self._emit(JoinGroupReason, reason=truncate_reason(reason) or reason))
        reported = self.owned if self.rebalance_protocol is RebalanceProtocol.COOPERATIVE else (
            held_before
        )  # fmt: skip
        actions.append(SendJoinGroup(self.member_id, self.generation_id, reported, reason))
        return actions

    def _on_join(self, answer: JoinGroupAnswered) -> Sequence[ClassicAction]:
        what = reaction(Api.JOIN_GROUP, answer.error_code, protocol=_CLASSIC)
        if what is Reaction.JOIN_WITH_MEMBER_ID:
            self.member_id = answer.member_id
            self._join_reason = why.JOIN_REASON_MEMBER_ID_REQUIRED
            self.state = MemberState.UNJOINED
            return []  # poll() joins again at once, with the member id
        if answer.error_code != ErrorCode.NONE:
            return self._on_error(Api.JOIN_GROUP, answer.error_code)
        self.member_id = answer.member_id
        self.generation_id = answer.generation_id
        self.protocol = answer.protocol_name or ""
        self.is_leader = answer.leader == answer.member_id
        self._join_reason = why.JOIN_REASON_GROUP_REBALANCING
        self._log.info("Joined group (generation %s) as member %s%s", self.generation_id,
                       self.member_id, " (leader)" if self.is_leader else "")  # fmt: skip
        if self.is_leader:
            self.state = MemberState.ASSIGNING
            return [ComputeAssignment(self.protocol, answer.members, answer.skip_assignment)]
        return self._sync(())

    def _sync(self, assignments: tuple[tuple[str, bytes], ...]) -> Sequence[ClassicAction]:
        self.state = MemberState.SYNCING
        assert self.protocol is not None
        return [SendSyncGroup(self.generation_id, self.member_id, self.protocol, assignments)]

    def _on_sync(self, answer: SyncGroupAnswered) -> Sequence[ClassicAction]:
        if answer.error_code != ErrorCode.NONE:
            return self._on_error(Api.SYNC_GROUP, answer.error_code)
        try:
            received = decode_assignment(answer.assignment)
        except ProtocolError as exc:
            self.state = MemberState.UNJOINED
            return [RaiseError(Api.SYNC_GROUP, ErrorCode.NONE, f"undecodable assignment: {exc}")]
        assigned = tuple(sorted(received.topic_partitions))
        self.state = MemberState.STABLE
        self._join_prepared = False
        self._next_heartbeat = None
        self._last_heartbeat_ok = None
        actions: list[ClassicAction] = [
            self._emit(GroupJoined, leader=self.is_leader, protocol=self.protocol or "")
        ]
        if self.rebalance_protocol is RebalanceProtocol.COOPERATIVE:
            revoked = tuple(tp for tp in self.owned if tp not in assigned)
            added = tuple(tp for tp in assigned if tp not in self.owned)
            if revoked:
                actions += self._revoke(revoked, lost=False, reason=REVOKED_REBALANCE)
                self._request_join(why.JOIN_REASON_COOPERATIVE_REVOKED)
        else:
            added = assigned
        if self._enforced or self._rejoin_after is not None:
            # enforce_rebalance() (issue 29), a subscription or a metadata change came during
            # this rebalance, which may have planned without it: one more join, with its reason.
            self._request_join(self._rejoin_after)
        self.owned = assigned
        # Java's onJoinComplete: the assignor hears of its assignment after the revocations and
        # before the listener hears of the partitions.
        listed = received.topic_partitions  # as the leader listed them (faust compares them)
        mine = MemberAssignment(listed, received.user_data or b"", received.version)
        actions.append(DeliverAssignment(self.protocol or "", self.generation_id, mine))
        actions.append(self._emit(PartitionsAssigned, partitions=list(assigned)))
        actions.append(Assign(assigned, added))
        return actions

    # -- inputs -------------------------------------------------------------------------------

    def handle(self, event: ClassicInput) -> Sequence[ClassicAction]:
        """Feed one input; returns the actions it calls for (module docstring). Every input has
        its case (``mypy --strict`` proves it: ``assert_never``); an answer that arrives in
        another state than the one that asked for it is ignored, and a terminal member takes
        only the answer to its LeaveGroup and the application's unsubscribe."""
        if self.terminal and not isinstance(event, LeaveGroupAnswered | Unsubscribed):
            return []
        match event:
            case LeaveGroupAnswered():
                return self._on_leave(event.error_code)
            case Unsubscribed():
                return self._on_unsubscribed()
            case CoordinatorFound():
                self.coordinator = event.node_id
                return []
            case RequestFailed():
                return self._on_no_answer(event.api)
            case JoinRequested():
                return self._on_join_requested(event)
            case JoinGroupAnswered():
                if self.state is MemberState.JOINING:
                    return self._on_join(event)
            case AssignmentComputed():
                if self.state is MemberState.ASSIGNING:
                    return self._sync(event.assignments)
            case AssignmentFailed():
                if self.state is MemberState.ASSIGNING:
                    # The leader's assignor raised (the sender tells the application): the
                    # rebalance failed (Java's failed-rebalance metrics); the member joins again.
                    self.state = MemberState.UNJOINED
                    self._join_reason = why.JOIN_REASON_REJOIN_AFTER_ERROR
                    return [RecordRebalance(RebalanceMetric.FAILED), Backoff()]
            case SyncGroupAnswered():
                if self.state is MemberState.SYNCING:
                    return self._on_sync(event)
            case HeartbeatAnswered():
                if self.state is MemberState.STABLE:
                    return self._on_heartbeat(event)
            case _:
                assert_never(event)
        self._log.debug("ignoring %r in state %s", event, self.state.value)
        return []

    def _on_join_requested(self, event: JoinRequested) -> Sequence[ClassicAction]:
        actions: list[ClassicAction] = []
        if event.enforced:
            actions.append(self._emit(EnforceRebalanceRequested, reason=event.reason))
            if event.reason not in self._enforced:
                self._enforced.append(event.reason)
            self._request_join(None)
        else:
            self._request_join(event.reason)
        return actions

    def _on_heartbeat(self, answer: HeartbeatAnswered) -> Sequence[ClassicAction]:
        if answer.error_code in (ErrorCode.NONE, ErrorCode.REBALANCE_IN_PROGRESS):
            # Heartbeating on during a rebalance keeps the session alive (Java does the same).
            self._last_heartbeat_ok = answer.now
        if answer.error_code == ErrorCode.NONE:
            return []
        return self._on_error(Api.HEARTBEAT, answer.error_code)

    def _on_leave(self, code: int) -> Sequence[ClassicAction]:
        """A LeaveGroup answer: the LeaveGroup column says OK or IGNORE (logged, nothing else)."""
        reason, self._leaving = self._leaving, None
        what = reaction(Api.LEAVE_GROUP, code, protocol=_CLASSIC)
        if reason is None or what is not Reaction.OK:
            if what is not Reaction.OK:
                self._log.warning("LeaveGroup answered %s -> %s", error_name(code), what.value)
            return []
        self._log.info("Left group (reason: %s)", reason)
        return [self._emit(GroupLeft, reason=truncate_reason(reason) or reason)]

    def _on_unsubscribed(self) -> Sequence[ClassicAction]:
        """The application unsubscribed (aiokafka's ``unsubscribe()``; its fetcher dropped the
        partitions already): a dynamic member in a generation leaves, as aiokafka's does, so
        that its partitions go to the others at once and a manual assignment's commits are not
        refused; a static member stays (KIP-345). Both forget the generation."""
        actions: list[ClassicAction] = []
        self.owned = ()
        if not self.is_static and self.generation_id > 0 and self.member_id:
            self._leaving = why.LEAVE_REASON_UNSUBSCRIBED
            actions.append(SendLeaveGroup(self.member_id, why.LEAVE_REASON_UNSUBSCRIBED))
            self.member_id = UNKNOWN_MEMBER_ID
        self.generation_id = NO_GENERATION
        self.is_leader = False
        self.in_group = False
        self._lost = False
        self._join_reason = why.JOIN_REASON_SUBSCRIPTION_CHANGED
        if not self.terminal:
            self.state = MemberState.UNJOINED
        return actions

    # -- the end ------------------------------------------------------------------------------

    def leave_prepare(self) -> Sequence[ClassicAction]:
        """Java's ``onLeavePrepare`` when the consumer closes (``AbstractCoordinator.close``,
        static members included): the owned partitions go back to the application before the
        member stops. Revoked (committed first, as every revocation) while its generation is
        valid and no rebalance is under way; lost otherwise, and for a fenced member (nothing
        committed for them; no event either: the fence was the member's last)."""
        if not self.owned or self.state is MemberState.CLOSED:
            return []
        if self.terminal:  # fenced or failed: no event (the fence was the event), no commit
            held, self.owned = self.owned, ()
            return [Revoke(held, lost=True, reason=REVOKED_LOST)]
        lost = (self._lost or self.generation_id == NO_GENERATION
                or self.state is not MemberState.STABLE)  # fmt: skip
        return self._revoke(self.owned, lost=lost, reason=REVOKED_CLOSE)

    def close(
        self, membership: MembershipOperation, reason: str | None = None
    ) -> Sequence[ClassicAction]:
        """Stop. A member in a generation leaves when ``membership`` says so (KIP-1092: by
        default a static member stays, KIP-345, and a dynamic one leaves), with ``reason`` (or
        the default close reason, KIP-800); a fenced member sends nothing."""
        if self.terminal:
            return []
        actions: list[ClassicAction] = []
        if self.owned:
            actions.append(self._emit(PartitionsRevoked, partitions=list(self.owned),
                                      reason=REVOKED_CLOSE))  # fmt: skip
        if self.generation_id > 0 and membership.leaves(static=self.is_static):
            self._leaving = reason or why.LEAVE_REASON_PREFIX
            actions.append(SendLeaveGroup(self.member_id, self._leaving))
        self.state = MemberState.CLOSED
        return actions
