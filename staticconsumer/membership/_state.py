"""The state of a classic-protocol group member and what every error code does to it.

:class:`MemberCore` holds what :class:`~staticconsumer.membership._classic.ClassicMember` (the
join, sync and heartbeat flow) builds on: identity, generation, owned partitions, the fatal
error; the reaction to each error code (:data:`~._reactions.TABLE`); and commits, which run on
the application's task while the flow goes on. No I/O, no asyncio.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from ..events import PartitionsRevoked, SessionExpired
from ..protocol import ErrorCode, error_name
from . import _reasons as why
from ._io import (
    Action,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    Emit,
    FindCoordinator,
    MemberState,
    Partitions,
    RaiseError,
    RebalanceProtocol,
    Revoke,
)
from ._log import LogIdentity, MemberLog
from ._reactions import Api, GroupProtocol, Reaction, reaction
from ._status import MembershipState, classic_state

log = logging.getLogger(__name__)

UNKNOWN_MEMBER_ID = ""
NO_GENERATION = -1
REVOKED_LOST = "lost"


@dataclass(frozen=True)
class MemberConfig:
    group_id: str
    group_instance_id: str | None
    session_timeout_ms: int
    heartbeat_interval_ms: int
    max_poll_interval_ms: int
    #: As Java chooses it: the most advanced protocol every configured assignor supports, so a
    #: member offering ["cooperative-sticky", "range"] stays eager (the first bounce of an
    #: eager -> cooperative upgrade) and one offering ["cooperative-sticky"] is cooperative.
    rebalance_protocol: RebalanceProtocol = RebalanceProtocol.EAGER
    #: Only to name the member in its log lines (``_log``).
    client_id: str = ""


def offset_fetch_verdict(
    codes: Iterable[int], member_log: MemberLog, protocol: GroupProtocol = GroupProtocol.CLASSIC
) -> tuple[CommitOutcome, int, bool]:
    """What an OffsetFetch answer's error codes (the group's, then each partition's) mean, as
    ``protocol``'s OffsetFetch column says: DONE when every offset in it can be used; RETRY when
    any code says "ask again" (the answer is then not used at all: a partition without a usable
    row must never start from ``auto_offset_reset``), with True when the coordinator must be
    found again first; FAILED with the code to raise otherwise."""
    retry: bool | None = None
    for code in codes:
        what = reaction(Api.OFFSET_FETCH, code, protocol)
        if what is Reaction.OK:
            continue
        if what is Reaction.FIND_COORDINATOR:
            member_log.warning("OffsetFetch: %s -> %s", error_name(code), what.value)
            retry = True
        elif what is Reaction.RETRY:
            member_log.info("OffsetFetch: %s -> %s", error_name(code), what.value)
            retry = retry or False
        else:
            return CommitOutcome.FAILED, code, False
    if retry is not None:
        return CommitOutcome.RETRY, ErrorCode.NONE, retry
    return CommitOutcome.DONE, ErrorCode.NONE, False


class MemberCore:
    """State, error reactions and commits of one classic group member (module docstring)."""

    def __init__(self, config: MemberConfig) -> None:
        self.config = config
        #: Who this member is in its log lines (``_log``); the driver's parts log as it too.
        self.identity = LogIdentity(config.group_id, config.group_instance_id, config.client_id,
                                    lambda: self.member_id)  # fmt: skip
        self.state = MemberState.UNJOINED
        self.member_id = UNKNOWN_MEMBER_ID
        self.generation_id = NO_GENERATION
        self.protocol: str | None = None
        self.is_leader = False
        self.coordinator: int | None = None
        #: Partitions handed to the application and not revoked since.
        self.owned: Partitions = ()
        self._lost = False  # owned partitions belong to a generation that is gone
        self._join_reason = why.JOIN_REASON_INITIAL
        self._enforced: list[str] = []
        self._rejoin = False  # STABLE, but a join is due
        self._next_heartbeat: float | None = None
        self._last_heartbeat_ok: float | None = None
        self._idle_reset = False  # reset for max_poll_interval_ms: join once the app polls again
        self._leaving: str | None = None  # reason of the LeaveGroup in flight
        self._join_unsent = False  # JOINING, but the JoinGroup is not on the wire yet
        self._join_prepared = False  # the listener heard of this rebalance (until it completes)
        #: The member has held an assignment (possibly empty) since it last joined from scratch:
        #: a rebalance keeps it a member of the group; losing the generation (:meth:`_reset`)
        #: does not. Readiness reads it (``_status.Membership.ready``).
        self.in_group = False
        #: The exception that finished this member, set by the driver after :class:`BecomeFatal`.
        self.fatal_error: BaseException | None = None
        #: The engine's verdict on its fatal reaction: fenced (:attr:`Reaction.FENCED`), not
        #: failed. Sticks with the FATAL state.
        self.fenced = False

    @property
    def _core_log(self) -> MemberLog:
        return self.identity.logger(log)

    # -- queries -----------------------------------------------------------------------------

    @property
    def rebalance_protocol(self) -> RebalanceProtocol:
        return self.config.rebalance_protocol

    @property
    def is_static(self) -> bool:
        return self.config.group_instance_id is not None

    @property
    def terminal(self) -> bool:
        return self.state in (MemberState.FATAL, MemberState.CLOSED)

    @property
    def join_due(self) -> bool:
        return self.state is MemberState.UNJOINED or (
            self.state is MemberState.STABLE and self._rejoin
        )

    def membership_state(self, *, subscribed: bool, handing_over: bool) -> MembershipState:
        """This engine's state as the application sees it (:func:`~._status.classic_state`),
        ``fenced`` or ``failed`` as the engine decided; ``subscribed`` and ``handing_over`` are
        the driver's to say."""
        return classic_state(self.state, self.generation_id, subscribed=subscribed,
                             handing_over=handing_over, fenced=self.fenced)  # fmt: skip

    def next_wakeup(self, now: float) -> float | None:
        """Seconds until :meth:`poll` has something to do (a heartbeat), or None."""
        if self.state is not MemberState.STABLE or self._next_heartbeat is None:
            return None
        return max(0.0, self._next_heartbeat - now)

    def _request_join(self, reason: str | None) -> None:
        if reason is not None:
            self._join_reason = reason
        if self.state is MemberState.STABLE:
            self._rejoin = True

    def _on_no_answer(self, api: Api) -> list[Action]:
        """No answer: as if the coordinator answered COORDINATOR_NOT_AVAILABLE. (A LeaveGroup
        without an answer, sent when a dynamic member gives up for max_poll_interval_ms, is
        raised to the application once, as it always was, though its column says IGNORE for an
        answer: see ``_on_error``.)"""
        self._core_log.warning("%s got no answer", api.value)
        return self._on_error(api, ErrorCode.COORDINATOR_NOT_AVAILABLE)

    # -- errors: _reactions.TABLE decides ---------------------------------------------------------

    def _on_error(self, api: Api, code: int) -> list[Action]:
        what = reaction(api, code)
        self._core_log.warning("%s failed: %s -> %s", api.value, error_name(code), what.value)
        in_join = api in (Api.JOIN_GROUP, Api.SYNC_GROUP) and self.state in (
            MemberState.JOINING,
            MemberState.ASSIGNING,
            MemberState.SYNCING,
        )
        if what.fatal:
            self.state = MemberState.FATAL
            self.fenced = what is Reaction.FENCED
            return [BecomeFatal(api, code, fenced=self.fenced)]
        if in_join:
            self.state = MemberState.UNJOINED
            self._join_reason = why.JOIN_REASON_REJOIN_AFTER_ERROR
        if what is Reaction.FIND_COORDINATOR:
            return self._coordinator_dead()
        if what is Reaction.RETRY:
            return [Backoff()]
        if what is Reaction.REJOIN:
            self._request_join(why.JOIN_REASON_GROUP_REBALANCING)
            return []
        if what is Reaction.RESET:
            return self._reset(api)
        return [RaiseError(api, code), Backoff()]  # RAISE; IGNORE only from _on_no_answer

    def _coordinator_dead(self) -> list[Action]:
        """Forget the coordinator; look it up again after a backoff (Java and aiokafka back off
        too: a coordinator still loading answers NOT_COORDINATOR at once, again and again)."""
        self.coordinator = None
        return [Backoff(), FindCoordinator()]

    def _reset(self, api: Api | None) -> list[Action]:
        """The generation is gone: forget member id and generation; owned partitions are lost."""
        actions: list[Action] = []
        if api is not None and self.member_id != UNKNOWN_MEMBER_ID:
            actions.append(self._emit(SessionExpired, api=api.value))
        self.member_id = UNKNOWN_MEMBER_ID
        self.generation_id = NO_GENERATION
        self.is_leader = False
        self.in_group = False
        self._lost = bool(self.owned)
        self._join_reason = why.JOIN_REASON_REJOIN_AFTER_ERROR
        self.state = MemberState.UNJOINED
        return actions

    # -- commits ------------------------------------------------------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None:
        """Generation and member id an OffsetCommit carries now; None while the member is not
        in a stable generation (as Java: a commit during a rebalance fails at once, and the
        member's partitions are committed on revoke instead). Commit-on-revoke before a
        JoinGroup still counts as stable: the generation is valid until the JoinGroup is sent.
        Partitions assigned by the application (``assign()``) commit outside any generation."""
        if not auto_assigned:
            return NO_GENERATION, UNKNOWN_MEMBER_ID
        if self.state is MemberState.STABLE or self._join_unsent:
            return self.generation_id, self.member_id
        return None

    def join_sent(self) -> None:
        """The driver put the JoinGroup on the wire: commits wait for the next generation."""
        self._join_unsent = False

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, list[Action]]:
        """An OffsetCommit answer (first failed partition's code, or NONE): whether the commit
        is done, worth retrying, or failed; plus what it means for the membership. An answer
        about a generation the member has left already (``generation_sent``) changes nothing
        but the commit's outcome (Java's check before resetting the generation)."""
        if self.terminal:
            return CommitOutcome.FAILED, []
        what = reaction(Api.OFFSET_COMMIT, code)
        stale = generation_sent is not None and generation_sent != self.generation_id
        if stale and what in (Reaction.REJOIN, Reaction.RESET):
            return CommitOutcome.FAILED, []
        if what is Reaction.OK:
            return CommitOutcome.DONE, []
        if what is Reaction.RETRY:
            return CommitOutcome.RETRY, [Backoff()]
        if what is Reaction.FIND_COORDINATOR:
            return CommitOutcome.RETRY, self._coordinator_dead()
        if what is Reaction.RAISE:
            return CommitOutcome.FAILED, []
        return CommitOutcome.FAILED, self._on_error(Api.OFFSET_COMMIT, code)

    def commit_no_answer(self) -> tuple[CommitOutcome, list[Action]]:
        return CommitOutcome.RETRY, self._on_no_answer(Api.OFFSET_COMMIT)

    # -- committed offsets --------------------------------------------------------------------

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, list[Action]]:
        """An OffsetFetch answer's error codes (the group's, then each partition's): DONE when
        every offset in it can be used; RETRY when any code says "ask again" (the answer is then
        not used at all: a partition without a usable row must never start from
        ``auto_offset_reset``); FAILED with the code to raise otherwise. The outcome names the
        request, not a commit (:class:`CommitOutcome` serves both)."""
        if self.terminal:
            return CommitOutcome.FAILED, ErrorCode.NONE, []
        outcome, code, find_coordinator = offset_fetch_verdict(codes, self._core_log)
        if find_coordinator:
            return outcome, code, self._coordinator_dead()
        return outcome, code, [Backoff()] if outcome is CommitOutcome.RETRY else []

    def offset_fetch_identity(self) -> tuple[str | None, int]:
        """Member id and epoch an OffsetFetch carries: none for a classic member (as Java)."""
        return None, NO_GENERATION

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, list[Action]]:
        return CommitOutcome.RETRY, ErrorCode.NONE, self._on_no_answer(Api.OFFSET_FETCH)

    def _revoke(self, partitions: Partitions, *, lost: bool, reason: str) -> list[Action]:
        self.owned = tuple(tp for tp in self.owned if tp not in partitions)
        return [
            self._emit(PartitionsRevoked, partitions=list(partitions), reason=reason),
            Revoke(partitions, lost=lost, reason=REVOKED_LOST if lost else reason),
        ]

    def fatal(self, error: BaseException) -> None:
        """Record the exception that finished the member (after :class:`BecomeFatal`)."""
        self.state = MemberState.FATAL
        if self.fatal_error is None:
            self.fatal_error = error

    def _emit(self, kind: type, **fields: object) -> Emit:
        return Emit(kind, self.member_id, self.generation_id, dict(fields))
