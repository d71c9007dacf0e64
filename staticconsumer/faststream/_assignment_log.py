"""The rebalance listener a subscriber's consumer gets in place of FastStream's logging listener,
which reads aiokafka's private coordinator and subscription: the same lines, through the same
logger with the subscriber's log context, from public names, each naming the instance id.

As FastStream's: an INFO line per assignment; a WARNING when a consumer gets no partition (more
consumers than partitions, or a rolling update), and a second one if it still has none after
FastStream's delay (``_log_unassigned_consumer_delay_seconds``, 2 minutes). That second warning
is a task the consumer owns: a later assignment with partitions, or the consumer's stop, ends it.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from aiokafka.abc import ConsumerRebalanceListener

from .. import StaticConsumer
from ._seam import ListenerLog


class AssignmentLog(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    """Logs each assignment, then calls the user's listener; ``on_partitions_lost`` goes to the
    user's, or to its ``on_partitions_revoked`` when it has none (as a StaticConsumer does)."""

    def __init__(self, consumer: StaticConsumer, user: Any, where: ListenerLog) -> None:
        self._consumer = consumer
        self._user = user
        self._where = where
        self._unassigned: asyncio.Task[None] | None = None

    async def on_partitions_revoked(self, revoked: Any) -> None:
        await self._call("on_partitions_revoked", revoked)

    async def on_partitions_lost(self, lost: Any) -> None:
        has_lost = callable(getattr(self._user, "on_partitions_lost", None))
        await self._call("on_partitions_lost" if has_lost else "on_partitions_revoked", lost)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        consumer = self._consumer
        self._log(logging.INFO,
                  f"Consumer {consumer.member_id} (group.instance.id "
                  f"{consumer.group_instance_id}) assigned to partitions: "
                  f"({', '.join(str(tp) for tp in sorted(assigned))})")  # fmt: skip
        if assigned:
            self.close()
        else:
            self._log(logging.WARNING,
                      f"Consumer in group {self._group_label} has no partition assignments - this "
                      "could be temporary, e.g. during a rolling update. A separate warning "
                      "will be logged if this condition persists for "
                      f"{self._where.unassigned_delay_s:g} seconds.")  # fmt: skip
            if self._unassigned is None:
                self._unassigned = asyncio.ensure_future(self._still_unassigned())
        await self._call("on_partitions_assigned", assigned)

    def close(self) -> None:
        """No second warning (partitions came, or the consumer stops)."""
        if self._unassigned is not None:
            self._unassigned.cancel()
            self._unassigned = None

    @property
    def _group_label(self) -> str:
        return self._consumer.options.group_id or ""

    async def _still_unassigned(self) -> None:
        await asyncio.sleep(self._where.unassigned_delay_s)
        self._log(logging.WARNING,
                  f"Consumer in group {self._group_label} (group.instance.id "
                  f"{self._consumer.group_instance_id}) has had no partition assignments for "
                  f"{self._where.unassigned_delay_s:g} seconds: topics "
                  f"{sorted(self._consumer.subscription())} may have fewer partitions than "
                  "consumers.")  # fmt: skip
        self._unassigned = None

    def _log(self, level: int, message: str) -> None:
        self._where.logger.log(level, message, extra=self._where.extra)

    async def _call(self, method: str, partitions: Any) -> None:
        if self._user is None:
            return
        result = getattr(self._user, method)(partitions)
        if inspect.isawaitable(result):
            await result
