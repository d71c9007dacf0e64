"""The member of a KIP-848 consumer group (``group.protocol=consumer``), without I/O.

There is no JoinGroup/SyncGroup barrier: the member sends ConsumerGroupHeartbeat, the
coordinator answers with its member epoch and, when it changed, its whole target assignment; the
member reconciles (revoke what it no longer has, then hand over what it gained) and says what it
owns in its next heartbeat, which the coordinator takes as the acknowledgement.

States::

    UNSUBSCRIBED --poll with topics--> JOINING (epoch 0, every field sent)
    JOINING/STABLE --answer with an assignment--> RECONCILING: Revoke(gone), Assign(target)
    RECONCILING --next poll--> ACKNOWLEDGING (heartbeat carrying what it owns now)
    ACKNOWLEDGING --answer without a new assignment--> STABLE (heartbeat every interval)
    any --FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID--> partitions lost, JOINING at epoch 0
    any --FENCED_INSTANCE_ID (and what CONSUMER_TABLE marks fatal)--> FATAL (sticks)
    STABLE --no poll for max_poll_interval_ms--> POLL_EXPIRED (left as on close, below; joins
             again at epoch 0 once the application polls)
    close(): static member -> epoch -2 (keeps its assignment until the session times out),
             dynamic member or an explicit leave -> epoch -1

Partitions are ``(topic, partition)`` by name here, as in the classic engine: the coordinator
names topics by id (KIP-516), and the driver maps ids to names in answers and names to ids in
requests. UNRELEASED_INSTANCE_ID (a restarted static member whose previous process did not
leave) is retried with a backoff and a log line; once it lasted ``unreleased_wait_ms`` it is
raised to the application once, and retried still. With ``takeover`` the member instead asks the
driver once per refusal streak to remove the stale holder of its instance id (:class:`TakeOver`).

What every answer means is ``_reactions.CONSUMER_TABLE`` (its ConsumerGroupHeartbeat,
OffsetCommit and OffsetFetch columns). Commits carry the member epoch (OffsetCommit v9+).

Everything that affects the machine lives in this file (h11's rule), so its one class is over
the 300-line guide: one state machine, not a base class and a subclass.

Sources: Apache Kafka's ``ConsumerMembershipManager`` / ``AbstractMembershipManager``,
``AbstractHeartbeatRequestManager`` and ``CommitRequestManager`` (member side) and
``GroupMetadataManager`` (coordinator side), checked against Apache Kafka 4.3.1 and 4.4.0.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from ..events import (
    REVOKED_CLOSE,
    REVOKED_REBALANCE,
    GroupJoined,
    GroupLeft,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from ..options import ConsumerOptions, MembershipOperation
from ..protocol import (
    JOIN_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    ErrorCode,
    error_name,
    truncate_reason,
)
from . import _epoch
from . import _reasons as why
from ._engine import EngineConfig
from ._io import (
    REVOKED_LOST,
    Assign,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    CommonAction,
    ConsumerGroupAction,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupHeartbeatFailed,
    ConsumerGroupInput,
    CoordinatorFound,
    Emit,
    FindCoordinator,
    Partitions,
    RaiseError,
    RebalanceMetric,
    RecordRebalance,
    Revoke,
    SendConsumerGroupHeartbeat,
    TakeOver,
    TopicPartition,
    Unsubscribed,
)
from ._log import LogIdentity, MemberLog
from ._reactions import Api, GroupProtocol, Reaction, reaction
from ._status import MembershipState, refine

log = logging.getLogger(__name__)

_API = Api.CONSUMER_GROUP_HEARTBEAT


#: Which table every lookup here reads (``_reactions.CONSUMER_TABLE``).
_CONSUMER = GroupProtocol.CONSUMER


class ConsumerGroupState(enum.Enum):
    UNSUBSCRIBED = "unsubscribed"
    JOINING = "joining"
    RECONCILING = "reconciling"
    ACKNOWLEDGING = "acknowledging"
    STABLE = "stable"
    POLL_EXPIRED = "poll_expired"
    FATAL = "fatal"
    CLOSED = "closed"


#: The states in which the member holds its epoch's assignment (a streams member's too).
HOLDING_STATES = frozenset(
    {ConsumerGroupState.STABLE, ConsumerGroupState.RECONCILING, ConsumerGroupState.ACKNOWLEDGING}
)


@dataclass(frozen=True)
class ConsumerGroupConfig(EngineConfig):
    """The consumer-protocol engine's config: the consumer's options value, read by name where
    it is used (each option's default, Java key and KIP: its row of
    ``staticconsumer.options.OPTIONS``), and the member id the client made (KIP-1082), kept for
    the process's lifetime."""

    member_id: str

    @classmethod
    def of(cls, options: ConsumerOptions, member_id: str) -> ConsumerGroupConfig:
        """The engine's config (the options' group id is set)."""
        return cls(options, member_id)


class ConsumerGroupMember:
    """The member's state machine, its commits and committed offsets included (module
    docstring)."""

    def __init__(self, config: ConsumerGroupConfig) -> None:
        self.config = config
        #: The consumer's options, read by name where each is used.
        self.options = config.options
        #: Who this member is in its log lines (``_log``); the driver's parts log as it too.
        self.identity = LogIdentity(config.group_id, config.group_instance_id,
                                    config.options.client_id,
                                    lambda: self.member_id)  # fmt: skip
        self.state = ConsumerGroupState.UNSUBSCRIBED
        self.member_epoch = JOIN_GROUP_MEMBER_EPOCH
        self.owned: Partitions = ()
        #: Partitions revoked from ``owned`` whose revocation the coordinator has not been told
        #: of yet (the acknowledging heartbeat): still this member's to commit (pending
        #: revocation), as on close until the leaving heartbeat.
        self._revoking: Partitions = ()
        self.coordinator: int | None = None
        #: The exception that finished this member, set by the driver after :class:`BecomeFatal`.
        self.fatal_error: BaseException | None = None
        self._next_heartbeat: float | None = None
        self._in_flight = False
        self._owned_unsent = False
        self._sent_topics: tuple[str, ...] | None = None
        self._unreleased_since: float | None = None
        self._took_over = False
        self._leaving: str | None = None  # reason of the leaving heartbeat in flight
        self._leave_emits = False  # it leaves for good (epoch -1): GroupLeft once answered
        #: The member has held an assignment (possibly empty) since it last joined at epoch 0:
        #: reconciling a new one keeps it a member; FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID or a
        #: poll timeout (a join from scratch next) do not. Readiness reads it
        #: (``_status.Membership.ready``).
        self.in_group = False
        #: The engine's verdict on its fatal reaction: fenced (:attr:`Reaction.FENCED`), not
        #: failed. Sticks with the FATAL state; False until then.
        self.fenced = False

    @property
    def _log(self) -> MemberLog:
        return self.identity.logger(log)

    @property
    def member_id(self) -> str:
        return str(self.config.member_id)

    @property
    def terminal(self) -> bool:
        return self.state in (ConsumerGroupState.FATAL, ConsumerGroupState.CLOSED)

    # -- commits and committed offsets ----------------------------------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None:
        """``_epoch.commit_identity``: the member epoch while it holds its assignment."""
        return _epoch.commit_identity(self, auto_assigned)

    def commit_not_held(self, partitions: Iterable[TopicPartition]) -> Partitions:
        """Of ``partitions``, those this member does not hold at its epoch: neither owned nor
        being revoked (the coordinator keeps a partition pending revocation the member's until
        the heartbeat that acknowledges the revocation). At the member's current epoch the
        coordinator takes a commit whole, whatever it names (KIP-1251 checks partitions only for
        an older epoch), so the member leaves these out itself (KAFKA-19779: a correct client
        never sends them): a commit sent again after STALE_MEMBER_EPOCH must not write the
        offsets of a partition that moved to another member meanwhile."""
        return _epoch.not_held(partitions, self.owned, self._revoking)

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, Sequence[CommonAction]]:
        """``_epoch.on_commit_answer`` over this protocol's OffsetCommit column."""
        return _epoch.on_commit_answer(self, code, _CONSUMER)

    def commit_no_answer(self) -> tuple[CommitOutcome, Sequence[CommonAction]]:
        return self.on_commit_answer(ErrorCode.COORDINATOR_NOT_AVAILABLE)

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
        """``_epoch.on_offset_fetch_answer`` over this protocol's OffsetFetch column."""
        return _epoch.on_offset_fetch_answer(self, codes, _CONSUMER)

    def offset_fetch_identity(self) -> tuple[str | None, int]:
        return _epoch.offset_fetch_identity(self)

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
        return self.on_offset_fetch_answer([ErrorCode.COORDINATOR_NOT_AVAILABLE])

    @property
    def generation_id(self) -> int:
        """The member epoch: the consumer protocol's generation (``docs/membership-events.md``)."""
        return self.member_epoch

    @property
    def is_static(self) -> bool:
        return self.config.group_instance_id is not None

    # -- what ``_epoch`` reads and writes --------------------------------------------------------

    @property
    def member_log(self) -> MemberLog:
        return self._log

    @property
    def holding(self) -> bool:
        """It holds its epoch's assignment (stable, reconciling or acknowledging)."""
        return self.state in HOLDING_STATES

    @property
    def fatal_verdict(self) -> bool:
        return self.state is ConsumerGroupState.FATAL

    def become_fatal(self, api: Api, code: int, what: Reaction) -> BecomeFatal:
        """The member is finished (a FATAL or FENCED reaction): the state sticks, and the engine
        says whether it was fenced."""
        self.state = ConsumerGroupState.FATAL
        self.fenced = what is Reaction.FENCED
        return BecomeFatal(api, code, fenced=self.fenced)

    # -- the clock ------------------------------------------------------------------------------

    def poll(
        self, now: float, topics: Iterable[str], idle_s: float = 0.0
    ) -> list[ConsumerGroupAction]:
        """What to do now: find the coordinator, join, acknowledge, heartbeat when due, or
        leave after ``max_poll_interval_ms`` without a poll by the application."""
        subscribed = tuple(sorted(topics))
        if self.terminal or self._in_flight or not subscribed:
            return []
        if idle_s * 1000 >= self.options.max_poll_interval_ms and self.member_epoch > 0:
            return self._poll_expired()
        if self.state is ConsumerGroupState.POLL_EXPIRED:
            if idle_s * 1000 >= self.options.max_poll_interval_ms:
                return []
            self.state = ConsumerGroupState.UNSUBSCRIBED
        if self.coordinator is None:
            return [FindCoordinator()]
        if self.state is ConsumerGroupState.UNSUBSCRIBED:
            self.state = ConsumerGroupState.JOINING
        joining = self.state is ConsumerGroupState.JOINING and self.member_epoch == 0
        acknowledging = self.state is ConsumerGroupState.RECONCILING
        changed = subscribed != self._sent_topics
        due = self._next_heartbeat is None or now >= self._next_heartbeat
        if not (joining or acknowledging or changed or due):
            return []
        actions: list[ConsumerGroupAction] = []
        if acknowledging:
            # The driver polls again only once it performed the reconciliation's actions: the
            # application holds the assignment now (the rebalance listener returned), and the
            # heartbeat that acknowledges it ends the rebalance (Java's metrics).
            self.state = ConsumerGroupState.ACKNOWLEDGING
            self.in_group = True
            actions.append(RecordRebalance(RebalanceMetric.ENDED))
        self._in_flight = True
        owned = self.owned if (joining or self._owned_unsent) else None
        if owned is not None:
            self._revoking = ()  # the coordinator hears they are released
        self._owned_unsent = False
        self._sent_topics = subscribed
        actions.append(SendConsumerGroupHeartbeat(self.member_epoch, joining,
                                                  subscribed if (joining or changed) else None,
                                                  owned))  # fmt: skip
        return actions

    def next_wakeup(self, now: float) -> float | None:
        """Seconds until :meth:`poll` has a heartbeat to send, or None."""
        if self._next_heartbeat is None or self.terminal:
            return None
        return max(0.0, self._next_heartbeat - now)

    def _poll_expired(self) -> list[ConsumerGroupAction]:
        """The application stopped polling: leave as a stopping member does (Java: -2 for a
        static member, which keeps its partitions until the session times out; -1 otherwise),
        partitions lost (nothing committed for them); join again when the application polls."""
        self._log.warning(
            "no poll for max_poll_interval_ms (%d ms): leaving the group (%s); the "
            "member joins again when the application polls", self.options.max_poll_interval_ms,
            "static: its partitions wait for it until the session times out" if self.is_static
            else "dynamic: its partitions go to the other members",
        )  # fmt: skip
        actions: list[ConsumerGroupAction] = [*self._lose()]
        self.in_group = False
        epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH if self.is_static else LEAVE_GROUP_MEMBER_EPOCH
        self._leaving = why.LEAVE_REASON_POLL_TIMEOUT
        self._leave_emits = not self.is_static
        self.member_epoch = JOIN_GROUP_MEMBER_EPOCH
        self.state = ConsumerGroupState.POLL_EXPIRED
        self._in_flight = True
        self._next_heartbeat = None
        self._sent_topics = None
        actions.append(SendConsumerGroupHeartbeat(epoch, False, None, None))
        return actions

    # -- answers -----------------------------------------------------------------------------

    def handle(self, event: ConsumerGroupInput) -> list[ConsumerGroupAction]:
        """Feed one input (the coordinator found, the heartbeat's answer or its failure);
        returns the actions it calls for."""
        match event:
            case CoordinatorFound():
                self.coordinator = event.node_id
                return []
            case Unsubscribed():
                # The member goes on heartbeating its old subscription until it subscribes again
                # or stops (a leave here would race the heartbeat in flight): nothing to do now.
                return []
            case ConsumerGroupHeartbeatFailed():
                return self._no_answer(event.now)
            case ConsumerGroupHeartbeatAnswered():
                what = reaction(_API, event.error_code, protocol=_CONSUMER)
                return [*self._rebalance_metrics(event, what), *self._on_answer(event, what)]
            case _:
                assert_never(event)

    def _rebalance_metrics(
        self, answer: ConsumerGroupHeartbeatAnswered, what: Reaction
    ) -> list[ConsumerGroupAction]:
        """What an answer means to the rebalance metrics (Java's ``ConsumerRebalanceMetrics
        Manager``): an assignment other than the one held starts a rebalance (the member starts
        reconciling); a fence or a lost epoch fails the one in progress (Java: fenced or
        fatal). The acknowledging heartbeat ends it (:meth:`poll`)."""
        if answer.assignment is not None and set(answer.assignment) != set(self.owned):
            return [RecordRebalance(RebalanceMetric.STARTED)]
        if what.fatal or what is Reaction.RESET:
            return [RecordRebalance(RebalanceMetric.FAILED)]
        return []

    def _on_answer(
        self, answer: ConsumerGroupHeartbeatAnswered, what: Reaction
    ) -> list[ConsumerGroupAction]:
        """The coordinator's answer to the heartbeat in flight (``what``: its reaction)."""
        self._in_flight = False
        if self._leaving is not None:
            return self._left(answer.error_code)
        if self.terminal or self.state is ConsumerGroupState.POLL_EXPIRED:
            return []
        if what is not Reaction.OK:
            return self._on_error(answer.error_code, what, answer.now)
        self._unreleased_since = None
        self._took_over = False
        actions: list[ConsumerGroupAction] = []
        if answer.member_epoch != self.member_epoch:
            self.member_epoch = answer.member_epoch
            assignor = self.options.group_remote_assignor or ""
            actions.append(self._emit(GroupJoined, leader=False, protocol=assignor))
        self._next_heartbeat = answer.now + answer.heartbeat_interval_ms / 1000
        if answer.assignment is None:
            if self.state is not ConsumerGroupState.RECONCILING:
                self.state = ConsumerGroupState.STABLE
                self.in_group = True
            return actions
        return actions + self._reconcile(tuple(sorted(answer.assignment)))

    def _no_answer(self, now: float) -> list[ConsumerGroupAction]:
        """The heartbeat in flight got no answer: the coordinator is presumed dead."""
        self._in_flight = False
        if self._leaving is not None:
            return self._left(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if self.terminal or self.state is ConsumerGroupState.POLL_EXPIRED:
            return []
        return self._on_error(ErrorCode.COORDINATOR_NOT_AVAILABLE, Reaction.FIND_COORDINATOR, now)

    def _reconcile(self, target: Partitions) -> list[ConsumerGroupAction]:
        """Revoke before assign (KIP-848), then acknowledge at the next poll."""
        gone = tuple(tp for tp in self.owned if tp not in target)
        added = tuple(tp for tp in target if tp not in self.owned)
        actions: list[ConsumerGroupAction] = []
        if gone:
            actions += [self._emit(PartitionsRevoked, partitions=list(gone),
                                   reason=REVOKED_REBALANCE),
                        Revoke(gone, lost=False, reason=REVOKED_REBALANCE)]  # fmt: skip
        if gone or added or self.state is ConsumerGroupState.JOINING:
            actions += [self._emit(PartitionsAssigned, partitions=list(target)),
                        Assign(target, added)]  # fmt: skip
        self._revoking = tuple(sorted({*self._revoking, *gone}))
        self.owned = target
        self._owned_unsent = True
        self.state = ConsumerGroupState.RECONCILING
        return actions

    def _on_error(self, code: int, what: Reaction, now: float) -> list[ConsumerGroupAction]:
        self._log.warning("ConsumerGroupHeartbeat failed: %s -> %s", error_name(code),
                          what.value)  # fmt: skip
        if what.fatal:
            return [self.become_fatal(_API, code, what)]
        if what is Reaction.FIND_COORDINATOR:
            self.coordinator = None
            self._sent_topics = None  # a new coordinator hears the whole subscription
            return [Backoff(), FindCoordinator()]
        if what is Reaction.RESET:
            actions: list[ConsumerGroupAction] = [self._emit(SessionExpired, api=_API.value),
                                                  *self._lose()]  # fmt: skip
            self.member_epoch = JOIN_GROUP_MEMBER_EPOCH
            self.state = ConsumerGroupState.JOINING
            self.in_group = False
            self._sent_topics = None
            return actions
        if code == ErrorCode.UNRELEASED_INSTANCE_ID:
            return self._unreleased(now)
        if what is Reaction.RETRY:
            return [Backoff()]
        return [RaiseError(_API, code, topics=self._sent_topics or ()), Backoff()]

    def _lose(self) -> list[ConsumerGroupAction]:
        lost, self.owned, self._revoking = self.owned, (), ()
        if not lost:
            return []
        return [self._emit(PartitionsRevoked, partitions=list(lost), reason=REVOKED_LOST),
                Revoke(lost, lost=True, reason=REVOKED_LOST)]  # fmt: skip

    def _unreleased(self, now: float) -> list[ConsumerGroupAction]:
        if self._unreleased_since is None:
            self._unreleased_since = now
            self._log.warning(
                "instance id %s is still held by its previous member (it did not leave: "
                "a crash?); %s", self.config.group_instance_id,
                "removing that member (takeover=True)" if self.options.instance_takeover else
                "asking again until the coordinator releases it, at the latest when that "
                "member's session times out (takeover=True removes it at once)",
            )  # fmt: skip
        if self.options.instance_takeover and not self._took_over:
            assert self.config.group_instance_id is not None
            self._took_over = True
            return [TakeOver(self.config.group_instance_id)]
        if (now - self._unreleased_since) * 1000 >= self.options.unreleased_instance_wait_ms:
            self._unreleased_since = now
            return [RaiseError(_API, ErrorCode.UNRELEASED_INSTANCE_ID), Backoff()]
        return [Backoff()]

    def fatal(self, error: BaseException) -> None:
        """Record the exception that finished the member (after :class:`BecomeFatal`)."""
        self.state = ConsumerGroupState.FATAL
        if self.fatal_error is None:
            self.fatal_error = error

    def membership_state(self, *, subscribed: bool, handing_over: bool) -> MembershipState:
        """This engine's state as the application sees it (:func:`consumer_group_state`),
        ``fenced`` or ``failed`` as the engine decided; ``subscribed`` and ``handing_over`` are
        the driver's to say."""
        return consumer_group_state(self.state, subscribed=subscribed,
                                    handing_over=handing_over, fenced=self.fenced)  # fmt: skip

    # -- the end ------------------------------------------------------------------------------

    def leave_prepare(self) -> list[ConsumerGroupAction]:
        """Before the member stops (Java's ``ConsumerMembershipManager`` releases its assignment
        the same way when it leaves): the owned partitions go back to the application, revoked
        (committed first) while the member holds an epoch, lost otherwise and for a fenced
        member (nothing committed for them)."""
        if not self.owned or self.state is ConsumerGroupState.CLOSED:
            return []
        if self.terminal:  # fenced or failed: no event (the fence was the event), no commit
            held, self.owned = self.owned, ()
            return [Revoke(held, lost=True, reason=REVOKED_LOST)]
        if self.member_epoch <= 0:
            return self._lose()
        gone, self.owned = self.owned, ()
        self._revoking = tuple(sorted({*self._revoking, *gone}))  # committed on their way out
        return [self._emit(PartitionsRevoked, partitions=list(gone), reason=REVOKED_CLOSE),
                Revoke(gone, lost=False, reason=REVOKED_CLOSE)]  # fmt: skip

    def close(
        self, membership: MembershipOperation, reason: str | None = None
    ) -> list[ConsumerGroupAction]:
        """The heartbeat that leaves, as ``membership`` says (KIP-1092): epoch -1 for a member
        that leaves (by default a dynamic one), -2 for a static member that stays (it keeps its
        assignment until its session times out); a dynamic member that stays sends nothing
        (the coordinator removes it when its session times out)."""
        if self.terminal:
            return []
        was_member = self.member_epoch > 0 and self.coordinator is not None
        actions: list[ConsumerGroupAction] = []
        if self.owned:
            actions.append(self._emit(PartitionsRevoked, partitions=list(self.owned),
                                      reason=REVOKED_CLOSE))  # fmt: skip
        self.state = ConsumerGroupState.CLOSED
        if not was_member:
            return actions
        leaves = membership.leaves(static=self.is_static)
        # REMAIN_IN_GROUP, dynamic: nothing is sent, so the member stays for its session, as
        # KIP-1092 says. Java 4.4.0 sends epoch -2 here (measured; the coordinator then drops a
        # dynamic member at once): docs/static-consumer.md says so.
        if not (leaves or self.is_static):
            self._log.info("Stopped in the group without leaving (remain_in_group): the "
                           "coordinator removes member %s when its session times out",
                           self.member_id)  # fmt: skip
            return actions
        epoch = LEAVE_GROUP_MEMBER_EPOCH if leaves else LEAVE_GROUP_STATIC_MEMBER_EPOCH
        self._leaving = reason or why.LEAVE_REASON_PREFIX
        self._leave_emits = epoch == LEAVE_GROUP_MEMBER_EPOCH
        self._in_flight = True
        actions.append(SendConsumerGroupHeartbeat(epoch, False, None, None))
        return actions

    def _left(self, code: int) -> list[ConsumerGroupAction]:
        reason, self._leaving = self._leaving, None
        if code != ErrorCode.NONE:
            self._log.warning("the leaving ConsumerGroupHeartbeat answered %s", error_name(code))
            return []
        if not self._leave_emits:  # a static member stopped for now: it is still a member
            self._log.info("Stopped in the group; the coordinator keeps the assignment of "
                           "instance id %s until its session times out",
                           self.config.group_instance_id)  # fmt: skip
            return []
        self._log.info("Left group (reason: %s)", reason)
        return [self._emit(GroupLeft, reason=truncate_reason(reason) or reason)]

    def _emit(self, kind: type, **fields: object) -> Emit:
        return Emit(kind, self.member_id, self.member_epoch, dict(fields))


#: The engine's states as the application sees them (``membership._status``).
CONSUMER_GROUP_STATES: dict[ConsumerGroupState, MembershipState] = {
    ConsumerGroupState.UNSUBSCRIBED: MembershipState.JOINING,
    ConsumerGroupState.JOINING: MembershipState.JOINING,
    ConsumerGroupState.RECONCILING: MembershipState.REBALANCING,
    ConsumerGroupState.ACKNOWLEDGING: MembershipState.REBALANCING,
    ConsumerGroupState.STABLE: MembershipState.STABLE,
    ConsumerGroupState.POLL_EXPIRED: MembershipState.JOINING,
    ConsumerGroupState.FATAL: MembershipState.FAILED,
    ConsumerGroupState.CLOSED: MembershipState.STOPPED,
}


def consumer_group_state(
    state: ConsumerGroupState, *, subscribed: bool, handing_over: bool, fenced: bool = False
) -> MembershipState:
    """:data:`CONSUMER_GROUP_STATES`, refined as every engine's are (``_status.refine``)."""
    return refine(CONSUMER_GROUP_STATES[state], subscribed=subscribed,
                  handing_over=handing_over, fenced=fenced)  # fmt: skip
