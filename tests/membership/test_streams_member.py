"""The KIP-1071 member's state machine (``membership._streams``): every row of the
StreamsGroupHeartbeat column, the join / reconcile (commit, revoke, assign, acknowledge with all
three lists) / leave flows, statuses, task offsets and static membership as Kafka 4.4 defines
it. No broker, no asyncio."""

from __future__ import annotations

import logging

import pytest

from staticconsumer.events import GroupJoined, PartitionsAssigned, PartitionsRevoked
from staticconsumer.membership import (
    STREAMS_TABLE,
    Assign,
    Backoff,
    BecomeFatal,
    CommitOutcome,
    CoordinatorFound,
    DeliverTasks,
    Emit,
    FindCoordinator,
    MembershipState,
    RaiseError,
    Reaction,
    RebalanceMetric,
    RecordRebalance,
    Revoke,
    SendStreamsGroupHeartbeat,
    StreamsGroupConfig,
    StreamsGroupHeartbeatAnswered,
    StreamsGroupHeartbeatFailed,
    StreamsGroupMember,
    TaskSet,
    reaction,
    tasks_from_answer,
)
from staticconsumer.membership._consumer_group import ConsumerGroupState
from staticconsumer.membership._reactions import Api, GroupProtocol
from staticconsumer.options import ConsumerOptions, MembershipOperation
from staticconsumer.protocol import (
    ErrorCode,
    StreamsGroupStatus,
    StreamsTopology,
    Subtopology,
    TaskIds,
    TopicInfo,
)

T0 = 1000.0
SOURCES = ("words",)
API = Api.STREAMS_GROUP_HEARTBEAT
#: Subtopology "0" reads ``words`` and keeps a store whose changelog the broker creates;
#: subtopology "1" reads the repartition topic the first writes.
TOPOLOGY = StreamsTopology(1, (
    Subtopology("0", source_topics=("words",), repartition_sink_topics=("app-rep",),
                state_changelog_topics=(TopicInfo("app-store-changelog"),)),
    Subtopology("1", repartition_source_topics=(TopicInfo("app-rep"),)),
))  # fmt: skip
ENDED = RecordRebalance(RebalanceMetric.ENDED)
STARTED = RecordRebalance(RebalanceMetric.STARTED)


def member(instance_id: str | None = "app-1", wait_ms: int = 45_000) -> StreamsGroupMember:
    options = ConsumerOptions(group_id="g", group_instance_id=instance_id,
                              unreleased_instance_wait_ms=wait_ms)  # fmt: skip
    m = StreamsGroupMember(StreamsGroupConfig(options, "m-uuid", TOPOLOGY, "p-uuid"))
    m.handle(CoordinatorFound(0))
    return m


def tasks(active: object = (), standby: object = (), warmup: object = ()) -> TaskSet:
    return TaskSet(frozenset(active), frozenset(standby), frozenset(warmup))  # type: ignore[arg-type]


Statuses = tuple[tuple[int, str], ...]


def answer(code: int = ErrorCode.NONE, *, epoch: int = 1, given: TaskSet | None = None,
           now: float = T0, offsets_ms: int = -1,
           statuses: Statuses = ()) -> StreamsGroupHeartbeatAnswered:  # fmt: skip
    return StreamsGroupHeartbeatAnswered(code, now, epoch, 5000, offsets_ms, given, statuses)


def emit(kind: type, epoch: int, **fields: object) -> Emit:
    return Emit(kind, "m-uuid", epoch, dict(fields))


def stable(m: StreamsGroupMember, given: TaskSet) -> None:
    assert m.poll(T0, SOURCES) == [SendStreamsGroupHeartbeat(0, True, None)]
    m.handle(answer(given=given))
    assert m.poll(T0, SOURCES) == [ENDED, SendStreamsGroupHeartbeat(1, False, given)]
    m.handle(answer())
    assert m.state is ConsumerGroupState.STABLE and m.tasks == given


def test_a_thread_joins_with_the_topology_and_acknowledges_all_three_lists() -> None:
    m = member()
    assert m.poll(T0, ()) == []  # nothing subscribed: nothing to join
    assert m.poll(T0, SOURCES) == [SendStreamsGroupHeartbeat(0, True, None)]
    given = tasks({("0", 0), ("1", 2)}, standby={("0", 1)}, warmup={("0", 3)})
    actions = m.handle(answer(given=given))
    partitions = [("app-rep", 2), ("words", 0)]  # active task (s, p): partition p of its sources
    assert actions == [
        STARTED, emit(GroupJoined, 1, leader=False, protocol="streams"),
        emit(PartitionsAssigned, 1, partitions=partitions),
        Assign(tuple(partitions), tuple(partitions)), DeliverTasks(given),
    ]  # fmt: skip
    assert m.state is ConsumerGroupState.RECONCILING
    assert m.poll(T0, SOURCES) == [ENDED, SendStreamsGroupHeartbeat(1, False, given)]
    m.handle(answer())
    assert m.state is ConsumerGroupState.STABLE and m.in_group
    assert m.poll(T0 + 1, SOURCES) == []  # not due yet
    assert m.poll(T0 + 5, SOURCES) == [SendStreamsGroupHeartbeat(1, False, None)]


def test_a_moved_task_is_committed_and_revoked_before_the_new_one_is_assigned() -> None:
    m = member()
    stable(m, tasks({("0", 0), ("0", 1)}))
    given = tasks({("0", 1), ("0", 2)}, standby={("0", 0)})
    actions = m.handle(answer(epoch=2, given=given))
    assert actions == [
        STARTED, emit(GroupJoined, 2, leader=False, protocol="streams"),
        emit(PartitionsRevoked, 2, partitions=[("words", 0)], reason="rebalance"),
        Revoke((("words", 0),), lost=False, reason="rebalance"),
        emit(PartitionsAssigned, 2, partitions=[("words", 1), ("words", 2)]),
        Assign((("words", 1), ("words", 2)), (("words", 2),)), DeliverTasks(given),
    ]  # fmt: skip
    assert m.poll(T0, SOURCES) == [ENDED, SendStreamsGroupHeartbeat(2, False, given)]


def test_standby_only_changes_hand_the_tasks_over_without_touching_partitions() -> None:
    m = member()
    stable(m, tasks({("0", 0)}))
    given = tasks({("0", 0)}, standby={("0", 1)})
    assert m.handle(answer(given=given)) == [DeliverTasks(given)]
    assert m.poll(T0, SOURCES) == [ENDED, SendStreamsGroupHeartbeat(1, False, given)]


def test_a_list_left_null_beside_others_keeps_what_the_member_held() -> None:
    held = tasks({("0", 0)}, standby={("0", 1)})
    assert tasks_from_answer(None, None, None, held) is None
    got = tasks_from_answer((TaskIds("0", (2,)),), None, (), held)
    assert got == tasks({("0", 2)}, standby={("0", 1)})


def test_task_offsets_go_with_the_first_heartbeat_after_each_interval() -> None:
    m = member()
    assert m.poll(T0, SOURCES) == [SendStreamsGroupHeartbeat(0, True, None)]
    m.handle(answer(given=tasks({("0", 0)}), offsets_ms=8000))
    assert m.poll(T0, SOURCES)[-1].report_offsets is False  # type: ignore[union-attr]
    m.handle(answer(now=T0, offsets_ms=8000))
    assert m.poll(T0 + 5, SOURCES) == [SendStreamsGroupHeartbeat(1, False, None, False)]
    m.handle(answer(now=T0 + 5, offsets_ms=8000))
    assert m.poll(T0 + 10, SOURCES) == [SendStreamsGroupHeartbeat(1, False, None, True)]
    m.handle(answer(now=T0 + 10, offsets_ms=8000))
    assert m.poll(T0 + 15, SOURCES) == [SendStreamsGroupHeartbeat(1, False, None, False)]


def test_each_status_is_logged_once_with_what_the_thread_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = member()
    m.poll(T0, SOURCES)
    missing = ((StreamsGroupStatus.MISSING_SOURCE_TOPICS, "words"),)
    with caplog.at_level(logging.WARNING):
        m.handle(answer(given=tasks(), statuses=missing))
        m.poll(T0, SOURCES)
        m.handle(answer(statuses=missing))
    lines = [r.getMessage() for r in caplog.records if "MISSING_SOURCE_TOPICS" in r.getMessage()]
    assert len(lines) == 1 and "create them (the broker does not)" in lines[0], lines
    assert "gets no tasks until the source topics exist" in lines[0]
    assert m.statuses == {StreamsGroupStatus.MISSING_SOURCE_TOPICS: "words"}
    assert not m.shutdown_requested


def test_a_shutdown_status_is_what_the_application_reads_to_stop() -> None:
    m = member()
    m.poll(T0, SOURCES)
    m.handle(answer(given=tasks(), statuses=((StreamsGroupStatus.SHUTDOWN_APPLICATION, "x"),)))
    assert m.shutdown_requested


def test_a_thread_asks_the_application_to_shut_down_at_once_and_on_every_heartbeat() -> None:
    """KIP-1071's ShutdownApplication: sent with the next heartbeat, not at its interval, and
    on each one after (Java's Kafka Streams keeps sending it); asked once, said once."""
    m = member()
    stable(m, tasks({("0", 0)}))
    m.handle(answer(now=T0))
    assert m.poll(T0 + 1, SOURCES) == []  # not due
    m.request_application_shutdown("a task failed")
    m.request_application_shutdown("again")
    assert m.poll(T0 + 1, SOURCES) == [SendStreamsGroupHeartbeat(1, False, None, False, True)]
    m.handle(answer(now=T0 + 1))
    assert m.poll(T0 + 7, SOURCES) == [SendStreamsGroupHeartbeat(1, False, None, False, True)]
    assert not m.shutdown_requested  # until the coordinator says so, to every member
    m.handle(answer(statuses=((StreamsGroupStatus.SHUTDOWN_APPLICATION, "x"),)))
    assert m.shutdown_requested


def test_a_static_thread_stops_at_epoch_minus_2_and_keeps_its_tasks() -> None:
    m = member()
    stable(m, tasks({("0", 0)}))
    assert m.leave_prepare() == [
        emit(PartitionsRevoked, 1, partitions=[("words", 0)], reason="close"),
        Revoke((("words", 0),), lost=False, reason="close"),
    ]  # fmt: skip
    assert m.close(MembershipOperation.DEFAULT) == [SendStreamsGroupHeartbeat(-2, False, None)]
    assert m.handle(answer(epoch=-2)) == []  # still a member: no GroupLeft


def test_a_dynamic_thread_or_an_explicit_leave_sends_epoch_minus_1() -> None:
    for instance_id, op in ((None, MembershipOperation.DEFAULT),
                            ("app-1", MembershipOperation.LEAVE_GROUP)):  # fmt: skip
        m = member(instance_id)
        stable(m, tasks({("0", 0)}))
        m.leave_prepare()
        assert m.close(op)[-1] == SendStreamsGroupHeartbeat(-1, False, None)
        assert [a.kind for a in m.handle(answer(epoch=-1)) if isinstance(a, Emit)]


def test_fenced_instance_id_is_fatal_and_sticks() -> None:
    m = member()
    stable(m, tasks({("0", 0)}))
    m.poll(T0 + 5, SOURCES)
    actions = m.handle(answer(ErrorCode.FENCED_INSTANCE_ID))
    assert actions[-1] == BecomeFatal(API, ErrorCode.FENCED_INSTANCE_ID, fenced=True)
    assert m.terminal and m.fenced
    assert m.poll(T0 + 100, SOURCES) == [] and m.close(MembershipOperation.DEFAULT) == []
    assert m.membership_state(subscribed=True, handing_over=False) is MembershipState.FENCED


def test_a_lost_epoch_loses_the_tasks_and_joins_again_at_epoch_0() -> None:
    m = member()
    stable(m, tasks({("0", 0)}, standby={("0", 1)}))
    m.poll(T0 + 5, SOURCES)
    actions = m.handle(answer(ErrorCode.FENCED_MEMBER_EPOCH))
    assert Revoke((("words", 0),), lost=True, reason="lost") in actions
    assert DeliverTasks(TaskSet()) in actions
    assert m.poll(T0 + 5, SOURCES) == [SendStreamsGroupHeartbeat(0, True, None)]


def test_unreleased_instance_id_is_asked_again_each_second_then_raised_once_it_lasted() -> None:
    m = member(wait_ms=10_000)
    m.poll(T0, SOURCES)
    assert m.handle(answer(ErrorCode.UNRELEASED_INSTANCE_ID)) == []
    assert m.poll(T0 + 0.5, SOURCES) == []  # not before a second
    assert m.next_wakeup(T0 + 0.5) == pytest.approx(0.5)
    assert m.poll(T0 + 1, SOURCES) == [SendStreamsGroupHeartbeat(0, True, None)]
    late = m.handle(answer(ErrorCode.UNRELEASED_INSTANCE_ID, now=T0 + 11))
    assert len(late) == 1 and isinstance(late[0], RaiseError)
    assert late[0].error_code == ErrorCode.UNRELEASED_INSTANCE_ID
    assert "no takeover" in late[0].detail and "streams.session.timeout.ms" in late[0].detail
    assert not m.terminal


def test_no_answer_finds_the_coordinator_again_and_resends_the_tasks() -> None:
    m = member()
    given = tasks({("0", 0)})
    stable(m, given)
    m.poll(T0 + 5, SOURCES)
    assert m.handle(StreamsGroupHeartbeatFailed(T0 + 5)) == [Backoff(), FindCoordinator()]
    assert m.poll(T0 + 6, SOURCES) == [FindCoordinator()]
    m.handle(CoordinatorFound(1))
    assert m.poll(T0 + 6, SOURCES) == [SendStreamsGroupHeartbeat(1, False, given)]


def test_commits_carry_the_epoch_while_the_thread_holds_its_tasks() -> None:
    m = member()
    assert m.commit_identity() is None
    stable(m, tasks({("0", 0)}))
    assert m.commit_identity() == (1, "m-uuid")
    assert m.on_commit_answer(ErrorCode.STALE_MEMBER_EPOCH)[0] is CommitOutcome.RETRY
    outcome, actions = m.on_commit_answer(ErrorCode.FENCED_INSTANCE_ID)
    assert outcome is CommitOutcome.FAILED and isinstance(actions[0], BecomeFatal)


@pytest.mark.parametrize("code", sorted(STREAMS_TABLE))
def test_every_row_of_the_heartbeat_column_is_what_the_engine_does(code: int) -> None:
    m = member()
    stable(m, tasks({("0", 0)}))
    m.poll(T0 + 5, SOURCES)
    what = reaction(API, code, protocol=GroupProtocol.STREAMS)
    actions = m.handle(answer(code, now=T0 + 5))
    if what is Reaction.OK:
        assert m.state is ConsumerGroupState.STABLE
    elif what.fatal:
        assert m.terminal and isinstance(actions[-1], BecomeFatal)
        assert actions[-1].fenced is (what is Reaction.FENCED)
    elif what is Reaction.FIND_COORDINATOR:
        assert actions == [Backoff(), FindCoordinator()] and m.coordinator is None
    elif what is Reaction.RESET:
        assert m.member_epoch == 0 and m.tasks == TaskSet() and not m.in_group
    elif code == ErrorCode.UNRELEASED_INSTANCE_ID:
        assert actions == [] and not m.terminal and m.next_wakeup(T0 + 5) == 1.0
    elif what is Reaction.RETRY:
        assert actions[-1] == Backoff() and not m.terminal and m.member_epoch == 1
    else:
        assert what is Reaction.RAISE
        assert actions == [RaiseError(API, code), Backoff()] and not m.terminal


def test_a_commit_leaves_out_what_moved_and_keeps_what_is_being_revoked() -> None:
    """KIP-1251 as the consumer protocol's: a revoked task's partition is still committed for
    until the heartbeat acknowledging the revocation; after it, a commit sent again leaves it
    out (another thread holds it now)."""
    m = member()
    stable(m, tasks({("0", 0), ("0", 1)}))
    m.handle(answer(epoch=2, given=tasks({("0", 1)})))
    assert m.commit_not_held([("words", 0), ("words", 1), ("words", 5)]) == (("words", 5),)
    m.poll(T0, SOURCES)  # the acknowledgement: the coordinator hears partition 0 released
    assert m.commit_not_held([("words", 0), ("words", 1)]) == (("words", 0),)


def test_a_join_refused_as_not_a_streams_group_is_raised_and_asked_again_a_second_later() -> None:
    """GROUP_ID_NOT_FOUND on a join (epoch 0) is no group deleted meanwhile: the id holds a
    group of another kind (a consumer group). Raised with the way out, never a hot loop."""
    m = member()
    m.poll(T0, SOURCES)
    raised = [
        a for a in m.handle(answer(ErrorCode.GROUP_ID_NOT_FOUND)) if isinstance(a, RaiseError)
    ]
    assert len(raised) == 1 and raised[0].error_code == ErrorCode.GROUP_ID_NOT_FOUND
    assert "not a streams group" in raised[0].detail and "classic" in raised[0].detail
    assert not m.terminal
    assert m.poll(T0 + 0.5, SOURCES) == []
    assert m.poll(T0 + 1, SOURCES) == [SendStreamsGroupHeartbeat(0, True, None)]
