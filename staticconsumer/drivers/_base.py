"""What every protocol driver shares: performing the engine's generic actions (events, finding
the coordinator, backing off, handing partitions to and from the application, raising errors),
the one fatal path, errors handed to the application's next poll, and the end.

A driver performs what its membership engine asks (``staticconsumer.membership``) over
aiokafka's connections (through :mod:`staticconsumer._compat`) and feeds the answers back; it
holds no policy. ``_classic_driver`` drives the JoinGroup/SyncGroup member,
``_consumer_group_driver`` the KIP-848 one; both keep their commits in ``_offsets``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from .. import _compat
from .._compat import WakeMarker
from .._error_map import MemberContext, kafka_error
from .._observability.emitter import EventEmitter
from ..errors import StaticConsumerError
from ..membership import (
    Assign,
    Backoff,
    BecomeFatal,
    Emit,
    FindCoordinator,
    Partitions,
    RaiseError,
    Revoke,
)
from ..protocol import ErrorCode
from .offsets import OffsetKeeper

log = logging.getLogger("staticconsumer")

FatalCallback = Callable[[StaticConsumerError], None]


class DriverBase(OffsetKeeper):
    """The shared part of a protocol driver (module docstring). ``member`` is the engine:
    :class:`~staticconsumer.membership.ClassicMember` or ``ConsumerGroupMember``."""

    def __init__(
        self, member: Any, seam: _compat.ClientSeam, versions: Any, *, client_id: str,
        retry_backoff_ms: int, enable_auto_commit: bool, auto_commit_interval_ms: int,
        on_fatal: FatalCallback, events: EventEmitter | None,
    ) -> None:  # fmt: skip
        self.member = member
        self.seam = seam
        self.versions = versions
        self.client_id = client_id
        self._events = events
        self._retry_backoff = retry_backoff_ms / 1000
        self._init_offsets(enable_auto_commit, auto_commit_interval_ms)
        self._on_fatal = on_fatal
        self._pending: Exception | None = None  # raised to the application once
        self._troubled = False  # a fatal or pending error, or a dead loop: check_errors raises
        self._pending_consumed: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._closing = False
        self.leave_reason: str | None = None
        self._handing_over = False  # the rebalance listener runs: partitions change hands
        self._fenced = False  # the engine turned fatal on FENCED_INSTANCE_ID
        self._task = asyncio.get_running_loop().create_task(self._coordinate())

    # -- identity, for StaticConsumer's properties ------------------------------------------------

    @property
    def member_id(self) -> str:
        return str(self.member.member_id)

    @property
    def generation(self) -> int:
        """The classic generation, or the consumer protocol's member epoch."""
        return int(self.member.generation_id)

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        error = self.member.fatal_error
        return error if isinstance(error, StaticConsumerError) else None

    @property
    def owned(self) -> Partitions:
        owned: Partitions = self.member.owned
        return owned

    def _loop_failed(self) -> bool:
        return self._task.done() and not self._task.cancelled() and bool(self._task.exception())

    # -- performing actions -----------------------------------------------------------------------

    def run_now(self, actions: Iterable[Any]) -> None:
        """Perform actions that need no I/O (events) at once."""
        for action in actions:
            assert isinstance(action, Emit), f"{action!r} needs the event loop"
            self._emit(action)

    async def run(self, actions: Iterable[Any]) -> None:
        """Perform ``actions`` in order, and the actions their answers call for."""
        queue = list(actions)
        while queue:
            action = queue.pop(0)
            queue[:0] = await self._perform(action)

    async def _perform(self, action: Any) -> list[Any]:
        """The actions every engine asks for; a driver adds its own sends."""
        if isinstance(action, Emit):
            self._emit(action)
        elif isinstance(action, FindCoordinator):
            await self.find_coordinator()
        elif isinstance(action, Backoff):
            await self.backoff()
        elif isinstance(action, Assign | Revoke):
            self._handing_over = True
            try:
                await (self._revoke(action) if isinstance(action, Revoke) else
                       self._assign(action))  # fmt: skip
            finally:
                self._handing_over = False
        elif isinstance(action, BecomeFatal):
            # Noted at once: building the error may look up the holder of the instance id first.
            self._fenced = action.error_code == ErrorCode.FENCED_INSTANCE_ID
            self.fail(await self._fatal_error(action))
        elif isinstance(action, RaiseError):
            error = kafka_error(action.error_code, group_id=self.member.config.group_id,
                                detail=action.detail)  # fmt: skip
            await self.raise_to_user(error)
        else:
            raise AssertionError(f"no driver performs {action!r}")
        return []

    async def _fatal_error(self, action: BecomeFatal) -> StaticConsumerError:
        raise NotImplementedError

    def _revoke_stops_fetching(self, action: Revoke) -> bool:
        """Whether the fetcher must hand out nothing until the next assignment."""
        return action.lost

    async def to_coordinator(self, request: Any) -> Any:
        """Send ``request`` to the coordinator; aiokafka's ``KafkaError`` when there is no
        answer (or no known coordinator)."""
        node = self.member.coordinator
        if node is None:
            raise _compat.KafkaError("the coordinator is not known")
        return await self.seam.send(node, request)

    # -- partitions to and from the application ---------------------------------------------------

    async def _revoke(self, action: Revoke) -> None:
        if not action.lost:  # commit on revoke; never for partitions of a lost generation
            try:
                await self.commit_consumed(action.partitions)
            except Exception as exc:
                log.error("OffsetCommit before revoking %s failed, ignoring: %r",
                          list(action.partitions), exc)  # fmt: skip
        if self._revoke_stops_fetching(action):
            self.seam.begin_reassignment()
        log.info("Revoking previously assigned partitions %s for group %s (%s)",
                 list(action.partitions), self.member.config.group_id, action.reason)  # fmt: skip
        await self._call_listener("on_partitions_revoked", action.partitions)

    async def _assign(self, action: Assign) -> None:
        assignment = self.seam.assign(action.assigned)
        self.start_commit_offsets_refresh_task(assignment)
        log.info("Setting newly assigned partitions %s for group %s",
                 list(action.assigned), self.member.config.group_id)  # fmt: skip
        await self._call_listener("on_partitions_assigned", action.added)

    async def _call_listener(self, method: str, partitions: Iterable[tuple[str, int]]) -> None:
        listener = self.seam.listener()
        if listener is None:
            return
        tps = {_compat.kafka_tp(t, p) for t, p in partitions}
        try:
            result = getattr(listener, method)(tps)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("rebalance listener %s.%s failed for group %s", listener, method,
                          self.member.config.group_id)  # fmt: skip

    def _emit(self, action: Emit) -> None:
        if self._events is None:
            return
        cfg = self.member.config
        self._events.emit(
            action.kind, group_id=cfg.group_id, client_id=self.client_id,
            group_instance_id=cfg.group_instance_id, member_id=action.member_id or None,
            generation_id=max(action.generation_id, -1), **action.fields,
        )  # fmt: skip

    # -- what aiokafka's consumer calls (through _compat.CoordinatorSeam) ------------------------

    def check_errors(self) -> None:
        """Raise the fatal error, or a pending error once. aiokafka calls this on every
        ``getone``/``getmany``, so the usual case is one attribute test."""
        if self._troubled:
            self._raise_trouble()

    def _raise_trouble(self) -> None:
        if self.member.fatal_error is not None:
            raise self.member.fatal_error
        if self._loop_failed():
            raise self._task.exception()  # type: ignore[misc]
        self._troubled = False
        if self._pending is not None:
            error, self._pending = self._pending, None
            if self._pending_consumed is not None and not self._pending_consumed.done():
                self._pending_consumed.set_result(None)
            raise error

    def maybe_leave_group(self) -> Any:
        """aiokafka calls this on ``unsubscribe()``: the next subscription joins again."""
        self._wake.set()
        return None

    # -- the coordination loop --------------------------------------------------------------------

    async def _coordinate(self) -> None:
        """Run the driver's loop; an unexpected error ends it, and wakes every waiter with it,
        so that no call hangs on a consumer whose membership stopped."""
        try:
            await self._coordination_loop()
        except Exception as exc:
            self._troubled = True
            log.exception("group %s: the coordination loop failed", self.member.config.group_id)
            self.seam.abort_waiters(_compat.KafkaError(f"group coordination failed: {exc!r}"))
            raise

    async def _coordination_loop(self) -> None:
        """Find the coordinator, let the engine say what is due (join, heartbeat, leave),
        auto-commit on its interval, sleep until the next of those or a wake-up."""
        subscription = None
        while not self._closing and not self.member.terminal:
            current = self.seam.current_subscription()
            if current is None or not current.active:
                await self._sleep(self._retry_backoff)
                continue
            if current is not subscription:
                if subscription is not None:
                    self._subscription_changed()
                subscription = current
            if not self.seam.auto_assigned():
                await self._find_coordinator_if_unknown()
                await self._sleep(self._auto_commit_wait() or 1.0)
                await self._auto_commit_if_due()
                continue
            actions = self._poll_engine(time.monotonic(), current.topics)
            if actions:
                await self.run(actions)
                continue
            await self._auto_commit_if_due()
            wait = self.member.next_wakeup(time.monotonic())
            await self._sleep(
                min(x for x in (wait, self._auto_commit_wait(), 1.0) if x is not None)
            )

    def _poll_engine(self, now: float, topics: Any) -> list[Any]:
        """The engine's next actions for the clock, the subscription and the fetcher's idle time."""
        raise NotImplementedError

    def _subscription_changed(self) -> None:
        """The application subscribed anew (the engine may need to say so)."""

    async def _sleep(self, seconds: float) -> None:
        if self._wake.is_set():
            self._wake.clear()
            return
        try:
            await asyncio.wait_for(self._wake.wait(), max(0.0, seconds))
        except TimeoutError:
            pass
        self._wake.clear()

    async def find_coordinator(self) -> None:
        """FindCoordinator until a connection is ready (aiokafka's lookup); a non-retriable
        error (group authorization) goes to the application, then the lookup goes on."""
        while not self._closing and not self.member.terminal:
            try:
                node_id = await self.seam.lookup_coordinator(self.member.config.group_id)
            except _compat.KafkaError as exc:
                await self.raise_to_user(exc)
                continue
            if node_id is not None:
                self._coordinator_found(node_id)
                log.info("Discovered coordinator %s for group %s", node_id,
                         self.member.config.group_id)  # fmt: skip
                return
            await asyncio.sleep(self._retry_backoff)

    def _coordinator_found(self, node_id: int) -> None:
        raise NotImplementedError

    async def backoff(self) -> None:
        await asyncio.sleep(self._retry_backoff)

    async def raise_to_user(self, error: Exception) -> None:
        """Hand ``error`` to the application's next poll; wait until it was raised (or close)."""
        log.warning("group %s: %r (raised to the application)", self.member.config.group_id, error)
        self._pending = error
        self._troubled = True
        self.seam.abort_waiters(WakeMarker(repr(error)))
        self._pending_consumed = asyncio.get_running_loop().create_future()
        closing = asyncio.ensure_future(self._wait_closing())
        try:
            await asyncio.wait([self._pending_consumed, closing],
                               return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
        finally:
            closing.cancel()

    async def _wait_closing(self) -> None:
        while not self._closing:
            await self._wake.wait()
            self._wake.clear()

    def fail(self, error: StaticConsumerError) -> None:
        """The one fatal path: record, wake every waiter, tell the application once."""
        if self.member.fatal_error is not None:
            return
        self.member.fatal(error)
        self._troubled = True
        log.error("%s", error)
        self.seam.abort_waiters(WakeMarker(str(error)))
        self._wake.set()
        self._on_fatal(error)

    def context(self) -> MemberContext:
        cfg = self.member.config
        return MemberContext(cfg.group_id, cfg.group_instance_id, self.member.member_id,
                             self.client_id)  # fmt: skip

    # -- the end ------------------------------------------------------------------------------

    async def close(self) -> None:
        """Stop the loop, commit what was consumed, then leave as the engine says."""
        if self._closing:
            return
        self._closing = True
        self._wake.set()
        try:
            await self._task
        except Exception as exc:
            log.debug("coordination task ended with %r", exc)
        await self._stop_offsets()
        if self.member.coordinator is not None and self.member.fatal_error is None:
            try:
                await self.commit_consumed(None)
            except Exception as exc:
                log.error("Failed to commit on close: %r", exc)
        await self.run(self._leave_actions())

    def _leave_actions(self) -> list[Any]:
        raise NotImplementedError
