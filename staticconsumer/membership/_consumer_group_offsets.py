"""The states of a KIP-848 consumer-group member, and its commits and committed offsets
(without I/O): what an OffsetCommit or OffsetFetch answer means (their columns of
``_reactions.CONSUMER_TABLE``), and the member id and epoch each request carries. A base of
:class:`~._consumer_group.ConsumerGroupMember`, which holds the state read here."""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable
from typing import Any

from ..protocol import LEAVE_GROUP_MEMBER_EPOCH, ErrorCode, error_name
from ._io import Action, Backoff, BecomeFatal, CommitOutcome, FindCoordinator
from ._log import LogIdentity, MemberLog
from ._reactions import Api, GroupProtocol, Reaction, reaction
from ._state import offset_fetch_verdict

log = logging.getLogger(__name__)

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
    #: The engine's verdict on its fatal reaction: fenced (:attr:`Reaction.FENCED`), not failed.
    #: Sticks with the FATAL state; False until then.
    fenced: bool = False
    identity: LogIdentity

    @property
    def _offsets_log(self) -> MemberLog:
        return self.identity.logger(log)

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
        """An OffsetCommit answer (first failed partition's code, or NONE), as its column of
        ``CONSUMER_TABLE`` says: RAISE fails the commit and leaves the membership alone (the
        heartbeat decides); RETRY (a stale epoch) sends it again with the next heartbeat's."""
        if self.state is ConsumerGroupState.FATAL:
            return CommitOutcome.FAILED, []
        what = reaction(Api.OFFSET_COMMIT, code, _CONSUMER)
        if what is Reaction.OK:
            return CommitOutcome.DONE, []
        self._offsets_log.warning("OffsetCommit: %s -> %s", error_name(code), what.value)
        if what is Reaction.RETRY:
            return CommitOutcome.RETRY, [Backoff()]
        if what is Reaction.FIND_COORDINATOR:
            self.coordinator = None
            return CommitOutcome.RETRY, [Backoff(), FindCoordinator()]
        if what.fatal:
            return CommitOutcome.FAILED, [self._become_fatal(Api.OFFSET_COMMIT, code, what)]
        return CommitOutcome.FAILED, []

    def _become_fatal(self, api: Api, code: int, what: Reaction) -> BecomeFatal:
        """The member is finished (a FATAL or FENCED reaction): the state sticks, and the engine
        says whether it was fenced."""
        self.state = ConsumerGroupState.FATAL
        self.fenced = what is Reaction.FENCED
        return BecomeFatal(api, code, fenced=self.fenced)

    def commit_no_answer(self) -> tuple[CommitOutcome, list[Action]]:
        return self.on_commit_answer(ErrorCode.COORDINATOR_NOT_AVAILABLE)

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, list[Action]]:
        """As the classic member's (``_state.offset_fetch_verdict``), from the OffsetFetch
        column of ``CONSUMER_TABLE``."""
        if self.terminal:
            return CommitOutcome.FAILED, ErrorCode.NONE, []
        outcome, code, find_coordinator = offset_fetch_verdict(codes, self._offsets_log,
                                                               _CONSUMER)  # fmt: skip
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
