"""The KIP-848 member's state machine (``membership._consumer_group``): every row of its
reaction table, and the join / reconcile / acknowledge / leave flows. No broker, no asyncio."""

from __future__ import annotations

import pytest

from staticconsumer.events import (
    GroupJoined,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from staticconsumer.membership import (
    CONSUMER_TABLE,
    Assign,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    CoordinatorFound,
    Emit,
    FindCoordinator,
    MembershipState,
    RaiseError,
    Reaction,
    RebalanceMetric,
    RecordRebalance,
    Revoke,
    reaction,
)
from staticconsumer.membership._consumer_group import (
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupMember,
    ConsumerGroupState,
    SendConsumerGroupHeartbeat,
)
from staticconsumer.membership._reactions import Api, GroupProtocol
from staticconsumer.options import MembershipOperation
from staticconsumer.protocol import ErrorCode

from ._configs import consumer_config

T0 = 1000.0
TOPICS = ("t",)
API = Api.CONSUMER_GROUP_HEARTBEAT


def member(instance_id: str | None = "svc-0", wait_ms: int = 45_000,
           takeover: bool = False) -> ConsumerGroupMember:  # fmt: skip
    m = ConsumerGroupMember(consumer_config(instance_id, unreleased_instance_wait_ms=wait_ms,
                                            instance_takeover=takeover))  # fmt: skip
    m.handle(CoordinatorFound(0))  # node 0: a falsy id must still count as known
    return m


def answer(code: int = ErrorCode.NONE, *, epoch: int = 1, assignment: object = None,
           now: float = T0) -> ConsumerGroupHeartbeatAnswered:  # fmt: skip
    return ConsumerGroupHeartbeatAnswered(code, now, epoch, 5000, assignment)  # type: ignore[arg-type]


#: The engine's rebalance metrics (``_io.RecordRebalance``), for the driver to count.
STARTED = RecordRebalance(RebalanceMetric.STARTED)
ENDED = RecordRebalance(RebalanceMetric.ENDED)
FAILED = RecordRebalance(RebalanceMetric.FAILED)


def joined(epoch: int) -> Emit:
    return Emit(GroupJoined, "m-uuid", epoch, {"leader": False, "protocol": ""})


def assigned(epoch: int, *tps: tuple[str, int]) -> Emit:
    return Emit(PartitionsAssigned, "m-uuid", epoch, {"partitions": list(tps)})


def revoked(epoch: int, reason: str, *tps: tuple[str, int]) -> Emit:
    return Emit(PartitionsRevoked, "m-uuid", epoch, {"partitions": list(tps), "reason": reason})


def stable(m: ConsumerGroupMember, *tps: tuple[str, int]) -> None:
    assert m.poll(T0, TOPICS)[0] == SendConsumerGroupHeartbeat(0, True, TOPICS, ())
    m.handle(answer(assignment=tps))
    assert m.poll(T0, TOPICS) == [  # the acknowledgement ends the rebalance
        ENDED, SendConsumerGroupHeartbeat(1, False, None, tuple(sorted(tps)))
    ]  # fmt: skip
    m.handle(answer())
    assert m.state is ConsumerGroupState.STABLE and m.owned == tuple(sorted(tps))


def test_a_member_joins_at_epoch_0_gets_its_assignment_and_acknowledges_it() -> None:
    m = member()
    assert m.poll(T0, ()) == []  # no subscription: nothing to join
    assert m.poll(T0, TOPICS) == [SendConsumerGroupHeartbeat(0, True, TOPICS, ())]
    assert m.poll(T0, TOPICS) == []  # one heartbeat in flight at a time
    actions = m.handle(answer(epoch=3, assignment=(("t", 1), ("t", 0))))
    assert actions == [STARTED, joined(3), assigned(3, ("t", 0), ("t", 1)),
                       Assign((("t", 0), ("t", 1)), (("t", 0), ("t", 1)))]  # fmt: skip
    assert m.poll(T0, TOPICS) == [
        ENDED, SendConsumerGroupHeartbeat(3, False, None, (("t", 0), ("t", 1)))
    ]  # fmt: skip
    assert m.handle(answer(epoch=3)) == [] and m.state is ConsumerGroupState.STABLE
    assert m.poll(T0 + 4.9, TOPICS) == []  # the broker's heartbeat interval is honoured
    assert m.poll(T0 + 5, TOPICS) == [SendConsumerGroupHeartbeat(3, False, None, None)]


def test_reconciliation_revokes_before_it_assigns_and_hands_over_only_what_changed() -> None:
    m = member()
    stable(m, ("t", 0), ("t", 1))
    m.poll(T0 + 5, TOPICS)
    actions = m.handle(answer(epoch=4, assignment=(("t", 1), ("t", 2)), now=T0 + 5))
    assert actions == [STARTED, joined(4), revoked(4, "rebalance", ("t", 0)),
                       Revoke((("t", 0),), lost=False, reason="rebalance"),
                       assigned(4, ("t", 1), ("t", 2)),
                       Assign((("t", 1), ("t", 2)), (("t", 2),))]  # fmt: skip
    assert m.poll(T0 + 5, TOPICS) == [
        ENDED, SendConsumerGroupHeartbeat(4, False, None, (("t", 1), ("t", 2)))
    ]  # fmt: skip


@pytest.mark.parametrize("code", [ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID,
                                  ErrorCode.GROUP_ID_NOT_FOUND],  # the group was deleted
                         ids=lambda c: ErrorCode(c).name)  # fmt: skip
def test_a_fenced_epoch_loses_the_partitions_and_rejoins_at_epoch_0(code: int) -> None:
    m = member()
    stable(m, ("t", 0))
    m.poll(T0 + 5, TOPICS)
    assert m.handle(answer(code, now=T0 + 5)) == [
        FAILED, Emit(SessionExpired, "m-uuid", 1, {"api": "ConsumerGroupHeartbeat"}),
        revoked(1, "lost", ("t", 0)), Revoke((("t", 0),), lost=True, reason="lost"),
    ]  # fmt: skip
    assert m.state is ConsumerGroupState.JOINING and m.owned == ()
    assert m.poll(T0 + 5, TOPICS) == [SendConsumerGroupHeartbeat(0, True, TOPICS, ())]


def test_a_join_subscribes_to_the_real_topics_only() -> None:
    """No made-up topic name is ever sent (issue 31): since Kafka 4.0 the coordinator checks
    DESCRIBE on every subscribed name (KAFKA-18813), and literal ACLs refuse any other."""
    m = ConsumerGroupMember(consumer_config("svc-4"))
    m.handle(CoordinatorFound(0))
    assert m.poll(T0, TOPICS) == [SendConsumerGroupHeartbeat(0, True, TOPICS, ())]


#: Every cell of the KIP-848 table: (api, code), as the classic engine's table test.
CASES = [(api, code) for code, row in CONSUMER_TABLE.items() for api in row]
Answered = tuple[CommitOutcome | None, list[object]]


def _answer(m: ConsumerGroupMember, api: Api, code: int) -> Answered:
    """``code`` answered on ``api`` to a STABLE member owning t-0 (no outcome for a heartbeat)."""
    stable(m, ("t", 0))
    if api is API:
        m.poll(T0 + 5, TOPICS)
        return None, list(m.handle(answer(code, now=T0 + 5)))
    if api is Api.OFFSET_FETCH:
        outcome, raised, actions = m.on_offset_fetch_answer([code])
        assert raised == (code if outcome is CommitOutcome.FAILED else ErrorCode.NONE)
        return outcome, list(actions)
    outcome, actions = m.on_commit_answer(code)
    return outcome, list(actions)


@pytest.mark.parametrize(("api", "code"), CASES, ids=lambda x: getattr(x, "name", x))
def test_each_error_code_on_each_kip_848_api(api: Api, code: int) -> None:
    m = member()
    outcome, actions = _answer(m, api, code)
    what = reaction(api, code, protocol=GroupProtocol.CONSUMER)
    if api is not API:  # a commit or fetch: its outcome goes to the caller
        assert outcome is {
            Reaction.OK: CommitOutcome.DONE, Reaction.RETRY: CommitOutcome.RETRY,
            Reaction.FIND_COORDINATOR: CommitOutcome.RETRY,
        }.get(what, CommitOutcome.FAILED)  # fmt: skip
    if what is Reaction.OK:
        assert actions == [] and m.state is ConsumerGroupState.STABLE
    elif what.fatal:
        fenced = what is Reaction.FENCED  # the engine's verdict, read by the application
        failed = [FAILED] if api is API else []  # a heartbeat's fence fails the rebalance
        assert actions == [*failed, BecomeFatal(api, code, fenced=fenced)] and m.fenced is fenced
        assert m.state is ConsumerGroupState.FATAL
        # the state sticks
        assert m.poll(T0 + 60, TOPICS) == [] and m.close(MembershipOperation.DEFAULT) == []
        assert m.membership_state(subscribed=True, handing_over=False) is (
            MembershipState.FENCED if fenced else MembershipState.FAILED
        )  # fmt: skip
    elif what is Reaction.FIND_COORDINATOR:
        assert actions == [Backoff(), FindCoordinator()] and m.poll(T0, TOPICS) == [
            FindCoordinator()
        ]
    elif what is Reaction.RESET:
        assert api is API and actions[0] == FAILED
        assert actions[3] == Revoke((("t", 0),), lost=True, reason="lost")
        assert m.state is ConsumerGroupState.JOINING and m.member_epoch == 0
    elif what is Reaction.RETRY:
        assert actions == [Backoff()]
        assert m.owned == (("t", 0),) and m.coordinator == 0  # kept
    else:
        assert what is Reaction.RAISE
        if api is API:  # with what the request named: the subscription
            assert actions == [RaiseError(API, code, topics=TOPICS), Backoff()]
        else:
            assert actions == []  # the caller of commit() / committed() gets it
        # The membership is left alone: the next heartbeat decides.
        assert m.owned == (("t", 0),) and m.state is ConsumerGroupState.STABLE
    if not what.fatal:
        assert not m.fenced and m.membership_state(subscribed=True, handing_over=False) in (
            MembershipState.STABLE, MembershipState.JOINING,
        )  # fmt: skip


def test_a_heartbeat_refused_for_a_topic_acl_says_which_topics_it_subscribed_to() -> None:
    """Issue 29: the broker checks DESCRIBE on every subscribed topic name (KAFKA-18813); the
    error raised names what the member subscribed to."""
    m = member()
    assert m.poll(T0, ("b", "a")) == [SendConsumerGroupHeartbeat(0, True, ("a", "b"), ())]
    actions = m.handle(answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED))
    assert actions == [RaiseError(API, ErrorCode.TOPIC_AUTHORIZATION_FAILED, topics=("a", "b")),
                       Backoff()]  # fmt: skip


def test_an_unknown_code_is_raised_and_the_kip_848_table_says_nothing_about_classic_apis() -> None:
    assert reaction(API, 9999, protocol=GroupProtocol.CONSUMER) is Reaction.RAISE
    with pytest.raises(ValueError, match="JoinGroup is not a column of the consumer"):
        reaction(Api.JOIN_GROUP, ErrorCode.NONE, protocol=GroupProtocol.CONSUMER)


def test_commits_carry_the_member_epoch_only_while_the_member_holds_one() -> None:
    m = member()
    assert m.commit_identity() is None  # joining
    assert m.commit_identity(auto_assigned=False) == (-1, "")  # assign(): outside the group
    stable(m, ("t", 0))
    assert m.commit_identity() == (1, "m-uuid")
    m.poll(T0 + 5, TOPICS)
    m.handle(answer(ErrorCode.FENCED_MEMBER_EPOCH, now=T0 + 5))
    assert m.commit_identity() is None  # its partitions were lost: nothing to commit


def test_a_commit_leaves_out_what_the_member_no_longer_holds_at_its_epoch() -> None:
    """KIP-1251: the coordinator takes a commit at the member's epoch whole, so the member sends
    only what it holds. A partition being revoked stays its own until the heartbeat that
    acknowledges the revocation goes out (the coordinator keeps it pending revocation)."""
    m = member()
    stable(m, ("t", 0), ("t", 1))
    wanted = [("t", 0), ("t", 1), ("t", 2)]
    assert m.commit_not_held(wanted) == (("t", 2),)  # never its own
    m.poll(T0 + 5, TOPICS)
    m.handle(answer(epoch=1, assignment=(("t", 1),), now=T0 + 5))  # revoke t-0
    assert m.commit_not_held(wanted) == (("t", 2),), "t-0 is pending revocation: commit it"
    m.poll(T0 + 5, TOPICS)  # the acknowledgement: t-0 released
    assert m.commit_not_held(wanted) == (("t", 0), ("t", 2))
    m.handle(answer(epoch=2, now=T0 + 5))
    assert m.commit_identity() == (2, "m-uuid")
    assert m.commit_not_held(wanted) == (("t", 0), ("t", 2))


def test_partitions_released_on_close_are_committed_and_lost_ones_are_not() -> None:
    m = member()
    stable(m, ("t", 0))
    m.leave_prepare()  # revoked on the way out: committed first
    assert m.owned == () and m.commit_not_held([("t", 0)]) == ()
    other = member()
    stable(other, ("t", 0))
    other.poll(T0 + 5, TOPICS)
    other.handle(answer(ErrorCode.FENCED_MEMBER_EPOCH, now=T0 + 5))  # lost: nothing committed
    assert other.commit_not_held([("t", 0)]) == (("t", 0),)


def test_a_classic_member_leaves_nothing_out() -> None:
    """A classic commit carries its generation, which covers every partition (a streams
    member leaves out what moved, as this one does: test_streams_member.py)."""
    from staticconsumer.membership._classic import ClassicMember

    from ._configs import classic_config

    assert ClassicMember(classic_config("i-0")).commit_not_held([("t", 9)]) == ()


def test_a_commit_answered_with_an_unknown_member_fails_and_leaves_the_membership_alone() -> None:
    m = member()
    stable(m, ("t", 0))
    assert m.on_commit_answer(ErrorCode.UNKNOWN_MEMBER_ID) == (CommitOutcome.FAILED, [])
    assert m.owned == (("t", 0),) and m.state is ConsumerGroupState.STABLE  # the heartbeat decides


def test_an_offset_fetch_answer_that_says_ask_again_is_never_used() -> None:
    m = member()
    stable(m, ("t", 0))
    assert m.on_offset_fetch_answer([ErrorCode.NONE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]) == (
        CommitOutcome.RETRY, ErrorCode.NONE, [Backoff()])  # fmt: skip
    assert m.offset_fetch_no_answer() == (CommitOutcome.RETRY, ErrorCode.NONE,
                                          [Backoff(), FindCoordinator()])  # fmt: skip
    assert m.coordinator is None
    code = ErrorCode.GROUP_AUTHORIZATION_FAILED
    assert m.on_offset_fetch_answer([code]) == (CommitOutcome.FAILED, code, [])


def test_a_fatal_member_sends_nothing_and_commits_nothing() -> None:
    m = member()
    stable(m, ("t", 0))
    m.fatal(RuntimeError("fenced"))
    assert m.terminal and m.poll(T0 + 60, TOPICS) == []
    assert m.close(MembershipOperation.LEAVE_GROUP, "bye") == []
    assert m.on_commit_answer(ErrorCode.NONE)[0] is CommitOutcome.FAILED


@pytest.mark.parametrize("state", list(ConsumerGroupState), ids=lambda s: s.value)
def test_every_engine_state_maps_to_what_the_application_sees(state: ConsumerGroupState) -> None:
    from staticconsumer.membership import MembershipState
    from staticconsumer.membership._consumer_group import consumer_group_state

    seen = consumer_group_state(state, subscribed=True, handing_over=False, fenced=False)
    expected = {
        ConsumerGroupState.STABLE: MembershipState.STABLE,
        ConsumerGroupState.RECONCILING: MembershipState.REBALANCING,
        ConsumerGroupState.ACKNOWLEDGING: MembershipState.REBALANCING,
        ConsumerGroupState.FATAL: MembershipState.FAILED,
        ConsumerGroupState.CLOSED: MembershipState.STOPPED,
    }.get(state, MembershipState.JOINING)
    assert seen is expected
    fenced = consumer_group_state(state, subscribed=False, handing_over=True, fenced=True)
    assert fenced is {MembershipState.FAILED: MembershipState.FENCED,
                      MembershipState.STOPPED: MembershipState.STOPPED}.get(
                          expected, MembershipState.UNSUBSCRIBED)  # fmt: skip


def test_offset_fetches_carry_the_member_epoch_once_the_member_holds_one() -> None:
    m = member()
    assert m.offset_fetch_identity() == (None, -1)
    stable(m, ("t", 0))
    assert m.offset_fetch_identity() == ("m-uuid", 1)
    # A fetch answered with a stale epoch is asked again (the heartbeat brings the new one).
    assert m.on_offset_fetch_answer([ErrorCode.STALE_MEMBER_EPOCH])[0] is CommitOutcome.RETRY


def test_a_row_of_the_wrong_length_is_refused() -> None:
    from staticconsumer.membership import _reactions

    with pytest.raises(ValueError):  # five cells where the classic table has six columns
        _reactions._row(*[Reaction.OK] * 5)
    with pytest.raises(ValueError):  # four where the KIP-848 table has three
        _reactions._consumer_row(*[Reaction.OK] * 4)
