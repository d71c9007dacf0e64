"""The classic leader's roster (issue 21: KIP-469's pre-registration, kept by the client;
``docs/scaling.md``). Each time this member leads a rebalance it reads the group's roster (the
``group.instance.id``\\ s registered ahead of a scale-up) and plans under it
(:func:`._plan.plan_under_roster`):

* no roster, or every registered member present: the configured assignor's plan, as without one;
* registered members missing, the wait not over: the *hold plan* (nothing owned moves, arrivals
  get nothing), and a timer that rebalances at the deadline with a KIP-800 reason
  (``roster wait ended: svc-6, svc-7 did not join within 120000 ms``) unless the last registered
  member joins first (its JoinGroup starts that rebalance);
* the wait over: the configured assignor's plan, and a WARNING naming who never came.

A roster that cannot be read (no ACL, a timeout, a newer format) is "no roster": a WARNING when
reading starts failing, then DEBUG until it reads again. It never blocks a group.

This is the one thing the classic driver holds of pre-registration: ``plan`` and ``cancel``. A
consumer without ``roster_topic`` gets a gate without a source, which plans as the configured
assignor does and never reads, logs or schedules anything. Every line goes to the driver's own
:class:`~staticconsumer.membership.MemberLog`, so it names the consumer it serves
(``docs/logging.md``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any

from ..membership import MemberLog
from ..protocol import Subscription
from ._plan import RegisteredRoster, RosterPlan, RosterVerdict, plan_under_roster

#: Reads the group's roster now (None: the group has none); raises when it cannot.
RosterSource = Callable[[], Awaitable[RegisteredRoster | None]]
#: A little past the deadline, so that the rebalance the timer starts finds the wait over.
DEADLINE_SLACK_MS = 50


def wall_clock_ms() -> int:
    """Rosters carry wall-clock times (``updated_at_ms``), written by another process."""
    return time.time_ns() // 1_000_000


class RosterGate:
    """Reads the roster, plans under it, and keeps the deadline's timer (module docstring).
    ``on_deadline(reason)`` is called when a hold's deadline passes (the sender re-joins)."""

    def __init__(
        self, source: RosterSource | None, log: MemberLog, on_deadline: Callable[[str], None],
        *, clock_ms: Callable[[], int] = wall_clock_ms,
    ) -> None:  # fmt: skip
        self._source = source
        self._log = log
        self._on_deadline = on_deadline
        self._clock_ms = clock_ms
        self._timer: asyncio.TimerHandle | None = None
        self._unreadable = False
        self._holding = False

    async def read(self) -> RegisteredRoster | None:
        """The roster now; None without a source, without a roster, or when it cannot be read."""
        if self._source is None:
            return None
        try:
            roster = await self._source()
        except Exception as exc:  # a roster nobody can read never blocks a group
            level = logging.DEBUG if self._unreadable else logging.WARNING
            self._log.log(level, "planning without the group's roster: %s", exc)
            self._unreadable = True
            return None
        if self._unreadable:
            self._log.info("the group's roster reads again")
            self._unreadable = False
        return roster

    async def plan(
        self, assignor: Any, members: Mapping[str, tuple[str | None, Subscription]],
        partitions_per_topic: Mapping[str, int], *, cooperative: bool,
        partition_racks: Mapping[tuple[str, int], Collection[str]] | None,
    ) -> dict[str, bytes]:  # fmt: skip
        """The leader's encoded assignments under the roster read now."""
        roster = await self.read()
        plan = plan_under_roster(
            assignor, members, partitions_per_topic, roster, self._clock_ms(),
            cooperative=cooperative, partition_racks=partition_racks,
        )  # fmt: skip
        self._decided(plan, len(members))
        return plan.encoded()

    def _decided(self, plan: RosterPlan, present: int) -> None:
        self.cancel()
        missing = ", ".join(plan.missing)
        if plan.verdict is RosterVerdict.HOLD:
            self._holding = True
            until = (
                f"until {plan.next_decision_ms - self._clock_ms()} ms from now"
                if plan.next_decision_ms is not None else "with no deadline"
            )  # fmt: skip
            self._log.info(
                "roster: waiting for registered %s (%d present) %s; nothing owned moves and "
                "arrivals get nothing until then", missing, present, until,
            )  # fmt: skip
            if plan.next_decision_ms is not None:
                self._schedule(plan.next_decision_ms, plan.reason or "roster wait ended")
        elif plan.verdict is RosterVerdict.EXPIRED:
            self._holding = False
            self._log.warning("%s: planning for the %d members present", plan.reason, present)
        elif plan.verdict is RosterVerdict.COMPLETE and self._holding:
            self._holding = False
            self._log.info("roster: every registered member joined (%d present): one plan", present)
        else:
            self._holding = False

    def _schedule(self, deadline_ms: int, reason: str) -> None:
        delay_s = max(0, deadline_ms + DEADLINE_SLACK_MS - self._clock_ms()) / 1000
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay_s, self._deadline_passed, reason)

    def _deadline_passed(self, reason: str) -> None:
        self._timer = None
        self._on_deadline(reason)

    def cancel(self) -> None:
        """Forget the deadline's timer (a new plan, or the member closes)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
