"""KIP-800 reasons on a broker before Kafka 3.1 (JoinGroup < v8, LeaveGroup < v5, e.g. 2.8): the
request goes without the reason, and the application is told once, as a WARNING."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from staticconsumer import MembershipState
from staticconsumer.options import MembershipOperation

from ._fakes import VERSIONS, ScriptedAssignor, classic_harness, wait_for

#: What Kafka 2.8.2 serves (measured): JoinGroup v7, LeaveGroup v4.
KAFKA_2_8 = dataclasses.replace(VERSIONS, join_group=7, leave_group=4)


def dropped(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "KIP-800" in r.getMessage()]


async def test_reasons_that_cannot_reach_the_broker_are_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="staticconsumer")
    h = classic_harness(ScriptedAssignor((0, 1, 2)), versions=KAFKA_2_8)
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    assert dropped(caplog) == [], "internal join reasons are ours: no warning"
    for reason in ("deploy 1", "deploy 2"):
        h.driver.enforce_rebalance(reason)
        joins = len(h.coordinator.sent("JOIN_GROUP"))
        await wait_for(lambda n=joins: len(h.coordinator.sent("JOIN_GROUP")) > n, "a re-join")
    await h.driver.close(MembershipOperation.LEAVE_GROUP, "scale down")
    (warning,) = dropped(caplog)
    assert warning.levelno == logging.WARNING
    assert "JoinGroup v7" in warning.getMessage() and "'deploy 1'" in warning.getMessage()
    assert "Kafka 3.1" in warning.getMessage()
    assert all("reason" not in fields for fields in h.coordinator.sent("JOIN_GROUP"))


async def test_a_leave_reason_alone_is_told_too(caplog: pytest.LogCaptureFixture) -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)), versions=KAFKA_2_8)
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    await h.driver.close(MembershipOperation.LEAVE_GROUP, "scale down")
    (warning,) = dropped(caplog)
    assert "LeaveGroup v4" in warning.getMessage() and "scale down" in warning.getMessage()


async def test_a_broker_that_carries_reasons_gets_them_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    h.driver.enforce_rebalance("deploy 1")
    await wait_for(lambda: len(h.coordinator.sent("JOIN_GROUP")) > 1, "a re-join")
    await h.driver.close(MembershipOperation.LEAVE_GROUP, "scale down")
    assert dropped(caplog) == []
    assert "deploy 1" in h.coordinator.sent("JOIN_GROUP")[-1]["reason"]
    assert "scale down" in h.coordinator.sent("LEAVE_GROUP")[-1]["members"][0]["reason"]
