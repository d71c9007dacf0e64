"""The member of a KIP-1071 streams group (``group_protocol="streams"``), without I/O: one
stream thread of a Streams-like application.

As the KIP-848 member (``_consumer_group``), it joins, acknowledges and leaves with heartbeats
(StreamsGroupHeartbeat), and the coordinator assigns. What it is assigned are *tasks*
``(subtopology, partition)`` of the topology it declared when it joined, in three lists: active
tasks (it processes partition p of the subtopology's source and repartition-source topics),
standby tasks (it keeps the subtopology's changelog partition p up to date) and warm-up tasks
(standbys the broker intends to make active once they caught up). The broker holds the topology,
creates the internal topics and runs its sticky task assignor (``_streams_tasks``).

States (those of :class:`~._consumer_group.ConsumerGroupState`)::

    UNSUBSCRIBED --poll--> JOINING (epoch 0: topology, process id, endpoint, tags)
    JOINING/STABLE --answer with task lists--> RECONCILING: Revoke(partitions of the active tasks
        gone; committed first), Assign(partitions of the active tasks), DeliverTasks(all three)
    RECONCILING --next poll--> ACKNOWLEDGING (heartbeat carrying the three lists it owns now)
    ACKNOWLEDGING --answer without task lists--> STABLE (heartbeat every interval; task offsets
        every TaskOffsetIntervalMs with the next heartbeat)
    any --FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID / GROUP_ID_NOT_FOUND--> tasks lost, JOINING
    any --FENCED_INSTANCE_ID (and what STREAMS_TABLE marks fatal)--> FATAL (sticks)
    STABLE --no poll for max_poll_interval_ms--> POLL_EXPIRED (left as on close; joins again at
             epoch 0 once the application polls)
    close(): static member (Kafka 4.4, KAFKA-20169) -> epoch -2: the coordinator keeps its tasks
             until the session times out; dynamic member or an explicit leave -> epoch -1

Each status the coordinator reports is logged once when it appears, with what the application
does (``_streams_tasks.STATUSES``); SHUTDOWN_APPLICATION sets :attr:`StreamsGroupMember.shutdown_
requested`, which the application reads to stop. A restarted static thread whose previous
process did not leave is refused (UNRELEASED_INSTANCE_ID) until that member's session ends: the
member retries with a backoff, raises it once it lasted ``unreleased_wait_ms``, and retries
still. There is no takeover: a streams group takes no LeaveGroup.

What every answer means is ``_reactions.STREAMS_TABLE``. Commits carry the member epoch
(OffsetCommit v9+), as the KIP-848 member's.

One state machine in one file (h11's rule). Sources: Java's ``StreamsMembershipManager`` and
``StreamsGroupHeartbeatRequestManager`` (member side), ``GroupMetadataManager`` (coordinator
side), checked against Apache Kafka 4.4.0.
"""

from __future__ import annotations

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
from ..options import MembershipOperation
from ..protocol import (
    JOIN_STREAMS_GROUP_EPOCH,
    LEAVE_STREAMS_GROUP_EPOCH,
    LEAVE_STREAMS_GROUP_STATIC_EPOCH,
    Endpoint,
    ErrorCode,
    StreamsGroupStatus,
    StreamsTopology,
    TaskIds,
    error_name,
    truncate_reason,
)
from . import _epoch
from . import _reasons as why
from ._consumer_group import HOLDING_STATES, ConsumerGroupState, consumer_group_state
from ._engine import EngineConfig
from ._io import (
    REVOKED_LOST,
    Assign,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    CommonAction,
    CoordinatorFound,
    DeliverTasks,
    Emit,
    FindCoordinator,
    Partitions,
    RaiseError,
    RebalanceMetric,
    RecordRebalance,
    Revoke,
    SendStreamsGroupHeartbeat,
    StreamsGroupAction,
    StreamsGroupHeartbeatAnswered,
    StreamsGroupHeartbeatFailed,
    StreamsGroupInput,
    TopicPartition,
    Unsubscribed,
)
from ._log import LogIdentity, MemberLog
from ._reactions import Api, GroupProtocol, Reaction, reaction
from ._status import MembershipState
from ._streams_tasks import (
    STATUSES,
    TaskSet,
    status_line,
    task_change,
    task_partitions,
    tasks_of,
)

log = logging.getLogger(__name__)

_API = Api.STREAMS_GROUP_HEARTBEAT
#: Which table every lookup here reads (``_reactions.STREAMS_TABLE``).
_STREAMS = GroupProtocol.STREAMS
_S = ConsumerGroupState
#: A join refused with UNRELEASED_INSTANCE_ID is sent again this much later (Java's
#: retry.backoff.max.ms): the refusal lasts until the previous holder's session ends (45 s).
UNRELEASED_RETRY_S = 1.0
#: What a join refused with GROUP_ID_NOT_FOUND says (``docs/streams-groups.md``, moving a group).
_NOT_A_STREAMS_GROUP = (
    "group {!r} exists as a group of another kind and is not a streams group (KIP-1071): an "
    "empty classic group is converted when a stream thread joins it, a consumer group "
    "(KIP-848) is not; stop every member, let one classic member join and leave it (the empty "
    "group becomes classic, its committed offsets kept), or delete the group, or use another "
    "group id (docs/streams-groups.md)"
)
#: What UnreleasedInstanceIdError says a streams member can do.
_UNRELEASED_WAY = (
    "the broker's streams.session.timeout.ms, 45 s by default; a streams group has no "
    "takeover: stop the previous process, or wait"
)


@dataclass(frozen=True)
class StreamsGroupConfig(EngineConfig):
    """The streams engine's config: the consumer's options value (each option's row of
    ``staticconsumer.options.OPTIONS``), the member id the client made (kept for the process's
    lifetime), the topology the application declares, and the process id its threads share
    (kept in the state directory: a changed one bumps the group epoch)."""

    member_id: str
    topology: StreamsTopology
    process_id: str
    user_endpoint: Endpoint | None = None
    client_tags: tuple[tuple[str, str], ...] = ()


class StreamsGroupMember:
    """The stream thread's state machine, its commits and committed offsets included (module
    docstring)."""

    def __init__(self, config: StreamsGroupConfig) -> None:
        self.config = config
        self.options = config.options
        self.identity = LogIdentity(config.group_id, config.group_instance_id,
                                    config.options.client_id,
                                    lambda: self.member_id)  # fmt: skip
        self.state = _S.UNSUBSCRIBED
        self.member_epoch = JOIN_STREAMS_GROUP_EPOCH
        #: The tasks the member owns (all three lists) and the partitions of its active ones.
        self.tasks = TaskSet()
        self.owned: Partitions = ()
        self.coordinator: int | None = None
        self.fatal_error: BaseException | None = None
        #: The statuses the coordinator reported last, ``{code: detail}``.
        self.statuses: dict[int, str] = {}
        #: A member of the group asked the whole application to stop (SHUTDOWN_APPLICATION).
        self.shutdown_requested = False
        #: This thread asked it (:meth:`request_application_shutdown`): every later heartbeat
        #: says so, as Java's Kafka Streams does.
        self.asked_shutdown = False
        self.in_group = False
        self.fenced = False
        self._next_heartbeat: float | None = None
        self._offsets_interval_s: float | None = None
        self._next_offsets: float | None = None
        self._in_flight = False
        self._tasks_unsent = False
        self._revoking: Partitions = ()  # revoked, not yet acknowledged: still committed for
        self._unreleased_since: float | None = None
        self._leaving: str | None = None
        self._leave_emits = False

    @property
    def _log(self) -> MemberLog:
        return self.identity.logger(log)

    @property
    def member_id(self) -> str:
        return str(self.config.member_id)

    @property
    def generation_id(self) -> int:
        """The member epoch (the streams protocol's generation)."""
        return self.member_epoch

    @property
    def terminal(self) -> bool:
        return self.state in (_S.FATAL, _S.CLOSED)

    @property
    def is_static(self) -> bool:
        return self.config.group_instance_id is not None

    # -- commits and committed offsets ----------------------------------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None:
        """``_epoch.commit_identity``: the member epoch while it holds its assignment."""
        return _epoch.commit_identity(self, auto_assigned)

    def commit_not_held(self, partitions: Iterable[TopicPartition]) -> Partitions:
        """Of ``partitions``, those this thread does not hold at its epoch: neither its active
        tasks' nor being revoked (until the heartbeat acknowledging the revocation). As for a
        consumer-protocol member (``_consumer_group``): the streams coordinator takes a commit
        at the current epoch whole and checks tasks only at an older one, so a commit sent again
        after STALE_MEMBER_EPOCH must leave out what moved to another thread meanwhile."""
        return _epoch.not_held(partitions, self.owned, self._revoking)

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, Sequence[CommonAction]]:
        """``_epoch.on_commit_answer`` over this protocol's OffsetCommit column."""
        return _epoch.on_commit_answer(self, code, _STREAMS)

    def commit_no_answer(self) -> tuple[CommitOutcome, Sequence[CommonAction]]:
        return self.on_commit_answer(ErrorCode.COORDINATOR_NOT_AVAILABLE)

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
        """``_epoch.on_offset_fetch_answer`` over this protocol's OffsetFetch column."""
        return _epoch.on_offset_fetch_answer(self, codes, _STREAMS)

    def offset_fetch_identity(self) -> tuple[str | None, int]:
        return _epoch.offset_fetch_identity(self)

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
        return self.on_offset_fetch_answer([ErrorCode.COORDINATOR_NOT_AVAILABLE])

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
        return self.state is _S.FATAL

    def become_fatal(self, api: Api, code: int, what: Reaction) -> BecomeFatal:
        """The member is finished (a FATAL or FENCED reaction): the state sticks, and the engine
        says whether it was fenced."""
        self.state = _S.FATAL
        self.fenced = what is Reaction.FENCED
        return BecomeFatal(api, code, fenced=self.fenced)

    # -- the clock ------------------------------------------------------------------------------

    def poll(
        self, now: float, topics: Iterable[str], idle_s: float = 0.0
    ) -> list[StreamsGroupAction]:
        """What to do now: find the coordinator, join, acknowledge, heartbeat when due (with the
        task offsets when their interval elapsed), or leave after ``max_poll_interval_ms``
        without a poll. ``topics``: the subscription (the topology's source topics); the member
        joins once there is one."""
        if self.terminal or self._in_flight or not tuple(topics):
            return []
        if idle_s * 1000 >= self.options.max_poll_interval_ms and self.member_epoch > 0:
            return self._poll_expired()
        if self.state is _S.POLL_EXPIRED:
            if idle_s * 1000 >= self.options.max_poll_interval_ms:
                return []
            self.state = _S.UNSUBSCRIBED
        if self.coordinator is None:
            return [FindCoordinator()]
        if self.state is _S.UNSUBSCRIBED:
            self.state = _S.JOINING
        joining = self.state is _S.JOINING and self.member_epoch == JOIN_STREAMS_GROUP_EPOCH
        if joining and not self._due(now):  # a refused join asks again a second later
            return []
        acknowledging = self.state is _S.RECONCILING
        if not (joining or acknowledging or self._due(now)):
            return []
        actions: list[StreamsGroupAction] = []
        if acknowledging:
            self.state = _S.ACKNOWLEDGING
            self.in_group = True
            actions.append(RecordRebalance(RebalanceMetric.ENDED))
        report = not joining and self._next_offsets is not None and now >= self._next_offsets
        if report and self._offsets_interval_s is not None:
            self._next_offsets = now + self._offsets_interval_s
        owned = self.tasks if (self._tasks_unsent and not joining) else None
        if owned is not None or joining:
            self._revoking = ()  # the coordinator hears they are released
        self._tasks_unsent = False
        self._in_flight = True
        epoch, shutdown = self.member_epoch, self.asked_shutdown
        actions.append(SendStreamsGroupHeartbeat(epoch, joining, owned, report, shutdown))
        return actions

    def request_application_shutdown(self, reason: str) -> None:
        """Ask every thread of the application to stop (the heartbeat's ShutdownApplication,
        KIP-1071; Java: ``SHUTDOWN_APPLICATION`` from a StreamsUncaughtExceptionHandler): the
        coordinator answers every member, this one too, with SHUTDOWN_APPLICATION. Sent with the
        next heartbeat, at once."""
        if self.asked_shutdown or self.terminal:
            return
        self.asked_shutdown = True
        self._next_heartbeat = None
        self._log.warning("asking every thread of the application to shut down (%s)", reason)

    def _due(self, now: float) -> bool:
        return self._next_heartbeat is None or now >= self._next_heartbeat

    def next_wakeup(self, now: float) -> float | None:
        """Seconds until :meth:`poll` has a heartbeat to send, or None."""
        if self._next_heartbeat is None or self.terminal:
            return None
        return max(0.0, self._next_heartbeat - now)

    def _poll_expired(self) -> list[StreamsGroupAction]:
        """The application stopped polling: leave as a stopping thread does (-2 static, -1
        dynamic), its tasks lost (nothing committed for them); join again when it polls."""
        self._log.warning(
            "no poll for max_poll_interval_ms (%d ms): leaving the streams group; the thread "
            "joins again when the application polls", self.options.max_poll_interval_ms,
        )  # fmt: skip
        actions: list[StreamsGroupAction] = [*self._lose()]
        self.in_group = False
        epoch = LEAVE_STREAMS_GROUP_STATIC_EPOCH if self.is_static else LEAVE_STREAMS_GROUP_EPOCH
        self._leaving = why.LEAVE_REASON_POLL_TIMEOUT
        self._leave_emits = not self.is_static
        self.member_epoch = JOIN_STREAMS_GROUP_EPOCH
        self.state = _S.POLL_EXPIRED
        self._in_flight = True
        self._next_heartbeat = None
        actions.append(SendStreamsGroupHeartbeat(epoch, False, None))
        return actions

    # -- answers -----------------------------------------------------------------------------

    def handle(self, event: StreamsGroupInput) -> list[StreamsGroupAction]:
        """Feed one input; returns the actions it calls for."""
        match event:
            case CoordinatorFound():
                self.coordinator = event.node_id
                return []
            case Unsubscribed():
                return []
            case StreamsGroupHeartbeatFailed():
                return self._no_answer(event.now)
            case StreamsGroupHeartbeatAnswered():
                what = reaction(_API, event.error_code, protocol=_STREAMS)
                return [*self._rebalance_metrics(event, what), *self._on_answer(event, what)]
            case _:
                assert_never(event)

    def _rebalance_metrics(
        self, answer: StreamsGroupHeartbeatAnswered, what: Reaction
    ) -> list[StreamsGroupAction]:
        """New active tasks start a rebalance; a fence or a lost epoch fails the one going on."""
        if answer.tasks is not None and answer.tasks.active != self.tasks.active:
            return [RecordRebalance(RebalanceMetric.STARTED)]
        if what.fatal or what is Reaction.RESET:
            return [RecordRebalance(RebalanceMetric.FAILED)]
        return []

    def _on_answer(
        self, answer: StreamsGroupHeartbeatAnswered, what: Reaction
    ) -> list[StreamsGroupAction]:
        self._in_flight = False
        if self._leaving is not None:
            return self._left(answer.error_code)
        if self.terminal or self.state is _S.POLL_EXPIRED:
            return []
        if what is not Reaction.OK:
            return self._on_error(answer.error_code, what, answer.now)
        self._unreleased_since = None
        actions: list[StreamsGroupAction] = []
        if answer.member_epoch != self.member_epoch:
            self.member_epoch = answer.member_epoch
            actions.append(self._emit(GroupJoined, leader=False, protocol="streams"))
        self._next_heartbeat = answer.now + answer.heartbeat_interval_ms / 1000
        self._offsets_clock(answer)
        self._note_statuses(answer.statuses)
        if answer.tasks is None and self.state is _S.JOINING:  # joined with no task yet
            return actions + self._reconcile(TaskSet())
        if answer.tasks is None:
            if self.state is not _S.RECONCILING:
                self.state = _S.STABLE
                self.in_group = True
            return actions
        return actions + self._reconcile(answer.tasks)

    def _offsets_clock(self, answer: StreamsGroupHeartbeatAnswered) -> None:
        """Task offsets go with the first heartbeat after each TaskOffsetIntervalMs (a
        non-positive interval: never)."""
        interval = answer.task_offset_interval_ms
        self._offsets_interval_s = interval / 1000 if interval > 0 else None
        if self._offsets_interval_s is None:
            self._next_offsets = None
        elif self._next_offsets is None:
            self._next_offsets = answer.now + self._offsets_interval_s

    def _note_statuses(self, statuses: Sequence[tuple[int, str]]) -> None:
        """Log each status once when it appears (``_streams_tasks.STATUSES``), and once when the
        statuses cleared."""
        now = dict(statuses)
        for code, detail in now.items():
            if self.statuses.get(code) != detail:
                action = STATUSES.get(code)
                line = status_line(code, detail)
                self._log.warning("streams group status %s: %s (the thread %s)",
                                  _status_name(code), line,
                                  action.does if action else "goes on")  # fmt: skip
        if self.statuses and not now:
            self._log.info("streams group statuses cleared")
        self.statuses = now
        if StreamsGroupStatus.SHUTDOWN_APPLICATION in now:
            self.shutdown_requested = True

    def _reconcile(self, target: TaskSet) -> list[StreamsGroupAction]:
        """Commit and revoke the partitions of the active tasks gone, assign those of the
        target, hand the three lists to the application, acknowledge at the next poll."""
        change = task_change(self.tasks, target)
        partitions = self._partitions(target)
        gone = tuple(tp for tp in self.owned if tp not in partitions)
        added = tuple(tp for tp in partitions if tp not in self.owned)
        actions: list[StreamsGroupAction] = []
        if gone:
            actions += [self._emit(PartitionsRevoked, partitions=list(gone),
                                   reason=REVOKED_REBALANCE),
                        Revoke(gone, lost=False, reason=REVOKED_REBALANCE)]  # fmt: skip
        if gone or added or self.state is _S.JOINING:
            actions += [self._emit(PartitionsAssigned, partitions=list(partitions)),
                        Assign(partitions, added)]  # fmt: skip
        if change.acknowledge != self.tasks or self.state is _S.JOINING:
            actions.append(DeliverTasks(change.acknowledge))
        self._revoking = tuple(sorted({*self._revoking, *gone}))
        self.owned = partitions
        self.tasks = change.acknowledge
        self._tasks_unsent = True
        self.state = _S.RECONCILING
        return actions

    def _partitions(self, tasks: TaskSet) -> Partitions:
        """The partitions of the active tasks (a task of a subtopology this topology lacks is
        left out, and said: the broker assigned from another topology)."""
        topology = self.config.topology
        known = {s.subtopology_id for s in topology.subtopologies}
        unknown = sorted(t for t in tasks.active if t[0] not in known)
        if unknown:
            self._log.error("the coordinator assigned tasks of subtopologies this topology "
                            "(epoch %d) lacks: %s; they are left out", topology.epoch,
                            unknown)  # fmt: skip
        mine = (t for t in tasks.active if t[0] in known)
        return tuple(sorted(task_partitions(topology, mine)))

    def _no_answer(self, now: float) -> list[StreamsGroupAction]:
        self._in_flight = False
        if self._leaving is not None:
            return self._left(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if self.terminal or self.state is _S.POLL_EXPIRED:
            return []
        return self._on_error(ErrorCode.COORDINATOR_NOT_AVAILABLE, Reaction.FIND_COORDINATOR, now)

    def _on_error(self, code: int, what: Reaction, now: float) -> list[StreamsGroupAction]:
        if code != ErrorCode.UNRELEASED_INSTANCE_ID:  # that streak is said once (_unreleased)
            self._log.warning("StreamsGroupHeartbeat failed: %s -> %s", error_name(code),
                              what.value)  # fmt: skip
        if what.fatal:
            return [self.become_fatal(_API, code, what)]
        if what is Reaction.FIND_COORDINATOR:
            self.coordinator = None
            self._tasks_unsent = True  # a new coordinator hears the tasks owned
            return [Backoff(), FindCoordinator()]
        joining = self.member_epoch == JOIN_STREAMS_GROUP_EPOCH
        if what is Reaction.RESET and joining and code == ErrorCode.GROUP_ID_NOT_FOUND:
            # Not a group deleted while we were away: the id belongs to a group of another
            # kind (4.4.0: "is not a streams group"). Joining again will not change that.
            self._next_heartbeat = now + UNRELEASED_RETRY_S
            return [
                RaiseError(_API, code, detail=_NOT_A_STREAMS_GROUP.format(self.config.group_id))
            ]
        if what is Reaction.RESET:
            actions: list[StreamsGroupAction] = [self._emit(SessionExpired, api=_API.value),
                                                 *self._lose()]  # fmt: skip
            if joining:  # a join refused so is asked again after a backoff, not at once
                actions.append(Backoff())
            self.member_epoch = JOIN_STREAMS_GROUP_EPOCH
            self.state = _S.JOINING
            self.in_group = False
            return actions
        if code == ErrorCode.UNRELEASED_INSTANCE_ID:
            return self._unreleased(now)
        if what is Reaction.RETRY:
            return [Backoff()]
        return [RaiseError(_API, code), Backoff()]

    def _lose(self) -> list[StreamsGroupAction]:
        """Every task is lost (nothing committed for its partitions)."""
        lost, self.owned, self._revoking = self.owned, (), ()
        had_tasks, self.tasks = self.tasks != TaskSet(), TaskSet()
        actions: list[StreamsGroupAction] = []
        if lost:
            actions += [self._emit(PartitionsRevoked, partitions=list(lost), reason=REVOKED_LOST),
                        Revoke(lost, lost=True, reason=REVOKED_LOST)]  # fmt: skip
        if had_tasks:
            actions.append(DeliverTasks(TaskSet()))
        return actions

    def _unreleased(self, now: float) -> list[StreamsGroupAction]:
        if self._unreleased_since is None:
            self._unreleased_since = now
            self._log.warning(
                "instance id %s is still held by its previous member (it did not leave: a "
                "crash?); asking again until the coordinator releases it, at the latest when "
                "that member's session times out (a streams group has no takeover)",
                self.config.group_instance_id,
            )  # fmt: skip
        self._next_heartbeat = now + UNRELEASED_RETRY_S
        if (now - self._unreleased_since) * 1000 >= self.options.unreleased_instance_wait_ms:
            self._unreleased_since = now
            return [RaiseError(_API, ErrorCode.UNRELEASED_INSTANCE_ID, detail=_UNRELEASED_WAY)]
        return []

    def fatal(self, error: BaseException) -> None:
        self.state = _S.FATAL
        if self.fatal_error is None:
            self.fatal_error = error

    def membership_state(self, *, subscribed: bool, handing_over: bool) -> MembershipState:
        return consumer_group_state(self.state, subscribed=subscribed,
                                    handing_over=handing_over, fenced=self.fenced)  # fmt: skip

    # -- the end ------------------------------------------------------------------------------

    def leave_prepare(self) -> list[StreamsGroupAction]:
        """Before the thread stops: its active tasks' partitions go back to the application,
        revoked (committed first) while it holds an epoch, lost otherwise."""
        if not self.owned or self.state is _S.CLOSED:
            return []
        if self.terminal:
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
    ) -> list[StreamsGroupAction]:
        """The heartbeat that leaves: -1 for a thread that leaves (by default a dynamic one),
        -2 for a static thread that stays (the coordinator keeps its tasks until the session
        times out, Kafka 4.4); a dynamic thread that stays sends nothing."""
        if self.terminal:
            return []
        was_member = self.member_epoch > 0 and self.coordinator is not None
        actions: list[StreamsGroupAction] = []
        if self.owned:
            actions.append(self._emit(PartitionsRevoked, partitions=list(self.owned),
                                      reason=REVOKED_CLOSE))  # fmt: skip
        self.state = _S.CLOSED
        if not was_member:
            return actions
        leaves = membership.leaves(static=self.is_static)
        if not (leaves or self.is_static):
            return actions
        epoch = LEAVE_STREAMS_GROUP_EPOCH if leaves else LEAVE_STREAMS_GROUP_STATIC_EPOCH
        self._leaving = reason or why.LEAVE_REASON_PREFIX
        self._leave_emits = epoch == LEAVE_STREAMS_GROUP_EPOCH
        self._in_flight = True
        actions.append(SendStreamsGroupHeartbeat(epoch, False, None))
        return actions

    def _left(self, code: int) -> list[StreamsGroupAction]:
        reason, self._leaving = self._leaving, None
        if code != ErrorCode.NONE:
            self._log.warning("the leaving StreamsGroupHeartbeat answered %s", error_name(code))
            return []
        if not self._leave_emits:
            self._log.info("Stopped in the streams group; the coordinator keeps the tasks of "
                           "instance id %s until its session times out",
                           self.config.group_instance_id)  # fmt: skip
            return []
        self._log.info("Left streams group (reason: %s)", reason)
        return [self._emit(GroupLeft, reason=truncate_reason(reason) or reason)]

    def _emit(self, kind: type, **fields: object) -> Emit:
        return Emit(kind, self.member_id, self.member_epoch, dict(fields))


def _status_name(code: int) -> str:
    try:
        return StreamsGroupStatus(code).name
    except ValueError:
        return str(code)


def tasks_from_answer(
    active: Sequence[TaskIds] | None, standby: Sequence[TaskIds] | None,
    warmup: Sequence[TaskIds] | None, held: TaskSet,
) -> TaskSet | None:  # fmt: skip
    """The target an answer's three task lists make (None when it sent none: unchanged); a list
    left null beside others keeps what the member held of it."""
    if active is None and standby is None and warmup is None:
        return None
    return TaskSet(
        active=held.active if active is None else tasks_of(active),
        standby=held.standby if standby is None else tasks_of(standby),
        warmup=held.warmup if warmup is None else tasks_of(warmup),
    )
