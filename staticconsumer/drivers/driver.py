"""The driver: one asyncio loop that performs what a membership engine asks, for either group
protocol. It *holds* its parts rather than inheriting them (franz-go's KIP-848 consumer holds its
group consumer the same way):

- an engine (:class:`~staticconsumer.membership.Engine`: ``ClassicMember`` or
  ``ConsumerGroupMember``), which decides everything — when to join, heartbeat, re-join, give up,
  whether a fatal error is a fence, and when a rebalance starts, ends or fails (metrics);
- a sender (``classic.ClassicSender`` or ``consumer_group.ConsumerGroupSender``), which performs
  its protocol's actions (``membership.ClassicSenderAction``, ``ConsumerGroupSenderAction``: a
  ``match`` that ``mypy --strict`` proves complete), builds the protocol's requests, sends them and
  feeds the answers back;
- an :class:`~.offsets.OffsetKeeper` (commits and committed offsets) and a
  :class:`~.handover.Handover` (partitions to and from the application);
- a :class:`~.loop.CoordinationLoop` (what is due, when), run from :meth:`Driver.start` until
  :meth:`Driver.close`, and a :class:`~.mailbox.Mailbox` (what the application's next poll
  raises);
- the consumer's coordinator metrics (``_observability.metrics``), which the sender (request
  latencies), the offsets keeper, the hand-over and the engine (its ``RecordRebalance``
  actions, performed here) feed with one call per event.

A ``Driver[SenderActionT]`` is typed by its sender's actions: it holds an engine that takes the
common inputs and gives out ``CommonAction | SenderActionT`` (``membership._io``). It performs
the common actions itself (events, metrics, finding the coordinator, backing off, handing
partitions over, raising errors to the application) and the rest through its sender, owns the
one fatal path, and is the face aiokafka's consumer calls (``_compat.CoordinatorSeam``). It
keeps no fatal fact of its own: the fatal error and whether it was a fence are the engine's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Generic, Protocol, TypeVar

from .. import _compat
from .._compat import WakeMarker
from .._error_map import MemberContext, kafka_error
from .._observability.emitter import EventEmitter
from .._observability.metrics import ConsumerMetrics, MetricLabels
from ..errors import StaticConsumerError
from ..membership import (
    Assign,
    Backoff,
    BecomeFatal,
    ClassicSenderAction,
    CommonAction,
    CommonInput,
    ConsumerGroupSenderAction,
    CoordinatorFound,
    Emit,
    Engine,
    FindCoordinator,
    MemberLog,
    MembershipState,
    Partitions,
    RaiseError,
    RecordRebalance,
    Revoke,
    StreamsGroupSenderAction,
    Unsubscribed,
)
from ..options import ConsumerOptions, MembershipOperation
from ..protocol import GroupApiVersions
from .handover import Handover
from .loop import CoordinationLoop
from .mailbox import Mailbox
from .offsets import OffsetKeeper

log = logging.getLogger(__name__)

#: Called once when the member turns fatal (``StaticConsumer(on_fatal=...)``).
FatalCallback = Callable[[StaticConsumerError], None]
#: How long ``close()`` tries to commit what was consumed (Java's default close timeout, 30 s):
#: a coordinator that never answers must not make ``stop()`` hang.
CLOSE_COMMIT_TIMEOUT_S = 30.0


#: The actions a driver's sender performs (``membership.ClassicSenderAction`` or
#: ``membership.ConsumerGroupSenderAction``).
SenderActionT = TypeVar("SenderActionT")
T = TypeVar("T")


class Sender(Protocol[SenderActionT]):
    """The protocol-specific part a driver holds (module docstring)."""

    @property
    def is_leader(self) -> bool: ...

    async def perform(self, action: SenderActionT) -> Sequence[CommonAction | SenderActionT]:
        """Perform one of this protocol's actions; the actions its answer calls for."""
        ...

    async def fatal_error(self, action: BecomeFatal) -> StaticConsumerError: ...
    def stops_fetching(self, action: Revoke) -> bool: ...
    def after_revoke(self, action: Revoke) -> None: ...
    def enforce_rebalance(self, reason: str) -> None: ...
    def on_metadata_change(self) -> None: ...
    def subscription_changed(self) -> None: ...

    async def before_poll(self) -> bool:
        """Run before the engine is polled; True: the loop reads the subscription again first
        (it may have changed)."""
        ...


class Driver(Generic[SenderActionT]):
    """Drives one engine over aiokafka's connections (module docstring)."""

    def __init__(
        self, engine: Engine[CommonInput, CommonAction | SenderActionT],
        make_sender: Callable[[Driver[SenderActionT]], Sender[SenderActionT]],
        seam: _compat.ClientSeam, versions: GroupApiVersions, options: ConsumerOptions, *,
        on_fatal: FatalCallback, events: EventEmitter | None,
        metrics: ConsumerMetrics | None = None,
    ) -> None:  # fmt: skip
        self.engine = engine
        #: This consumer's log lines name it (``membership._log``): the engine's identity.
        self._log = engine.identity.logger(log)
        #: The coordinator metrics (``_observability.metrics``): the consumer's, else its own.
        self.metrics = metrics if metrics is not None else ConsumerMetrics(
            MetricLabels.of(options))  # fmt: skip
        self.metrics.assigned = lambda: len(self.engine.owned)
        self.seam = seam
        self.versions = versions
        self.options = options
        self.client_id = options.client_id
        self._events = events
        self._retry_backoff = options.retry_backoff_ms / 1000
        self._on_fatal = on_fatal
        self._committing_on_close = False  # close() may look the coordinator up for its commit
        #: What the application's next poll raises (``mailbox``).
        self.mailbox = Mailbox(engine, seam, self._log, loop_failure=lambda: self.loop.failure(),
                               closing=lambda: self.loop.wait_closing())  # fmt: skip
        # aiokafka calls check_errors() once per getone/getmany: the mailbox's, bound once.
        self.check_errors = self.mailbox.check
        self.offsets = OffsetKeeper(
            engine, seam, versions, self, enable_auto_commit=options.enable_auto_commit,
            auto_commit_interval_ms=options.auto_commit_interval_ms,
            retry_backoff_s=self._retry_backoff,
        )  # fmt: skip
        self.sender = make_sender(self)
        self.loop = CoordinationLoop(
            engine, seam, self.offsets, perform=self.run,
            subscription_changed=self.sender.subscription_changed,
            before_poll=self.sender.before_poll,
            on_failure=lambda exc: self.mailbox.alarm(
                _compat.KafkaError(f"group coordination failed: {exc!r}")),
            retry_backoff_s=self._retry_backoff, log=self._log,
        )  # fmt: skip
        self.handover = Handover(seam, self.offsets, engine.identity,
                                 stops_fetching=self.sender.stops_fetching,
                                 after_revoke=self.sender.after_revoke,
                                 metrics=self.metrics)  # fmt: skip
        self._unsubscribe_leave: asyncio.Task[None] | None = None
        self._fatal_pending: asyncio.Future[None] | None = None  # a fatal verdict diagnosed
        self._fatal_seen: asyncio.Future[None] | None = None  # done once the member is fatal
        # aiokafka's consumer calls these (through _compat.CoordinatorSeam): bound once.
        self.raise_if_fatal = self.offsets.raise_if_fatal
        self.fetch_committed_offsets = self.offsets.fetch_committed_offsets
        self.start_commit_offsets_refresh_task = self.offsets.start_commit_offsets_refresh_task

    def start(self) -> None:
        """Start the coordination loop (once; the consumer's ``start()`` calls it)."""
        self.loop.start()

    # -- identity and state, for StaticConsumer's properties -------------------------------------

    @property
    def group_id(self) -> str:
        return self.engine.config.group_id

    @property
    def member_id(self) -> str:
        return str(self.engine.member_id)

    @property
    def generation(self) -> int:
        """The classic generation, or the consumer protocol's member epoch."""
        return int(self.engine.generation_id)

    @property
    def closing(self) -> bool:
        """``close()`` has begun: nothing new is started."""
        return self.loop.closing

    @property
    def is_leader(self) -> bool:
        return self.sender.is_leader

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        error = self.engine.fatal_error
        return error if isinstance(error, StaticConsumerError) else None

    @property
    def owned(self) -> Partitions:
        return self.engine.owned

    def membership_state(self) -> MembershipState:
        """The engine's state as the application sees it (``membership._status``); a
        coordination loop that died counts as failed."""
        if self.loop.failure() is not None:
            return MembershipState.FAILED
        current = self.seam.current_subscription()
        subscribed = current is not None and current.active and self.seam.auto_assigned()
        return self.engine.membership_state(subscribed=subscribed,
                                            handing_over=self.handover.active)  # fmt: skip

    def logger(self, logger: logging.Logger) -> MemberLog:
        """``logger``, naming this consumer in each line (``membership._log``)."""
        return self.engine.identity.logger(logger)

    def context(self) -> MemberContext:
        cfg = self.engine.config
        return MemberContext(cfg.group_id, cfg.group_instance_id, self.engine.member_id,
                             self.client_id)  # fmt: skip

    # -- what the application (and aiokafka) asks ----------------------------------------------

    def enforce_rebalance(self, reason: str) -> None:
        self.sender.enforce_rebalance(reason)

    def on_metadata_change(self) -> None:
        self.sender.on_metadata_change()

    def maybe_leave_group(self) -> asyncio.Task[None] | None:
        """aiokafka calls this on ``unsubscribe()``: a dynamic member leaves the group (as
        aiokafka's does), a static one stays; the next subscription joins again. The leave runs
        as a task, awaited by the next commit (a manual assignment's commit is refused while
        the member is still in the group)."""
        actions = self.engine.handle(Unsubscribed())
        self.wake()
        if not actions:
            return None
        self._unsubscribe_leave = asyncio.get_running_loop().create_task(self.run(actions))
        return self._unsubscribe_leave

    async def commit_offsets(self, assignment: Any, offsets: Any) -> None:
        """The application's commit (through aiokafka), after an ``unsubscribe()``'s leave; a
        commit made while a fatal verdict is diagnosed waits for its error (and raises it)."""
        if self._fatal_pending is not None:
            await asyncio.shield(self._fatal_pending)
        await self._settle_unsubscribe()
        await self.offsets.commit_offsets(assignment, offsets)

    async def _settle_unsubscribe(self) -> None:
        leave, self._unsubscribe_leave = self._unsubscribe_leave, None
        if leave is not None:
            try:
                await leave
            except Exception as exc:  # a minimal-effort leave, as aiokafka's
                self._log.warning("LeaveGroup on unsubscribe failed: %r", exc)

    async def until_fatal(self, work: Awaitable[T]) -> T:
        """Await ``work`` unless the member turns fatal first: then ``work`` is cancelled and
        the fatal error raised at once (issue 52: no call waits on a fenced consumer, such as
        a commit queued behind one in flight or waiting for its answer)."""
        self.raise_if_fatal()
        if self._fatal_seen is None:
            self._fatal_seen = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(work)
        try:
            await asyncio.wait((task, self._fatal_seen), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the caller was cancelled: so is its work
            task.cancel()
            raise
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        self.raise_if_fatal()
        raise AssertionError("until_fatal woke without a fatal error")  # the future says so

    def wake(self) -> None:
        """Wake the coordination loop (metadata change, join requested, close)."""
        self.loop.wake()

    # -- performing actions -----------------------------------------------------------------------

    def run_now(self, actions: Iterable[CommonAction | SenderActionT]) -> None:
        """Perform actions that need no I/O (events, metrics) at once."""
        for action in actions:
            match action:
                case Emit():
                    self.emit(action)
                case RecordRebalance():  # the engine decided; the metrics count
                    self.metrics.rebalance(action.what)
                case _:
                    raise AssertionError(f"{action!r} needs the event loop")

    async def run(self, actions: Iterable[CommonAction | SenderActionT]) -> None:
        """Perform ``actions`` in order, and the actions their answers call for."""
        queue = list(actions)
        while queue:
            action = queue.pop(0)
            queue[:0] = await self._perform(action)

    async def _perform(
        self, action: CommonAction | SenderActionT
    ) -> Sequence[CommonAction | SenderActionT]:
        """The common actions here; the rest are the sender's (``mypy --strict`` checks that
        every common action has its case: what is left must be the sender's type)."""
        match action:
            case Emit() | RecordRebalance():
                self.run_now([action])
            case FindCoordinator():
                await self.find_coordinator()
            case Backoff():
                await asyncio.sleep(self._retry_backoff)
            case Assign() | Revoke():
                await self.handover.perform(action)
            case BecomeFatal():
                await self._become_fatal(action)
            case RaiseError():
                error = kafka_error(action.error_code, group_id=self.group_id,
                                    detail=action.detail, topics=action.topics)  # fmt: skip
                await self.raise_to_user(error)
            case _:
                return await self.sender.perform(action)
        return []

    def emit(self, action: Emit) -> None:
        if self._events is None:
            return
        cfg = self.engine.config
        self._events.emit(
            action.kind, group_id=cfg.group_id, client_id=self.client_id,
            group_instance_id=cfg.group_instance_id, member_id=action.member_id or None,
            generation_id=max(action.generation_id, -1), **action.fields,
        )  # fmt: skip

    async def to_coordinator(self, request: Any, *, timeout_at_least_ms: int | None = None) -> Any:
        """Send ``request`` to the coordinator; aiokafka's ``KafkaError`` when there is no
        answer (or no known coordinator). ``timeout_at_least_ms``: the request waits for its
        answer at least this long, even with a shorter ``request_timeout_ms`` (JoinGroup)."""
        node = self.engine.coordinator
        if node is None:
            raise _compat.KafkaError("the coordinator is not known")
        if timeout_at_least_ms is None:
            return await self.seam.send(node, request)
        return await self.seam.send(node, request, timeout_at_least_ms=timeout_at_least_ms)

    async def find_coordinator(self) -> None:
        """FindCoordinator until a connection is ready (aiokafka's lookup); a non-retriable
        error (group authorization) goes to the application, then the lookup goes on."""
        while (self._committing_on_close or not self.closing) and not self.engine.terminal:
            try:
                node_id = await self.seam.lookup_coordinator(self.group_id)
            except _compat.KafkaError as exc:
                await self.raise_to_user(exc)
                continue
            if node_id is not None:
                self.run_now(self.engine.handle(CoordinatorFound(node_id)))
                self._log.info("Discovered coordinator %s", node_id)
                return
            await asyncio.sleep(self._retry_backoff)

    async def raise_to_user(self, error: Exception) -> None:
        """Hand ``error`` to the application's next poll; wait until it was raised (or close)."""
        await self.mailbox.post(error)

    async def _become_fatal(self, action: BecomeFatal) -> None:
        """The one fatal path. From the engine's verdict on nothing more is handed out (the
        fetcher stops, as for an eager revocation) and an application's commit waits; the
        sender's diagnosis (who holds the instance id, the broker's bounds) makes the error,
        which the engine records; every waiter wakes, and the application is told once."""
        if self.engine.fatal_error is not None:
            return
        self._fatal_pending = asyncio.get_running_loop().create_future()
        self.seam.begin_reassignment()
        try:
            error = await self.sender.fatal_error(action)
        finally:
            pending, self._fatal_pending = self._fatal_pending, None
            pending.set_result(None)
        self.engine.fatal(error)
        self._log.error("%s", error)
        self.mailbox.alarm(WakeMarker(str(error)))
        if self._fatal_seen is not None and not self._fatal_seen.done():
            self._fatal_seen.set_result(None)  # every until_fatal() wakes
        self.wake()
        self._on_fatal(error)

    # -- the end ------------------------------------------------------------------------------

    async def close(
        self, membership: MembershipOperation = MembershipOperation.DEFAULT,
        reason: str | None = None,
    ) -> None:  # fmt: skip
        """Stop the loop, commit what was consumed, then leave or stay as ``membership`` says
        (KIP-1092; the engine decides what that means for this member), with ``reason`` on the
        leave (KIP-800; None: the default reason). Idempotent: the first call decides (aiokafka's
        ``stop()`` calls it again, with nothing)."""
        if self.loop.closing:
            return
        await self.loop.stop()
        await self.offsets.stop()
        await self._settle_unsubscribe()
        # Java's close: the rebalance listener hears of the partitions first (onLeavePrepare:
        # revoked, committed first, or lost), then what is left is committed, then the member
        # leaves or stays. A fenced member commits nothing.
        prepare = self.engine.leave_prepare()
        if prepare:  # the revocation commits what was consumed of what it revokes
            await self._commit_on_close(self.run(prepare))
        elif self.engine.coordinator is not None and self.engine.fatal_error is None:
            await self._commit_on_close(self.offsets.commit_consumed(None))
        await self.run(self.engine.close(membership, reason))

    async def _commit_on_close(self, commit: Awaitable[None]) -> None:
        """Await ``commit`` (the revocation on close, or the commit of what was consumed),
        finding the coordinator again if it moved, for at most :data:`CLOSE_COMMIT_TIMEOUT_S`."""
        self._committing_on_close = True
        try:
            async with asyncio.timeout(CLOSE_COMMIT_TIMEOUT_S):
                await commit
        except TimeoutError:
            self._log.warning("the commit on close got no answer within %g s; giving up",
                              CLOSE_COMMIT_TIMEOUT_S)  # fmt: skip
        except Exception as exc:
            self._log.warning("Failed to commit on close: %r", exc)
        finally:
            self._committing_on_close = False


#: Any protocol's driver (what a consumer holds).
AnyDriver = (
    Driver[ClassicSenderAction] | Driver[ConsumerGroupSenderAction]
    | Driver[StreamsGroupSenderAction]
)  # fmt: skip
