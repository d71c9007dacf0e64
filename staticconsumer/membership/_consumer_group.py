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
    any --FENCED_INSTANCE_ID (and what HEARTBEAT_REACTIONS marks fatal)--> FATAL (sticks)
    close(): static member -> epoch -2 (keeps its assignment until the session times out),
             dynamic member or an explicit leave -> epoch -1

Partitions are ``(topic, partition)`` by name here, as in the classic engine: the coordinator
names topics by id (KIP-516), and the driver maps ids to names in answers and names to ids in
requests. UNRELEASED_INSTANCE_ID (a restarted static member whose previous
process did not leave) is retried with a backoff and a log line; once it lasted
``unreleased_wait_ms`` it is raised to the application once, and retried still.

Sources: Apache Kafka's ``ConsumerMembershipManager`` / ``AbstractMembershipManager`` and
``AbstractHeartbeatRequestManager`` (member side) and ``GroupMetadataManager`` (coordinator
side). Not yet driven by a driver: the reactions are to be checked against the broker.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass

from ..protocol import (
    JOIN_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_MEMBER_EPOCH,
    LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    ErrorCode,
    error_name,
)
from ._io import (
    Action,
    Assign,
    Backoff,
    BecomeFatal,
    FindCoordinator,
    Partitions,
    RaiseError,
    Revoke,
)
from ._reactions import Api, Reaction

log = logging.getLogger("staticconsumer")

_API = Api.CONSUMER_GROUP_HEARTBEAT

#: What the member does about each ConsumerGroupHeartbeat error code (others: RAISE).
HEARTBEAT_REACTIONS: dict[int, Reaction] = {
    ErrorCode.NONE: Reaction.OK,
    ErrorCode.COORDINATOR_NOT_AVAILABLE: Reaction.FIND_COORDINATOR,
    ErrorCode.NOT_COORDINATOR: Reaction.FIND_COORDINATOR,
    ErrorCode.REQUEST_TIMED_OUT: Reaction.FIND_COORDINATOR,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: Reaction.RETRY,
    # The coordinator no longer has this member at this epoch: what it owned is lost; it joins
    # again at epoch 0 with the same member id.
    ErrorCode.FENCED_MEMBER_EPOCH: Reaction.RESET,
    ErrorCode.UNKNOWN_MEMBER_ID: Reaction.RESET,
    # The previous holder of our instance id has not left yet (module docstring).
    ErrorCode.UNRELEASED_INSTANCE_ID: Reaction.RETRY,
    ErrorCode.FENCED_INSTANCE_ID: Reaction.FATAL,
    ErrorCode.UNSUPPORTED_ASSIGNOR: Reaction.FATAL,
    ErrorCode.GROUP_MAX_SIZE_REACHED: Reaction.FATAL,
}


class ConsumerGroupState(enum.Enum):
    UNSUBSCRIBED = "unsubscribed"
    JOINING = "joining"
    RECONCILING = "reconciling"
    ACKNOWLEDGING = "acknowledging"
    STABLE = "stable"
    FATAL = "fatal"
    CLOSED = "closed"


@dataclass(frozen=True)
class ConsumerGroupConfig:
    group_id: str
    member_id: str  # made by the client (KIP-1082), kept for the process's lifetime
    group_instance_id: str | None
    rebalance_timeout_ms: int
    server_assignor: str | None = None
    rack_id: str | None = None
    unreleased_wait_ms: int = 45_000  # the broker's default group.consumer.session.timeout.ms


@dataclass(frozen=True)
class SendConsumerGroupHeartbeat:
    """A heartbeat at ``member_epoch``; ``full`` sends every field (a join), ``owned`` is what
    the member owns now (None: unchanged since the last heartbeat)."""

    member_epoch: int
    full: bool
    topics: tuple[str, ...] | None
    owned: Partitions | None


@dataclass(frozen=True)
class ConsumerGroupHeartbeatAnswered:
    error_code: int
    now: float
    member_epoch: int = -1
    heartbeat_interval_ms: int = 0
    assignment: Partitions | None = None


class ConsumerGroupMember:
    """The member's state machine (module docstring)."""

    def __init__(self, config: ConsumerGroupConfig) -> None:
        self.config = config
        self.state = ConsumerGroupState.UNSUBSCRIBED
        self.member_epoch = JOIN_GROUP_MEMBER_EPOCH
        self.owned: Partitions = ()
        self.coordinator: int | None = None
        self._next_heartbeat: float | None = None
        self._in_flight = False
        self._owned_unsent = False
        self._unreleased_since: float | None = None

    @property
    def terminal(self) -> bool:
        return self.state in (ConsumerGroupState.FATAL, ConsumerGroupState.CLOSED)

    def poll(
        self, now: float, topics: tuple[str, ...]
    ) -> list[Action | SendConsumerGroupHeartbeat]:
        """What to do now: find the coordinator, join, acknowledge, or heartbeat when due."""
        if self.terminal or self._in_flight or not topics:
            return []
        if self.coordinator is None:
            return [FindCoordinator()]
        if self.state is ConsumerGroupState.UNSUBSCRIBED:
            self.state = ConsumerGroupState.JOINING
        joining = self.state is ConsumerGroupState.JOINING and self.member_epoch == 0
        acknowledging = self.state is ConsumerGroupState.RECONCILING
        due = self._next_heartbeat is None or now >= self._next_heartbeat
        if not (joining or acknowledging or due):
            return []
        if acknowledging:
            self.state = ConsumerGroupState.ACKNOWLEDGING
        self._in_flight = True
        owned = self.owned if (joining or self._owned_unsent) else None
        self._owned_unsent = False
        return [SendConsumerGroupHeartbeat(self.member_epoch, joining, topics if joining else None,
                                           owned)]  # fmt: skip

    def coordinator_found(self, node_id: int) -> None:
        self.coordinator = node_id

    def handle(self, answer: ConsumerGroupHeartbeatAnswered) -> list[Action]:
        """The coordinator's answer to the heartbeat in flight."""
        self._in_flight = False
        if self.terminal:
            return []
        what = HEARTBEAT_REACTIONS.get(answer.error_code, Reaction.RAISE)
        if what is not Reaction.OK:
            return self._on_error(answer.error_code, what, answer.now)
        self._unreleased_since = None
        self.member_epoch = answer.member_epoch
        self._next_heartbeat = answer.now + answer.heartbeat_interval_ms / 1000
        if answer.assignment is None:
            if self.state is not ConsumerGroupState.RECONCILING:
                self.state = ConsumerGroupState.STABLE
            return []
        return self._reconcile(tuple(sorted(answer.assignment)))

    def no_answer(self, now: float) -> list[Action]:
        """The heartbeat in flight got no answer: the coordinator is presumed dead."""
        self._in_flight = False
        if self.terminal:
            return []
        return self._on_error(ErrorCode.COORDINATOR_NOT_AVAILABLE, Reaction.FIND_COORDINATOR, now)

    def _reconcile(self, target: Partitions) -> list[Action]:
        """Revoke before assign (KIP-848), then acknowledge at the next poll."""
        gone = tuple(tp for tp in self.owned if tp not in target)
        added = tuple(tp for tp in target if tp not in self.owned)
        actions: list[Action] = []
        if gone:
            actions.append(Revoke(gone, lost=False, reason="the coordinator moved them"))
        if gone or added or self.state is ConsumerGroupState.JOINING:
            actions.append(Assign(target, added))
        self.owned = target
        self._owned_unsent = True
        self.state = ConsumerGroupState.RECONCILING
        return actions

    def _on_error(self, code: int, what: Reaction, now: float) -> list[Action]:
        log.warning("ConsumerGroupHeartbeat for group %s failed: %s -> %s",
                    self.config.group_id, error_name(code), what.value)  # fmt: skip
        if what is Reaction.FATAL:
            self.state = ConsumerGroupState.FATAL
            return [BecomeFatal(_API, code)]
        if what is Reaction.FIND_COORDINATOR:
            self.coordinator = None
            return [Backoff(), FindCoordinator()]
        if what is Reaction.RESET:
            lost, self.owned = self.owned, ()
            self.member_epoch = JOIN_GROUP_MEMBER_EPOCH
            self.state = ConsumerGroupState.JOINING
            return [Revoke(lost, lost=True, reason="lost")] if lost else []
        if code == ErrorCode.UNRELEASED_INSTANCE_ID:
            return self._unreleased(now)
        if what is Reaction.RETRY:
            return [Backoff()]
        return [RaiseError(_API, code), Backoff()]

    def _unreleased(self, now: float) -> list[Action]:
        if self._unreleased_since is None:
            self._unreleased_since = now
            log.warning(
                "group %s: instance id %s is still held by its previous member (it did not leave: "
                "a crash?); asking again until the coordinator releases it, at the latest when "
                "that member's session times out", self.config.group_id,
                self.config.group_instance_id,
            )  # fmt: skip
        if (now - self._unreleased_since) * 1000 >= self.config.unreleased_wait_ms:
            self._unreleased_since = now
            return [RaiseError(_API, ErrorCode.UNRELEASED_INSTANCE_ID), Backoff()]
        return [Backoff()]

    def close(self, leave_for_good: bool) -> list[Action | SendConsumerGroupHeartbeat]:
        """The heartbeat that leaves: epoch -2 for a static member that only stops (it keeps its
        assignment until the session times out), -1 for a dynamic one or a leave for good."""
        if self.terminal:
            return []
        was_member = (self.state is not ConsumerGroupState.UNSUBSCRIBED
                      and self.coordinator is not None)  # fmt: skip
        self.state = ConsumerGroupState.CLOSED
        if not was_member:
            return []
        static = self.config.group_instance_id is not None
        epoch = (LEAVE_GROUP_STATIC_MEMBER_EPOCH if static and not leave_for_good
                 else LEAVE_GROUP_MEMBER_EPOCH)  # fmt: skip
        return [SendConsumerGroupHeartbeat(epoch, False, None, None)]
