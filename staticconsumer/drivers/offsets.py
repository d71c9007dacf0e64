"""Offsets for both group protocols: commits (the application's, auto-commit, commit on revoke)
and committed-offset fetches for aiokafka's fetcher. The engine decides what an answer means
(``on_commit_answer``, ``on_offset_fetch_answer`` of either engine: a classic commit carries the
generation, a consumer-protocol one the member epoch); the one error map decides what the caller
sees (:func:`staticconsumer._error_map.commit_error`).

:class:`OffsetKeeper` is a component the :class:`~staticconsumer.drivers.driver.Driver` holds;
what it needs of the driver (send to the coordinator, find it, perform actions, hand an error to
the application) comes in as :class:`OffsetsHost`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from .. import _compat
from .._error_map import commit_error, commit_not_held, kafka_error
from .._observability.metrics import ConsumerMetrics
from ..membership import AnyEngine, Api, Backoff, CommitOutcome, CommonAction, FindCoordinator
from ..protocol import (
    NO_COMMITTED_OFFSET,
    CommitOffset,
    ErrorCode,
    GroupApiVersions,
    build_offset_commit,
    build_offset_fetch,
    parse_offset_commit,
    parse_offset_fetch,
)

log = logging.getLogger(__name__)


class OffsetsHost(Protocol):
    """What the offsets component asks of the driver that holds it."""

    metrics: ConsumerMetrics

    async def run(self, actions: Iterable[CommonAction]) -> None: ...
    async def to_coordinator(self, request: Any) -> Any: ...
    async def find_coordinator(self) -> None: ...
    async def raise_to_user(self, error: Exception) -> None: ...


class OffsetKeeper:
    """Commits and committed offsets of one member (module docstring)."""

    def __init__(
        self, engine: AnyEngine, seam: _compat.ClientSeam, versions: GroupApiVersions,
        host: OffsetsHost, *, enable_auto_commit: bool, auto_commit_interval_ms: int,
        retry_backoff_s: float,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._log = engine.identity.logger(log)
        self._seam = seam
        self._versions = versions
        self._host = host
        self._retry_backoff = retry_backoff_s
        self._auto_commit = enable_auto_commit
        self._auto_commit_interval = auto_commit_interval_ms / 1000
        self._next_auto_commit = time.monotonic() + self._auto_commit_interval
        self._commit_lock = asyncio.Lock()
        self._refresh_task: asyncio.Task[None] | None = None

    @property
    def _group_id(self) -> str:
        return self._engine.config.group_id

    async def stop(self) -> None:
        """End the committed-offsets refresh task (close)."""
        if self._refresh_task is not None:
            self._refresh_task.cancel()
            await asyncio.gather(self._refresh_task, return_exceptions=True)

    async def find_coordinator_if_unknown(self) -> None:
        if self._engine.coordinator is None:
            await self._host.find_coordinator()

    def raise_if_fatal(self) -> None:
        """The one check before a commit or fetch: the engine's fatal error, if any."""
        error = self._engine.fatal_error
        if error is not None:
            raise error

    # -- auto-commit --------------------------------------------------------------------------

    def auto_commit_wait(self) -> float | None:
        if not self._auto_commit:
            return None
        return max(0.0, self._next_auto_commit - time.monotonic())

    async def auto_commit_if_due(self) -> None:
        if not self._auto_commit or time.monotonic() < self._next_auto_commit:
            return
        self._next_auto_commit = time.monotonic() + self._auto_commit_interval
        try:
            await self.commit_consumed(None)
        except Exception as exc:  # auto-commit failures are logged, as aiokafka and Java do
            self._log.warning("Auto offset commit failed: %r", exc)

    async def commit_consumed(self, partitions: Sequence[tuple[str, int]] | None) -> None:
        """Commit what the application consumed (all, or ``partitions``): auto-commit, and
        commit-on-revoke. Does nothing when auto-commit is off, or after the fence."""
        if not self._auto_commit or self._engine.fatal_error is not None:
            return
        assignment = self._seam.assignment()
        offsets = self._seam.consumed_offsets(partitions)
        if assignment is not None and offsets:
            await self.commit_offsets(assignment, offsets)

    # -- commits ------------------------------------------------------------------------------

    async def commit_offsets(self, assignment: Any, offsets: Any) -> None:
        """OffsetCommit with this member's generation (or epoch); retried while the coordinator
        moves; raises what :mod:`staticconsumer._error_map` says for a failed one. Each attempt
        carries only the partitions the member holds at the epoch it carries (KIP-1251): a
        partition that moved away meanwhile is left out, and ``CommitFailedError`` names it
        once the others are committed."""
        not_held: set[tuple[str, int]] = set()
        while True:
            self.raise_if_fatal()
            await self.find_coordinator_if_unknown()
            self.raise_if_fatal()
            async with self._commit_lock:
                offsets = self._held_only(offsets, not_held)
                outcome, code, topics = await self._send_commit(offsets)
            if outcome is CommitOutcome.DONE:
                if not_held:
                    raise commit_not_held(not_held)
                return
            if outcome is CommitOutcome.FAILED:
                self.raise_if_fatal()
                raise commit_error(code, group_id=self._group_id, topics=topics)

    def _held_only(self, offsets: Any, not_held: set[tuple[str, int]]) -> Any:
        """``offsets`` without the partitions the member no longer holds (added to
        ``not_held``); read with the epoch :meth:`_send_commit` sends, no await between."""
        if not self._seam.auto_assigned():
            return offsets  # the application's own assignment commits outside the group
        gone = self._engine.commit_not_held((tp.topic, tp.partition) for tp in offsets)
        if not gone:
            return offsets
        self._log.info("OffsetCommit leaves out %s: no longer held by this member (KIP-1251)",
                       ", ".join(f"{t}-{p}" for t, p in gone))  # fmt: skip
        not_held.update(gone)
        return {tp: meta for tp, meta in offsets.items() if (tp.topic, tp.partition) not in gone}

    async def _send_commit(self, offsets: Any) -> tuple[CommitOutcome, int, tuple[str, ...]]:
        """One OffsetCommit: its outcome, the first refused partition's code and the topics
        refused with that code (for the error's message)."""
        if not offsets:
            return CommitOutcome.DONE, 0, ()
        identity = self._engine.commit_identity(self._seam.auto_assigned())
        if identity is None:
            self._log.info("OffsetCommit refused: the group is rebalancing")
            return CommitOutcome.FAILED, ErrorCode.REBALANCE_IN_PROGRESS, ()
        generation, member_id = identity
        request = build_offset_commit(
            self._versions.offset_commit, group_id=self._group_id,
            generation_id=generation, member_id=member_id,
            group_instance_id=self._engine.config.group_instance_id,
            offsets=[CommitOffset(tp.topic, tp.partition, meta.offset, metadata=meta.metadata or "")
                     for tp, meta in offsets.items()],
        )  # fmt: skip
        sent_at = self._host.metrics.now()
        try:
            response = await self._host.to_coordinator(request)
        except _compat.KafkaError as exc:
            self._log.warning("OffsetCommit got no answer: %r", exc)
            outcome, actions = self._engine.commit_no_answer()
            await self._host.run(
                [a for a in actions if not isinstance(a, FindCoordinator | Backoff)]
            )
            await asyncio.sleep(self._retry_backoff)
            return outcome, 0, ()
        failed = parse_offset_commit(response).failed
        code = failed[0].error_code if failed else 0
        self._host.metrics.answered(Api.OFFSET_COMMIT, sent_at, code)
        outcome, actions = self._engine.on_commit_answer(code, generation)
        await self._host.run([a for a in actions if not isinstance(a, FindCoordinator)])
        return outcome, code, tuple(p.topic for p in failed if p.error_code == code)

    # -- committed offsets --------------------------------------------------------------------

    async def fetch_committed_offsets(self, partitions: Any) -> dict[Any, Any]:
        """The group's committed offsets for ``partitions``, retried while the answer says "ask
        again" (the engine decides). A partition is missing from the result only when the
        coordinator said it has no committed offset."""
        if not partitions:
            return {}
        wanted = [_compat.topic_partition(tp) for tp in partitions]
        while True:
            self.raise_if_fatal()
            await self.find_coordinator_if_unknown()
            self.raise_if_fatal()
            offsets = await self._fetch_committed(wanted)
            if offsets is not None:
                return offsets

    async def _fetch_committed(self, partitions: list[tuple[str, int]]) -> dict[Any, Any] | None:
        """One OffsetFetch; None when it is to be sent again (after the engine's backoff)."""
        member_id, member_epoch = self._engine.offset_fetch_identity()
        request = build_offset_fetch(
            self._versions.offset_fetch, group_id=self._group_id,
            partitions=partitions, member_id=member_id, member_epoch=member_epoch,
        )  # fmt: skip
        rows: dict[tuple[str, int], Any] = {}
        try:
            response = await self._host.to_coordinator(request)
        except _compat.KafkaError as exc:
            self._log.warning("OffsetFetch got no answer: %r", exc)
            outcome, code, actions = self._engine.offset_fetch_no_answer()
        else:
            result = parse_offset_fetch(response)
            rows = {(p.topic, p.partition): p for p in result.partitions}
            codes = [result.error_code, *(p.error_code for p in result.partitions)]
            missing = set(partitions) - set(rows)
            if result.error_code == ErrorCode.NONE and missing:
                # Every partition asked for must have a row; a missing one is not "no offset".
                self._log.warning("OffsetFetch left out %s: asking again", sorted(missing))
                codes.append(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
            outcome, code, actions = self._engine.on_offset_fetch_answer(codes)
        await self._host.run([a for a in actions if not isinstance(a, FindCoordinator)])
        if outcome is CommitOutcome.FAILED:
            self.raise_if_fatal()
            topics = tuple(row.topic for row in rows.values() if row.error_code == code)
            raise kafka_error(code, group_id=self._group_id, topics=topics)
        if outcome is CommitOutcome.RETRY:
            return None
        # DONE: every partition asked for has a row without an error.
        found = (rows[tp] for tp in partitions)
        return {
            _compat.kafka_tp(row.topic, row.partition): _compat.committed(row.offset, row.metadata)
            for row in found
            if row.offset != NO_COMMITTED_OFFSET
        }

    def start_commit_offsets_refresh_task(self, assignment: Any) -> None:
        if self._refresh_task is not None:
            self._refresh_task.cancel()
        self._refresh_task = asyncio.get_running_loop().create_task(self._refresh(assignment))

    async def _refresh(self, assignment: Any) -> None:
        """Answer the fetcher's requests for committed offsets of ``assignment``, until the
        assignment ends or the member is finished (``ClientSeam.serve_committed_offsets``)."""
        await self._seam.serve_committed_offsets(
            assignment, self._committed_for_fetcher, lambda: self._engine.terminal
        )

    async def _committed_for_fetcher(self, wanted: list[Any]) -> dict[Any, Any] | None:
        """The committed offsets the fetcher waits for; None (asked for again) after an error,
        which the application hears (never answered with "no committed offset")."""
        try:
            offsets: dict[Any, Any] = await self.fetch_committed_offsets(wanted)
            return offsets
        except Exception as exc:
            if self._engine.fatal_error is None:  # the fatal path woke every waiter already
                await self._host.raise_to_user(exc)
            return None
