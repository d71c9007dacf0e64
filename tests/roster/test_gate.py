"""The classic leader plans under the group's roster (issue 21, ``roster/_gate.py``): a
real Driver over the fake seam (a group of one, this member leads), with a roster source the
test scripts. The plans themselves are ``tests/roster/test_plan.py``'s; here: the
deadline's rebalance and its KIP-800 reason, a roster that cannot be read, and closing."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from staticconsumer import MembershipState
from staticconsumer.errors import RosterUnreadableError
from staticconsumer.roster._plan import RosterWait
from tests.drivers._fakes import Harness, ScriptedAssignor, classic_harness, owned, wait_for


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Source:
    """A roster source: answers ``rosters`` in turn (the last repeats); an exception raises."""

    def __init__(self, *rosters: RosterWait | Exception | None) -> None:
        self.rosters = list(rosters)
        self.reads = 0

    async def __call__(self) -> RosterWait | None:
        self.reads += 1
        answer = self.rosters.pop(0) if len(self.rosters) > 1 else self.rosters[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


async def _stable(h: Harness) -> None:
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")


def _join_reasons(h: Harness) -> list[str]:
    return [fields["reason"] for fields in h.coordinator.sent("JOIN_GROUP")]


async def test_a_hold_ends_at_its_deadline_with_a_rebalance_naming_who_never_came(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="staticconsumer")
    wait = RosterWait(frozenset({"i-0", "i-1"}), _now_ms() + 400, 400)
    source = Source(wait)
    h = classic_harness(ScriptedAssignor((0, 1, 2)), roster=source)
    h.driver.start()
    await _stable(h)
    assert len(h.coordinator.sent("JOIN_GROUP")) == 1 and source.reads == 1
    # A fresh group: nobody owned anything, so the one present subscriber gets the orphans.
    assert owned(h.driver.owned) == {0, 1, 2}
    await wait_for(lambda: len(h.coordinator.sent("JOIN_GROUP")) == 2, "the deadline's join", 3)
    assert _join_reasons(h)[-1] == "roster wait ended: i-1 did not join within 400 ms"
    await _stable(h)
    assert source.reads == 2  # the second plan read the roster again: EXPIRED, no new timer
    await asyncio.sleep(0.3)
    assert len(h.coordinator.sent("JOIN_GROUP")) == 2
    await h.driver.close()
    messages = [r.getMessage() for r in caplog.records]
    assert any("roster: waiting for registered i-1 (1 present)" in m for m in messages), messages
    expired_line = "did not join within 400 ms: planning"
    (expired,) = [r for r in caplog.records if expired_line in r.getMessage()]
    assert expired.levelno == logging.WARNING


async def test_a_complete_roster_sets_no_timer() -> None:
    source = Source(RosterWait(frozenset({"i-0"}), _now_ms() + 100, 100))
    h = classic_harness(ScriptedAssignor((0, 1, 2)), roster=source)
    h.driver.start()
    await _stable(h)
    await asyncio.sleep(0.3)
    assert len(h.coordinator.sent("JOIN_GROUP")) == 1 and source.reads == 1
    await h.driver.close()


async def test_an_unreadable_roster_is_planned_without_and_warned_once_until_it_reads(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="staticconsumer")
    denied = RosterUnreadableError("the roster of group 'g' could not be read: no answer in 3s")
    source = Source(denied, denied, None)
    h = classic_harness(ScriptedAssignor((0, 1, 2)), roster=source)
    h.driver.start()
    await _stable(h)
    assert owned(h.driver.owned) == {0, 1, 2}  # planned as without a roster
    for _ in range(2):
        generation = h.driver.generation
        h.driver.sender.enforce_rebalance("test")
        await wait_for(lambda g=generation: h.driver.generation > g, "a new generation")
        await _stable(h)
    await h.driver.close()
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if "roster" in r.getMessage()]
    warnings = [m for level, m in lines if level == logging.WARNING]
    assert len(warnings) == 1 and "planning without the group's roster" in warnings[0], lines
    assert "no answer in 3s" in warnings[0]
    assert [m for level, m in lines if level == logging.DEBUG and "without" in m] != []
    assert any(m.endswith("the group's roster reads again") for _level, m in lines), lines
    assert source.reads == 3 and h.fatal == []


async def test_a_member_that_closes_before_the_deadline_does_not_rejoin() -> None:
    source = Source(RosterWait(frozenset({"i-0", "i-1"}), _now_ms() + 200, 200))
    h = classic_harness(ScriptedAssignor((0, 1, 2)), roster=source)
    h.driver.start()
    await _stable(h)
    await h.driver.close()
    await asyncio.sleep(0.4)
    assert len(h.coordinator.sent("JOIN_GROUP")) == 1


async def test_without_a_deadline_the_hold_waits_for_the_registered_members() -> None:
    source = Source(RosterWait(frozenset({"i-0", "i-1"}), None))
    h = classic_harness(ScriptedAssignor((0, 1, 2)), roster=source)
    h.driver.start()
    await _stable(h)
    await asyncio.sleep(0.3)
    assert len(h.coordinator.sent("JOIN_GROUP")) == 1
    await h.driver.close()
