"""Publishing membership events to a Kafka topic without ever holding up consumption.

:meth:`EventPublisher.offer` is synchronous and O(1): it appends to a bounded buffer or, when the
buffer is full, drops the newest event and counts it. One background task, owned by the
consumer's lifetime (:meth:`start` / :meth:`stop`), starts the producer (retrying with backoff
under ``retry.events_producer_start``: an unreachable cluster only delays publishing) and drains
the buffer. Errors are logged and
counted, never raised. :meth:`stop` flushes within ``flush_timeout_ms``; what is still buffered
then is counted as dropped, and the producer is closed without waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from tenacity import RetryCallState

from ..events import MembershipEvent
from ..membership import LogIdentity
from . import retry as _retry

log = logging.getLogger(__name__)

#: Events handed to the producer per round (they are small: a few hundred bytes each).
BATCH = 500
#: How long stop() lets the producer close after the flush.
CLOSE_GRACE_S = 2.0


class _Stopping(Exception):
    """stop() was called while the producer's start was being retried."""


class EventProducer(Protocol):
    """What the publisher needs from ``aiokafka.AIOKafkaProducer``."""

    async def start(self) -> None: ...
    async def send(self, topic: str, value: bytes, key: bytes) -> Awaitable[Any]: ...
    async def flush(self) -> None: ...
    async def stop(self) -> None: ...


class EventPublisher:
    """A bounded buffer of events and the task that publishes them (key: the group id, value:
    the event's JSON, UTF-8)."""

    def __init__(
        self,
        topic: str,
        *,
        buffer_size: int,
        flush_timeout_ms: int,
        producer_factory: Callable[[], EventProducer],
        abandon: Callable[[EventProducer], None] = lambda producer: None,
        identity: LogIdentity | None = None,
    ) -> None:
        #: Lines name the consumer that publishes (``docs/logging.md``).
        self._log = identity.logger(log) if identity is not None else log
        self._topic = topic
        self._buffer_size = buffer_size
        self._flush_timeout_s = flush_timeout_ms / 1000
        self._producer_factory = producer_factory
        self._abandon = abandon
        self._buffer: deque[MembershipEvent] = deque()
        self._wake = asyncio.Event()
        self._closing = False
        self._stopped = False
        self._in_flight = 0
        self._task: asyncio.Task[None] | None = None
        self._producer: EventProducer | None = None
        #: Events not published: buffer full, or still buffered when stop() gave up.
        self.dropped = 0
        #: Failed attempts: an event the producer failed to deliver, or a failed producer start.
        self.publish_errors = 0
        #: Events the producer acknowledged.
        self.published = 0

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def offer(self, event: MembershipEvent) -> None:
        """Queue ``event`` for publishing; drop it (counted) if the buffer is full."""
        if self._stopped or len(self._buffer) >= self._buffer_size:
            self._drop(1, "the buffer is full" if not self._stopped else "the consumer stopped")
            return
        self._buffer.append(event)
        self._wake.set()

    def _drop(self, n: int, why: str) -> None:
        before, self.dropped = self.dropped, self.dropped + n
        # Log the first drop and then at every power of ten, not once per event.
        if len(str(before)) != len(str(self.dropped)) or before == 0:
            self._log.warning(
                "membership events for topic %s dropped: %s (%d dropped so far)",
                self._topic, why, self.dropped,
            )  # fmt: skip

    async def start(self) -> None:
        """Create the producer and start the publishing task; returns at once."""
        if self._task is not None or self._stopped:
            return
        self._producer = self._producer_factory()
        self._task = asyncio.create_task(self._run(self._producer), name="staticconsumer-events")

    async def stop(self) -> None:
        """Flush (bounded by ``flush_timeout_ms``), then close the producer. Idempotent."""
        if self._stopped:
            return
        self._stopped = self._closing = True
        self._wake.set()
        task, producer = self._task, self._producer
        try:
            if task is not None:
                await asyncio.wait({task}, timeout=self._flush_timeout_s)
        finally:
            if task is not None and not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                if producer is not None:
                    self._abandon(producer)  # fail what it holds so that its stop() returns
            lost = len(self._buffer) + self._in_flight
            self._buffer.clear()
            self._in_flight = 0
            if lost:
                self._drop(lost, "not published within events_flush_timeout_ms at stop()")
            if producer is not None:
                await self._close(producer)

    async def _close(self, producer: EventProducer) -> None:
        try:
            await asyncio.wait_for(producer.stop(), CLOSE_GRACE_S)
        except Exception as exc:  # TimeoutError included: never hold up the consumer's stop()
            self._log.warning("membership events producer did not close cleanly: %r", exc)

    # -- the publishing task ---------------------------------------------------------------------

    async def _run(self, producer: EventProducer) -> None:
        if not await self._start_producer(producer):
            return
        while True:
            if not self._buffer:
                if self._closing:
                    await producer.flush()
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = [self._buffer.popleft() for _ in range(min(BATCH, len(self._buffer)))]
            self._in_flight = len(batch)
            await self._publish(producer, batch)
            self._in_flight = 0

    async def _start_producer(self, producer: EventProducer) -> bool:
        """Start the producer under the ``events_producer_start`` policy (backoff, no limit);
        False when :meth:`stop` came first."""
        retrying = _retry.events_producer_start(after=self._start_failed, sleep=self._backoff)
        try:
            async for attempt in retrying:
                with attempt:
                    await producer.start()
        except _Stopping:
            return False
        return True

    def _start_failed(self, state: RetryCallState) -> None:
        self.publish_errors += 1
        attempts = _retry.attempt_number(state)
        self._log.log(
            logging.WARNING if attempts == 1 or attempts % 10 == 0 else logging.DEBUG,
            "membership events: cannot start the producer for topic %s (attempt %d): "
            "%r; events are buffered meanwhile", self._topic, attempts, _retry.failure(state),
        )  # fmt: skip

    async def _backoff(self, seconds: float) -> None:
        """The policy's sleep, which :meth:`stop` ends early; raises :class:`_Stopping` then."""
        if not self._closing:
            self._wake.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), seconds)
        if self._closing:
            raise _Stopping

    async def _publish(self, producer: EventProducer, batch: list[MembershipEvent]) -> None:
        """Hand ``batch`` to the producer and wait for its answers. A failed event is not
        retried: the producer already retried it until its own ``request_timeout_ms``."""
        pending: list[Awaitable[Any]] = []
        failed = 0
        first_error: BaseException | None = None
        for n, event in enumerate(batch):
            try:
                value, key = event.to_json().encode(), event.group_id.encode()
                pending.append(await producer.send(self._topic, value, key=key))
            except Exception as exc:
                failed, first_error = len(batch) - n, exc
                break
        for result in await asyncio.gather(*pending, return_exceptions=True):
            if isinstance(result, BaseException):
                failed, first_error = failed + 1, first_error or result
            else:
                self.published += 1
        if failed:
            self.publish_errors += failed
            self._log.warning(
                "membership events: %d of %d not delivered to topic %s: %r",
                failed, len(batch), self._topic, first_error,
            )  # fmt: skip
