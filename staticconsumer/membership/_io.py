"""The plain data a group member's state machine takes in and gives out (sans-IO), for both group
protocols: one typed vocabulary per protocol.

Inputs are what happened: a response was parsed, a request got no answer, the application asked
for something. Actions are what the driver must do next: send a request, run the leader's
assignor, hand partitions to or take them from the application, raise an error, count a
rebalance in the metrics. Neither carries sockets, futures or aiokafka objects, so every
transition is a table test (``tests/membership/``).

The unions, each engine's whole vocabulary (``mypy --strict`` checks that a sender handles every
action: ``match`` with ``typing.assert_never``)::

    CommonInput   = CoordinatorFound | Unsubscribed                  (the driver feeds these)
    CommonAction  = FindCoordinator | Backoff | Revoke | Assign | BecomeFatal | RaiseError
                    | Emit | RecordRebalance                         (the driver performs these)
    ClassicInput  = CommonInput | RequestFailed | JoinRequested | JoinGroupAnswered
                    | AssignmentComputed | AssignmentFailed | SyncGroupAnswered
                    | HeartbeatAnswered | LeaveGroupAnswered
    ClassicAction = CommonAction | ClassicSenderAction
    ClassicSenderAction = SendJoinGroup | ComputeAssignment | SendSyncGroup | SendHeartbeat
                    | SendLeaveGroup | DeliverAssignment             (drivers.classic performs)
    ConsumerGroupInput  = CommonInput | ConsumerGroupHeartbeatAnswered
                    | ConsumerGroupHeartbeatFailed
    ConsumerGroupAction = CommonAction | ConsumerGroupSenderAction
#: What the KIP-1071 engine asks of its driver.
StreamsGroupAction = CommonAction | StreamsGroupSenderAction
    ConsumerGroupSenderAction = SendConsumerGroupHeartbeat | TakeOver (drivers.consumer_group)
    StreamsGroupInput   = CommonInput | StreamsGroupHeartbeatAnswered
                    | StreamsGroupHeartbeatFailed
    StreamsGroupAction  = CommonAction | StreamsGroupSenderAction
    StreamsGroupSenderAction = SendStreamsGroupHeartbeat | DeliverTasks (drivers.streams_group)

An answer to a commit or a committed-offset fetch calls for common actions only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from assignors import MemberAssignment

from ..protocol import JoinGroupMember
from ._reactions import Api
from ._streams_tasks import TaskSet

TopicPartition = tuple[str, int]
Partitions = tuple[TopicPartition, ...]


class RebalanceProtocol(enum.Enum):
    """How partitions move in a rebalance (KIP-429). An assignor supports one or both."""

    EAGER = "eager"  # revoke everything before JoinGroup, get everything back after SyncGroup
    COOPERATIVE = "cooperative"  # revoke only what moves, after SyncGroup, then re-join


class MemberState(enum.Enum):
    UNJOINED = "unjoined"  # no generation in effect: a join is due
    JOINING = "joining"  # JoinGroup sent, no answer yet
    ASSIGNING = "assigning"  # leader: the driver runs the assignor
    SYNCING = "syncing"  # SyncGroup sent, no answer yet
    STABLE = "stable"  # in a generation, heartbeating
    FATAL = "fatal"  # terminal: nothing is sent any more
    CLOSED = "closed"  # stopped by the application


# -- inputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoordinatorFound:
    node_id: int


@dataclass(frozen=True)
class RequestFailed:
    """``api`` got no answer (connection lost, timeout): the coordinator is presumed dead."""

    api: Api


@dataclass(frozen=True)
class JoinRequested:
    """Something outside the group changed (subscription, topic metadata) or the application
    enforced a rebalance; ``enforced`` reasons are joined into the next JoinGroup's reason."""

    reason: str
    enforced: bool = False


@dataclass(frozen=True)
class JoinGroupAnswered:
    error_code: int
    generation_id: int = -1
    member_id: str = ""
    protocol_name: str | None = None
    leader: str = ""
    skip_assignment: bool = False
    members: tuple[JoinGroupMember, ...] = ()


@dataclass(frozen=True)
class AssignmentComputed:
    """The leader's plan: ``(member_id, encoded assignment)`` for every member."""

    assignments: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class AssignmentFailed:
    """The leader's assignor raised: the error goes to the application, the member re-joins."""


@dataclass(frozen=True)
class SyncGroupAnswered:
    error_code: int
    assignment: bytes = b""


@dataclass(frozen=True)
class HeartbeatAnswered:
    error_code: int
    now: float  # monotonic seconds when the answer came


@dataclass(frozen=True)
class LeaveGroupAnswered:
    error_code: int


@dataclass(frozen=True)
class Unsubscribed:
    """The application unsubscribed (``unsubscribe()``): its fetcher holds nothing any more."""


@dataclass(frozen=True)
class ConsumerGroupHeartbeatAnswered:
    """A ConsumerGroupHeartbeat answer (KIP-848), its assignment named by topic (None: none
    sent, the member's assignment is unchanged)."""

    error_code: int
    now: float
    member_epoch: int = -1
    heartbeat_interval_ms: int = 0
    assignment: Partitions | None = None


@dataclass(frozen=True)
class ConsumerGroupHeartbeatFailed:
    """The heartbeat in flight got no answer (the coordinator is presumed dead)."""

    now: float  # monotonic seconds


@dataclass(frozen=True)
class StreamsGroupHeartbeatAnswered:
    """A StreamsGroupHeartbeat answer (KIP-1071). ``tasks`` is None when the coordinator sent no
    task lists (the member's tasks are unchanged); ``statuses`` are ``(code, detail)``."""

    error_code: int
    now: float
    member_epoch: int = -1
    heartbeat_interval_ms: int = 0
    task_offset_interval_ms: int = -1
    tasks: TaskSet | None = None
    statuses: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class StreamsGroupHeartbeatFailed:
    """The streams heartbeat in flight got no answer (the coordinator is presumed dead)."""

    now: float  # monotonic seconds


#: What every engine is fed by the driver itself.
CommonInput = CoordinatorFound | Unsubscribed
#: What the classic engine (``ClassicMember``) is fed.
ClassicInput = (
    CommonInput | RequestFailed | JoinRequested | JoinGroupAnswered | AssignmentComputed
    | AssignmentFailed | SyncGroupAnswered | HeartbeatAnswered | LeaveGroupAnswered
)  # fmt: skip
#: What the KIP-848 engine (``ConsumerGroupMember``) is fed.
ConsumerGroupInput = CommonInput | ConsumerGroupHeartbeatAnswered | ConsumerGroupHeartbeatFailed
#: What the KIP-1071 engine (``StreamsGroupMember``) is fed.
StreamsGroupInput = CommonInput | StreamsGroupHeartbeatAnswered | StreamsGroupHeartbeatFailed


# -- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FindCoordinator:
    pass


@dataclass(frozen=True)
class Backoff:
    """Wait ``retry_backoff_ms`` before the next step."""


@dataclass(frozen=True)
class SendJoinGroup:
    member_id: str
    generation_id: int
    owned: Partitions  # what the subscription reports as owned (KIP-429)
    reason: str


@dataclass(frozen=True)
class ComputeAssignment:
    """Leader only: run the assignor named ``protocol`` over ``members``. With ``skip`` (JoinGroup
    v9 SkipAssignment: a static leader re-joined a stable group) the plan is not sent, but the
    leader still watches every member's topics."""

    protocol: str
    members: tuple[JoinGroupMember, ...]
    skip: bool


@dataclass(frozen=True)
class SendSyncGroup:
    generation_id: int
    member_id: str
    protocol: str
    assignments: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class DeliverAssignment:
    """Every member, after SyncGroup: hand the assignor named ``protocol`` this member's own
    ``assignment`` (partitions, the user data its leader planned for it, the version the leader
    wrote) at ``generation_id``, through its optional ``on_assignment`` hook
    (``assignors.AssignmentReceiver``; Java's ``ConsumerPartitionAssignor.onAssignment``).
    Comes after the revocations of the rebalance and before the partitions are assigned."""

    protocol: str
    generation_id: int
    assignment: MemberAssignment


@dataclass(frozen=True)
class SendHeartbeat:
    generation_id: int
    member_id: str


@dataclass(frozen=True)
class SendLeaveGroup:
    member_id: str
    reason: str


#: The reason a :class:`Revoke` of lost partitions carries.
REVOKED_LOST = "lost"


@dataclass(frozen=True)
class Revoke:
    """Take ``partitions`` from the application (``on_partitions_revoked``). ``lost``: the member
    is no longer in the generation that owned them, so nothing may be committed for them, and
    the listener's ``on_partitions_lost`` is told (``on_partitions_revoked`` without it)."""

    partitions: Partitions
    lost: bool
    reason: str


@dataclass(frozen=True)
class Assign:
    """The member now owns ``assigned``; ``added`` (what it did not own before) goes to
    ``on_partitions_assigned`` — the whole assignment under the eager protocol."""

    assigned: Partitions
    added: Partitions


@dataclass(frozen=True)
class BecomeFatal:
    """The member is finished (its state sticks): the driver builds the error from
    ``error_code``, records it (``member.fatal``) and wakes every waiter. ``fenced`` is the
    engine's verdict (its reaction was FENCED, ``_reactions``): another process holds our
    ``group.instance.id``, so the member is ``fenced``, not ``failed``."""

    api: Api
    error_code: int
    fenced: bool = False


@dataclass(frozen=True)
class RaiseError:
    """Raise the error for ``error_code`` to the application once, then go on. ``topics``: the
    topics the refused request named (a KIP-848 heartbeat's subscription), so an error about
    them (TOPIC_AUTHORIZATION_FAILED) can say which."""

    api: Api
    error_code: int
    detail: str = ""
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class Emit:
    """A membership event (``staticconsumer.events``) with the member id and generation as they
    were when it happened."""

    kind: type[Any]
    member_id: str
    generation_id: int
    fields: dict[str, Any] = field(default_factory=dict)


class RebalanceMetric(enum.Enum):
    """What a :class:`RecordRebalance` tells the coordinator metrics
    (``_observability.metrics.ConsumerMetrics``)."""

    STARTED = "started"  # rebalance_started: a retried one keeps its start
    ENDED = "ended"  # rebalance_ended: the rebalance in progress completed
    FAILED = "failed"  # rebalance_failed: the rebalance in progress failed, and goes on


@dataclass(frozen=True)
class RecordRebalance:
    """Count a rebalance in the coordinator metrics, as the engine that decided it says (Java's
    ``consumer-coordinator-metrics``: ``rebalance-*``, ``failed-rebalance-*``). The classic
    JoinGroup/SyncGroup span is timed from the requests themselves (``metrics.answered``)."""

    what: RebalanceMetric


@dataclass(frozen=True)
class SendConsumerGroupHeartbeat:
    """A heartbeat at ``member_epoch``; ``full`` sends every field (a join), ``topics`` the
    subscription when it is new to the coordinator, ``owned`` what the member owns now (None:
    unchanged since the last heartbeat)."""

    member_epoch: int
    full: bool
    topics: tuple[str, ...] | None
    owned: Partitions | None


@dataclass(frozen=True)
class TakeOver:
    """Remove the member holding our instance id (LeaveGroup by ``group_instance_id``): the
    application said the previous process is gone (``takeover``)."""

    group_instance_id: str


@dataclass(frozen=True)
class SendStreamsGroupHeartbeat:
    """A streams heartbeat at ``member_epoch``; ``full`` sends every field a join needs (the
    topology at epoch 0, the process id, the endpoint, the client tags, the rebalance timeout),
    ``owned`` the three task lists the member owns now (None: unchanged since the last heartbeat),
    ``report_offsets`` the task offsets (their interval elapsed: the broker's warm-ups read
    them), ``shutdown_application`` that this thread asked the whole application to stop."""

    member_epoch: int
    full: bool
    owned: TaskSet | None
    report_offsets: bool = False
    shutdown_application: bool = False


@dataclass(frozen=True)
class DeliverTasks:
    """The member's tasks changed (after the active ones were revoked and assigned): the
    application keeps its standby and warm-up tasks' state from their changelogs."""

    tasks: TaskSet


#: What the driver performs for every engine.
CommonAction = (
    FindCoordinator | Backoff | Revoke | Assign | BecomeFatal | RaiseError | Emit
    | RecordRebalance
)  # fmt: skip
#: What the classic sender (``drivers.classic``) performs.
ClassicSenderAction = (
    SendJoinGroup | ComputeAssignment | SendSyncGroup | SendHeartbeat | SendLeaveGroup
    | DeliverAssignment
)  # fmt: skip
#: What the KIP-848 sender (``drivers.consumer_group``) performs.
ConsumerGroupSenderAction = SendConsumerGroupHeartbeat | TakeOver
#: What the KIP-1071 sender (``drivers.streams_group``) performs.
StreamsGroupSenderAction = SendStreamsGroupHeartbeat | DeliverTasks
#: What the classic engine asks of its driver.
ClassicAction = CommonAction | ClassicSenderAction
#: What the KIP-848 engine asks of its driver.
ConsumerGroupAction = CommonAction | ConsumerGroupSenderAction
#: What the KIP-1071 engine asks of its driver.
StreamsGroupAction = CommonAction | StreamsGroupSenderAction


class CommitOutcome(enum.Enum):
    DONE = "committed"
    RETRY = "retry after the coordinator is known again / after a backoff"
    FAILED = "raise to the caller"
