"""The coordination loop a :class:`~.driver.Driver` runs from ``start()`` until ``close()``: it
finds the coordinator, lets the engine say what is due (join, heartbeat, leave), auto-commits on
its interval, and sleeps until the next of those or a wake-up (a metadata change, a join
requested, close). What the engine asks for is performed by the driver (``perform``).

An unexpected error ends the loop and wakes every waiter with it (``on_failure``), so that no
call hangs on a consumer whose membership stopped; :meth:`CoordinationLoop.failure` tells it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .. import _compat
from ..membership import AnyEngine, MemberLog
from .offsets import OffsetKeeper


class CoordinationLoop:
    """One member's loop and its wake-up (module docstring)."""

    def __init__(
        self, engine: AnyEngine, seam: _compat.ClientSeam, offsets: OffsetKeeper, *,
        perform: Callable[[Sequence[Any]], Awaitable[None]],
        subscription_changed: Callable[[], None], before_poll: Callable[[], Awaitable[bool]],
        on_failure: Callable[[Exception], None],
        retry_backoff_s: float, log: MemberLog,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._seam = seam
        self._offsets = offsets
        self._perform = perform
        self._subscription_changed = subscription_changed
        self._before_poll = before_poll
        self._on_failure = on_failure
        self._retry_backoff = retry_backoff_s
        self._log = log
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: ``stop()`` has begun: nothing new is started.
        self.closing = False

    def start(self) -> None:
        """Start the loop (once)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._coordinate())

    def wake(self) -> None:
        self._wake.set()

    def failure(self) -> BaseException | None:
        """What ended the loop, if an error did."""
        task = self._task
        if task is None or not task.done() or task.cancelled():
            return None
        return task.exception()

    async def wait_closing(self) -> None:
        """Until :meth:`stop` begins."""
        while not self.closing:
            await self._wake.wait()
            self._wake.clear()

    async def stop(self) -> None:
        """End the loop and wait for it (an error that ended it is logged at DEBUG: it was
        reported when it happened)."""
        self.closing = True
        self.wake()
        if self._task is not None:
            try:
                await self._task
            except Exception as exc:
                self._log.debug("coordination task ended with %r", exc)

    async def _coordinate(self) -> None:
        try:
            await self._loop()
        except Exception as exc:
            self._log.exception("the coordination loop failed")
            self._on_failure(exc)
            raise

    async def _loop(self) -> None:
        subscription = None
        offsets, engine, seam = self._offsets, self._engine, self._seam
        while not self.closing and not engine.terminal:
            current = seam.current_subscription()
            if current is None or not current.active:
                await self._sleep(self._retry_backoff)
                continue
            if current is not subscription:
                if subscription is not None:
                    self._subscription_changed()
                subscription = current
            if not seam.auto_assigned():
                await offsets.find_coordinator_if_unknown()
                await self._sleep(offsets.auto_commit_wait() or 1.0)
                await offsets.auto_commit_if_due()
                continue
            if await self._before_poll():
                continue  # the subscription may have changed: read it again
            actions = engine.poll(time.monotonic(), current.topics, seam.idle_seconds())
            if actions:
                await self._perform(actions)
                continue
            await offsets.auto_commit_if_due()
            wait = engine.next_wakeup(time.monotonic())
            await self._sleep(
                min(x for x in (wait, offsets.auto_commit_wait(), 1.0) if x is not None)
            )

    async def _sleep(self, seconds: float) -> None:
        if self._wake.is_set():
            self._wake.clear()
            return
        try:
            await asyncio.wait_for(self._wake.wait(), max(0.0, seconds))
        except TimeoutError:
            pass
        self._wake.clear()


__all__ = ["CoordinationLoop"]
