"""The KIP-848 member's state machine (``membership._consumer_group``): every row of its
reaction table, and the join / reconcile / acknowledge / leave flows. No broker, no asyncio."""

from __future__ import annotations

import pytest

from staticconsumer.events import (
    GroupJoined,
    GroupLeft,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from staticconsumer.membership import (
    Assign,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    Emit,
    FindCoordinator,
    RaiseError,
    Reaction,
    Revoke,
)
from staticconsumer.membership._consumer_group import (
    HEARTBEAT_REACTIONS,
    ConsumerGroupConfig,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupMember,
    ConsumerGroupState,
    SendConsumerGroupHeartbeat,
    TakeOver,
)
from staticconsumer.membership._consumer_group_offsets import COMMIT_REACTIONS
from staticconsumer.membership._reactions import Api
from staticconsumer.protocol import ErrorCode

T0 = 1000.0
TOPICS = ("t",)
API = Api.CONSUMER_GROUP_HEARTBEAT


def member(instance_id: str | None = "svc-0", wait_ms: int = 45_000,
           takeover: bool = False) -> ConsumerGroupMember:  # fmt: skip
    m = ConsumerGroupMember(ConsumerGroupConfig("g", "m-uuid", instance_id, 300_000,
                                                unreleased_wait_ms=wait_ms,
                                                takeover=takeover))  # fmt: skip
    m.coordinator_found(0)  # node 0: a falsy id must still count as known
    return m


def answer(code: int = ErrorCode.NONE, *, epoch: int = 1, assignment: object = None,
           now: float = T0) -> ConsumerGroupHeartbeatAnswered:  # fmt: skip
    return ConsumerGroupHeartbeatAnswered(code, now, epoch, 5000, assignment)  # type: ignore[arg-type]


def joined(epoch: int) -> Emit:
    return Emit(GroupJoined, "m-uuid", epoch, {"leader": False, "protocol": ""})


def assigned(epoch: int, *tps: tuple[str, int]) -> Emit:
    return Emit(PartitionsAssigned, "m-uuid", epoch, {"partitions": list(tps)})


def revoked(epoch: int, reason: str, *tps: tuple[str, int]) -> Emit:
    return Emit(PartitionsRevoked, "m-uuid", epoch, {"partitions": list(tps), "reason": reason})


def stable(m: ConsumerGroupMember, *tps: tuple[str, int]) -> None:
    assert m.poll(T0, TOPICS)[0] == SendConsumerGroupHeartbeat(0, True, TOPICS, ())
    m.handle(answer(assignment=tps))
    assert isinstance(m.poll(T0, TOPICS)[0], SendConsumerGroupHeartbeat)  # the acknowledgement
    m.handle(answer())
    assert m.state is ConsumerGroupState.STABLE and m.owned == tuple(sorted(tps))


def test_a_member_joins_at_epoch_0_gets_its_assignment_and_acknowledges_it() -> None:
    m = member()
    assert m.poll(T0, ()) == []  # no subscription: nothing to join
    assert m.poll(T0, TOPICS) == [SendConsumerGroupHeartbeat(0, True, TOPICS, ())]
    assert m.poll(T0, TOPICS) == []  # one heartbeat in flight at a time
    actions = m.handle(answer(epoch=3, assignment=(("t", 1), ("t", 0))))
    assert actions == [joined(3), assigned(3, ("t", 0), ("t", 1)),
                       Assign((("t", 0), ("t", 1)), (("t", 0), ("t", 1)))]  # fmt: skip
    assert m.poll(T0, TOPICS) == [SendConsumerGroupHeartbeat(3, False, None, (("t", 0), ("t", 1)))]
    assert m.handle(answer(epoch=3)) == [] and m.state is ConsumerGroupState.STABLE
    assert m.poll(T0 + 4.9, TOPICS) == []  # the broker's heartbeat interval is honoured
    assert m.poll(T0 + 5, TOPICS) == [SendConsumerGroupHeartbeat(3, False, None, None)]


def test_reconciliation_revokes_before_it_assigns_and_hands_over_only_what_changed() -> None:
    m = member()
    stable(m, ("t", 0), ("t", 1))
    m.poll(T0 + 5, TOPICS)
    actions = m.handle(answer(epoch=4, assignment=(("t", 1), ("t", 2)), now=T0 + 5))
    assert actions == [joined(4), revoked(4, "rebalance", ("t", 0)),
                       Revoke((("t", 0),), lost=False, reason="rebalance"),
                       assigned(4, ("t", 1), ("t", 2)),
                       Assign((("t", 1), ("t", 2)), (("t", 2),))]  # fmt: skip
    assert m.poll(T0 + 5, TOPICS)[0].owned == (("t", 1), ("t", 2))  # type: ignore[union-attr]


@pytest.mark.parametrize("code", [ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID],
                         ids=lambda c: ErrorCode(c).name)  # fmt: skip
def test_a_fenced_epoch_loses_the_partitions_and_rejoins_at_epoch_0(code: int) -> None:
    m = member()
    stable(m, ("t", 0))
    m.poll(T0 + 5, TOPICS)
    assert m.handle(answer(code, now=T0 + 5)) == [
        Emit(SessionExpired, "m-uuid", 1, {"api": "ConsumerGroupHeartbeat"}),
        revoked(1, "lost", ("t", 0)), Revoke((("t", 0),), lost=True, reason="lost"),
    ]  # fmt: skip
    assert m.state is ConsumerGroupState.JOINING and m.owned == ()
    assert m.poll(T0 + 5, TOPICS) == [SendConsumerGroupHeartbeat(0, True, TOPICS, ())]


@pytest.mark.parametrize(("code", "what"), sorted(HEARTBEAT_REACTIONS.items()),
                         ids=lambda x: getattr(x, "name", x))  # fmt: skip
def test_each_row_of_the_reaction_table(code: int, what: Reaction) -> None:
    m = member()
    stable(m, ("t", 0))
    m.poll(T0 + 5, TOPICS)
    actions = m.handle(answer(code, now=T0 + 5))
    if what is Reaction.OK:
        assert actions == [] and m.state is ConsumerGroupState.STABLE
    elif what is Reaction.FATAL:
        assert actions == [BecomeFatal(API, code)] and m.state is ConsumerGroupState.FATAL
        assert m.poll(T0 + 60, TOPICS) == [] and m.close(False) == []  # the state sticks
    elif what is Reaction.FIND_COORDINATOR:
        assert actions == [Backoff(), FindCoordinator()] and m.poll(T0, TOPICS) == [
            FindCoordinator()
        ]
    elif what is Reaction.RESET:
        assert actions[2] == Revoke((("t", 0),), lost=True, reason="lost")
    else:
        assert what is Reaction.RETRY and actions == [Backoff()]
        assert m.owned == (("t", 0),)  # kept


def test_an_unknown_code_is_raised_to_the_application_and_the_member_goes_on() -> None:
    m = member()
    stable(m, ("t", 0))
    m.poll(T0 + 5, TOPICS)
    assert m.handle(answer(ErrorCode.GROUP_AUTHORIZATION_FAILED, now=T0 + 5)) == [
        RaiseError(API, ErrorCode.GROUP_AUTHORIZATION_FAILED), Backoff()
    ]  # fmt: skip


def test_unreleased_instance_id_is_retried_then_raised_once_per_wait() -> None:
    m = member(wait_ms=10_000)
    code = ErrorCode.UNRELEASED_INSTANCE_ID
    for now in (T0, T0 + 1, T0 + 9.9):
        assert m.poll(now, TOPICS)[0] == SendConsumerGroupHeartbeat(0, True, TOPICS, ())
        assert m.handle(answer(code, now=now)) == [Backoff()]
    m.poll(T0 + 10, TOPICS)
    assert m.handle(answer(code, now=T0 + 10)) == [RaiseError(API, code), Backoff()]
    m.poll(T0 + 11, TOPICS)
    assert m.handle(answer(code, now=T0 + 11)) == [Backoff()]  # the wait starts over
    m.poll(T0 + 12, TOPICS)
    assert m.handle(answer(assignment=(("t", 0),), now=T0 + 12)) == [
        joined(1), assigned(1, ("t", 0)), Assign((("t", 0),), (("t", 0),))
    ]  # fmt: skip


def test_no_answer_means_the_coordinator_is_presumed_dead() -> None:
    m = member()
    m.poll(T0, TOPICS)
    assert m.no_answer(T0) == [Backoff(), FindCoordinator()]
    assert m.poll(T0, TOPICS) == [FindCoordinator()]


@pytest.mark.parametrize(("instance_id", "for_good", "epoch"), [
    ("svc-0", False, -2),   # a static member stopping keeps its assignment for now
    ("svc-0", True, -1),    # stop(leave_group=True)
    (None, False, -1),      # a dynamic member always leaves
])  # fmt: skip
def test_leaving(instance_id: str | None, for_good: bool, epoch: int) -> None:
    m = member(instance_id)
    stable(m, ("t", 0))
    assert m.close(for_good) == [revoked(1, "close", ("t", 0)),
                                 SendConsumerGroupHeartbeat(epoch, False, None, None)]  # fmt: skip
    assert m.close(for_good) == [] and m.state is ConsumerGroupState.CLOSED
    # Only a member that leaves for good says so in an event (a static stop is no leave).
    left = [Emit(GroupLeft, "m-uuid", 1, {"reason": "bye"})] if epoch == -1 else []
    m2 = member(instance_id)
    stable(m2)
    m2.close(for_good, "bye")
    assert m2.handle(answer(epoch=epoch)) == left


def test_a_member_that_never_joined_sends_nothing_on_close() -> None:
    assert member().close(False) == []


def test_a_new_subscription_goes_out_on_the_next_heartbeat_at_once() -> None:
    m = member()
    stable(m, ("t", 0))
    assert m.poll(T0 + 1, TOPICS) == []  # not due
    assert m.poll(T0 + 1, ("t", "u")) == [SendConsumerGroupHeartbeat(1, False, ("t", "u"), None)]


def test_heartbeats_wake_the_driver_at_the_interval_the_broker_sent() -> None:
    m = member()
    assert m.next_wakeup(T0) is None
    stable(m, ("t", 0))
    assert m.next_wakeup(T0 + 1) == pytest.approx(4.0)


@pytest.mark.parametrize(("instance_id", "epoch", "left"), [
    ("svc-0", -2, []),  # static: its partitions wait for it until the session times out
    (None, -1, [Emit(GroupLeft, "m-uuid", 0, {"reason": "consumer poll timeout has expired"})]),
])  # fmt: skip
def test_no_poll_for_max_poll_interval_leaves_and_joins_again_when_the_application_polls(
    instance_id: str | None, epoch: int, left: list[Emit]
) -> None:
    m = member(instance_id)
    stable(m, ("t", 0))
    actions = m.poll(T0 + 1, TOPICS, idle_s=300.0)
    assert actions == [revoked(1, "lost", ("t", 0)), Revoke((("t", 0),), lost=True, reason="lost"),
                       SendConsumerGroupHeartbeat(epoch, False, None, None)]  # fmt: skip
    assert m.commit_identity() is None  # nothing is committed for partitions it gave up
    assert m.handle(answer(epoch=epoch)) == left
    assert m.poll(T0 + 2, TOPICS, idle_s=301.0) == []  # still not polling: stays out
    assert m.poll(T0 + 3, TOPICS, idle_s=0.0) == [SendConsumerGroupHeartbeat(0, True, TOPICS, ())]


def test_takeover_removes_the_stale_holder_once_per_refusal_streak() -> None:
    m = member(takeover=True)
    code = ErrorCode.UNRELEASED_INSTANCE_ID
    m.poll(T0, TOPICS)
    assert m.handle(answer(code)) == [TakeOver("svc-0")]
    m.poll(T0 + 1, TOPICS)
    assert m.handle(answer(code, now=T0 + 1)) == [Backoff()]  # not again in this streak
    m.poll(T0 + 2, TOPICS)
    m.handle(answer(assignment=(("t", 0),), now=T0 + 2))
    assert m.owned == (("t", 0),)


def test_without_takeover_no_member_is_ever_removed() -> None:
    m = member()
    for i in range(5):
        m.poll(T0 + i, TOPICS)
        assert not any(
            isinstance(a, TakeOver)
            for a in m.handle(answer(ErrorCode.UNRELEASED_INSTANCE_ID, now=T0 + i))
        )


def test_commits_carry_the_member_epoch_only_while_the_member_holds_one() -> None:
    m = member()
    assert m.commit_identity() is None  # joining
    assert m.commit_identity(auto_assigned=False) == (-1, "")  # assign(): outside the group
    stable(m, ("t", 0))
    assert m.commit_identity() == (1, "m-uuid")
    m.poll(T0 + 5, TOPICS)
    m.handle(answer(ErrorCode.FENCED_MEMBER_EPOCH, now=T0 + 5))
    assert m.commit_identity() is None  # its partitions were lost: nothing to commit


@pytest.mark.parametrize(("code", "what"), sorted(COMMIT_REACTIONS.items()),
                         ids=lambda x: getattr(x, "name", x))  # fmt: skip
def test_each_row_of_the_commit_reaction_table(code: int, what: Reaction) -> None:
    m = member()
    stable(m, ("t", 0))
    outcome, actions = m.on_commit_answer(code)
    expected = {
        Reaction.OK: (CommitOutcome.DONE, []),
        Reaction.RETRY: (CommitOutcome.RETRY, [Backoff()]),
        Reaction.FIND_COORDINATOR: (CommitOutcome.RETRY, [Backoff(), FindCoordinator()]),
        Reaction.FATAL: (CommitOutcome.FAILED, [BecomeFatal(Api.OFFSET_COMMIT, code)]),
    }[what]
    assert (outcome, actions) == expected


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
    assert m.terminal and m.poll(T0 + 60, TOPICS) == [] and m.close(True) == []
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
