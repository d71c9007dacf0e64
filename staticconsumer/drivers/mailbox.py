"""What the application's next poll must raise, kept for it by the driver: the engine's fatal
error (every time), the death of the coordination loop (every time), or one pending error at a
time (raised once, then the coordination goes on). aiokafka calls :meth:`Mailbox.check` on every
``getone``/``getmany``, so ``attention`` caches "something is there": the usual case is one
attribute test. A waiter blocked in aiokafka (``start``, ``getone``, ``getmany``) is woken with
:class:`~staticconsumer._compat.WakeMarker`, which the consumer replaces with the error."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .. import _compat
from .._compat import WakeMarker
from ..membership import AnyEngine, MemberLog


class Mailbox:
    """Errors for the application's next poll (module docstring)."""

    def __init__(
        self, engine: AnyEngine, seam: _compat.ClientSeam, member_log: MemberLog, *,
        loop_failure: Callable[[], BaseException | None],
        closing: Callable[[], Awaitable[None]],
    ) -> None:  # fmt: skip
        self._engine = engine
        self._seam = seam
        self._log = member_log
        self._loop_failure = loop_failure
        self._closing = closing
        #: Something is there for the next poll (a cache of the facts :meth:`check` reads).
        self.attention = False
        self._pending: Exception | None = None
        self._consumed: asyncio.Future[None] | None = None

    def check(self) -> None:
        """Raise the fatal error or the loop's death, or the pending error once."""
        if self.attention:
            self._raise()

    def _raise(self) -> None:
        if self._engine.fatal_error is not None:
            raise self._engine.fatal_error
        failure = self._loop_failure()
        if failure is not None:
            raise failure
        self.attention = False
        if self._pending is not None:
            error, self._pending = self._pending, None
            if self._consumed is not None and not self._consumed.done():
                self._consumed.set_result(None)
            raise error

    def alarm(self, wake_with: Exception) -> None:
        """A fatal error or a dead loop: every waiter wakes, every poll raises."""
        self.attention = True
        self._seam.abort_waiters(wake_with)

    async def post(self, error: Exception) -> None:
        """Hand ``error`` to the application's next poll; wait until it was raised (or close).
        An error already pending (:meth:`post_nowait`) is raised first."""
        await self._raised()
        self.post_nowait(error)
        await self._raised()

    def post_nowait(self, error: Exception) -> None:
        """Hand ``error`` to the application's next poll and go on at once: the member is in a
        generation and heartbeats on (Java's ``poll()`` throws an assignor's ``onAssignment``
        error once the rebalance completed). While another error is pending, this one is only
        logged: the first is raised (Java keeps the first exception too)."""
        if self._pending is not None:
            self._log.warning("%r (not raised to the application: %r is pending)", error,
                              self._pending)  # fmt: skip
            return
        self._log.warning("%r (raised to the application)", error)
        self._pending = error
        self._consumed = asyncio.get_running_loop().create_future()
        self.alarm(WakeMarker(repr(error)))

    async def _raised(self) -> None:
        """Until the pending error (if any) was raised, or close begins."""
        consumed = self._consumed
        if self._pending is None or consumed is None or consumed.done():
            return
        closing = asyncio.ensure_future(self._closing())
        try:
            await asyncio.wait([consumed, closing], return_when=asyncio.FIRST_COMPLETED)
        finally:
            closing.cancel()
