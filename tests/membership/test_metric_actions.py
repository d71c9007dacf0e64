"""The rebalance metrics are actions the engine gives out (``_io.RecordRebalance``), where it
decides: tables of ``{name, answer, want}`` over both engines, no driver and no metrics object.

Java's definitions (``_observability.metrics``): a KIP-848 rebalance spans an answer carrying an
assignment other than the one held to the heartbeat that acknowledges it, and a fence or a lost
member epoch fails the one in progress; a classic leader's assignor that raises fails the
rebalance (the classic JoinGroup/SyncGroup span is timed from the requests themselves).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from staticconsumer.membership import (
    CLASSIC_TABLE,
    CONSUMER_TABLE,
    Api,
    AssignmentComputed,
    AssignmentFailed,
    ClassicMember,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupHeartbeatFailed,
    ConsumerGroupMember,
    CoordinatorFound,
    GroupProtocol,
    HeartbeatAnswered,
    JoinGroupAnswered,
    Reaction,
    RebalanceMetric,
    RecordRebalance,
    SyncGroupAnswered,
    reaction,
)
from staticconsumer.protocol import (
    Assignment,
    ErrorCode,
    encode_assignment,
    group_partitions,
)

from ._configs import classic_config, consumer_config

T0 = 1000.0
TOPICS = ("t",)
STARTED = RecordRebalance(RebalanceMetric.STARTED)
ENDED = RecordRebalance(RebalanceMetric.ENDED)
FAILED = RecordRebalance(RebalanceMetric.FAILED)


def metrics(actions: Sequence[object]) -> list[object]:
    """The metric actions among ``actions``, in order."""
    return [a for a in actions if isinstance(a, RecordRebalance)]


# -- KIP-848 --------------------------------------------------------------------------------------


def kip848(owning: tuple[tuple[str, int], ...] | None) -> ConsumerGroupMember:
    """A member with a heartbeat in flight: joining (``owning`` None), or STABLE at epoch 1
    owning ``owning``."""
    m = ConsumerGroupMember(consumer_config("svc-0"))
    m.handle(CoordinatorFound(0))
    m.poll(T0, TOPICS)
    if owning is None:
        return m
    m.handle(ConsumerGroupHeartbeatAnswered(ErrorCode.NONE, T0, 1, 5000, owning))
    m.poll(T0, TOPICS)  # the acknowledgement
    m.handle(ConsumerGroupHeartbeatAnswered(ErrorCode.NONE, T0, 1, 5000))
    m.poll(T0 + 5, TOPICS)  # the next heartbeat, in flight
    return m


T0P0, T0P1 = ("t", 0), ("t", 1)
#: name, owning (None: joining), the answer's code, its assignment, the metric actions wanted.
KIP_848_ANSWERS = [
    ("a join's first assignment starts one", None, ErrorCode.NONE, (T0P0,), [STARTED]),
    ("an empty first assignment: none", None, ErrorCode.NONE, (), []),
    ("the assignment held: none", (T0P0,), ErrorCode.NONE, (T0P0,), []),
    ("held, in another order: none", (T0P0, T0P1), ErrorCode.NONE, (T0P1, T0P0), []),
    ("a changed assignment starts one", (T0P0,), ErrorCode.NONE, (T0P0, T0P1), [STARTED]),
    ("less than held starts one", (T0P0, T0P1), ErrorCode.NONE, (T0P1,), [STARTED]),
    ("no assignment in the answer: none", (T0P0,), ErrorCode.NONE, None, []),
]  # fmt: skip


@pytest.mark.parametrize(("name", "owning", "code", "assignment", "want"), KIP_848_ANSWERS,
                         ids=[row[0] for row in KIP_848_ANSWERS])  # fmt: skip
def test_a_kip_848_answer_starts_a_rebalance_when_its_assignment_is_new(
    name: str, owning: tuple[tuple[str, int], ...] | None, code: int,
    assignment: tuple[tuple[str, int], ...] | None, want: list[object],
) -> None:  # fmt: skip
    m = kip848(owning)
    actions = m.handle(ConsumerGroupHeartbeatAnswered(code, T0 + 5, 2, 5000, assignment))
    assert metrics(actions) == want
    assert actions[: len(want)] == want, "counted before the hand-over it starts"


def _heartbeat_codes() -> list[int]:
    return [c for c, row in CONSUMER_TABLE.items() if Api.CONSUMER_GROUP_HEARTBEAT in row]


@pytest.mark.parametrize("code", _heartbeat_codes(), ids=lambda c: ErrorCode(c).name)
def test_each_kip_848_heartbeat_code_fails_the_rebalance_only_on_a_fence_or_a_lost_epoch(
    code: int,
) -> None:
    """The table: FENCED/FATAL or RESET fail the rebalance in progress (first, before what the
    engine does about it); every other reaction counts nothing."""
    what = reaction(Api.CONSUMER_GROUP_HEARTBEAT, code, protocol=GroupProtocol.CONSUMER)
    m = kip848((T0P0,))
    actions = m.handle(ConsumerGroupHeartbeatAnswered(code, T0 + 5))
    want = [FAILED] if what.fatal or what is Reaction.RESET else []
    assert metrics(actions) == want and actions[: len(want)] == want


def test_the_acknowledging_heartbeat_ends_the_rebalance_once() -> None:
    m = kip848(None)
    m.handle(ConsumerGroupHeartbeatAnswered(ErrorCode.NONE, T0, 1, 5000, (T0P0,)))
    assert metrics(m.poll(T0, TOPICS)) == [ENDED], "the acknowledgement, before its heartbeat"
    m.handle(ConsumerGroupHeartbeatAnswered(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, T0))
    assert metrics(m.poll(T0 + 5, TOPICS)) == [], "a retried heartbeat ends nothing again"
    m.handle(ConsumerGroupHeartbeatAnswered(ErrorCode.NONE, T0 + 5, 1, 5000))
    assert metrics(m.poll(T0 + 10, TOPICS)) == [], "a stable member's heartbeat ends nothing"


def test_no_answer_and_every_commit_or_fetch_answer_count_nothing() -> None:
    m = kip848((T0P0,))
    assert metrics(m.handle(ConsumerGroupHeartbeatFailed(T0 + 5))) == []
    for code, row in CONSUMER_TABLE.items():
        m = kip848((T0P0,))
        if Api.OFFSET_COMMIT in row:
            assert metrics(m.on_commit_answer(code)[1]) == []
        if Api.OFFSET_FETCH in row:
            assert metrics(m.on_offset_fetch_answer([code])[2]) == []


# -- classic --------------------------------------------------------------------------------------


def leader() -> ClassicMember:
    """A classic leader whose assignor runs (ASSIGNING)."""
    m = ClassicMember(classic_config("i-0"))
    m.handle(CoordinatorFound(1))
    m.poll(T0, TOPICS, 0.0)
    m.handle(JoinGroupAnswered(ErrorCode.NONE, 1, "m-1", "p", "m-1", False, ()))
    return m


def test_a_classic_assignor_that_raises_fails_the_rebalance_before_the_backoff() -> None:
    m = leader()
    assert metrics(m.handle(AssignmentFailed())) == [FAILED]
    m = leader()
    assert metrics(m.handle(AssignmentComputed((("m-1", b""),)))) == [], "planned: nothing"


@pytest.mark.parametrize("code", list(CLASSIC_TABLE), ids=lambda c: ErrorCode(c).name)
def test_classic_answers_count_no_rebalance_their_requests_are_timed(code: int) -> None:
    """JoinGroup/SyncGroup answers are timed from the requests (``metrics.answered``), not
    counted by the engine: no answer of any code gives a metric action."""
    plan = encode_assignment(Assignment(partitions=group_partitions([T0P0])))
    m = ClassicMember(classic_config("i-0"))
    m.handle(CoordinatorFound(1))
    m.poll(T0, TOPICS, 0.0)
    assert metrics(m.handle(JoinGroupAnswered(code, 1, "m-1", "p", "m-1", False, ()))) == []
    m = leader()
    m.handle(AssignmentComputed((("m-1", plan),)))
    assert metrics(m.handle(SyncGroupAnswered(code, plan))) == []
    m = leader()
    m.handle(AssignmentComputed((("m-1", plan),)))
    m.handle(SyncGroupAnswered(ErrorCode.NONE, plan))
    m.poll(T0, TOPICS, 0.0)
    assert m.poll(T0 + 3, TOPICS, 0.0), "a heartbeat in flight"
    assert metrics(m.handle(HeartbeatAnswered(code, T0 + 3))) == []
