"""The driver's close and ``unsubscribe()`` over a fake coordinator (issue 28): the rebalance
listener hears of the partitions on close (Java's ``onLeavePrepare``) before the member leaves
or stays, a fenced member commits nothing, and an unsubscribed dynamic member leaves before the
next commit is sent."""

from __future__ import annotations

from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer.options import MembershipOperation
from staticconsumer.protocol import ErrorCode

from ._fakes import TOPIC, ScriptedAssignor, Subscription, classic_harness, wait_for
from .test_driver import started

ALL = frozenset((TOPIC, p) for p in range(3))


async def test_close_revokes_through_the_listener_after_the_commit_and_before_the_leave() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    listener = h.seam.listener_object
    assert listener is not None
    calls = len(listener.calls)
    h.seam.consumed = {TopicPartition(TOPIC, 1): OffsetAndMetadata(7, "")}
    await h.driver.close(MembershipOperation.LEAVE_GROUP, "scale down")
    assert listener.calls[calls:] == [("revoked", ALL)]
    names = [name for name, _ in h.coordinator.requests]
    assert names[-2:] == ["OFFSET_COMMIT", "LEAVE_GROUP"], "commit, listener, then the leave"
    assert h.coordinator.commits == [{(TOPIC, 1): 7}], "committed once"
    assert h.seam.stops[-1][0] is None, "nothing more is handed out once close begins"


async def test_a_static_member_that_stops_also_revokes_through_the_listener() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    listener = h.seam.listener_object
    assert listener is not None
    await h.driver.close()
    assert listener.calls[-1] == ("revoked", ALL)
    assert h.coordinator.sent("LEAVE_GROUP") == [], "KIP-345: a static member stays"


async def test_close_of_a_fenced_member_calls_the_listener_and_commits_nothing() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 1): OffsetAndMetadata(7, "")}
    h.coordinator.heartbeat_errors.append(ErrorCode.FENCED_INSTANCE_ID)
    await wait_for(lambda: bool(h.fatal), "the fence")
    await h.driver.close()
    listener = h.seam.listener_object
    assert listener is not None and listener.calls[-1] == ("revoked", ALL), (
        "lost: a listener without on_partitions_lost is told revoked, as Java's default"
    )
    assert h.coordinator.commits == [] and h.coordinator.sent("LEAVE_GROUP") == []


async def test_unsubscribe_leaves_a_dynamic_member_before_the_next_commit() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)), group_instance_id=None)  # type: ignore[arg-type]
    await started(h)
    h.seam.subscription = Subscription(active=False)  # unsubscribe(), then assign()
    h.seam.auto_assigned = lambda: False  # type: ignore[method-assign]
    leave = h.driver.maybe_leave_group()
    assert leave is not None
    offsets = {TopicPartition(TOPIC, 0): OffsetAndMetadata(3, "")}
    await h.driver.commit_offsets(h.seam.assignment(), offsets)
    names = [name for name, _ in h.coordinator.requests]
    assert names.index("LEAVE_GROUP") < len(names) - 1 and names[-1] == "OFFSET_COMMIT"
    assert h.coordinator.sent("OFFSET_COMMIT")[-1]["generation_id"] == -1, "outside the group"
    await h.driver.close()


async def test_unsubscribe_keeps_a_static_member_in_the_group() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    assert h.driver.maybe_leave_group() is None
    assert h.coordinator.sent("LEAVE_GROUP") == []
    await h.driver.close()
