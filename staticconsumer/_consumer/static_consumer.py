"""StaticConsumer: an AIOKafkaConsumer whose group membership follows KIP-345."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Mapping
from typing import Any, TypeAlias, TypeVar, Unpack

from aiokafka import AIOKafkaConsumer
from aiokafka.errors import ConsumerStoppedError, RecordTooLargeError
from aiokafka.structs import ConsumerRecord, TopicPartition

from .. import _compat
from .._compat import WakeMarker
from .._compat.auth import consumer_security_error
from .._observability.metrics import MetricLabels
from ..drivers import AnyDriver
from ..errors import (
    ClusterUnavailableError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
)
from ..membership import Lifecycle, LogIdentity
from ..options import CLASSIC, ConsumerKeywords, ConsumerOptions, MembershipOperation
from ..protocol import GroupApiVersions
from ..roster import JoinBarrier
from .assembly import Observability, make_driver
from .checks import close_options, enforce_reason_option
from .construction import check_construction
from .keywords import consumer_signature
from .owned import OwnedServices, fatal_notice
from .streams_thread import StreamsThread

log = logging.getLogger(__name__)
T = TypeVar("T")

Record: TypeAlias = ConsumerRecord[Any, Any]  # key and value: what the deserializers return


class StaticConsumer(Observability, AIOKafkaConsumer):  # type: ignore[misc]  # aiokafka is untyped
    """A drop-in :class:`aiokafka.AIOKafkaConsumer` for static group members (KIP-345).

    Every ``AIOKafkaConsumer`` argument and method works (``docs/static-consumer.md`` is the
    long form of what follows; ``docs/aiokafka-differences.md`` lists what behaves otherwise):

    * ``group_instance_id`` (Java ``group.instance.id``) is validated and carried on every group
      request that takes it; a broker too old for it raises ``UnsupportedBrokerError``.
    * :meth:`stop` sends no LeaveGroup for a static member (unless ``leave_group=True``): a
      restart within ``session_timeout_ms`` gets its partitions back without a rebalance.
    * Once fenced (FENCED_INSTANCE_ID), every call raises :class:`~staticconsumer.
      FencedInstanceIdError` and nothing more is sent; ``on_fatal(error)`` runs once.
    * Membership events go to ``on_event`` and, with ``events_topic``, to a topic
      (``docs/membership-events.md``); :attr:`membership` is the member's state as a value;
      ``health_port`` serves Kubernetes probes and :meth:`metrics` at ``/metrics``.
    * The default assignors are this project's instance-id-first ``range`` then ``roundrobin``;
      ``partition_assignment_strategy`` also takes names (``"cooperative-sticky"``).
    * Every option is checked at construction (a :class:`~staticconsumer.ConfigurationError`
      names the field and the Java key); ``security=SecuritySettings(...)`` replaces the raw
      security arguments.
    * ``group_protocol="consumer"`` (KIP-848) with ``group_remote_assignor``,
      ``instance_takeover`` and ``unreleased_instance_wait_ms``; ``"auto"``: that protocol where
      the broker offers it, decided in ``start()`` (``docs/consumer-protocol.md``).
    * Pre-registration (KIP-469, ``docs/scaling.md``), opt-in: ``roster_topic``, ``roster_barrier``.
    * ``group_protocol="streams"`` (KIP-1071): one stream thread of a streams group, with
      ``streams_topology``; :attr:`streams` has its tasks (``docs/streams-groups.md``).
    * When none of the brokers it knows can be reached, the client goes back to its bootstrap
      servers as Java's does (``metadata_recovery_strategy``, KIP-899;
      ``metadata_recovery_rebootstrap_trigger_ms``, KIP-1102; ``docs/rebootstrap.md``).
    """

    def __init__(self, *topics: str, **options: Unpack[ConsumerKeywords]) -> None:
        # The keywords are the rows of staticconsumer.options.OPTIONS (the signature inspect
        # shows is made from them, below the class): checked, split into aiokafka's (those the
        # caller gave) and our options value, which the driver and its engine are built from.
        built = check_construction(options, who="StaticConsumer.__init__()")
        group_instance_id = built.options.group_instance_id
        self._options = built.options
        #: aiokafka's arguments, given or defaulted: the seam starts the consumer with them.
        self._aiokafka_settings = built.aiokafka_settings
        self._roster = built.roster
        self._auto = built.auto  # group_protocol="auto": decided in start()
        self._protocol_reason: str | None = None
        self._driver: AnyDriver | None = None  # made in start(), by _make_driver
        super().__init__(*topics, group_instance_id=group_instance_id, **built.aiokafka_kwargs)
        self._lifecycle = Lifecycle.NOT_STARTED
        #: Who this consumer is in its log lines (``docs/logging.md``).
        self._identity = LogIdentity(built.options.group_id or "", group_instance_id,
                                     built.options.client_id, lambda: self.member_id)  # fmt: skip
        # the driver calls it once
        self._on_fatal = fatal_notice(options.get("on_fatal"), self._identity)
        self._owned = OwnedServices(built, self._identity, membership=lambda: self.membership)
        # aiokafka's client never goes back to its bootstrap servers; this one does (KIP-899)
        _compat.install_recovering_client(self, self._aiokafka_settings, built.recovery,
                                          self._owned.metrics.rebootstrapped)  # fmt: skip
        self._streams = StreamsThread.of(built.options)

    @property
    def group_protocol(self) -> str:
        """The group protocol this consumer runs (Java ``group.protocol``): ``"classic"`` or
        ``"consumer"``; ``"auto"`` until ``start()`` has decided."""
        return self._options.group_protocol

    @property
    def streams(self) -> StreamsThread | None:
        """Under ``group_protocol="streams"`` (KIP-1071), the thread's tasks, statuses and
        hooks (``docs/streams-groups.md``); None under another protocol."""
        return self._streams

    @property
    def group_protocol_reason(self) -> str | None:
        """With ``group_protocol="auto"``, why ``start()`` chose what it chose (also logged
        once); None otherwise or before."""
        return self._protocol_reason

    @staticmethod
    def check_options(**kwargs: Any) -> ConsumerOptions:
        """The constructor's checks of its keyword arguments, and the options it would build,
        without a consumer (no event loop, no client): for a framework's declarations."""
        return check_options(kwargs)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass with its own getone: `async for` goes through it, as on aiokafka.
        if cls.getone is not StaticConsumer.getone and "__anext__" not in vars(cls):
            cls.__anext__ = _compat.aiokafka_anext()  # type: ignore[method-assign,assignment]

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._lifecycle = Lifecycle.STARTED
        if self._streams is not None and not _compat.subscribes_topics(self):
            self.subscribe(self._streams.source_topics)  # the topology's, if none was given
        try:
            await self._owned.start()  # first: probes answer while the member joins
            await _compat.start_consumer(
                self, self._aiokafka_settings, self._make_driver, self._identity,
                before_join=self._wait_at_barrier,
                features=self._options.group_protocol != CLASSIC,
            )  # fmt: skip
            if _compat.joins_group(self, self._options.group_id):  # no group: partitions at once
                await self._wait_for_assignment()
            if self._driver is not None:  # as Java's: from when the application can poll
                self._driver.seam.start_poll_timer()
        except BaseException as exc:
            self._lifecycle = Lifecycle.STOPPED
            await _compat.stop_consumer(self)
            await self._owned.stop()
            security_error = await consumer_security_error(
                _compat.client_of(self), self._aiokafka_settings, exc
            )
            if security_error is not None:  # a refused login or a missing ACL, typed (issue 13)
                raise security_error from exc
            if isinstance(exc, _compat.KafkaConnectionError):  # bootstrap found no broker
                raise ClusterUnavailableError(f"start() reached no broker: {exc}") from exc
            raise

    async def _wait_at_barrier(self, seam: _compat.ClientSeam) -> None:
        """A registered new member waits for the other registered arrivals before its first
        join (``staticconsumer.roster``'s JoinBarrier), reading on the consumer's own client:
        ``waiting`` (ready) meanwhile."""
        instance_id = self._options.group_instance_id
        if not (self._options.roster_barrier and self._roster is not None and instance_id):
            return
        if not _compat.subscribes_topics(self):  # assign() or nothing subscribed: no group join
            return

        def on_wait(waiting: bool) -> None:
            if self._lifecycle in (Lifecycle.STARTED, Lifecycle.AT_BARRIER):
                self._lifecycle = Lifecycle.AT_BARRIER if waiting else Lifecycle.STARTED

        barrier = JoinBarrier(self._roster, instance_id, self._identity)
        await barrier.wait(seam.read_partition_log, _compat.client_of(self), on_wait)

    async def _wait_for_assignment(self) -> None:
        """Until the first assignment. A consumer-protocol member refused with
        UNRELEASED_INSTANCE_ID (its previous process crashed) stays alive and waits: the
        coordinator releases the instance id when the old session expires; the wait is logged,
        and bounded by that timeout (or by the caller's own ``asyncio.timeout``)."""
        while True:
            try:
                await self._fatal_aware(_compat.wait_for_assignment(self))
                return
            except UnreleasedInstanceIdError as exc:
                self._identity.logger(log).warning(
                    "start() goes on waiting for the coordinator: %s", exc
                )

    def _make_driver(self, seam: _compat.ClientSeam, versions: GroupApiVersions) -> AnyDriver:
        if self._auto is not None:  # group_protocol="auto": decided once, said once
            self._options, self._protocol_reason = self._auto.choose(versions)
            self._owned.metrics.relabel(MetricLabels.of(self._options))
            self._identity.logger(log).info("group_protocol='auto' chose %s", self._protocol_reason)
        self._driver = make_driver(self._options, seam, versions, on_fatal=self._on_fatal,
                                   owned=self._owned, roster=self._roster)  # fmt: skip
        if self._streams is not None:
            self._streams.attach(self._driver)
        return self._driver

    async def stop(
        self, leave_group: bool = False, reason: str | None = None, *,
        membership: MembershipOperation | str = MembershipOperation.DEFAULT,
    ) -> None:  # fmt: skip
        """Stop consuming. The rebalance listener hears of the partitions held first, as Java's
        ``close()`` tells it; then the member leaves or stays as ``membership`` says (Java 4.4's
        ``close(CloseOptions)``, KIP-1092): ``"default"``, ``"leave_group"`` (needs a ``reason``,
        KIP-800; also ``leave_group=True``) or ``"remain_in_group"``. Then the events are
        flushed and the health endpoint closed (``docs/static-consumer.md``)."""
        operation, leave_reason = close_options(leave_group, reason, membership)
        self._lifecycle = Lifecycle.STOPPED
        try:
            if self._driver is not None:  # the leave decision is the close's argument
                await self._driver.close(operation, leave_reason)
        finally:
            try:  # what start_consumer made, closed by the seam (not aiokafka's stop())
                await _compat.stop_consumer(self)
            finally:
                await self._owned.stop()  # after the client's: the leave's event is published

    async def enforce_rebalance(self, reason: str | None = None) -> None:
        """Make the group rebalance now, or right after the rebalance in flight (Java
        ``enforceRebalance(reason)``, KIP-800). Returns at once; once it has, the member sends a
        JoinGroup built after the call with ``"rebalance enforced by user: <reason>"``, and the
        group moves at least one generation past the rebalance in flight (Java drops a call
        made mid-rebalance; this one keeps it). Calls before that JoinGroup coalesce. Under
        ``group_protocol="consumer"`` it logs a warning and does nothing, as Java's does.
        ``docs/static-consumer.md`` has the whole contract.

        Raises :class:`~staticconsumer.ConfigurationError` for a given but blank reason, the
        fatal error once fenced, and :class:`~staticconsumer.StaticConsumerError` without group
        management.
        """
        reason = enforce_reason_option(reason)
        self._raise_if_fatal()
        driver = self._driver
        if driver is None:
            raise StaticConsumerError(
                "enforce_rebalance needs a started consumer with a group_id (group management)"
            )
        driver.enforce_rebalance(reason)

    # -- consuming: every call raises the fatal error once fenced ---------------------------------

    def _raise_if_fatal(self) -> None:
        driver = self._driver
        if driver is not None:
            driver.raise_if_fatal()

    async def _fatal_aware(self, work: Awaitable[T]) -> T:
        """Await ``work``; when the driver woke it (the member turned fatal, or has an error for
        the application), raise that error instead (no task, no extra wait: a plain ``try``)."""
        try:
            return await work
        except WakeMarker:
            self._raise_woken()
            raise

    async def _until_fatal(self, work: Awaitable[T]) -> T:
        """Await ``work``, which ends at once with the fatal error if the member turns fatal
        while it waits (issue 52: a commit behind one in flight, an answer that is slow)."""
        driver = self._driver
        if driver is None:
            return await work
        return await driver.until_fatal(work)

    def check_errors(self) -> None:
        """Raise what ``getone()`` and ``getmany()`` raise before they hand out records: the
        fatal error (fenced, say), or an error the group holds for the application (an
        assignor's ``on_assignment`` that raised). For frameworks that read records through the
        fetcher themselves (faust)."""
        self._raise_woken()

    def _raise_woken(self) -> None:
        """The driver woke a waiter: raise the fatal error, or the error pending for us."""
        self._raise_if_fatal()
        if self._driver is not None:
            self._driver.check_errors()

    async def getone(self, *partitions: TopicPartition) -> Record:
        # Inline rather than through _fatal_aware: no second coroutine per record.
        try:
            record: Record = await super().getone(*partitions)
            return record
        except WakeMarker:
            self._raise_woken()
            raise

    def __anext__(self) -> Awaitable[Record]:
        """A buffered record at once, without a coroutine (``_compat.next_record``), else
        :meth:`_anext`; a subclass overriding ``getone`` gets aiokafka's (``__init_subclass__``)."""
        return _compat.next_record(self, self._anext)

    async def _anext(self) -> Record:
        """aiokafka's ``__anext__`` (same loop, errors and log) on aiokafka's ``getone`` itself."""
        while True:
            try:
                record: Record = await AIOKafkaConsumer.getone(self)
                return record
            except WakeMarker:
                self._raise_woken()
                raise
            except ConsumerStoppedError:
                raise StopAsyncIteration from None
            except RecordTooLargeError:  # what aiokafka's logs, where it logs it
                _compat.AIOKAFKA_CONSUMER_LOG.exception("error in consumer iterator: %s")

    async def getmany(
        self, *partitions: TopicPartition, timeout_ms: int = 0, max_records: int | None = None
    ) -> dict[TopicPartition, list[Record]]:
        # Inline rather than through _fatal_aware: no second coroutine per batch.
        try:
            batch: dict[TopicPartition, list[Record]] = await super().getmany(
                *partitions, timeout_ms=timeout_ms, max_records=max_records
            )
            return batch
        except WakeMarker:
            self._raise_woken()
            raise

    async def commit(self, offsets: Any = None) -> None:
        self._raise_if_fatal()
        await self._until_fatal(super().commit(offsets))

    async def committed(self, partition: Any) -> Any:
        self._raise_if_fatal()
        return await self._until_fatal(super().committed(partition))

    async def position(self, partition: Any) -> Any:
        self._raise_if_fatal()
        return await self._until_fatal(self._fatal_aware(super().position(partition)))

    def seek(self, partition: Any, offset: int) -> None:
        self._raise_if_fatal()
        super().seek(partition, offset)

    async def seek_to_beginning(self, *partitions: Any) -> bool:
        self._raise_if_fatal()
        return bool(await self._until_fatal(super().seek_to_beginning(*partitions)))

    async def seek_to_end(self, *partitions: Any) -> bool:
        self._raise_if_fatal()
        return bool(await self._until_fatal(super().seek_to_end(*partitions)))

    async def seek_to_committed(self, *partitions: Any) -> Any:
        self._raise_if_fatal()
        return await self._until_fatal(super().seek_to_committed(*partitions))

    def subscribe(self, topics: Any = (), pattern: Any = None, listener: Any = None) -> None:
        self._raise_if_fatal()
        super().subscribe(topics, pattern=pattern, listener=listener)


# The signature inspect, help() and IDEs show: a keyword-only parameter per row, with its default
# (mypy reads ConsumerKeywords).
setattr(StaticConsumer.__init__, "__signature__", consumer_signature(StaticConsumer.__init__))  # noqa: B010


def check_options(kwargs: Mapping[str, Any]) -> ConsumerOptions:
    """:meth:`StaticConsumer.check_options`."""
    return check_construction(kwargs).options
