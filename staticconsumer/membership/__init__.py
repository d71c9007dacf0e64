"""The group member's state machine, without I/O (h11's lesson applied to a Kafka group member).

* :mod:`._reactions` — one table: what the member does about each error code on each group API;
* :mod:`._io` — the inputs (parsed answers, "no answer", the application's requests) and the
  actions (send, assign, revoke, raise, become fatal) as plain data;
* :mod:`._classic` — :class:`ClassicMember`, the JoinGroup/SyncGroup member, eager and
  cooperative (KIP-429).

No asyncio and no aiokafka here: ``staticconsumer._classic_driver`` performs the actions.
"""

from ._classic import ClassicMember
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
)  # fmt: skip
from ._reactions import TABLE, Api, Reaction, reaction
from ._state import MemberConfig

__all__ = [
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
    "FindCoordinator",
    "HeartbeatAnswered",
    "Input",
    "JoinGroupAnswered",
    "JoinRequested",
    "LeaveGroupAnswered",
    "MemberConfig",
    "MemberState",
    "Partitions",
    "RaiseError",
    "Reaction",
    "RebalanceProtocol",
    "RequestFailed",
    "Revoke",
    "SendHeartbeat",
    "SendJoinGroup",
    "SendLeaveGroup",
    "SendSyncGroup",
    "SyncGroupAnswered",
    "TopicPartition",
    "reaction",
]
