"""The readiness contract (``membership._status``; issues 21 and 22): ready means "a member of its
group", which a rebalance it takes part in does not end and losing the generation does. As a
table over (state, has held an assignment since the last join from scratch), then the engines'
``in_group`` fact through join, rebalance and loss, without a broker."""

from __future__ import annotations

import pytest

from staticconsumer.membership import (
    ClassicMember,
    CoordinatorFound,
    HeartbeatAnswered,
    JoinRequested,
    Membership,
    MemberState,
    SyncGroupAnswered,
    classic_state,
    snapshot,
)
from staticconsumer.membership import MembershipState as M
from staticconsumer.membership._consumer_group import (
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupState,
    consumer_group_state,
)
from staticconsumer.protocol import ErrorCode

from . import test_classic_member as classic
from . import test_consumer_group_member as kip848

#: (state, in_group, ready, live): every state, with and without a held assignment.
CONTRACT = [
    (M.NOT_STARTED, False, False, True), (M.NOT_STARTED, True, False, True),
    (M.UNSUBSCRIBED, False, False, True), (M.UNSUBSCRIBED, True, False, True),
    (M.WAITING, False, True, True), (M.WAITING, True, True, True),  # at the roster's barrier
    (M.JOINING, False, False, True), (M.JOINING, True, False, True),  # generation lost
    (M.REBALANCING, False, False, True),  # the first join, not held yet
    (M.REBALANCING, True, True, True),  # a rebalance it takes part in: still a member
    (M.STABLE, False, True, True), (M.STABLE, True, True, True),
    (M.FENCED, False, False, False), (M.FENCED, True, False, False),
    (M.FAILED, False, False, False), (M.FAILED, True, False, False),
    (M.STOPPED, False, False, True), (M.STOPPED, True, False, True),
]  # fmt: skip


def test_the_contract_table_covers_every_state_both_ways() -> None:
    assert {(s, g) for s, g, _, _ in CONTRACT} == {(s, g) for s in M for g in (False, True)}


@pytest.mark.parametrize(("state", "in_group", "ready", "live"), CONTRACT,
                         ids=lambda x: getattr(x, "value", x))  # fmt: skip
def test_ready_while_a_member_live_unless_fatal(
    state: M, in_group: bool, ready: bool, live: bool
) -> None:
    value = snapshot(state, group_id="g", group_instance_id="i-0", member_id="m-1",
                     generation_id=3, owned=[("t", 0)], in_group=in_group)  # fmt: skip
    assert (value.ready, value.live) == (ready, live)
    assert value.to_dict()["ready"] is ready and value.to_dict()["live"] is live
    # The fact counts only while the member is in a generation.
    assert value.in_group is (in_group and state in (M.STABLE, M.REBALANCING))
    assert Membership(state, "g", "i-0", in_group=in_group).ready is ready


# -- the classic engine ---------------------------------------------------------------------------


def _classic_ready(member: ClassicMember) -> bool:
    state = classic_state(member.state, member.generation_id, subscribed=True,
                          handing_over=False, fenced=False)  # fmt: skip
    return snapshot(state, group_id="g", group_instance_id="i-0", member_id=member.member_id,
                    generation_id=member.generation_id, owned=member.owned,
                    in_group=member.in_group).ready  # fmt: skip


@pytest.mark.parametrize("protocol", [classic.EAGER, classic.COOP], ids=lambda p: p.value)
def test_a_classic_member_stays_ready_through_a_rebalance_and_not_after_losing_its_generation(
    protocol: classic.RebalanceProtocol,
) -> None:
    member = classic.new_member(protocol=protocol)
    assert not member.in_group and not _classic_ready(member)
    member.poll(classic.T0, classic.TOPICS, 0.0)
    member.handle(classic.joined())
    assert member.state is MemberState.SYNCING and not _classic_ready(member)  # first join
    member.handle(SyncGroupAnswered(ErrorCode.NONE, classic.assignment(("t", 0))))
    assert not member.in_group  # the driver hands the assignment over before it polls again
    member.poll(classic.T0, classic.TOPICS, 0.0)
    assert member.in_group and _classic_ready(member)
    # A rebalance with its generation: JOINING and SYNCING again, ready throughout.
    member.handle(JoinRequested("metadata"))
    member.poll(classic.T0, classic.TOPICS, 0.0)
    assert member.state is MemberState.JOINING and _classic_ready(member)
    member.handle(classic.joined(generation=2))
    assert member.state is MemberState.SYNCING and _classic_ready(member)
    member.handle(SyncGroupAnswered(ErrorCode.REBALANCE_IN_PROGRESS, b""))
    assert member.state is MemberState.UNJOINED and _classic_ready(member)  # re-joins, a member
    member.poll(classic.T0, classic.TOPICS, 0.0)
    member.handle(classic.joined(generation=3))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, classic.assignment()))  # empty: still ready
    member.poll(classic.T0, classic.TOPICS, 0.0)
    assert member.owned == () and _classic_ready(member)
    if member.state is MemberState.JOINING:  # cooperative: it revoked, so it joins again at once
        member.handle(classic.joined(generation=4))
        member.handle(SyncGroupAnswered(ErrorCode.NONE, classic.assignment()))
        member.poll(classic.T0, classic.TOPICS, 0.0)
    assert member.state is MemberState.STABLE and _classic_ready(member)
    # The generation is lost: not a member until an assignment is held again.
    member.poll(classic.T0 + 3, classic.TOPICS, 0.0)
    member.handle(HeartbeatAnswered(ErrorCode.UNKNOWN_MEMBER_ID, classic.T0 + 3))
    assert not member.in_group and not _classic_ready(member)
    member.poll(classic.T0 + 4, classic.TOPICS, 0.0)
    member.handle(classic.joined(generation=5))
    assert not _classic_ready(member)
    member.handle(SyncGroupAnswered(ErrorCode.NONE, classic.assignment(("t", 0))))
    member.poll(classic.T0 + 4, classic.TOPICS, 0.0)
    assert _classic_ready(member)


@pytest.mark.parametrize("static", [True, False])
def test_a_classic_poll_timeout_ends_the_membership(static: bool) -> None:
    member = classic.new_member(static=static)
    classic.stable(member, ("t", 0))
    assert member.in_group
    member.poll(classic.T0, classic.TOPICS, 301.0)
    assert not member.in_group and not _classic_ready(member)


def test_a_new_classic_member_is_not_a_member_before_its_coordinator_is_found() -> None:
    member = ClassicMember(classic.new_member().config)
    assert member.poll(classic.T0, classic.TOPICS, 0.0) and not member.in_group
    member.handle(CoordinatorFound(1))
    assert not _classic_ready(member)


# -- the consumer group protocol (KIP-848) --------------------------------------------------------


def _kip848_ready(m: kip848.ConsumerGroupMember) -> bool:
    state = consumer_group_state(m.state, subscribed=True, handing_over=False, fenced=False)
    return snapshot(state, group_id="g", group_instance_id="svc-0", member_id="m-uuid",
                    generation_id=m.member_epoch, owned=m.owned,
                    in_group=m.in_group).ready  # fmt: skip


def _answer(epoch: int, assignment: object = None, code: int = ErrorCode.NONE,
            now: float = kip848.T0) -> ConsumerGroupHeartbeatAnswered:  # fmt: skip
    return kip848.answer(code, epoch=epoch, assignment=assignment, now=now)


@pytest.mark.parametrize("code", [ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID],
                         ids=lambda c: ErrorCode(c).name)  # fmt: skip
def test_a_kip848_member_stays_ready_while_reconciling_and_not_after_a_reset(code: int) -> None:
    m = kip848.member()
    m.poll(kip848.T0, kip848.TOPICS)
    assert m.state is ConsumerGroupState.JOINING and not _kip848_ready(m)
    m.handle(_answer(1, (("t", 0),)))
    assert m.state is ConsumerGroupState.RECONCILING and not _kip848_ready(m)  # first hand-over
    m.poll(kip848.T0, kip848.TOPICS)  # the acknowledgement: the hand-over is done
    assert m.state is ConsumerGroupState.ACKNOWLEDGING and _kip848_ready(m)
    m.handle(_answer(1))
    assert m.state is ConsumerGroupState.STABLE and _kip848_ready(m)
    m.poll(kip848.T0 + 5, kip848.TOPICS)
    m.handle(_answer(2, (("t", 0), ("t", 1)), now=kip848.T0 + 5))  # a new target: reconciling
    assert m.state is ConsumerGroupState.RECONCILING and _kip848_ready(m)
    m.poll(kip848.T0 + 5, kip848.TOPICS)
    m.handle(_answer(2, (), now=kip848.T0 + 5))  # everything taken away: empty, still a member
    assert m.owned == () and _kip848_ready(m)
    m.poll(kip848.T0 + 5, kip848.TOPICS)
    m.handle(_answer(2, now=kip848.T0 + 5))
    m.poll(kip848.T0 + 10, kip848.TOPICS)
    m.handle(_answer(2, code=code, now=kip848.T0 + 10))
    assert m.state is ConsumerGroupState.JOINING and not m.in_group and not _kip848_ready(m)
    m.poll(kip848.T0 + 10, kip848.TOPICS)
    m.handle(_answer(3, (("t", 0),), now=kip848.T0 + 10))
    assert not _kip848_ready(m)  # joined from scratch: not a member before the hand-over
    m.poll(kip848.T0 + 10, kip848.TOPICS)
    assert _kip848_ready(m)


def test_a_kip848_poll_timeout_ends_the_membership() -> None:
    m = kip848.member()
    kip848.stable(m, ("t", 0))
    assert m.in_group
    m.poll(kip848.T0 + 400, kip848.TOPICS, idle_s=301.0)
    assert m.state is ConsumerGroupState.POLL_EXPIRED and not m.in_group
    assert not _kip848_ready(m)
