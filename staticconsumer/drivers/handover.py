"""Partitions to and from the application: what the driver does for an engine's ``Revoke`` and
``Assign``. Revoke commits what was consumed first (never for lost partitions: their generation
is gone), stops the fetcher where the group protocol says so, and calls the rebalance listener;
assign hands the partitions to the fetcher, starts the committed-offset refresh, and calls the
listener with what was added. Revoke-before-assign is the engine's order; this component keeps it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable

from .. import _compat
from .._observability.metrics import ConsumerMetrics
from ..membership import Assign, Revoke
from .offsets import OffsetKeeper

log = logging.getLogger("staticconsumer")


class Handover:
    """Hands partitions to and from the application (module docstring). ``active`` is true
    while the rebalance listener runs: the application does not hold its assignment yet."""

    def __init__(
        self, seam: _compat.ClientSeam, offsets: OffsetKeeper, group_id: str, *,
        stops_fetching: Callable[[Revoke], bool], after_revoke: Callable[[Revoke], None],
        metrics: ConsumerMetrics,
    ) -> None:  # fmt: skip
        self._seam = seam
        self._offsets = offsets
        self._group_id = group_id
        self._stops_fetching = stops_fetching
        self._after_revoke = after_revoke
        self._metrics = metrics
        self.active = False

    async def perform(self, action: Assign | Revoke) -> None:
        self.active = True
        try:
            if isinstance(action, Revoke):
                await self._revoke(action)
            else:
                await self._assign(action)
        finally:
            self.active = False

    async def _revoke(self, action: Revoke) -> None:
        if not action.lost:  # commit on revoke; never for partitions of a lost generation
            try:
                await self._offsets.commit_consumed(action.partitions)
            except Exception as exc:
                log.error("OffsetCommit before revoking %s failed, ignoring: %r",
                          list(action.partitions), exc)  # fmt: skip
        if self._stops_fetching(action):
            self._seam.begin_reassignment()
        log.info("Revoking previously assigned partitions %s for group %s (%s)",
                 list(action.partitions), self._group_id, action.reason)  # fmt: skip
        await self._call_listener("on_partitions_revoked", action.partitions)
        self._after_revoke(action)

    async def _assign(self, action: Assign) -> None:
        assignment = self._seam.assign(action.assigned)
        self._offsets.start_commit_offsets_refresh_task(assignment)
        log.info("Setting newly assigned partitions %s for group %s",
                 list(action.assigned), self._group_id)  # fmt: skip
        await self._call_listener("on_partitions_assigned", action.added)

    async def _call_listener(self, method: str, partitions: Iterable[tuple[str, int]]) -> None:
        listener = self._seam.listener()
        if listener is None:
            return
        tps = {_compat.kafka_tp(t, p) for t, p in partitions}
        started_at = self._metrics.now()
        try:
            result = getattr(listener, method)(tps)
            if inspect.isawaitable(result):
                await result
            self._metrics.listener_returned(method, started_at)
        except Exception:
            log.exception("rebalance listener %s.%s failed for group %s", listener, method,
                          self._group_id)  # fmt: skip
