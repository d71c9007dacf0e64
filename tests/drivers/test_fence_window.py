"""Found by the chaos suite (tests/chaos, issue 29): between the heartbeat's FENCED_INSTANCE_ID
and the fatal error (the driver first asks the coordinator who holds the instance id now,
``fence_diagnosis.holder_of_instance_id``, up to ``FENCE_DIAGNOSIS_S``), the member is fenced but
its calls do not say so: a commit raises CommitFailedError ("the group has already rebalanced")
and a poll hands out records. STYLE rule 7: once fenced, every later call raises the fence.

In the chaos run (classic, eager, seed 29) a member replaced while frozen was thawed; its first
commit answered CommitFailedError 8 ms before the FencedInstanceIdError, so an ETL loop that goes
on after a failed commit fetched and wrote one more batch as a zombie."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer import FencedInstanceIdError
from staticconsumer.protocol import ApiKey, ErrorCode

from ._fakes import TOPIC, FakeCoordinator, ScriptedAssignor, classic_harness, wait_for

FIVE = {TopicPartition(TOPIC, 0): OffsetAndMetadata(5, "")}


class SlowDiagnosis(FakeCoordinator):
    """DescribeGroups (the fence's diagnosis) is answered only when the test says so."""

    def __init__(self) -> None:
        super().__init__()
        self.describing = asyncio.Event()
        self.release = asyncio.Event()

    async def answer(self, request: Any) -> Any:
        if request.api_key == ApiKey.DESCRIBE_GROUPS:
            self.describing.set()
            await self.release.wait()
        return await super().answer(request)


async def test_nothing_is_handed_out_or_committed_while_the_fence_is_diagnosed() -> None:
    """From the heartbeat's FENCED_INSTANCE_ID on, the fetcher hands out nothing (it stops as
    for an eager revocation), and a commit made meanwhile waits for the diagnosed fence and
    raises it, naming the new holder (it raised CommitFailedError before)."""
    coordinator = SlowDiagnosis()
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=coordinator,
                        enable_auto_commit=False)  # fmt: skip
    h.driver.start()
    try:
        await wait_for(lambda: h.seam.assigned is not None, "the assignment")
        stops = len(h.seam.stops)
        h.coordinator.heartbeat_errors.append(ErrorCode.FENCED_INSTANCE_ID)
        await wait_for(coordinator.describing.is_set, "the fence's diagnosis")
        assert [stopped for stopped, _, _ in h.seam.stops[stops:]] == [None], "all of it stops"
        commit = asyncio.ensure_future(h.driver.commit_offsets(h.seam.assigned, FIVE))
        await asyncio.sleep(0.05)
        assert not commit.done(), "the commit waits for the diagnosis"
        coordinator.release.set()
        with pytest.raises(FencedInstanceIdError) as raised:
            await asyncio.wait_for(commit, 5)
        assert raised.value is h.driver.fatal_error
        assert h.coordinator.commits == []
        with pytest.raises(FencedInstanceIdError):
            h.driver.check_errors()
    finally:
        coordinator.release.set()
        await h.driver.close()
