"""The KIP-848 member's state machine (``membership._consumer_group``): every row of its
reaction table, and the join / reconcile / acknowledge / leave flows. No broker, no asyncio."""

from __future__ import annotations

import pytest

from staticconsumer.membership import (
    Assign,
    Backoff,
    BecomeFatal,
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
)
from staticconsumer.membership._reactions import Api
from staticconsumer.protocol import ErrorCode

T0 = 1000.0
TOPICS = ("t",)
API = Api.CONSUMER_GROUP_HEARTBEAT


def member(instance_id: str | None = "svc-0", wait_ms: int = 45_000) -> ConsumerGroupMember:
    m = ConsumerGroupMember(ConsumerGroupConfig("g", "m-uuid", instance_id, 300_000,
                                                unreleased_wait_ms=wait_ms))  # fmt: skip
    m.coordinator_found(0)  # node 0: a falsy id must still count as known
    return m


def answer(code: int = ErrorCode.NONE, *, epoch: int = 1, assignment: object = None,
           now: float = T0) -> ConsumerGroupHeartbeatAnswered:  # fmt: skip
    return ConsumerGroupHeartbeatAnswered(code, now, epoch, 5000, assignment)  # type: ignore[arg-type]


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
    assert actions == [Assign((("t", 0), ("t", 1)), (("t", 0), ("t", 1)))]
    assert m.poll(T0, TOPICS) == [SendConsumerGroupHeartbeat(3, False, None, (("t", 0), ("t", 1)))]
    assert m.handle(answer(epoch=3)) == [] and m.state is ConsumerGroupState.STABLE
    assert m.poll(T0 + 4.9, TOPICS) == []  # the broker's heartbeat interval is honoured
    assert m.poll(T0 + 5, TOPICS) == [SendConsumerGroupHeartbeat(3, False, None, None)]


def test_reconciliation_revokes_before_it_assigns_and_hands_over_only_what_changed() -> None:
    m = member()
    stable(m, ("t", 0), ("t", 1))
    m.poll(T0 + 5, TOPICS)
    actions = m.handle(answer(epoch=4, assignment=(("t", 1), ("t", 2)), now=T0 + 5))
    assert actions == [Revoke((("t", 0),), lost=False, reason="the coordinator moved them"),
                       Assign((("t", 1), ("t", 2)), (("t", 2),))]  # fmt: skip
    assert m.poll(T0 + 5, TOPICS)[0].owned == (("t", 1), ("t", 2))  # type: ignore[union-attr]


@pytest.mark.parametrize("code", [ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID],
                         ids=lambda c: ErrorCode(c).name)  # fmt: skip
def test_a_fenced_epoch_loses_the_partitions_and_rejoins_at_epoch_0(code: int) -> None:
    m = member()
    stable(m, ("t", 0))
    m.poll(T0 + 5, TOPICS)
    assert m.handle(answer(code, now=T0 + 5)) == [Revoke((("t", 0),), lost=True, reason="lost")]
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
        assert actions[0] == Revoke((("t", 0),), lost=True, reason="lost")
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
        Assign((("t", 0),), (("t", 0),))
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
    assert m.close(for_good) == [SendConsumerGroupHeartbeat(epoch, False, None, None)]
    assert m.close(for_good) == [] and m.state is ConsumerGroupState.CLOSED


def test_a_member_that_never_joined_sends_nothing_on_close() -> None:
    assert member().close(False) == []
