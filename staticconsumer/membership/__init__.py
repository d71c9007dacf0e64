"""The group member's state machine, without I/O (h11's lesson applied to a Kafka group member).

* :mod:`._reactions` — the reactions room: what the member does about each error code on each
  group API, one table per group protocol (classic, KIP-848), one :func:`reaction` lookup; the
  engines read nothing else to react, and decide there whether a fatal member was fenced;
* :mod:`._io` — the vocabulary: the inputs (parsed answers, "no answer", the application's
  requests) and the actions (send, assign, revoke, raise, become fatal, count a rebalance) as
  plain data, one Input and one Action union per protocol (``ClassicInput``/``ClassicAction``,
  ``ConsumerGroupInput``/``ConsumerGroupAction``) over the common ones the driver handles itself;
* :mod:`._engine` — :class:`Engine`, the contract a driver holds an engine by, generic over its
  protocol's Input and Action unions;
* :mod:`._classic` — :class:`ClassicMember`, the JoinGroup/SyncGroup member, eager and
  cooperative (KIP-429);
* :mod:`._consumer_group` — :class:`ConsumerGroupMember`, the KIP-848 member
  (ConsumerGroupHeartbeat);
* :mod:`._log` — :class:`LogIdentity`, who a member is in its log lines (the ``extra`` fields
  and the message prefix every line a consumer logs carries, ``docs/logging.md``);
* :mod:`._status` — :class:`Membership`, the member's state as the application sees it, and the
  one table from engine states to :class:`MembershipState`.

No asyncio and no aiokafka here: the drivers (``staticconsumer.drivers``) perform the actions,
each sender with one ``match`` over its protocol's actions that ``mypy --strict`` proves complete
(``typing.assert_never``). Metrics are actions too: the engine that decides a rebalance started,
ended or failed says so (:class:`RecordRebalance`).
"""

from ._classic import ClassicMember, MemberConfig
from ._consumer_group import (
    ConsumerGroupConfig,
    ConsumerGroupMember,
    ConsumerGroupState,
)
from ._engine import AnyEngine, Engine, EngineConfig
from ._io import (
    Assign,
    AssignmentComputed,
    AssignmentFailed,
    Backoff,
    BecomeFatal,
    ClassicAction,
    ClassicInput,
    ClassicSenderAction,
    CommitOutcome,
    CommonAction,
    CommonInput,
    ComputeAssignment,
    ConsumerGroupAction,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupHeartbeatFailed,
    ConsumerGroupInput,
    ConsumerGroupSenderAction,
    CoordinatorFound,
    DeliverAssignment,
    DeliverTasks,
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
    SendConsumerGroupHeartbeat,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendStreamsGroupHeartbeat,
    SendSyncGroup,
    StreamsGroupAction,
    StreamsGroupHeartbeatAnswered,
    StreamsGroupHeartbeatFailed,
    StreamsGroupInput,
    StreamsGroupSenderAction,
    SyncGroupAnswered,
    TakeOver,
    TopicPartition,
    Unsubscribed,
)  # fmt: skip
from ._log import FIELDS as LOG_FIELDS
from ._log import LogIdentity, MemberLog
from ._log import (
    prefix as log_prefix,
)
from ._plan import (
    any_member_rack,
    encode_assignments,
    plain_members,
    subscription_bytes,
    user_data_for,
)
from ._reactions import (
    CLASSIC_TABLE,
    CONSUMER_TABLE,
    STREAMS_TABLE,
    TABLE,
    Api,
    GroupProtocol,
    Reaction,
    reaction,
)
from ._reasons import (
    ADMIN_REMOVE_REASON,
    JOIN_REASON_ENFORCED_PREFIX,
    JOIN_REASON_METADATA_CHANGED,
    JOIN_REASON_SUBSCRIPTION_CHANGED,
    LEAVE_REASON_PREFIX,
    OWN_LEAVE_REASONS,
    admin_remove_reason,
)
from ._status import (
    CLASSIC_STATES,
    Lifecycle,
    Membership,
    MembershipState,
    classic_state,
    membership_state,
    snapshot,
)
from ._streams import StreamsGroupConfig, StreamsGroupMember, tasks_from_answer
from ._streams_tasks import STATUSES as STREAMS_STATUSES
from ._streams_tasks import Task, TaskSet, changelog_partitions, task_ids, task_partitions

__all__ = [
    "ADMIN_REMOVE_REASON",
    "CLASSIC_STATES",
    "CLASSIC_TABLE",
    "CONSUMER_TABLE",
    "JOIN_REASON_ENFORCED_PREFIX",
    "JOIN_REASON_METADATA_CHANGED",
    "JOIN_REASON_SUBSCRIPTION_CHANGED",
    "LEAVE_REASON_PREFIX",
    "LOG_FIELDS",
    "OWN_LEAVE_REASONS",
    "STREAMS_STATUSES",
    "STREAMS_TABLE",
    "TABLE",
    "AnyEngine",
    "Api",
    "Assign",
    "AssignmentComputed",
    "AssignmentFailed",
    "Backoff",
    "BecomeFatal",
    "ClassicAction",
    "ClassicInput",
    "ClassicMember",
    "ClassicSenderAction",
    "CommitOutcome",
    "CommonAction",
    "CommonInput",
    "ComputeAssignment",
    "ConsumerGroupAction",
    "ConsumerGroupConfig",
    "ConsumerGroupHeartbeatAnswered",
    "ConsumerGroupHeartbeatFailed",
    "ConsumerGroupInput",
    "ConsumerGroupMember",
    "ConsumerGroupSenderAction",
    "ConsumerGroupState",
    "CoordinatorFound",
    "DeliverAssignment",
    "DeliverTasks",
    "Emit",
    "Engine",
    "EngineConfig",
    "FindCoordinator",
    "GroupProtocol",
    "HeartbeatAnswered",
    "JoinGroupAnswered",
    "JoinRequested",
    "LeaveGroupAnswered",
    "Lifecycle",
    "LogIdentity",
    "MemberConfig",
    "MemberLog",
    "MemberState",
    "Membership",
    "MembershipState",
    "Partitions",
    "RaiseError",
    "Reaction",
    "RebalanceMetric",
    "RebalanceProtocol",
    "RecordRebalance",
    "RequestFailed",
    "Revoke",
    "SendConsumerGroupHeartbeat",
    "SendHeartbeat",
    "SendJoinGroup",
    "SendLeaveGroup",
    "SendStreamsGroupHeartbeat",
    "SendSyncGroup",
    "StreamsGroupAction",
    "StreamsGroupConfig",
    "StreamsGroupHeartbeatAnswered",
    "StreamsGroupHeartbeatFailed",
    "StreamsGroupInput",
    "StreamsGroupMember",
    "StreamsGroupSenderAction",
    "SyncGroupAnswered",
    "TakeOver",
    "Task",
    "TaskSet",
    "TopicPartition",
    "Unsubscribed",
    "admin_remove_reason",
    "any_member_rack",
    "changelog_partitions",
    "classic_state",
    "encode_assignments",
    "log_prefix",
    "membership_state",
    "plain_members",
    "reaction",
    "snapshot",
    "subscription_bytes",
    "task_ids",
    "task_partitions",
    "tasks_from_answer",
    "user_data_for",
]
