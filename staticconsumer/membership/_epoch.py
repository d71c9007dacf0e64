"""What the two heartbeat members share: the KIP-848 consumer member (``_consumer_group``) and
the KIP-1071 streams member (``_streams``). Both hold a member epoch given by the coordinator,
commit with it (OffsetCommit v9+) and fetch committed offsets with it; what an answer means is
their protocol's column of ``_reactions``. Pure functions over the member's public state (each
engine stays one state machine in its own file and calls these in one line)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ..protocol import ErrorCode, error_name
from ._io import Backoff, BecomeFatal, CommitOutcome, CommonAction, FindCoordinator
from ._log import MemberLog
from ._offset_fetch import offset_fetch_verdict
from ._reactions import Api, GroupProtocol, Reaction, reaction

#: The epoch a commit of partitions the application assigned itself carries (outside the group).
OUTSIDE_THE_GROUP_EPOCH = -1


class EpochMember(Protocol):
    """What these functions read and write of a heartbeat member."""

    coordinator: int | None
    member_epoch: int

    @property
    def member_id(self) -> str: ...

    @property
    def terminal(self) -> bool: ...

    @property
    def fatal_verdict(self) -> bool:
        """FATAL: the member was finished (by a fence or another fatal answer)."""
        ...

    @property
    def holding(self) -> bool:
        """It holds its epoch's assignment (stable, reconciling or acknowledging)."""
        ...

    @property
    def member_log(self) -> MemberLog: ...

    def become_fatal(self, api: Api, code: int, what: Reaction) -> BecomeFatal: ...


def commit_identity(member: EpochMember, auto_assigned: bool) -> tuple[int, str] | None:
    """Member epoch and member id an OffsetCommit carries now; None while the member holds no
    epoch (joining, or lost its assignment). Partitions assigned by the application
    (``assign()``) commit outside the group (epoch -1, no member id)."""
    if not auto_assigned:
        return OUTSIDE_THE_GROUP_EPOCH, ""
    if member.member_epoch > 0 and member.holding:
        return member.member_epoch, member.member_id
    return None


def not_held(
    partitions: Iterable[tuple[str, int]], owned: Iterable[tuple[str, int]],
    revoking: Iterable[tuple[str, int]],
) -> tuple[tuple[str, int], ...]:  # fmt: skip
    """Of ``partitions``, those neither ``owned`` nor being revoked: what a commit at the
    member's epoch leaves out (KIP-1251: the coordinator takes a commit at the current epoch
    whole, so a commit sent again after STALE_MEMBER_EPOCH must leave out what moved)."""
    held = {*owned, *revoking}
    return tuple(tp for tp in partitions if tp not in held)


def on_commit_answer(
    member: EpochMember, code: int, protocol: GroupProtocol
) -> tuple[CommitOutcome, Sequence[CommonAction]]:
    """An OffsetCommit answer (first failed partition's code, or NONE), as the protocol's
    column says: RAISE fails the commit and leaves the membership alone (the heartbeat
    decides); RETRY (a stale epoch) sends it again with the next heartbeat's; a fatal reaction
    finishes the member."""
    if member.fatal_verdict:
        return CommitOutcome.FAILED, []
    what = reaction(Api.OFFSET_COMMIT, code, protocol=protocol)
    if what is Reaction.OK:
        return CommitOutcome.DONE, []
    member.member_log.warning("OffsetCommit: %s -> %s", error_name(code), what.value)
    if what is Reaction.RETRY:
        return CommitOutcome.RETRY, [Backoff()]
    if what is Reaction.FIND_COORDINATOR:
        member.coordinator = None
        return CommitOutcome.RETRY, [Backoff(), FindCoordinator()]
    if what.fatal:
        return CommitOutcome.FAILED, [member.become_fatal(Api.OFFSET_COMMIT, code, what)]
    return CommitOutcome.FAILED, []


def on_offset_fetch_answer(
    member: EpochMember, codes: Iterable[int], protocol: GroupProtocol
) -> tuple[CommitOutcome, int, Sequence[CommonAction]]:
    """As the classic member's (``_offset_fetch.offset_fetch_verdict``), from the protocol's
    OffsetFetch column."""
    if member.terminal:
        return CommitOutcome.FAILED, ErrorCode.NONE, []
    outcome, code, find_coordinator = offset_fetch_verdict(codes, member.member_log,
                                                           protocol=protocol)  # fmt: skip
    if find_coordinator:
        member.coordinator = None
        return outcome, code, [Backoff(), FindCoordinator()]
    return outcome, code, [Backoff()] if outcome is CommitOutcome.RETRY else []


def offset_fetch_identity(member: EpochMember) -> tuple[str | None, int]:
    """Member id and epoch an OffsetFetch v9+ carries (the coordinator checks the epoch, as
    Java's consumer sends it); none while the member holds no epoch."""
    if member.member_epoch > 0:
        return member.member_id, member.member_epoch
    return None, OUTSIDE_THE_GROUP_EPOCH
