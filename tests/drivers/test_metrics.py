"""The coordinator metrics (``_observability.metrics``) as the real Driver feeds them, over the fake
seam and scripted coordinator: rebalances, failed rebalances, heartbeats, commits, the assignment
and the rebalance listener; and the consumer protocol's rebalance span, from the answer carrying
an assignment to the heartbeat acknowledging it."""

from __future__ import annotations

import math

import pytest
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer import MembershipState, StaticConsumerError
from staticconsumer._observability.metrics import ConsumerMetrics, MetricLabels
from staticconsumer.drivers import Driver, consumer_group_driver
from staticconsumer.membership import (
    Api,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupMember,
    ConsumerGroupSenderAction,
    CoordinatorFound,
    RebalanceMetric,
    RecordRebalance,
    SendConsumerGroupHeartbeat,
)
from staticconsumer.protocol import IMPLEMENTED_VERSIONS, ErrorCode, negotiate

from ._fakes import (
    TOPIC,
    FakeCoordinator,
    FakeSeam,
    ScriptedAssignor,
    classic_harness,
    kip848_options,
    wait_for,
)


def value(h: object, name: str) -> float:
    result = h.driver.metrics.value(name)  # type: ignore[attr-defined]
    assert result is not None, name
    return result


async def stable(h: object) -> None:
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE,  # type: ignore[attr-defined]
                   "a stable member")  # fmt: skip


async def test_a_rebalance_counts_and_sets_its_latency_join_and_sync_times() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    assert value(h, "rebalance-total") == 0 and value(h, "last-rebalance-seconds-ago") == -1
    assert math.isnan(value(h, "rebalance-latency-avg")), "Java's Avg: NaN with no sample"
    h.driver.start()
    await stable(h)
    assert value(h, "rebalance-total") == 1
    assert value(h, "rebalance-latency-max") > 0 and value(h, "rebalance-latency-total") > 0
    assert value(h, "rebalance-latency-avg") == value(h, "rebalance-latency-max")
    # one rebalance over Java's shortest rate window (one full 30 s sample), per hour
    assert value(h, "rebalance-rate-per-hour") == pytest.approx(3600 / 30, rel=1e-3)
    assert value(h, "last-rebalance-seconds-ago") == 0
    assert value(h, "join-total") == 1 and value(h, "sync-total") == 1
    assert value(h, "join-time-avg") > 0 and value(h, "sync-time-max") > 0
    assert value(h, "failed-rebalance-total") == 0
    h.coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)
    await wait_for(lambda: value(h, "rebalance-total") == 2, "the second rebalance")
    assert value(h, "join-total") == 2 and value(h, "failed-rebalance-total") == 0
    await h.driver.close()


async def test_an_assignor_that_raises_is_a_failed_rebalance_and_the_next_one_counts() -> None:
    assignor = ScriptedAssignor((0, 1, 2))
    assignor.fail = ValueError("no plan today")
    h = classic_harness(assignor)
    h.driver.start()
    await wait_for(lambda: bool(h.seam.wakes), "the error handed to the application")
    assert value(h, "failed-rebalance-total") == 1
    assert value(h, "failed-rebalance-rate-per-hour") == pytest.approx(3600 / 30, rel=1e-3)
    assert value(h, "rebalance-total") == 0
    assignor.fail = None
    with pytest.raises(StaticConsumerError, match="no plan today"):
        h.driver.check_errors()
    await stable(h)
    assert value(h, "rebalance-total") == 1 and value(h, "failed-rebalance-total") == 1
    await h.driver.close()


async def test_heartbeats_move_the_heartbeat_metrics() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    assert value(h, "last-heartbeat-seconds-ago") == -1 and value(h, "heartbeat-rate") == 0
    h.driver.start()
    await wait_for(lambda: value(h, "heartbeat-total") >= 2, "two heartbeats (100 ms apart)")
    assert value(h, "last-heartbeat-seconds-ago") == 0
    assert value(h, "heartbeat-rate") > 0
    assert value(h, "heartbeat-response-time-max") > 0
    await h.driver.close()


async def test_commits_move_the_commit_metrics() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)), enable_auto_commit=False)
    h.driver.start()
    await stable(h)
    assert value(h, "commit-total") == 0 and math.isnan(value(h, "commit-latency-max"))
    offsets = {TopicPartition(TOPIC, 0): OffsetAndMetadata(5, "")}
    await h.driver.commit_offsets(h.seam.assigned, offsets)
    await h.driver.commit_offsets(h.seam.assigned, offsets)
    assert value(h, "commit-total") == 2
    assert value(h, "commit-rate") == pytest.approx(2 / 30, rel=1e-3)
    assert value(h, "commit-latency-avg") > 0 and value(h, "commit-latency-max") > 0
    await h.driver.close()


async def test_assigned_partitions_follow_the_assignment_and_listener_latencies_are_kept() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2), (1,), cooperative=True))
    assert value(h, "assigned-partitions") == 0
    h.driver.start()
    await stable(h)
    assert value(h, "assigned-partitions") == 3
    assert value(h, "partition-assigned-latency-max") >= 0
    assert math.isnan(value(h, "partition-revoked-latency-max")), "nothing revoked yet"
    h.coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)
    await wait_for(lambda: value(h, "assigned-partitions") == 1, "the new assignment")
    assert value(h, "partition-revoked-latency-avg") >= 0
    assert math.isnan(value(h, "partition-lost-latency-avg"))
    await h.driver.close()


def test_the_consumer_protocol_has_no_join_or_sync_metrics() -> None:
    metrics = ConsumerMetrics(MetricLabels("g", "i-0", "consumer", "c"))
    names = set(metrics.values())
    assert "join-rate" not in names and "sync-time-avg" not in names
    assert {"rebalance-total", "heartbeat-rate", "commit-rate", "assigned-partitions"} <= names
    assert metrics.value("join-total") is None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def kip848_driver(metrics: ConsumerMetrics | None = None) -> Driver[ConsumerGroupSenderAction]:
    """A KIP-848 driver over the fake seam (its coordinator has no ConsumerGroupHeartbeat)."""
    options = kip848_options(enable_auto_commit=False, auto_commit_interval_ms=5000)
    return consumer_group_driver(
        FakeSeam(FakeCoordinator()), negotiate(dict(IMPLEMENTED_VERSIONS)), options,
        on_fatal=lambda e: None, events=None, metrics=metrics,
    )  # type: ignore[arg-type]  # fmt: skip


def test_a_consumer_protocol_rebalance_spans_the_new_assignment_to_its_acknowledgement() -> None:
    """The engine decides (its RecordRebalance actions), the driver counts: what the sender does
    with each answer (its latency, then the engine's metric actions)."""
    clock = Clock()
    metrics = ConsumerMetrics(MetricLabels("g", "i-0", "consumer", "c"), clock=clock)
    driver = kip848_driver(metrics)
    engine = driver.engine
    assert isinstance(engine, ConsumerGroupMember)
    engine.handle(CoordinatorFound(0))
    engine.owned = ((TOPIC, 0),)

    def answer(code: int, assignment: tuple[tuple[str, int], ...] | None) -> None:
        metrics.answered(Api.CONSUMER_GROUP_HEARTBEAT, clock.now, code)
        actions = engine.handle(ConsumerGroupHeartbeatAnswered(code, clock.now, 3, 5000,
                                                               assignment))  # fmt: skip
        driver.run_now(a for a in actions if isinstance(a, RecordRebalance))

    answer(ErrorCode.NONE, ((TOPIC, 0),))
    assert metrics.value("heartbeat-total") == 1
    assert metrics.value("rebalance-total") == 0, "the assignment it holds: no rebalance"
    answer(ErrorCode.NONE, ((TOPIC, 0), (TOPIC, 1)))
    clock.now += 0.25
    acknowledging = engine.poll(clock.now, [TOPIC])  # the acknowledging heartbeat leaves
    driver.run_now(a for a in acknowledging if isinstance(a, RecordRebalance))
    assert metrics.value("rebalance-total") == 1
    assert metrics.value("rebalance-latency-max") == pytest.approx(250)
    answer(ErrorCode.NONE, ((TOPIC, 1),))
    answer(ErrorCode.FENCED_MEMBER_EPOCH, None)
    assert metrics.value("failed-rebalance-total") == 1, "fenced while reconciling"
    answer(ErrorCode.COORDINATOR_NOT_AVAILABLE, None)
    assert metrics.value("failed-rebalance-total") == 1, "a retriable error fails nothing"


async def test_the_driver_ends_a_rebalance_before_the_acknowledging_heartbeat_is_sent() -> None:
    """The engine's acknowledgement comes as RecordRebalance(ENDED) before its heartbeat; the
    driver counts it before the heartbeat is sent (here the send fails: counted all the same)."""
    driver = kip848_driver()
    assert driver.metrics.labels.protocol == "consumer"
    driver.engine.handle(CoordinatorFound(0))
    driver.metrics.rebalance_started()
    heartbeat = SendConsumerGroupHeartbeat(3, False, None, ((TOPIC, 0),))
    with pytest.raises(AttributeError):  # the fake coordinator has no ConsumerGroupHeartbeat
        await driver.run([heartbeat])
    assert driver.metrics.value("rebalance-total") == 0, "not acknowledging: still in progress"
    with pytest.raises(AttributeError):
        await driver.run([RecordRebalance(RebalanceMetric.ENDED), heartbeat])
    assert driver.metrics.value("rebalance-total") == 1
