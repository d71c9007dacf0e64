"""The member's state as the application sees it: the one table from engine states (and the
consumer's lifecycle) to :class:`MembershipState`, and the classic engine driven through it."""

from __future__ import annotations

import pytest

from staticconsumer.membership import (
    CLASSIC_STATES,
    Api,
    BecomeFatal,
    ClassicMember,
    CoordinatorFound,
    HeartbeatAnswered,
    JoinGroupAnswered,
    Lifecycle,
    MembershipState,
    MemberState,
    SyncGroupAnswered,
    classic_state,
    membership_state,
    snapshot,
)
from staticconsumer.options import MembershipOperation
from staticconsumer.protocol import Assignment, ErrorCode, encode_assignment, group_partitions

from ._configs import classic_config

M = MembershipState
#: (engine state, generation, subscribed, handing over, fenced) -> membership state
CLASSIC_TABLE = [
    (MemberState.UNJOINED, -1, True, False, False, M.JOINING),
    (MemberState.UNJOINED, 3, True, False, False, M.REBALANCING),  # re-join, generation kept
    (MemberState.JOINING, -1, True, False, False, M.JOINING),
    (MemberState.JOINING, 3, True, False, False, M.REBALANCING),
    (MemberState.ASSIGNING, 4, True, False, False, M.REBALANCING),
    (MemberState.SYNCING, 4, True, False, False, M.REBALANCING),
    (MemberState.STABLE, 4, True, False, False, M.STABLE),
    (MemberState.STABLE, 4, True, True, False, M.REBALANCING),  # the listener still runs
    (MemberState.UNJOINED, -1, False, False, False, M.UNSUBSCRIBED),
    (MemberState.STABLE, 4, False, False, False, M.UNSUBSCRIBED),  # assign() by hand since
    (MemberState.FATAL, 4, True, False, True, M.FENCED),
    (MemberState.FATAL, 4, False, True, True, M.FENCED),  # fatal wins over everything
    (MemberState.FATAL, 4, True, False, False, M.FAILED),  # e.g. INVALID_SESSION_TIMEOUT
    (MemberState.CLOSED, 4, True, False, False, M.STOPPED),
    (MemberState.CLOSED, 4, False, False, False, M.STOPPED),
]


@pytest.mark.parametrize(
    ("state", "generation", "subscribed", "handing_over", "fenced", "want"), CLASSIC_TABLE
)
def test_classic_engine_states(
    state: MemberState, generation: int, subscribed: bool, handing_over: bool,
    fenced: bool, want: MembershipState,
) -> None:  # fmt: skip
    got = classic_state(state, generation, subscribed=subscribed, handing_over=handing_over,
                        fenced=fenced)  # fmt: skip
    assert got is want


def test_every_engine_state_has_a_row() -> None:
    assert set(CLASSIC_STATES) == set(MemberState)
    assert {row[0] for row in CLASSIC_TABLE} == set(MemberState)


#: (lifecycle, engine's membership state or None, has a group) -> membership state
LIFECYCLE_TABLE = [
    (Lifecycle.NOT_STARTED, None, True, M.NOT_STARTED),
    (Lifecycle.NOT_STARTED, None, False, M.NOT_STARTED),
    (Lifecycle.STARTED, None, True, M.JOINING),  # start() still connecting, no engine yet
    (Lifecycle.AT_BARRIER, None, True, M.WAITING),  # at the roster's barrier, before joining
    (Lifecycle.STARTED, None, False, M.UNSUBSCRIBED),  # no group_id: no group at all
    (Lifecycle.STARTED, M.STABLE, True, M.STABLE),
    (Lifecycle.STARTED, M.REBALANCING, True, M.REBALANCING),
    (Lifecycle.STARTED, M.FENCED, True, M.FENCED),
    (Lifecycle.STOPPED, M.STABLE, True, M.STOPPED),  # stop() began: not ready from then on
    (Lifecycle.STOPPED, M.STOPPED, True, M.STOPPED),
    (Lifecycle.STOPPED, None, True, M.STOPPED),
    (Lifecycle.STOPPED, M.FENCED, True, M.FENCED),  # error states stick after stop()
    (Lifecycle.STOPPED, M.FAILED, True, M.FAILED),
]


@pytest.mark.parametrize(("lifecycle", "engine", "group", "want"), LIFECYCLE_TABLE)
def test_lifecycle_and_engine(
    lifecycle: Lifecycle, engine: MembershipState | None, group: bool, want: MembershipState
) -> None:
    assert membership_state(lifecycle, engine, group=group) is want


@pytest.mark.parametrize(
    ("state", "ready", "live"),
    [(M.NOT_STARTED, False, True), (M.UNSUBSCRIBED, False, True), (M.WAITING, True, True),
     (M.JOINING, False, True),
     (M.REBALANCING, False, True), (M.STABLE, True, True), (M.FENCED, False, False),
     (M.FAILED, False, False), (M.STOPPED, False, True)],
)  # fmt: skip
def test_ready_only_when_stable_or_at_the_barrier_live_unless_fatal(
    state: MembershipState, ready: bool, live: bool
) -> None:
    assert (state.ready, state.live) == (ready, live)


def test_the_assignment_counts_only_while_in_a_generation() -> None:
    owned = [("t", 1), ("t", 0)]
    for state in MembershipState:
        value = snapshot(state, group_id="g", group_instance_id="i-0", member_id="m-1",
                         generation_id=4, owned=owned)  # fmt: skip
        held = state in (M.STABLE, M.REBALANCING)
        assert value.assignment == (frozenset(owned) if held else frozenset()), state
    body = snapshot(M.STABLE, group_id="g", group_instance_id="i-0", member_id="m-1",
                    generation_id=4, owned=owned).to_dict()  # fmt: skip
    assert body == {
        "state": "stable", "ready": True, "live": True, "group_id": "g",
        "group_instance_id": "i-0", "member_id": "m-1", "generation_id": 4,
        "assignment": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1}],
    }  # fmt: skip


# -- the classic engine, driven: each state it reaches, as the application sees it ---------------


def _seen(member: ClassicMember) -> MembershipState:
    """What the engine says, ``fenced`` or not included (the driver says nothing of it)."""
    return member.membership_state(subscribed=True, handing_over=False)


def _assignment(*tps: tuple[str, int]) -> bytes:
    return encode_assignment(Assignment(partitions=group_partitions(sorted(tps))))


def test_a_static_member_through_join_rebalance_session_loss_and_fence() -> None:
    member = ClassicMember(classic_config("i-0"))
    member.handle(CoordinatorFound(1))
    seen = [_seen(member)]
    member.poll(100.0, ("t",), 0.0)  # JoinGroup sent
    seen.append(_seen(member))
    member.handle(JoinGroupAnswered(ErrorCode.NONE, 1, "m-1", "range", "other"))  # SyncGroup
    seen.append(_seen(member))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, _assignment(("t", 0))))
    seen.append(_seen(member))
    member.poll(100.0, ("t",), 0.0)
    member.poll(103.0, ("t",), 0.0)  # a heartbeat, answered "rebalancing": re-join
    member.handle(HeartbeatAnswered(ErrorCode.REBALANCE_IN_PROGRESS, 103.0))
    seen.append(_seen(member))  # still stable until the JoinGroup goes out
    member.poll(103.0, ("t",), 0.0)
    seen.append(_seen(member))
    member.handle(JoinGroupAnswered(ErrorCode.UNKNOWN_MEMBER_ID))  # the generation is gone
    seen.append(_seen(member))
    assert seen == [M.JOINING, M.JOINING, M.REBALANCING, M.STABLE, M.STABLE, M.REBALANCING,
                    M.JOINING]  # fmt: skip
    member.poll(104.0, ("t",), 0.0)
    actions = member.handle(JoinGroupAnswered(ErrorCode.FENCED_INSTANCE_ID))
    # The engine decided "fenced"; the driver builds the error later (it looks up the holder).
    assert actions == [BecomeFatal(Api.JOIN_GROUP, ErrorCode.FENCED_INSTANCE_ID, fenced=True)]
    assert _seen(member) is M.FENCED
    member.close(MembershipOperation.DEFAULT)
    member.poll(200.0, ("t",), 0.0)
    assert _seen(member) is M.FENCED  # the engine's state sticks


def test_another_fatal_error_is_failed_not_fenced() -> None:
    member = ClassicMember(classic_config("i-0"))
    member.handle(CoordinatorFound(1))
    member.poll(100.0, ("t",), 0.0)
    actions = member.handle(JoinGroupAnswered(ErrorCode.INVALID_SESSION_TIMEOUT))
    assert actions == [BecomeFatal(Api.JOIN_GROUP, ErrorCode.INVALID_SESSION_TIMEOUT)]
    assert not member.fenced and _seen(member) is M.FAILED
    member.fatal(RuntimeError("the driver records the error"))
    assert _seen(member) is M.FAILED  # recording the error changes nothing the engine decided
