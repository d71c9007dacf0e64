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
"""

from __future__ import annotations

import logging
from collections.abc import Collection

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
)
from ..protocol import ErrorCode, decode_assignment, error_name, truncate_reason
from . import _reasons as why
from ._io import (
    Action,
    Assign,
    AssignmentComputed,
    AssignmentFailed,
    Backoff,
    ComputeAssignment,
    CoordinatorFound,
    FindCoordinator,
    HeartbeatAnswered,
    Input,
    JoinGroupAnswered,
    JoinRequested,
    LeaveGroupAnswered,
    MemberState,
    RaiseError,
    RebalanceProtocol,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
    Unsubscribed,
)
from ._log import MemberLog
from ._reactions import Api, Reaction, reaction
from ._state import NO_GENERATION, REVOKED_LOST, UNKNOWN_MEMBER_ID, MemberCore

log = logging.getLogger(__name__)


class ClassicMember(MemberCore):
    """One member of a classic consumer group (module docstring). Not thread-safe; no I/O."""

    @property
    def _log(self) -> MemberLog:
        return self.identity.logger(log)

    # -- the clock: what to do now --------------------------------------------------------------

    def poll(self, now: float, topics: Collection[str], idle_s: float = 0.0) -> list[Action]:
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
        max_poll_s = self.config.max_poll_interval_ms / 1000
        if self.join_due:
            if self._idle_reset and idle_s >= max_poll_s:
                return [Backoff()]  # the application is not polling: do not join for it
            self._idle_reset = False
            return self._begin_join(topics)
        if idle_s >= max_poll_s:
            return self._poll_timeout()
        return self._heartbeat_if_due(now)

    def _heartbeat_if_due(self, now: float) -> list[Action]:
        interval = self.config.heartbeat_interval_ms / 1000
        if self._last_heartbeat_ok is None:
            self._last_heartbeat_ok = now
        if self._next_heartbeat is None:
            self._next_heartbeat = now + interval
        if now - self._last_heartbeat_ok > self.config.session_timeout_ms / 1000:
            self._log.warning("no heartbeat answered within session_timeout_ms: finding the "
                              "coordinator")  # fmt: skip
            self._last_heartbeat_ok = now
            return self._coordinator_dead()
        if now < self._next_heartbeat:
            return []
        self._next_heartbeat = now + interval
        return [SendHeartbeat(self.generation_id, self.member_id)]

    def _poll_timeout(self) -> list[Action]:
        """Java's ``maybeLeaveGroup("consumer poll timeout has expired.")``: a dynamic member
        leaves; a static member sends nothing (KIP-345) but drops its generation, and both
        re-join only once the application polls again."""
        self._log.warning("no poll within max_poll_interval_ms=%s: giving up the membership",
                          self.config.max_poll_interval_ms)  # fmt: skip
        # Lost at once, before the leave: the coordinator gives them to another member, so the
        # application must get none of their records (aiokafka prepares the join here too;
        # Java's next poll() runs onPartitionsLost before it returns a record).
        actions: list[Action] = []
        if self.owned:
            actions += self._revoke(self.owned, lost=True, reason=REVOKED_LOST)
        if not self.is_static:
            self._leaving = why.LEAVE_REASON_POLL_TIMEOUT
            actions.append(SendLeaveGroup(self.member_id, why.LEAVE_REASON_POLL_TIMEOUT))
        actions += self._reset(api=None)
        self._idle_reset = True
        return actions

    # -- the join -----------------------------------------------------------------------------

    def _begin_join(self, topics: Collection[str]) -> list[Action]:
        """Revoke what the protocol revokes before JoinGroup, then join. The subscription reports
        what the member held *before* an eager revocation (so sticky assignors stay sticky, as
        Java's keep their last assignment in the user data), and what it still holds under the
        cooperative protocol."""
        actions: list[Action] = []
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
        self._log.info("(Re-)joining group (reason: %s)", reason)
        actions.append(self._emit(JoinGroupReason, reason=truncate_reason(reason) or reason))
        reported = self.owned if self.rebalance_protocol is RebalanceProtocol.COOPERATIVE else (
            held_before
        )  # fmt: skip
        actions.append(SendJoinGroup(self.member_id, self.generation_id, reported, reason))
        return actions

    def _on_join(self, answer: JoinGroupAnswered) -> list[Action]:
        if reaction(Api.JOIN_GROUP, answer.error_code) is Reaction.JOIN_WITH_MEMBER_ID:
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

    def _sync(self, assignments: tuple[tuple[str, bytes], ...]) -> list[Action]:
        self.state = MemberState.SYNCING
        assert self.protocol is not None
        return [SendSyncGroup(self.generation_id, self.member_id, self.protocol, assignments)]

    def _on_sync(self, answer: SyncGroupAnswered) -> list[Action]:
        if answer.error_code != ErrorCode.NONE:
            return self._on_error(Api.SYNC_GROUP, answer.error_code)
        try:
            assigned = tuple(sorted(decode_assignment(answer.assignment).topic_partitions))
        except ProtocolError as exc:
            self.state = MemberState.UNJOINED
            return [RaiseError(Api.SYNC_GROUP, ErrorCode.NONE, f"undecodable assignment: {exc}")]
        self.state = MemberState.STABLE
        self._join_prepared = False
        self._next_heartbeat = None
        self._last_heartbeat_ok = None
        actions: list[Action] = [
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
        if self._enforced:
            # enforce_rebalance() was called during this rebalance, which may have planned
            # without what made the caller enforce: one more join, with its reason (issue 29).
            self._request_join(None)
        self.owned = assigned
        actions.append(self._emit(PartitionsAssigned, partitions=list(assigned)))
        actions.append(Assign(assigned, added))
        return actions

    # -- inputs -------------------------------------------------------------------------------

    def handle(self, event: Input) -> list[Action]:
        """Feed one input; returns the actions it calls for (module docstring)."""
        if isinstance(event, LeaveGroupAnswered):
            return self._on_leave(event.error_code)
        if isinstance(event, Unsubscribed):
            return self._on_unsubscribed()
        if self.terminal:
            return []
        if isinstance(event, CoordinatorFound):
            self.coordinator = event.node_id
            return []
        if isinstance(event, RequestFailed):
            return self._on_no_answer(event.api)
        if isinstance(event, JoinRequested):
            return self._on_join_requested(event)
        if isinstance(event, JoinGroupAnswered) and self.state is MemberState.JOINING:
            return self._on_join(event)
        if isinstance(event, AssignmentComputed) and self.state is MemberState.ASSIGNING:
            return self._sync(event.assignments)
        if isinstance(event, AssignmentFailed) and self.state is MemberState.ASSIGNING:
            self.state = MemberState.UNJOINED
            self._join_reason = why.JOIN_REASON_REJOIN_AFTER_ERROR
            return [Backoff()]
        if isinstance(event, SyncGroupAnswered) and self.state is MemberState.SYNCING:
            return self._on_sync(event)
        if isinstance(event, HeartbeatAnswered) and self.state is MemberState.STABLE:
            return self._on_heartbeat(event)
        self._log.debug("ignoring %r in state %s", event, self.state.value)
        return []

    def _on_join_requested(self, event: JoinRequested) -> list[Action]:
        actions: list[Action] = []
        if event.enforced:
            actions.append(self._emit(EnforceRebalanceRequested, reason=event.reason))
            if event.reason not in self._enforced:
                self._enforced.append(event.reason)
        else:
            self._join_reason = event.reason
        self._request_join(None)
        return actions

    def _on_heartbeat(self, answer: HeartbeatAnswered) -> list[Action]:
        if answer.error_code in (ErrorCode.NONE, ErrorCode.REBALANCE_IN_PROGRESS):
            # Heartbeating on during a rebalance keeps the session alive (Java does the same).
            self._last_heartbeat_ok = answer.now
        if answer.error_code == ErrorCode.NONE:
            return []
        return self._on_error(Api.HEARTBEAT, answer.error_code)

    def _on_leave(self, code: int) -> list[Action]:
        """A LeaveGroup answer: the LeaveGroup column says OK or IGNORE (logged, nothing else)."""
        reason, self._leaving = self._leaving, None
        what = reaction(Api.LEAVE_GROUP, code)
        if reason is None or what is not Reaction.OK:
            if what is not Reaction.OK:
                self._log.warning("LeaveGroup answered %s -> %s", error_name(code), what.value)
            return []
        self._log.info("Left group (reason: %s)", reason)
        return [self._emit(GroupLeft, reason=truncate_reason(reason) or reason)]

    def _on_unsubscribed(self) -> list[Action]:
        """The application unsubscribed (aiokafka's ``unsubscribe()``; its fetcher dropped the
        partitions already): a dynamic member in a generation leaves, as aiokafka's does, so
        that its partitions go to the others at once and a manual assignment's commits are not
        refused; a static member stays (KIP-345). Both forget the generation."""
        actions: list[Action] = []
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

    def leave_prepare(self) -> list[Action]:
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
        lost = (self._lost or self._lost or self.generation_id == NO_GENERATION
                or self.state is not MemberState.STABLE)  # fmt: skip
        return self._revoke(self.owned, lost=lost, reason=REVOKED_CLOSE)

    def close(self, leave_reason: str | None) -> list[Action]:
        """Stop. A static member stays in the group (KIP-345) unless ``leave_reason`` is given;
        a dynamic member in a generation leaves; a fenced member sends nothing."""
        if self.terminal:
            return []
        actions: list[Action] = []
        if self.owned:
            actions.append(self._emit(PartitionsRevoked, partitions=list(self.owned),
                                      reason=REVOKED_CLOSE))  # fmt: skip
        if self.generation_id > 0 and (not self.is_static or leave_reason):
            reason = leave_reason or why.LEAVE_REASON_PREFIX
            self._leaving = reason
            actions.append(SendLeaveGroup(self.member_id, reason))
        self.state = MemberState.CLOSED
        return actions
