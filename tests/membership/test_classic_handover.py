"""What the classic engine hands back to the application and when (issue 28): the eager
listener's empty revocation before every rebalance, partitions lost at a poll timeout, the
revocation on close (Java's ``onLeavePrepare``), and ``unsubscribe()``. No broker."""

from __future__ import annotations

import pytest

from staticconsumer.events import PartitionsRevoked
from staticconsumer.membership import (
    BecomeFatal,
    CoordinatorFound,
    HeartbeatAnswered,
    JoinGroupAnswered,
    JoinRequested,
    MemberState,
    Revoke,
    SendJoinGroup,
    SendLeaveGroup,
    SyncGroupAnswered,
    Unsubscribed,
)
from staticconsumer.options import MembershipOperation
from staticconsumer.protocol import ErrorCode

from .test_classic_member import (
    COOP,
    EAGER,
    T0,
    TOPICS,
    assignment,
    events,
    joined,
    kinds,
    new_member,
    stable,
)

HELD = (("t", 0), ("t", 1))


def revokes(actions: list[object]) -> list[Revoke]:
    return [a for a in actions if isinstance(a, Revoke)]


def test_an_eager_member_revokes_nothing_before_its_first_join() -> None:
    actions = new_member(protocol=EAGER).poll(T0, TOPICS, 0.0)
    assert revokes(actions) == [Revoke((), lost=False, reason="rebalance")]
    assert kinds(actions)[-1] is SendJoinGroup and events(actions) != [PartitionsRevoked]


def test_the_empty_revocation_comes_once_however_often_the_join_is_retried() -> None:
    member = new_member(protocol=EAGER)
    assert len(revokes(member.poll(T0, TOPICS, 0.0))) == 1
    member.handle(JoinGroupAnswered(ErrorCode.NOT_COORDINATOR, -1, "", "", "", False, ()))
    member.handle(CoordinatorFound(1))  # NOT_COORDINATOR: found again
    actions = member.poll(T0 + 1, TOPICS, 0.0)
    assert kinds(actions)[-1] is SendJoinGroup and revokes(actions) == []
    member.handle(joined())
    member.handle(SyncGroupAnswered(ErrorCode.NONE, assignment()))
    member.poll(T0 + 2, TOPICS, 0.0)
    member.handle(JoinRequested("metadata"))
    assert revokes(member.poll(T0 + 3, TOPICS, 0.0)) == [Revoke((), lost=False,
                                                               reason="rebalance")]  # fmt: skip


def test_a_cooperative_member_hears_only_of_non_empty_revocations() -> None:
    assert revokes(new_member(protocol=COOP).poll(T0, TOPICS, 0.0)) == []


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_a_poll_timeout_loses_the_partitions_at_once_before_the_leave(static: bool) -> None:
    member = new_member(static=static)
    stable(member, *HELD)
    actions = member.poll(T0, TOPICS, 301.0)
    assert revokes(actions) == [Revoke(HELD, lost=True, reason="lost")]
    revoke_at = kinds(actions).index(Revoke)
    leave_at = [i for i, a in enumerate(actions) if isinstance(a, SendLeaveGroup)]
    assert leave_at == ([] if static else [leave_at[0]]) and all(i > revoke_at for i in leave_at)
    assert member.owned == ()
    assert revokes(member.poll(T0 + 2, TOPICS, 0.0)) == [Revoke((), lost=False,
                                                               reason="rebalance")]  # fmt: skip


def test_close_revokes_what_a_stable_member_holds_first() -> None:
    member = new_member()
    stable(member, *HELD)
    actions = member.leave_prepare()
    assert revokes(actions) == [Revoke(HELD, lost=False, reason="close")]
    assert events(actions) == [PartitionsRevoked] and member.owned == ()
    assert events(member.close(MembershipOperation.DEFAULT)) == [], "revoked once"


def test_close_during_a_rebalance_loses_the_partitions() -> None:
    member = new_member()
    stable(member, *HELD)
    member.handle(JoinRequested("metadata"))
    member.poll(T0, TOPICS, 0.0)  # eager: revoked before the join
    assert member.leave_prepare() == []
    member = new_member(protocol=COOP)
    stable(member, *HELD)
    member.handle(JoinRequested("metadata"))
    member.poll(T0, TOPICS, 0.0)  # cooperative: JOINING with its partitions
    assert member.state is MemberState.JOINING
    assert revokes(member.leave_prepare()) == [Revoke(HELD, lost=True, reason="lost")]


def test_close_of_a_fenced_member_loses_its_partitions_without_a_commit() -> None:
    member = new_member()
    stable(member, *HELD)
    member.poll(T0 + 3, TOPICS, 0.0)
    actions = member.handle(HeartbeatAnswered(ErrorCode.FENCED_INSTANCE_ID, T0 + 3))
    assert kinds(actions) == [BecomeFatal]
    prepared = member.leave_prepare()
    assert prepared == [Revoke(HELD, lost=True, reason="lost")], "no event after the fence"
    assert member.close(MembershipOperation.DEFAULT) == []


def test_unsubscribe_leaves_a_dynamic_member_and_keeps_a_static_one() -> None:
    dynamic = new_member(static=False)
    stable(dynamic, *HELD)
    assert dynamic.handle(Unsubscribed()) == [
        SendLeaveGroup("m-1", "the consumer unsubscribed from all topics")
    ]
    assert (dynamic.member_id, dynamic.generation_id, dynamic.owned) == ("", -1, ())
    static = new_member(static=True)
    stable(static, *HELD)
    assert static.handle(Unsubscribed()) == [], "KIP-345: a static member stays in the group"
    assert static.generation_id == -1 and static.state is MemberState.UNJOINED


def test_close_with_a_rejoin_only_requested_still_revokes_with_a_commit() -> None:
    """The generation is valid until the JoinGroup is sent (Java: rebalanceInProgress() is
    false while STABLE), so what it holds is revoked, committed first, not lost."""
    member = new_member(protocol=COOP)
    stable(member, *HELD)
    member.handle(JoinRequested("metadata"))
    assert member.join_due and member.state is MemberState.STABLE
    assert revokes(member.leave_prepare()) == [Revoke(HELD, lost=False, reason="close")]
