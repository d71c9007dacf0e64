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


@pytest.mark.xfail(strict=True, reason=(
    "reported (issue 29, chaos suite): while the fence is diagnosed the engine is fenced but "
    "Driver.fail() has not run yet (drivers/driver.py _perform: BecomeFatal awaits "
    "sender.fatal_error before fail), so OffsetsKeeper.raise_if_fatal passes and the commit is "
    "refused as REBALANCE_IN_PROGRESS -> CommitFailedError"))  # fmt: skip
async def test_a_commit_while_the_fence_is_diagnosed_raises_the_fence() -> None:
    coordinator = SlowDiagnosis()
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=coordinator,
                        enable_auto_commit=False)  # fmt: skip
    h.driver.start()
    try:
        await wait_for(lambda: h.seam.assigned is not None, "the assignment")
        h.coordinator.heartbeat_errors.append(ErrorCode.FENCED_INSTANCE_ID)
        await wait_for(coordinator.describing.is_set, "the fence's diagnosis")
        with pytest.raises(FencedInstanceIdError):
            h.driver.check_errors()  # what getmany asks before it hands records out
        with pytest.raises(FencedInstanceIdError):
            await h.driver.commit_offsets(h.seam.assigned, FIVE)
    finally:
        coordinator.release.set()
        await h.driver.close()
