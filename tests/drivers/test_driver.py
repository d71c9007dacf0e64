"""The real Driver (engine, sender, offsets, hand-over) over a fake seam and a scripted
coordinator, with no broker: the fatal path, revoke-before-assign, commit on revoke, stale
answers, close, and an assignor that raises."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka.errors import CommitFailedError
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer import FencedInstanceIdError, MembershipState, StaticConsumerError
from staticconsumer._compat import WakeMarker
from staticconsumer.options import MembershipOperation
from staticconsumer.protocol import ErrorCode

from ._fakes import TOPIC, FakeCoordinator, ScriptedAssignor, classic_harness, owned, wait_for

FIVE = {TopicPartition(TOPIC, 0): OffsetAndMetadata(5, "")}


async def started(h: object, *, stable: bool = True) -> None:
    h.driver.start()  # type: ignore[attr-defined]
    if stable:
        await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE,  # type: ignore[attr-defined]
                       "a stable member")  # fmt: skip


async def test_the_coordination_task_starts_in_start_not_in_the_constructor() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await asyncio.sleep(0.05)
    assert h.coordinator.requests == [] and h.driver.membership_state() is MembershipState.JOINING
    await started(h)
    assert [name for name, _ in h.coordinator.requests][:2] == ["JOIN_GROUP", "SYNC_GROUP"]
    assert owned(h.driver.owned) == {0, 1, 2}
    await h.driver.close()


async def test_the_fatal_path_wakes_every_waiter_once_and_every_later_call_raises() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    h.coordinator.heartbeat_errors.append(ErrorCode.FENCED_INSTANCE_ID)
    await wait_for(lambda: bool(h.fatal), "the fence")
    await asyncio.sleep(0.3)  # the loop stops: no second fatal call, no more requests
    assert len(h.fatal) == 1 and isinstance(h.fatal[0], FencedInstanceIdError)
    assert [w for w in h.seam.wakes if isinstance(w, WakeMarker)] == h.seam.wakes
    assert len(h.seam.wakes) == 1, "every waiter is woken once, through aiokafka's waiters"
    assert h.driver.membership_state() is MembershipState.FENCED, "the engine decided: fenced"
    for _ in range(3):
        with pytest.raises(FencedInstanceIdError) as raised:
            h.driver.check_errors()
        assert raised.value is h.fatal[0]
    with pytest.raises(FencedInstanceIdError):
        await h.driver.commit_offsets(h.seam.assigned, FIVE)
    sent = len(h.coordinator.requests)
    await h.driver.close()
    assert len(h.coordinator.requests) == sent, "a fenced member commits and leaves nothing"


async def test_a_cooperative_rebalance_revokes_before_it_assigns_and_commits_on_revoke() -> None:
    assignor = ScriptedAssignor((0, 1), (1, 2), cooperative=True)
    h = classic_harness(assignor)
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(41, ""),
                       TopicPartition(TOPIC, 1): OffsetAndMetadata(7, "")}  # fmt: skip
    h.coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)
    await wait_for(lambda: owned(h.driver.owned) == {1, 2}, "the new assignment")
    await started(h)
    calls = h.seam.listener_object.calls  # type: ignore[union-attr]
    assert calls[0] == ("assigned", frozenset({(TOPIC, 0), (TOPIC, 1)}))
    assert calls[1:3] == [("revoked", frozenset({(TOPIC, 0)})),
                          ("assigned", frozenset({(TOPIC, 2)}))]  # fmt: skip
    assert {(TOPIC, 0): 41} in h.coordinator.commits, "the revoked partition was committed first"
    assert h.seam.reassignments == 0, "cooperative: the fetcher keeps what stays"
    await h.driver.close()


async def test_a_cooperative_revocation_stops_handing_out_the_revoked_before_its_commit() -> None:
    """An asyncio application keeps consuming while the driver commits on revoke and the
    listener runs: records of a revoked partition handed out after the commit would be read
    again by the next owner (Java marks them pending revocation first)."""
    h = classic_harness(ScriptedAssignor((0, 1), (1, 2), cooperative=True))
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(41, "")}
    h.coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)
    await wait_for(lambda: owned(h.driver.owned) == {1, 2}, "the new assignment")
    [(stopped, commits_before, listener_calls)] = h.seam.stops
    assert stopped == frozenset({(TOPIC, 0)}), "only the revoked partition stops; 1 keeps going"
    assert listener_calls == 1, "before on_partitions_revoked"
    assert {(TOPIC, 0): 41} in h.coordinator.commits[commits_before:], "before the commit"
    await h.driver.close()


async def test_an_eager_revocation_stops_the_fetcher_before_its_commit() -> None:
    h = classic_harness(ScriptedAssignor((0, 1), (1, 2)))
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(41, "")}
    h.coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)
    await wait_for(lambda: owned(h.driver.owned) == {1, 2}, "the new assignment")
    first_join, (stopped, commits_before, listener_calls) = h.seam.stops
    assert first_join == (None, 0, 0), "the first join stops the fetcher too (nothing held)"
    assert stopped is None and listener_calls == 2, "the whole fetcher, before the listener"
    assert {(TOPIC, 0): 41} in h.coordinator.commits[commits_before:], "before the commit"
    await h.driver.close()


async def test_lost_partitions_are_revoked_without_a_commit() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(41, "")}
    reassignments = h.seam.reassignments  # the first join's (eager: nothing held)
    h.coordinator.heartbeat_errors.append(ErrorCode.UNKNOWN_MEMBER_ID)
    await wait_for(lambda: len(h.seam.listener_object.calls) >= 4, "revoke and re-assign")  # type: ignore[union-attr]
    calls = h.seam.listener_object.calls  # type: ignore[union-attr]
    assert calls[2] == ("revoked", frozenset({(TOPIC, 0), (TOPIC, 1), (TOPIC, 2)}))
    assert h.coordinator.commits == [], "nothing is committed for a lost generation"
    assert h.seam.reassignments == reassignments + 1, "lost partitions stop the fetcher"
    await h.driver.close()


async def test_a_commit_answer_about_a_generation_the_member_left_changes_nothing() -> None:
    held = asyncio.Event()
    coordinator = FakeCoordinator(hold_commit=held)
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=coordinator,
                        enable_auto_commit=False)  # fmt: skip
    await started(h)
    first = (h.driver.member_id, h.driver.generation)
    commit = asyncio.ensure_future(h.driver.commit_offsets(h.seam.assigned, FIVE))
    await wait_for(lambda: bool(coordinator.sent("OFFSET_COMMIT")), "the commit in flight")
    coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)  # a new generation
    await wait_for(lambda: h.driver.generation == first[1] + 1, "the next generation")
    await started(h)
    coordinator.commit_errors.append(ErrorCode.ILLEGAL_GENERATION)  # about the old generation
    held.set()
    with pytest.raises(CommitFailedError):
        await commit
    await asyncio.sleep(0.1)
    assert (h.driver.member_id, h.driver.generation) == (first[0], first[1] + 1)
    assert h.driver.membership_state() is MembershipState.STABLE, "the stale answer reset nothing"
    await h.driver.close()


async def test_close_is_idempotent_and_a_second_close_sends_nothing() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 2): OffsetAndMetadata(9, "")}
    await h.driver.close(MembershipOperation.LEAVE_GROUP, "scale down")
    assert h.coordinator.commits[-1] == {(TOPIC, 2): 9}, "close commits what was consumed"
    assert len(h.coordinator.sent("LEAVE_GROUP")) == 1
    sent = len(h.coordinator.requests)
    await h.driver.close()
    assert len(h.coordinator.requests) == sent


async def test_a_static_member_that_only_stops_sends_no_leave_group() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    await h.driver.close()
    assert h.coordinator.sent("LEAVE_GROUP") == []


async def test_an_assignor_that_raises_reaches_the_next_poll_once_and_the_member_rejoins() -> None:
    assignor = ScriptedAssignor((0, 1, 2))
    assignor.fail = ValueError("no plan today")
    h = classic_harness(assignor)
    await started(h, stable=False)
    await wait_for(lambda: bool(h.seam.wakes), "the error handed to the application")
    assignor.fail = None
    with pytest.raises(StaticConsumerError, match="no plan today"):
        h.driver.check_errors()
    h.driver.check_errors()  # raised once
    await started(h)
    assert len(h.coordinator.sent("JOIN_GROUP")) == 2, "the member joined again"
    assert owned(h.driver.owned) == {0, 1, 2} and not h.fatal
    await h.driver.close()


async def test_close_gives_up_the_commit_when_the_coordinator_never_answers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("staticconsumer.drivers.driver.CLOSE_COMMIT_TIMEOUT_S", 0.5)
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    await started(h)
    h.seam.consumed = {TopicPartition(TOPIC, 2): OffsetAndMetadata(9, "")}
    h.coordinator.unanswered.add("OFFSET_COMMIT")
    async with asyncio.timeout(5):  # it hung here: no coordinator lookup while closing
        await h.driver.close()
    assert len(h.coordinator.sent("OFFSET_COMMIT")) >= 2, "the commit was tried again meanwhile"
    assert h.coordinator.commits == [] and "commit on close" in caplog.text


class OffsetFetchErrors(FakeCoordinator):
    """Answers OffsetFetch (v8+, by group) with ``code`` on every partition."""

    code: int = ErrorCode.NONE

    def _offset_fetch(self, req: dict[str, object]) -> dict[str, object]:
        group = req["groups"][0]  # type: ignore[index]
        return {"groups": [{"group_id": group["group_id"], "error_code": 0, "topics": [
            {"name": t["name"], "partitions": [
                {"partition_index": p, "committed_offset": -1, "committed_leader_epoch": -1,
                 "metadata": "", "error_code": self.code} for p in t["partition_indexes"]]}
            for t in group["topics"]]}]}  # fmt: skip


async def test_commit_and_committed_refused_for_a_topic_acl_name_the_topic() -> None:
    """Issue 29: TOPIC_AUTHORIZATION_FAILED on OffsetCommit / OffsetFetch names the topic(s) of
    the refused partitions (the request told us which)."""
    from aiokafka.errors import TopicAuthorizationFailedError

    coordinator = OffsetFetchErrors()
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=coordinator)
    await started(h)
    h.coordinator.commit_errors.append(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    with pytest.raises(TopicAuthorizationFailedError) as refused:
        await h.driver.commit_offsets(h.seam.assigned, FIVE)
    assert refused.value.args == (TOPIC,)
    coordinator.code = ErrorCode.TOPIC_AUTHORIZATION_FAILED
    with pytest.raises(TopicAuthorizationFailedError) as refused:
        await h.driver.fetch_committed_offsets([TopicPartition(TOPIC, 0)])
    assert refused.value.args == (TOPIC,)
    await h.driver.close()
