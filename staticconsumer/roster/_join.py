"""The roster's join barrier, run by ``StaticConsumer.start()`` before the member's first join
(issue 21; the decision is :func:`._barrier.barrier`'s, ``docs/scaling.md`` tells the story).

A registered member the group lacks writes its arrival, then re-reads the roster, the arrivals
and the group's members every :data:`BARRIER_POLL_S` until every registered member the group lacks
has arrived, or the roster's deadline passes; then it joins, at the moment every arrival computes
alike (:data:`._barrier.JOIN_ALIGN_MS` after the latest arrival). Members that arrive one
after the other (an ``OrderedReady`` StatefulSet starts a pod once the previous one is ready,
and a member waiting here is ready) so reach the coordinator together: one rebalance for all.

It runs inside ``start()`` once the consumer's own client is bootstrapped and its API versions
negotiated, before the driver is made (``_compat.start_consumer``'s ``before_join``): the roster
and the group are read on that client (:meth:`ClientSeam.read_partition_log
<staticconsumer._compat.ClientSeam.read_partition_log>`, DescribeGroups), no second client. Only
the arrival is written by a short-lived producer: a produce needs one, and only a registered new
member ever writes.

A barrier never blocks a group: anything that stops it (the roster unreadable, no WRITE ACL on
the roster topic, the group not describable) is one WARNING, and the member joins at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from .._admin.describe import describe_group_with_client
from ..membership import LogIdentity
from ._barrier import BarrierDecision, barrier
from ._gate import wall_clock_ms
from ._reader import ROSTER_READ_TIMEOUT_S, LogRead, RosterReader
from ._record import Roster
from ._store import write_arrival

log = logging.getLogger(__name__)

#: How often a waiting member reads the roster, the arrivals and the group again.
BARRIER_POLL_S = 0.5


class JoinBarrier:
    """Waits at the roster's barrier (module docstring). ``on_wait(True)`` when the member starts
    waiting, ``on_wait(False)`` when the wait ends, however it ends."""

    def __init__(
        self, reader: RosterReader, instance_id: str, identity: LogIdentity, *,
        clock_ms: Callable[[], int] = wall_clock_ms, poll_s: float = BARRIER_POLL_S,
    ) -> None:  # fmt: skip
        self._reader = reader
        self._instance_id = instance_id
        self._log = identity.logger(log)
        self._clock_ms = clock_ms
        self._poll_s = poll_s

    async def wait(
        self, read_log: LogRead, client: Any, on_wait: Callable[[bool], None]
    ) -> BarrierDecision | None:
        """The decision that let the member join; None when the barrier could not run.
        ``read_log`` and ``client`` are the consumer's own (its seam's read, its aiokafka
        client for DescribeGroups)."""
        try:
            return await self._wait(read_log, client, on_wait)
        except Exception as exc:  # never blocks a group
            self._log.warning("joining without the roster's barrier: %s", exc)
            return None
        finally:
            on_wait(False)

    async def _in_group(self, client: Any, roster: Roster | None) -> set[str]:
        """The group's instance ids now (only asked when this member is registered)."""
        if roster is None or self._instance_id not in roster:
            return set()
        timeout = ROSTER_READ_TIMEOUT_S
        described = await describe_group_with_client(client, roster.group_id, timeout)
        return {m.group_instance_id for m in described.members if m.group_instance_id}

    async def _wait(
        self, read_log: LogRead, client: Any, on_wait: Callable[[bool], None]
    ) -> BarrierDecision:
        r, timeout = self._reader, ROSTER_READ_TIMEOUT_S
        written_for: int | None = None
        stamp = 0
        waiting_since: float | None = None
        while True:
            async with asyncio.timeout(timeout):
                roster, arrivals = await r.read(read_log)
                in_group = await self._in_group(client, roster)
            now = self._clock_ms()
            if written_for is not None:  # ours, even before the read shows it
                arrivals[self._instance_id] = max(arrivals.get(self._instance_id, 0), stamp)
            decision = barrier(roster, self._instance_id, in_group, arrivals, now)
            if decision.arrives and roster is not None and written_for != roster.updated_at_ms:
                # Stamped no earlier than the roster it answers (clocks differ).
                stamp = max(now, roster.updated_at_ms)
                await write_arrival(
                    r.client_kwargs, r.principal, r.group_id, self._instance_id,
                    r.roster_topic, stamp, timeout,
                )  # fmt: skip
                written_for = roster.updated_at_ms
                continue  # decide again with our own arrival counted
            if decision.join_at_ms is not None:
                await asyncio.sleep(max(0, decision.join_at_ms - self._clock_ms()) / 1000)
            if not decision.wait:
                if waiting_since is not None:
                    self._log.info("roster barrier passed after %.1f s: %s",
                                   time.monotonic() - waiting_since,
                                   decision.verdict.value)  # fmt: skip
                return decision
            if waiting_since is None:
                waiting_since = time.monotonic()
                self._log.info(
                    "waiting at the roster barrier for registered %s (at most %d ms) before "
                    "joining", ", ".join(decision.waiting_for),
                    max(0, (decision.deadline_ms or now) - now),
                )  # fmt: skip
                on_wait(True)
            await asyncio.sleep(self._poll_s)
