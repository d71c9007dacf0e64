"""Partitions to and from the application: what the driver does for an engine's ``Revoke`` and
``Assign``. Revoke first stops handing out what it revokes (the whole fetcher where the group
protocol says so, else the revoked partitions), commits what was consumed (never for lost
partitions: their generation is gone), and calls the rebalance listener;
assign hands the partitions to the fetcher, starts the committed-offset refresh, and calls the
listener with what was added. Revoke-before-assign is the engine's order; this component
keeps it.

Lost partitions (the member's generation or epoch is gone: session expired, fenced epoch,
UNKNOWN_MEMBER_ID, a poll timeout) go to the listener's ``on_partitions_lost`` (Java's
``ConsumerRebalanceListener.onPartitionsLost``, KIP-429; confluent-kafka's ``on_lost``) when it
has one, else to ``on_partitions_revoked``, as Java's default does. Nothing is committed for them.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable

from .. import _compat
from .._observability.metrics import ConsumerMetrics
from ..membership import Assign, LogIdentity, Revoke
from .offsets import OffsetKeeper

log = logging.getLogger(__name__)


class Handover:
    """Hands partitions to and from the application (module docstring). ``active`` is true
    while the rebalance listener runs: the application does not hold its assignment yet."""

    def __init__(
        self, seam: _compat.ClientSeam, offsets: OffsetKeeper, identity: LogIdentity, *,
        stops_fetching: Callable[[Revoke], bool], after_revoke: Callable[[Revoke], None],
        metrics: ConsumerMetrics,
    ) -> None:  # fmt: skip
        self._seam = seam
        self._offsets = offsets
        self._log = identity.logger(log)
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
        # The application gets nothing more of what is revoked before the commit: records handed
        # out after it would be read again by the next owner (aiokafka's eager order; Java's
        # markPendingRevocation).
        if self._stops_fetching(action):
            self._seam.begin_reassignment()
        else:
            self._seam.mark_pending_revocation(action.partitions)
        if not action.lost:  # commit on revoke; never for partitions of a lost generation
            try:
                await self._offsets.commit_consumed(action.partitions)
            except Exception as exc:
                self._log.warning("OffsetCommit before revoking %s failed, ignoring: %r",
                                  list(action.partitions), exc)  # fmt: skip
        self._log.info("%s previously assigned partitions %s (%s)",
                       "Lost" if action.lost else "Revoking", list(action.partitions),
                       action.reason)  # fmt: skip
        method = "on_partitions_lost" if action.lost else "on_partitions_revoked"
        await self._call_listener(method, action.partitions)
        self._after_revoke(action)

    async def _assign(self, action: Assign) -> None:
        assignment = self._seam.assign(action.assigned)
        self._offsets.start_commit_offsets_refresh_task(assignment)
        self._log.info("Setting newly assigned partitions %s", list(action.assigned))
        await self._call_listener("on_partitions_assigned", action.added)

    async def _call_listener(self, method: str, partitions: Iterable[tuple[str, int]]) -> None:
        listener = self._seam.listener()
        if listener is None:
            return
        tps = {_compat.kafka_tp(t, p) for t, p in partitions}
        started_at = self._metrics.now()
        # Java's ConsumerRebalanceListener.onPartitionsLost defaults to onPartitionsRevoked:
        # a listener without on_partitions_lost (aiokafka's base has none) is told "revoked".
        call = getattr(listener, method, None) or listener.on_partitions_revoked
        try:
            result = call(tps)
            if inspect.isawaitable(result):
                await result
            self._metrics.listener_returned(method, started_at)
        except Exception:
            self._log.exception("rebalance listener %s.%s failed", listener, method)
