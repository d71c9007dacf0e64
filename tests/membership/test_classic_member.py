"""The classic group member's state machine, without a broker: every error code on every API, and
every transition (join, sync, heartbeat, commit, leave, fatal), eager and cooperative."""

from __future__ import annotations

import pytest

from staticconsumer.events import (
    EnforceRebalanceRequested,
    GroupJoined,
    JoinGroupReason,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from staticconsumer.membership import (
    TABLE,
    Api,
    Assign,
    AssignmentComputed,
    AssignmentFailed,
    Backoff,
    BecomeFatal,
    ClassicMember,
    CommitOutcome,
    ComputeAssignment,
    CoordinatorFound,
    Emit,
    FindCoordinator,
    GroupProtocol,
    HeartbeatAnswered,
    JoinGroupAnswered,
    JoinRequested,
    LeaveGroupAnswered,
    MembershipState,
    MemberState,
    RaiseError,
    Reaction,
    RebalanceMetric,
    RebalanceProtocol,
    RecordRebalance,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
    reaction,
)
from staticconsumer.options import MembershipOperation
from staticconsumer.protocol import (
    Assignment,
    ErrorCode,
    JoinGroupMember,
    encode_assignment,
    group_partitions,
)

from ._configs import classic_config

EAGER, COOP = RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE
CLASSIC = GroupProtocol.CLASSIC  # which reactions table the lookups here read
TOPICS = ("t",)
T0 = 100.0
#: What an enforce without a reason sends: Java's ``KafkaConsumer.DEFAULT_REASON`` (KIP-800).
KIP_800_DEFAULT = "rebalance enforced by user"


def new_member(*, static: bool = True, protocol: RebalanceProtocol = EAGER) -> ClassicMember:
    config = classic_config("i-0" if static else None, session_timeout_ms=10_000,
                            heartbeat_interval_ms=3_000, max_poll_interval_ms=300_000,
                            rebalance_protocol=protocol)  # fmt: skip
    member = ClassicMember(config)
    member.handle(CoordinatorFound(1))
    return member


def assignment(*tps: tuple[str, int]) -> bytes:
    return encode_assignment(Assignment(partitions=group_partitions(sorted(tps))))


def joined(member_id: str = "m-1", generation: int = 1, leader: str = "other") -> JoinGroupAnswered:
    return JoinGroupAnswered(ErrorCode.NONE, generation, member_id, "p", leader, False, ())


def kinds(actions: list[object]) -> list[type]:
    return [type(a) for a in actions]


def events(actions: list[object]) -> list[type]:
    return [a.kind for a in actions if isinstance(a, Emit)]


def stable(member: ClassicMember, *tps: tuple[str, int], generation: int = 1) -> list[object]:
    """Drive ``member`` through a follower's join to STABLE owning ``tps``."""
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined(generation=generation))
    actions = member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(*tps)))
    assert member.state is MemberState.STABLE
    assert member.poll(T0, TOPICS, 0.0) == []  # schedules the first heartbeat
    return actions


# -- the reaction table ---------------------------------------------------------------------------

#: The codes issue 11 names, each of which must have an explicit row.
NAMED = [
    ErrorCode.FENCED_INSTANCE_ID, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION,
    ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.MEMBER_ID_REQUIRED, ErrorCode.NOT_COORDINATOR,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    ErrorCode.UNKNOWN_SERVER_ERROR, ErrorCode.INVALID_SESSION_TIMEOUT,
    ErrorCode.GROUP_MAX_SIZE_REACHED,
]  # fmt: skip


@pytest.mark.parametrize("code", NAMED, ids=lambda c: ErrorCode(c).name)
def test_every_named_code_has_an_explicit_row_for_every_api(code: int) -> None:
    assert set(TABLE[code]) == {
        Api.JOIN_GROUP, Api.SYNC_GROUP, Api.HEARTBEAT, Api.LEAVE_GROUP, Api.OFFSET_COMMIT,
        Api.OFFSET_FETCH,
    }  # fmt: skip


def test_an_unknown_code_is_raised_to_the_application() -> None:
    assert reaction(Api.HEARTBEAT, 9999, protocol=CLASSIC) is Reaction.RAISE
    # IGNORE on LeaveGroup: the member is leaving anyway
    assert reaction(Api.LEAVE_GROUP, 9999, protocol=CLASSIC) is Reaction.IGNORE


def test_the_classic_table_says_nothing_about_kip_848_apis() -> None:
    with pytest.raises(ValueError, match="ConsumerGroupHeartbeat is not a column of the classic"):
        reaction(Api.CONSUMER_GROUP_HEARTBEAT, ErrorCode.NONE, protocol=CLASSIC)


# -- each row on each API, from the state in which that API is answered ---------------------------

CASES = [(api, code) for code, row in TABLE.items() for api in row if code != ErrorCode.NONE]


def _answer(member: ClassicMember, api: Api, code: int) -> list[object]:
    if api is Api.JOIN_GROUP:
        member.poll(T0, TOPICS, 0.0)
        return member.handle(JoinGroupAnswered(code, member_id="m-given"))
    if api is Api.SYNC_GROUP:
        member.poll(T0, TOPICS, 0.0)
        member.handle(joined())
        return member.handle(SyncGroupAnswered(code))
    if api is Api.HEARTBEAT:
        stable(member, ("t", 0))
        assert kinds(member.poll(T0 + 3, TOPICS, 0.0)) == [SendHeartbeat]
        return member.handle(HeartbeatAnswered(code, T0 + 3))
    stable(member, ("t", 0))
    if api is Api.LEAVE_GROUP:
        assert kinds(member.close(MembershipOperation.LEAVE_GROUP, "bye")) == [Emit, SendLeaveGroup]
        return member.handle(LeaveGroupAnswered(code))
    if api is Api.OFFSET_FETCH:
        outcome, raised, actions = member.on_offset_fetch_answer([code])
        assert raised == (code if outcome is CommitOutcome.FAILED else ErrorCode.NONE)
    else:
        outcome, actions = member.on_commit_answer(code)
    assert outcome is {
        Reaction.RETRY: CommitOutcome.RETRY, Reaction.FIND_COORDINATOR: CommitOutcome.RETRY,
    }.get(reaction(api, code, protocol=CLASSIC), CommitOutcome.FAILED)  # fmt: skip
    return actions


@pytest.mark.parametrize("protocol", [EAGER, COOP])
@pytest.mark.parametrize(("api", "code"), CASES, ids=lambda x: getattr(x, "name", x))
def test_each_error_code_on_each_api(api: Api, code: int, protocol: RebalanceProtocol) -> None:
    member = new_member(protocol=protocol)
    actions = _answer(member, api, code)
    what = reaction(api, code, protocol=CLASSIC)
    in_join = api in (Api.JOIN_GROUP, Api.SYNC_GROUP)
    if what.fatal:
        fenced = what is Reaction.FENCED  # the engine's verdict, read by the application
        assert actions == [BecomeFatal(api, code, fenced=fenced)] and member.fenced is fenced
        assert member.state is MemberState.FATAL
        assert member.membership_state(subscribed=True, handing_over=False) is (
            MembershipState.FENCED if fenced else MembershipState.FAILED
        )  # fmt: skip
        assert member.poll(T0 + 60, TOPICS, 0.0) == []  # the state sticks: nothing more is sent
        assert member.handle(HeartbeatAnswered(ErrorCode.NONE, T0)) == []
        assert member.on_commit_answer(ErrorCode.NONE)[0] is CommitOutcome.FAILED
    elif what is Reaction.FIND_COORDINATOR:
        assert actions[-2:] == [Backoff(), FindCoordinator()] and member.coordinator is None
        assert member.poll(T0, TOPICS, 0.0) == [FindCoordinator()]
    elif what is Reaction.RETRY:
        assert actions == [Backoff()]
        assert member.coordinator == 1
    elif what is Reaction.REJOIN:
        assert actions == []
        assert member.join_due
        if not in_join:
            assert member.member_id == "m-1" and member.generation_id == 1
            assert member.owned == (("t", 0),)  # kept until the next join decides
    elif what is Reaction.RESET:
        assert member.member_id == "" and member.generation_id == -1 and member.join_due
        if not in_join:
            assert events(actions) == [SessionExpired]
            nxt = member.poll(T0 + 1, TOPICS, 0.0)
            revoke = next(a for a in nxt if isinstance(a, Revoke))
            assert revoke.lost and revoke.partitions == (("t", 0),)  # nothing committed for them
    elif what is Reaction.JOIN_WITH_MEMBER_ID:
        assert actions == [] and member.member_id == "m-given"
        join = next(a for a in member.poll(T0, TOPICS, 0.0) if isinstance(a, SendJoinGroup))
        assert join.member_id == "m-given" and "KIP-394" in join.reason
    elif what is Reaction.IGNORE:
        assert api is Api.LEAVE_GROUP and actions == []  # logged: no GroupLeft, nothing raised
        assert member.state is MemberState.CLOSED and member.handle(LeaveGroupAnswered(0)) == []
    else:
        assert what is Reaction.RAISE
        if api in (Api.OFFSET_COMMIT, Api.OFFSET_FETCH):
            assert actions == []  # the caller of commit() / committed() gets it
        else:
            assert actions == [RaiseError(api, code), Backoff()]
    if in_join and not what.fatal and what is not Reaction.JOIN_WITH_MEMBER_ID:
        assert member.state is MemberState.UNJOINED


# -- joins ----------------------------------------------------------------------------------------


def test_a_follower_joins_syncs_and_is_handed_its_assignment() -> None:
    member = new_member()
    actions = member.poll(T0, TOPICS, 0.0)
    assert kinds(actions) == [Revoke, Emit, SendJoinGroup]
    assert actions[0] == Revoke((), lost=False, reason="rebalance"), "eager: nothing held"
    assert actions[2] == SendJoinGroup("", -1, (), "initial join of the consumer")
    assert member.handle(joined()) == [SendSyncGroup(1, "m-1", "p", ())]
    actions = member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(("t", 1), ("t", 0))))
    assert events(actions) == [GroupJoined, PartitionsAssigned]
    assert actions[-1] == Assign((("t", 0), ("t", 1)), (("t", 0), ("t", 1)))
    assert member.state is MemberState.STABLE and member.generation_id == 1


def test_the_leader_plans_then_syncs_the_plan() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    people = (JoinGroupMember("m-1", "i-0", b""),)
    answer = JoinGroupAnswered(ErrorCode.NONE, 4, "m-1", "p", "m-1", True, people)
    assert member.handle(answer) == [ComputeAssignment("p", people, True)]
    assert member.is_leader and member.state is MemberState.ASSIGNING
    plan = (("m-1", assignment(("t", 0))),)
    assert member.handle(AssignmentComputed(plan)) == [SendSyncGroup(4, "m-1", "p", plan)]


def test_answers_that_arrive_in_the_wrong_state_are_ignored() -> None:
    member = new_member()
    assert member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment())) == []
    assert member.handle(joined()) == []
    assert member.state is MemberState.UNJOINED


def test_no_answer_means_the_coordinator_is_presumed_dead() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    assert member.handle(RequestFailed(Api.JOIN_GROUP)) == [Backoff(), FindCoordinator()]
    assert member.state is MemberState.UNJOINED and member.coordinator is None


def test_enforced_reasons_coalesce_into_one_join_in_call_order() -> None:
    member = new_member()
    stable(member)
    first = member.handle(JoinRequested("a", enforced=True))
    member.handle(JoinRequested("b", enforced=True))
    member.handle(JoinRequested("a", enforced=True))
    assert events(first) == [EnforceRebalanceRequested]
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup)
    assert join.reason == "rebalance enforced by user: a; b"
    assert join.generation_id == 1 and join.member_id == "m-1"


def _to(member: ClassicMember, state: MemberState, generation: int) -> None:
    """Drive a STABLE ``member`` into ``state`` of the rebalance to ``generation``."""
    member.handle(JoinRequested("metadata"))
    member.poll(T0, TOPICS, 0.0)
    if state is MemberState.JOINING:
        return
    leader = "m-1" if state is MemberState.ASSIGNING else "other"
    member.handle(joined(generation=generation, leader=leader))
    assert member.state is state


@pytest.mark.parametrize(
    "state", [MemberState.JOINING, MemberState.ASSIGNING, MemberState.SYNCING],
    ids=lambda s: s.value,
)  # fmt: skip
def test_an_enforce_during_a_rebalance_rejoins_once_that_rebalance_completes(
    state: MemberState,
) -> None:
    """Issue 29: the rebalance in flight may have planned without what made the caller enforce,
    so the request is kept and performed after it: one more generation, with the reason."""
    member = new_member()
    stable(member)
    _to(member, state, generation=2)
    actions = member.handle(JoinRequested("new shard map", enforced=True))
    assert events(actions) == [EnforceRebalanceRequested]
    assert member.poll(T0, TOPICS, 0.0) == []  # one join at a time: the current one goes on
    if state is MemberState.JOINING:
        member.handle(joined(generation=2))
    elif state is MemberState.ASSIGNING:
        member.handle(AssignmentComputed((("m-1", assignment(("t", 0))),)))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(("t", 0))))
    assert member.state is MemberState.STABLE and member.generation_id == 2
    assert member.join_due
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup)
    assert join.reason == "rebalance enforced by user: new shard map"
    assert join.generation_id == 2
    member.handle(joined(generation=3))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(("t", 0))))
    assert not member.join_due  # performed once, not again


@pytest.mark.parametrize(
    "state", [MemberState.JOINING, MemberState.ASSIGNING, MemberState.SYNCING],
    ids=lambda s: s.value,
)  # fmt: skip
@pytest.mark.parametrize("reason", ["the subscription changed", "metadata changed"])
def test_a_join_asked_for_during_a_rebalance_is_performed_once_it_completes(
    state: MemberState, reason: str
) -> None:
    """A subscription or partition-count change during a rebalance: the JoinGroup on the wire
    (or the plan made) predates it, so the member joins again once the rebalance completes, with
    the change's reason (Java's ``rejoinNeededOrPending`` compares the joined subscription and
    the planned metadata after each rebalance). Before: the request was dropped, and a new
    subscription was never joined with."""
    member = new_member()
    stable(member)
    _to(member, state, generation=2)
    member.join_sent()  # the driver put the JoinGroup on the wire
    assert member.handle(JoinRequested(reason)) == []
    if state is MemberState.JOINING:
        member.handle(joined(generation=2))
    elif state is MemberState.ASSIGNING:
        member.handle(AssignmentComputed((("m-1", assignment(("t", 0))),)))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(("t", 0))))
    assert member.state is MemberState.STABLE and member.join_due
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup) and join.reason == reason
    member.handle(joined(generation=3))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(("t", 0))))
    assert not member.join_due  # performed once


def test_a_join_asked_for_before_the_join_group_is_sent_rides_on_it() -> None:
    """Asked for while the JoinGroup is due but not on the wire: that JoinGroup is built after
    the change, so no second join follows."""
    member = new_member()
    member.handle(JoinRequested("the subscription changed"))
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup)
    member.handle(joined())
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment()))
    assert not member.join_due


def test_an_enforce_while_unjoined_rides_on_the_join_that_is_due() -> None:
    """Not joined yet (or the generation was lost): the next JoinGroup is sent after the call,
    so it carries the reason and no further join follows."""
    member = new_member()
    member.handle(JoinRequested("x", enforced=True))
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup) and join.reason == "rebalance enforced by user: x"
    member.handle(joined())
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment()))
    assert not member.join_due


def test_an_enforce_during_a_rebalance_survives_a_failed_sync() -> None:
    """The rebalance in flight fails (REBALANCE_IN_PROGRESS on SyncGroup): the re-join it causes
    is sent after the call, so it carries the reason."""
    member = new_member()
    stable(member)
    _to(member, MemberState.SYNCING, generation=2)
    member.handle(JoinRequested("x", enforced=True))
    member.handle(SyncGroupAnswered(ErrorCode.REBALANCE_IN_PROGRESS, b""))
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup) and join.reason == "rebalance enforced by user: x"
    member.handle(joined(generation=3))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment()))
    assert not member.join_due


def test_enforce_without_a_reason_sends_kip_800s_default() -> None:
    member = new_member()
    stable(member)
    member.handle(JoinRequested(KIP_800_DEFAULT, enforced=True))
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup) and join.reason == "rebalance enforced by user"


def test_enforce_without_a_reason_coalesces_with_reasons() -> None:
    member = new_member()
    stable(member)
    member.handle(JoinRequested(KIP_800_DEFAULT, enforced=True))
    member.handle(JoinRequested("b", enforced=True))
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup) and join.reason == "rebalance enforced by user: b"


def test_a_join_request_while_joining_does_not_start_a_second_join() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(JoinRequested("metadata"))
    assert member.poll(T0, TOPICS, 0.0) == []  # JoinGroup already in flight


# -- eager vs cooperative (KIP-429) ---------------------------------------------------------------


def _rejoin(member: ClassicMember, *new: tuple[str, int], topics: tuple[str, ...] = TOPICS):
    member.handle(JoinRequested("metadata"))
    before = member.poll(T0, topics, 0.0)
    member.handle(joined(generation=2))
    after = member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment(*new)))
    return before, after


def test_eager_revokes_everything_before_the_join_and_assigns_everything_after() -> None:
    member = new_member(protocol=EAGER)
    stable(member, ("t", 0), ("t", 1))
    before, after = _rejoin(member, ("t", 1), ("t", 2))
    assert Revoke((("t", 0), ("t", 1)), lost=False, reason="rebalance") in before
    join = before[-1]
    assert isinstance(join, SendJoinGroup) and join.owned == (("t", 0), ("t", 1))  # sticky hint
    assert after[-1] == Assign((("t", 1), ("t", 2)), (("t", 1), ("t", 2)))
    assert not member.join_due


def test_cooperative_revokes_nothing_before_the_join() -> None:
    member = new_member(protocol=COOP)
    stable(member, ("t", 0), ("t", 1))
    before, after = _rejoin(member, ("t", 0), ("t", 1), ("t", 2))
    assert not any(isinstance(a, Revoke) for a in before + after)
    assert after[-1] == Assign((("t", 0), ("t", 1), ("t", 2)), (("t", 2),))  # only what is new
    assert not member.join_due  # nothing revoked: no second join


def test_cooperative_revokes_only_what_moved_then_rejoins_at_once() -> None:
    member = new_member(protocol=COOP)
    stable(member, ("t", 0), ("t", 1))
    _before, after = _rejoin(member, ("t", 1))
    assert Revoke((("t", 0),), lost=False, reason="rebalance") in after
    assert after[-1] == Assign((("t", 1),), ())
    assert kinds(after).index(Revoke) < kinds(after).index(Assign)  # revoke, then assign
    assert member.join_due
    join = member.poll(T0, TOPICS, 0.0)[-1]
    assert isinstance(join, SendJoinGroup) and "KIP-429" in join.reason
    assert join.owned == (("t", 1),)


def test_cooperative_revokes_partitions_of_topics_no_longer_subscribed_before_joining() -> None:
    member = new_member(protocol=COOP)
    stable(member, ("t", 0), ("u", 0))
    before, _after = _rejoin(member, ("t", 0), topics=("t",))
    assert Revoke((("u", 0),), lost=False, reason="rebalance") in before


def test_a_lost_generation_revokes_everything_as_lost_under_cooperative_too() -> None:
    member = new_member(protocol=COOP)
    stable(member, ("t", 0))
    member.poll(T0 + 3, TOPICS, 0.0)
    member.handle(HeartbeatAnswered(ErrorCode.UNKNOWN_MEMBER_ID, T0 + 3))
    revoke = next(a for a in member.poll(T0 + 4, TOPICS, 0.0) if isinstance(a, Revoke))
    assert revoke.lost and revoke.reason == "lost"


def test_a_static_restart_with_the_same_generation_revokes_nothing_under_cooperative() -> None:
    member = new_member(protocol=COOP)
    stable(member, ("t", 0))
    _before, after = _rejoin(member, ("t", 0))
    assert not any(isinstance(a, Revoke) for a in after)
    assert events(after) == [GroupJoined, PartitionsAssigned]


# -- heartbeats and the clock ---------------------------------------------------------------------


def test_heartbeats_are_sent_every_interval() -> None:
    member = new_member()
    stable(member)
    assert member.poll(T0, TOPICS, 0.0) == []
    assert member.next_wakeup(T0) == pytest.approx(3.0)
    assert member.poll(T0 + 3, TOPICS, 0.0) == [SendHeartbeat(1, "m-1")]
    assert member.handle(HeartbeatAnswered(ErrorCode.NONE, T0 + 3)) == []
    assert member.poll(T0 + 4, TOPICS, 0.0) == []


def test_no_heartbeat_answer_within_the_session_timeout_looks_for_the_coordinator() -> None:
    member = new_member()
    stable(member)
    member.poll(T0, TOPICS, 0.0)
    assert member.poll(T0 + 11, TOPICS, 0.0) == [Backoff(), FindCoordinator()]
    assert member.generation_id == 1  # the new coordinator may still know this generation


def test_a_heartbeat_answered_rebalance_in_progress_still_counts_as_alive() -> None:
    member = new_member()
    stable(member)
    member.poll(T0, TOPICS, 0.0)
    member.poll(T0 + 3, TOPICS, 0.0)
    assert member.handle(HeartbeatAnswered(ErrorCode.REBALANCE_IN_PROGRESS, T0 + 9)) == []
    assert member.join_due


@pytest.mark.parametrize(("static", "leaves"), [(True, False), (False, True)])
def test_poll_timeout_gives_up_the_membership(static: bool, leaves: bool) -> None:
    member = new_member(static=static)
    stable(member, ("t", 0))
    actions = member.poll(T0, TOPICS, 301.0)
    assert (SendLeaveGroup("m-1", "consumer poll timeout has expired") in actions) is leaves
    assert member.member_id == "" and member.join_due
    assert member.poll(T0 + 1, TOPICS, 302.0) == [Backoff()]  # no join while nobody polls
    assert kinds(member.poll(T0 + 2, TOPICS, 0.0))[-1] is SendJoinGroup


# -- the end --------------------------------------------------------------------------------------


def test_a_static_member_stops_without_leaving() -> None:
    member = new_member(static=True)
    stable(member, ("t", 0))
    actions = member.close(MembershipOperation.DEFAULT)
    assert events(actions) == [PartitionsRevoked]
    assert not any(isinstance(a, SendLeaveGroup) for a in actions)
    assert member.state is MemberState.CLOSED and member.poll(T0, TOPICS, 0.0) == []


def test_an_explicit_leave_sends_the_reason_and_reports_it_once_answered() -> None:
    member = new_member(static=True)
    stable(member, ("t", 0))
    reason = "the consumer is being closed: scale down"
    actions = member.close(MembershipOperation.LEAVE_GROUP, reason)
    assert SendLeaveGroup("m-1", "the consumer is being closed: scale down") in actions
    left = member.handle(LeaveGroupAnswered(ErrorCode.NONE))
    assert [e.fields["reason"] for e in left if isinstance(e, Emit)] == [
        "the consumer is being closed: scale down"
    ]


def test_a_dynamic_member_leaves_on_close() -> None:
    member = new_member(static=False)
    stable(member)
    assert any(isinstance(a, SendLeaveGroup) for a in member.close(MembershipOperation.DEFAULT))


def test_a_fenced_member_sends_nothing_on_close() -> None:
    member = new_member()
    stable(member, ("t", 0))
    member.poll(T0 + 3, TOPICS, 0.0)
    member.handle(HeartbeatAnswered(ErrorCode.FENCED_INSTANCE_ID, T0 + 3))
    member.fatal(RuntimeError("fenced"))
    assert member.close(MembershipOperation.LEAVE_GROUP, "leave") == []
    assert isinstance(member.fatal_error, RuntimeError)


def test_the_first_fatal_error_is_kept() -> None:
    member = new_member()
    first, second = RuntimeError("first"), RuntimeError("second")
    member.fatal(first)
    member.fatal(second)
    assert member.fatal_error is first


def test_join_reason_event_precedes_every_join() -> None:
    member = new_member()
    assert events(member.poll(T0, TOPICS, 0.0)) == [JoinGroupReason]


def test_an_assignor_failure_rejoins_after_a_backoff() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(JoinGroupAnswered(ErrorCode.NONE, 1, "m-1", "p", "m-1", False, ()))
    assert member.handle(AssignmentFailed()) == [RecordRebalance(RebalanceMetric.FAILED), Backoff()]
    assert member.state is MemberState.UNJOINED and member.join_due


def test_commits_carry_the_generation_only_while_stable() -> None:
    member = new_member()
    assert member.commit_identity() is None  # never joined
    assert member.commit_identity(auto_assigned=False) == (-1, "")  # assign(): no generation
    stable(member, ("t", 0))
    assert member.commit_identity() == (1, "m-1")
    member.handle(JoinRequested("metadata"))
    member.poll(T0, TOPICS, 0.0)  # eager: revoke (and commit on revoke), then JoinGroup
    assert member.commit_identity() == (1, "m-1"), "commit on revoke before the JoinGroup"
    member.join_sent()
    assert member.commit_identity() is None, "refused while the JoinGroup is in flight"


def test_a_commit_answer_about_an_old_generation_leaves_the_membership_alone() -> None:
    member = new_member()
    stable(member, ("t", 0), generation=5)
    outcome, actions = member.on_commit_answer(ErrorCode.ILLEGAL_GENERATION, generation_sent=4)
    assert outcome is CommitOutcome.FAILED and actions == []
    assert member.member_id == "m-1" and member.generation_id == 5
    outcome, _ = member.on_commit_answer(ErrorCode.ILLEGAL_GENERATION, generation_sent=5)
    assert outcome is CommitOutcome.FAILED and member.member_id == ""


# -- committed offsets (OffsetFetch) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "outcome"),
    [
        # The group-level code comes first, then each partition's.
        ([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.NONE], CommitOutcome.DONE),
        # A new coordinator still loading the group answers with no partitions at all.
        ([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS], CommitOutcome.RETRY),
        ([ErrorCode.NOT_COORDINATOR], CommitOutcome.RETRY),
        # One partition's retriable code makes the whole answer unusable.
        ([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNSTABLE_OFFSET_COMMIT], CommitOutcome.RETRY),
        ([ErrorCode.NONE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS], CommitOutcome.RETRY),
        ([ErrorCode.NONE, ErrorCode.TOPIC_AUTHORIZATION_FAILED], CommitOutcome.FAILED),
        ([ErrorCode.GROUP_AUTHORIZATION_FAILED], CommitOutcome.FAILED),
    ],
    ids=lambda x: "-".join(ErrorCode(c).name for c in x) if isinstance(x, list) else x.name,
)
def test_an_offset_fetch_answer_is_used_only_when_every_code_allows_it(
    codes: list[int], outcome: CommitOutcome
) -> None:
    member = new_member()
    stable(member, ("t", 0))
    got, raised, actions = member.on_offset_fetch_answer(codes)
    assert got is outcome
    if outcome is CommitOutcome.FAILED:
        assert raised == next(c for c in codes if c != ErrorCode.NONE) and actions == []
    if ErrorCode.NOT_COORDINATOR in codes:
        assert actions == [Backoff(), FindCoordinator()] and member.coordinator is None
    elif outcome is CommitOutcome.RETRY:
        assert actions == [Backoff()] and member.coordinator == 1
    assert member.state is MemberState.STABLE and member.owned == (("t", 0),)


def test_an_offset_fetch_without_an_answer_looks_for_the_coordinator() -> None:
    member = new_member()
    stable(member, ("t", 0))
    outcome, _, actions = member.offset_fetch_no_answer()
    assert outcome is CommitOutcome.RETRY
    assert actions == [Backoff(), FindCoordinator()] and member.coordinator is None
