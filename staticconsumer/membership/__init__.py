"""The group member's state machine, without I/O (h11's lesson applied to a Kafka group member).

* :mod:`._reactions` — the reactions room: what the member does about each error code on each
  group API, one table per group protocol (classic, KIP-848), one :func:`reaction` lookup; the
  engines read nothing else to react, and decide there whether a fatal member was fenced;
* :mod:`._io` — the inputs (parsed answers, "no answer", the application's requests) and the
  actions (send, assign, revoke, raise, become fatal) as plain data;
* :mod:`._classic` — :class:`ClassicMember`, the JoinGroup/SyncGroup member, eager and
  cooperative (KIP-429);
* :mod:`._roster` — :class:`Roster`, the instance ids registered ahead of a scale-up, and its
  versioned record format (the admin calls in ``staticconsumer.admin`` read and write it);
* :mod:`._log` — :class:`LogIdentity`, who a member is in its log lines (the ``extra`` fields
  and the message prefix every line a consumer logs carries, ``docs/logging.md``);
* :mod:`._status` — :class:`Membership`, the member's state as the application sees it, and the
  one table from engine states to :class:`MembershipState`.

No asyncio and no aiokafka here: the drivers (``staticconsumer.drivers``) perform the actions.
"""

from ._classic import ClassicMember
from ._engine import Engine, EngineConfig
from ._io import (
    Action,
    Assign,
    AssignmentComputed,
    AssignmentFailed,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    ComputeAssignment,
    CoordinatorFound,
    Emit,
    FindCoordinator,
    HeartbeatAnswered,
    Input,
    JoinGroupAnswered,
    JoinRequested,
    LeaveGroupAnswered,
    MemberState,
    Partitions,
    RaiseError,
    RebalanceProtocol,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
    TopicPartition,
    Unsubscribed,
)  # fmt: skip
from ._log import FIELDS as LOG_FIELDS
from ._log import LogIdentity, MemberLog
from ._reactions import (
    CLASSIC_TABLE,
    CONSUMER_TABLE,
    TABLE,
    Api,
    GroupProtocol,
    Reaction,
    reaction,
)
from ._roster import (
    DEFAULT_ROSTER_TOPIC,
    DEFAULT_ROSTER_WAIT_MS,
    ROSTER_FORMAT_VERSION,
    Roster,
    RosterStatus,
)
from ._state import MemberConfig
from ._status import (
    CLASSIC_STATES,
    Lifecycle,
    Membership,
    MembershipState,
    classic_state,
    membership_state,
    snapshot,
)

__all__ = [
    "CLASSIC_STATES",
    "CLASSIC_TABLE",
    "CONSUMER_TABLE",
    "DEFAULT_ROSTER_TOPIC",
    "DEFAULT_ROSTER_WAIT_MS",
    "LOG_FIELDS",
    "ROSTER_FORMAT_VERSION",
    "TABLE",
    "Action",
    "Api",
    "Assign",
    "AssignmentComputed",
    "AssignmentFailed",
    "Backoff",
    "BecomeFatal",
    "ClassicMember",
    "CommitOutcome",
    "ComputeAssignment",
    "CoordinatorFound",
    "Emit",
    "Engine",
    "EngineConfig",
    "FindCoordinator",
    "GroupProtocol",
    "HeartbeatAnswered",
    "Input",
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
    "RebalanceProtocol",
    "RequestFailed",
    "Revoke",
    "Roster",
    "RosterStatus",
    "SendHeartbeat",
    "SendJoinGroup",
    "SendLeaveGroup",
    "SendSyncGroup",
    "SyncGroupAnswered",
    "TopicPartition",
    "Unsubscribed",
    "classic_state",
    "membership_state",
    "reaction",
    "snapshot",
]
