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
for the next one after the handler and its ack), and hands out no record once stopping: not
one asked for afterwards, nor one that arrives for a poll made before (it is not committed,
auto-commit is off for workers, so the next start reads it again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiokafka.errors import ConsumerStoppedError
from aiokafka.structs import ConsumerRecord, TopicPartition

from .. import ConsumerOptions, StaticConsumer
from ..errors import StaticConsumerError, UnreleasedInstanceIdError
from ..integrations import bounded_start
from . import _seam
from ._assignment_log import AssignmentLog

log = logging.getLogger(__name__)

FatalReport = Callable[[StaticConsumerError], None]
#: Checked when the consumer is built only (:meth:`ServiceConsumer.check_options`).
_BUILT_ONLY = frozenset({"security"})


@dataclass(frozen=True)
class WorkerStop:
    """A worker's consumer: :meth:`ServiceConsumer.stop` waits up to ``wait_s`` (None: not at
    all, as FastStream without a ``graceful_timeout``) for the record in hand, then calls
    ``stopped()`` once stopped (the broker frees the worker's id)."""

    wait_s: float | None
    stopped: Callable[[], object]


class _InHand:
    """The record a worker's consumer handed out last, until its loop asks for the next."""

    def __init__(self, stop: WorkerStop) -> None:
        self.stop = stop
        self._held = False
        self._done = asyncio.Event()
        self._stopping = False

    def asked(self) -> None:
        """The loop asks for another record: the one in hand is done with (handled, acked)."""
        if self._held:
            self._held = False
            self._done.set()
        if self._stopping:
            raise ConsumerStoppedError()

    def handed(self) -> None:
        """A record is handed out; none once stopping (module docstring)."""
        if self._stopping:
            raise ConsumerStoppedError()
        self._held = True
        self._done.clear()

    async def settle(self, group_instance_id: str | None) -> None:
        self._stopping = True
        if not (self._held and self.stop.wait_s):
            return
        try:
            async with asyncio.timeout(self.stop.wait_s):
                await self._done.wait()
        except TimeoutError:
            log.warning("%s: stopping with a record still in its handler after %g s "
                        "(graceful_timeout)", group_instance_id, self.stop.wait_s)  # fmt: skip


class ServiceConsumer(StaticConsumer):
    """A ``StaticConsumer`` for one subscriber. ``report(error)``: the broker's fatal handler
    (idempotent); ``start_wait_s``: under ``group_protocol="consumer"``, how long ``start()``
    may go without an assignment before the instance id counts as unreleased (None: no bound);
    ``worker``: set for a worker's consumer (:class:`WorkerStop`, module docstring)."""

    def __init__(
        self, *topics: str, report: FatalReport, start_wait_s: float | None,
        worker: WorkerStop | None = None, **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*topics, on_fatal=report, **kwargs)
        self._report = report
        self._start_wait_s = start_wait_s
        self._service_group: str = kwargs.get("group_id") or ""
        self._in_hand = _InHand(worker) if worker is not None else None
        self._assignment_log: AssignmentLog | None = None

    @staticmethod
    def check_options(**kwargs: Any) -> ConsumerOptions:
        """:meth:`StaticConsumer.check_options` of what the broker would build this with, but
        ``security`` (checked when built: it may read a CA bundle the machine running a
        declaration or a ``TestKafkaBroker`` test has not got)."""
        return StaticConsumer.check_options(
            **{k: v for k, v in kwargs.items() if k not in _BUILT_ONLY}
        )

    async def stop(self, *args: Any, **kwargs: Any) -> None:
        if self._assignment_log is not None:
            self._assignment_log.close()
        in_hand = self._in_hand
        if in_hand is not None:
            await in_hand.settle(self.group_instance_id)
        try:
            await super().stop(*args, **kwargs)
        finally:
            if in_hand is not None:
                in_hand.stop.stopped()

    async def start(self) -> None:
        def unreleased() -> UnreleasedInstanceIdError:
            error = UnreleasedInstanceIdError(
                f"no assignment {self._start_wait_s:g} s after start(): the coordinator still "
                f"gives group.instance.id {self.group_instance_id} to another member "
                "(UNRELEASED_INSTANCE_ID, KIP-848)", group_id=self._service_group,
            )  # fmt: skip
            self._report(error)
            return error

        await bounded_start(super().start(), self._start_wait_s, unreleased)

    def subscribe(self, topics: Any = (), pattern: Any = None, listener: Any = None) -> None:
        """FastStream's logging listener reads aiokafka's private coordinator: it is replaced by
        :class:`AssignmentLog`, which logs the same lines where it did (the user's listener, if
        any, still runs)."""
        where, user = _seam.split_listener(listener)
        if where is not None:
            listener = self._assignment_log = AssignmentLog(self, user, where)
        super().subscribe(topics, pattern=pattern, listener=listener)

    async def getone(self, *partitions: TopicPartition) -> ConsumerRecord[Any, Any]:
        if self._in_hand is not None:
            self._in_hand.asked()
        try:
            record = await super().getone(*partitions)
        except StaticConsumerError as exc:
            await self._end(exc)
            raise
        if self._in_hand is not None:
            self._in_hand.handed()
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
