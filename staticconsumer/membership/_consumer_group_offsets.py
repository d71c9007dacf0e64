"""The states of a KIP-848 consumer-group member, and its commits and committed offsets
(without I/O): what an OffsetCommit or OffsetFetch answer means, and the member id and epoch
each request carries. A base of :class:`~._consumer_group.ConsumerGroupMember`, which holds the
state read here."""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable
from typing import Any

from ..protocol import LEAVE_GROUP_MEMBER_EPOCH, ErrorCode, error_name
from ._io import Action, Backoff, BecomeFatal, CommitOutcome, FindCoordinator
from ._reactions import Api, Reaction
from ._state import offset_fetch_verdict

log = logging.getLogger("staticconsumer")

#: What an OffsetCommit answer means to a consumer-protocol member (others: RAISE, the commit
#: fails). A stale epoch is the heartbeat's news arriving late: the commit is sent again with the
#: epoch the next heartbeat brings, as Java's CommitRequestManager does.
COMMIT_REACTIONS: dict[int, Reaction] = {
    ErrorCode.NONE: Reaction.OK,
    ErrorCode.COORDINATOR_NOT_AVAILABLE: Reaction.FIND_COORDINATOR,
    ErrorCode.NOT_COORDINATOR: Reaction.FIND_COORDINATOR,
    ErrorCode.REQUEST_TIMED_OUT: Reaction.FIND_COORDINATOR,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: Reaction.RETRY,
    ErrorCode.STALE_MEMBER_EPOCH: Reaction.RETRY,
    ErrorCode.FENCED_INSTANCE_ID: Reaction.FATAL,
}


class ConsumerGroupState(enum.Enum):
    UNSUBSCRIBED = "unsubscribed"
    JOINING = "joining"
    RECONCILING = "reconciling"
    ACKNOWLEDGING = "acknowledging"
    STABLE = "stable"
    POLL_EXPIRED = "poll_expired"
    FATAL = "fatal"
    CLOSED = "closed"


#: The states in which the member holds its epoch's assignment.
_HOLDING = frozenset(
    {ConsumerGroupState.STABLE, ConsumerGroupState.RECONCILING, ConsumerGroupState.ACKNOWLEDGING}
)


class ConsumerGroupOffsets:
    """Commit and offset-fetch reactions (module docstring)."""

    config: Any
    state: ConsumerGroupState
    member_epoch: int
    coordinator: int | None

    @property
    def member_id(self) -> str:
        return str(self.config.member_id)

    @property
    def terminal(self) -> bool:
        return self.state in (ConsumerGroupState.FATAL, ConsumerGroupState.CLOSED)

    # -- commits and committed offsets ----------------------------------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None:
        """Member epoch and member id an OffsetCommit carries now; None while the member holds
        no epoch (joining, or lost its partitions). Partitions assigned by the application
        (``assign()``) commit outside the group (epoch -1, no member id)."""
        if not auto_assigned:
            return LEAVE_GROUP_MEMBER_EPOCH, ""
        if self.member_epoch > 0 and self.state in _HOLDING:
            return self.member_epoch, self.member_id
        return None

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, list[Action]]:
        """An OffsetCommit answer (first failed partition's code, or NONE), as
        :data:`COMMIT_REACTIONS` says."""
        if self.state is ConsumerGroupState.FATAL:
            return CommitOutcome.FAILED, []
        what = COMMIT_REACTIONS.get(code, Reaction.RAISE)
        if what is Reaction.OK:
            return CommitOutcome.DONE, []
        log.warning("OffsetCommit for group %s: %s -> %s", self.config.group_id,
                    error_name(code), what.value)  # fmt: skip
        if what is Reaction.RETRY:
            return CommitOutcome.RETRY, [Backoff()]
        if what is Reaction.FIND_COORDINATOR:
            self.coordinator = None
            return CommitOutcome.RETRY, [Backoff(), FindCoordinator()]
        if what is Reaction.FATAL:
            self.state = ConsumerGroupState.FATAL
            return CommitOutcome.FAILED, [BecomeFatal(Api.OFFSET_COMMIT, code)]
        return CommitOutcome.FAILED, []

    def commit_no_answer(self) -> tuple[CommitOutcome, list[Action]]:
        return self.on_commit_answer(ErrorCode.COORDINATOR_NOT_AVAILABLE)

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, list[Action]]:
        """As the classic member's (``_state.offset_fetch_verdict``)."""
        if self.terminal:
            return CommitOutcome.FAILED, ErrorCode.NONE, []
        outcome, code, find_coordinator = offset_fetch_verdict(codes, self.config.group_id)
        if find_coordinator:
            self.coordinator = None
            return outcome, code, [Backoff(), FindCoordinator()]
        return outcome, code, [Backoff()] if outcome is CommitOutcome.RETRY else []

    def offset_fetch_identity(self) -> tuple[str | None, int]:
        """Member id and epoch an OffsetFetch v9+ carries (KIP-848: the coordinator checks the
        epoch, as Java's consumer sends it); none while the member holds no epoch."""
        if self.member_epoch > 0:
            return self.member_id, self.member_epoch
        return None, LEAVE_GROUP_MEMBER_EPOCH

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, list[Action]]:
        return self.on_offset_fetch_answer([ErrorCode.COORDINATOR_NOT_AVAILABLE])
