"""The consumer each FastStream subscriber gets: a :class:`~staticconsumer.StaticConsumer` that
reports its fatal end to the broker and never feeds FastStream's retry loop.

FastStream's consume loop catches every ``KafkaError`` (ours are too), logs it, sleeps five
seconds and polls again, forever. Here a poll that meets a fatal error (``fatal``:
FENCED_INSTANCE_ID and the rest of the tree's fatal classes) or UNRELEASED_INSTANCE_ID past
its wait reports it once and then waits, until the subscriber stops (the broker is stopping
the application by then): no retry loop, no second log line.

A worker's consumer (``max_workers=N`` without ``AckPolicy.ACK_FIRST``) is stopped by
FastStream before its graceful wait for the handlers in flight, so a handler's ack would meet a
stopped consumer, its commit would be lost and its record handled again after the restart.
Such a consumer's :meth:`~ServiceConsumer.stop` first waits (up to the broker's
``graceful_timeout``) for the record it handed out last to be done with (FastStream's loop asks
for the next one after the handler and its ack), and hands out no new record meanwhile.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.errors import ConsumerStoppedError
from aiokafka.structs import ConsumerRecord, TopicPartition

from .. import StaticConsumer
from ..errors import StaticConsumerError, UnreleasedInstanceIdError
from . import _seam

log = logging.getLogger(__name__)

FatalReport = Callable[[StaticConsumerError], None]


class ServiceConsumer(StaticConsumer):
    """A ``StaticConsumer`` for one subscriber. ``report(error)``: the broker's fatal handler
    (idempotent); ``start_wait_s``: under ``group_protocol="consumer"``, how long ``start()``
    may go without an assignment before the instance id counts as unreleased (None: no bound);
    ``handling_wait_s``: how long :meth:`stop` waits for the record handed out last (a
    worker's consumer; None or 0: no wait, the subscriber waited already); ``on_stopped``:
    called once stopped (the broker frees a worker's id)."""

    def __init__(
        self, *topics: str, report: FatalReport, start_wait_s: float | None,
        handling_wait_s: float | None = None, on_stopped: Callable[[], object] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*topics, on_fatal=report, **kwargs)
        self._report = report
        self._start_wait_s = start_wait_s
        self._service_group: str = kwargs.get("group_id") or ""
        self._handling_wait_s = handling_wait_s or None
        self._on_stopped = on_stopped
        self._in_hand = False  # a record handed out, its handler not done yet
        self._handed_back = asyncio.Event()
        self._stopping = False

    async def stop(self, *args: Any, **kwargs: Any) -> None:
        self._stopping = True
        if self._in_hand and self._handling_wait_s is not None:
            try:
                async with asyncio.timeout(self._handling_wait_s):
                    await self._handed_back.wait()
            except TimeoutError:
                log.warning("%s: stopping with a record still in its handler after %g s "
                            "(graceful_timeout)", self.group_instance_id,
                            self._handling_wait_s)  # fmt: skip
        try:
            await super().stop(*args, **kwargs)
        finally:
            if self._on_stopped is not None:
                self._on_stopped()

    def _next_record(self) -> None:
        """The loop asks for another record: the one handed out last is done with."""
        if self._in_hand:
            self._in_hand = False
            self._handed_back.set()
        if self._stopping and self._handling_wait_s is not None:
            raise ConsumerStoppedError()

    async def start(self) -> None:
        if self._start_wait_s is None:
            await super().start()
            return
        try:
            async with asyncio.timeout(self._start_wait_s):
                await super().start()
        except TimeoutError:
            error = UnreleasedInstanceIdError(
                f"no assignment {self._start_wait_s:g} s after start(): the coordinator still "
                f"gives group.instance.id {self.group_instance_id} to another member "
                "(UNRELEASED_INSTANCE_ID, KIP-848)", group_id=self._service_group,
            )  # fmt: skip
            self._report(error)
            raise error from None

    def subscribe(self, topics: Any = (), pattern: Any = None, listener: Any = None) -> None:
        """FastStream's logging listener reads aiokafka's private coordinator: it is replaced by
        :class:`AssignmentLog` (the user's listener, if any, still runs)."""
        logging_listener, user = _seam.split_listener(listener)
        if logging_listener:
            listener = AssignmentLog(self, user)
        super().subscribe(topics, pattern=pattern, listener=listener)

    async def getone(self, *partitions: TopicPartition) -> ConsumerRecord[Any, Any]:
        self._next_record()
        try:
            record = await super().getone(*partitions)
        except StaticConsumerError as exc:
            await self._end(exc)
            raise
        if self._handling_wait_s is not None:
            self._in_hand = True
            self._handed_back.clear()
        return record

    async def getmany(
        self, *partitions: TopicPartition, timeout_ms: int = 0, max_records: int | None = None
    ) -> dict[TopicPartition, list[ConsumerRecord[Any, Any]]]:
        try:
            return await super().getmany(*partitions, timeout_ms=timeout_ms,
                                         max_records=max_records)  # fmt: skip
        except StaticConsumerError as exc:
            await self._end(exc)
            raise

    async def _end(self, error: StaticConsumerError) -> None:
        """A fatal error (or an unreleased id past its wait) is reported, then the poll waits
        for the subscriber's stop, which cancels it; any other error goes to FastStream."""
        if not (error.fatal or isinstance(error, UnreleasedInstanceIdError)):
            return
        self._report(error)
        await asyncio.Event().wait()


class AssignmentLog(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    """Logs each assignment (as FastStream's logging listener does, from public names), then
    calls the user's listener; ``on_partitions_lost`` goes to the user's, or to its
    ``on_partitions_revoked`` when it has none (as a StaticConsumer does)."""

    def __init__(self, consumer: StaticConsumer, user: Any) -> None:
        self._consumer = consumer
        self._user = user

    async def on_partitions_revoked(self, revoked: Any) -> None:
        await self._call("on_partitions_revoked", revoked)

    async def on_partitions_lost(self, lost: Any) -> None:
        has_lost = callable(getattr(self._user, "on_partitions_lost", None))
        await self._call("on_partitions_lost" if has_lost else "on_partitions_revoked", lost)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        log.info("Consumer %s (group.instance.id %s) assigned to partitions: (%s)",
                 self._consumer.member_id, self._consumer.group_instance_id,
                 ", ".join(str(tp) for tp in sorted(assigned)))  # fmt: skip
        await self._call("on_partitions_assigned", assigned)

    async def _call(self, method: str, partitions: Any) -> None:
        if self._user is None:
            return
        result = getattr(self._user, method)(partitions)
        if inspect.isawaitable(result):
            await result
