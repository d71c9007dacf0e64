"""The classic-protocol driver: performs what :class:`~staticconsumer.membership.ClassicMember`
asks, over aiokafka's connections (through :mod:`staticconsumer._compat`), and feeds the answers
back. It holds no policy: when to join, heartbeat, re-join, give up or fail is the engine's.

One coordination task per consumer runs the loop: find the coordinator, join when the engine says
a join is due, heartbeat when one is due, auto-commit on its interval, sleep until the next of
those or until something wakes it (metadata change, enforced rebalance, subscription change,
close). ``commit()`` and ``committed()`` run on the caller's task and share the engine.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from typing_extensions import override

from . import _compat
from ._classic_offsets import OffsetKeeper
from ._compat import WakeMarker
from ._error_map import MemberContext
from ._events import EventEmitter
from ._reasons import JOIN_REASON_METADATA_CHANGED, JOIN_REASON_SUBSCRIPTION_CHANGED
from .errors import StaticConsumerError
from .membership import (
    Action,
    Assign,
    BecomeFatal,
    ClassicMember,
    CoordinatorFound,
    JoinRequested,
    MemberConfig,
    MembershipState,
    Partitions,
    RebalanceProtocol,
    Revoke,
    classic_state,
)
from .protocol import (
    ErrorCode,
    GroupApiVersions,
)

log = logging.getLogger("staticconsumer")

FatalCallback = Callable[[StaticConsumerError], None]



class ClassicDriver(OffsetKeeper):
    """Drives one :class:`ClassicMember` (module docstring)."""

    def __init__(
        self,
        seam: _compat.ClientSeam,
        versions: GroupApiVersions,
        *,
        group_id: str,
        group_instance_id: str | None,
        client_id: str,
        client_rack: str | None,
        assignors: Sequence[Any],
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        rebalance_timeout_ms: int,
        max_poll_interval_ms: int,
        retry_backoff_ms: int,
        enable_auto_commit: bool,
        auto_commit_interval_ms: int,
        on_fatal: FatalCallback,
        events: EventEmitter | None,
    ) -> None:
        cooperative = all("cooperative" in a.supported_protocols for a in assignors)
        protocol = RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER
        member = ClassicMember(
            MemberConfig(group_id, group_instance_id, session_timeout_ms, heartbeat_interval_ms,
                         max_poll_interval_ms, protocol)
        )  # fmt: skip
        super().__init__(member, seam, versions, client_id=client_id, client_rack=client_rack,
                         assignors=assignors, session_timeout_ms=session_timeout_ms,
                         rebalance_timeout_ms=rebalance_timeout_ms, events=events)  # fmt: skip
        self._retry_backoff = retry_backoff_ms / 1000
        self._auto_commit = enable_auto_commit
        self._auto_commit_interval = auto_commit_interval_ms / 1000
        self._next_auto_commit = time.monotonic() + self._auto_commit_interval
        self._on_fatal = on_fatal
        self._pending: Exception | None = None  # raised to the application once
        self._troubled = False  # a fatal or pending error, or a dead loop: check_errors raises
        self._pending_consumed: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._closing = False
        self._commit_lock = asyncio.Lock()
        self._refresh_task: asyncio.Task[None] | None = None
        self.leave_reason: str | None = None
        self._handing_over = False  # the rebalance listener runs: partitions change hands
        self._fenced = False  # the engine turned fatal on FENCED_INSTANCE_ID
        self._task = asyncio.get_running_loop().create_task(self._coordinate())

    # -- identity, for StaticConsumer's properties ------------------------------------------------

    @property
    def member_id(self) -> str:
        return self.member.member_id

    @property
    def generation(self) -> int:
        return self.member.generation_id

    @property
    def is_leader(self) -> bool:
        return self.member.is_leader

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        error = self.member.fatal_error
        return error if isinstance(error, StaticConsumerError) else None

    @property
    def owned(self) -> Partitions:
        return self.member.owned

    def membership_state(self) -> MembershipState:
        """The engine's state as the application sees it (``membership._status``); a
        coordination loop that died counts as failed."""
        if self._task.done() and not self._task.cancelled() and self._task.exception():
            return MembershipState.FAILED
        current = self.seam.current_subscription()
        return classic_state(
            self.member.state, self.member.generation_id,
            subscribed=current is not None and current.active and self.seam.auto_assigned(),
            handing_over=self._handing_over, fenced=self._fenced,
        )  # fmt: skip

    @override
    async def _perform(self, action: Action) -> list[Action]:
        """As :class:`ActionRunner`, noting while partitions change hands, and a fence as soon
        as the engine says so (building its error looks up the holder first)."""
        if isinstance(action, BecomeFatal) and action.error_code == ErrorCode.FENCED_INSTANCE_ID:
            self._fenced = True
        if not isinstance(action, Assign | Revoke):
            return await super()._perform(action)
        self._handing_over = True
        try:
            return await super()._perform(action)
        finally:
            self._handing_over = False

    # -- what aiokafka's consumer calls (through _compat.CoordinatorSeam) ------------------------

    def check_errors(self) -> None:
        """Raise the fatal error, or a pending error once. aiokafka calls this on every
        ``getone``/``getmany``, so the usual case is one attribute test."""
        if self._troubled:
            self._raise_trouble()

    def _raise_trouble(self) -> None:
        if self.member.fatal_error is not None:
            raise self.member.fatal_error
        if self._task.done() and not self._task.cancelled() and self._task.exception():
            raise self._task.exception()  # type: ignore[misc]
        self._troubled = False
        if self._pending is not None:
            error, self._pending = self._pending, None
            if self._pending_consumed is not None and not self._pending_consumed.done():
                self._pending_consumed.set_result(None)
            raise error

    def on_metadata_change(self) -> None:
        self.request_join(JOIN_REASON_METADATA_CHANGED)

    def request_join(self, reason: str, *, enforced: bool = False) -> None:
        self.run_now(self.member.handle(JoinRequested(reason, enforced=enforced)))
        self._wake.set()

    def enforce_rebalance(self, reason: str) -> None:
        self.request_join(reason, enforced=True)

    def maybe_leave_group(self) -> Any:
        """aiokafka calls this on ``unsubscribe()``: the next subscription re-joins."""
        self._wake.set()
        return None

    # -- the coordination loop --------------------------------------------------------------------

    async def _coordinate(self) -> None:
        """The loop (module docstring); an unexpected error ends it, and wakes every waiter
        with it, so that no call hangs on a consumer whose membership stopped."""
        try:
            await self._coordination_loop()
        except Exception as exc:
            self._troubled = True
            log.exception("group %s: the coordination loop failed", self.member.config.group_id)
            self.seam.abort_waiters(_compat.KafkaError(f"group coordination failed: {exc!r}"))
            raise

    async def _coordination_loop(self) -> None:
        subscription = None
        while not self._closing and not self.member.terminal:
            current = self.seam.current_subscription()
            if current is None or not current.active:
                await self._sleep(self._retry_backoff)
                continue
            if current is not subscription:
                if subscription is not None:
                    self.member.handle(JoinRequested(JOIN_REASON_SUBSCRIPTION_CHANGED))
                subscription = current
            if not self.seam.auto_assigned():
                await self._find_coordinator_if_unknown()
                await self._sleep(self._auto_commit_wait() or 1.0)
                await self._auto_commit_if_due()
                continue
            now = time.monotonic()
            actions = self.member.poll(now, self.seam.idle_seconds(), current.topics)
            if actions:
                await self.run(actions)
                continue
            await self._auto_commit_if_due()
            wait = self.member.next_wakeup(time.monotonic())
            await self._sleep(
                min(x for x in (wait, self._auto_commit_wait(), 1.0) if x is not None)
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
                self.member.handle(CoordinatorFound(node_id))
                log.info("Discovered coordinator %s for group %s", node_id,
                         self.member.config.group_id)  # fmt: skip
                return
            await asyncio.sleep(self._retry_backoff)

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
        if self._closing:
            return
        self._closing = True
        self._wake.set()
        try:
            await self._task
        except Exception as exc:
            log.debug("coordination task ended with %r", exc)
        if self._refresh_task is not None:
            self._refresh_task.cancel()
            await asyncio.gather(self._refresh_task, return_exceptions=True)
        if self.member.coordinator is not None and self.member.fatal_error is None:
            try:
                await self.commit_consumed(None)
            except Exception as exc:
                log.error("Failed to commit on close: %r", exc)
        await self.run(self.member.close(self.leave_reason))
