"""StaticConsumer: an AIOKafkaConsumer whose group membership follows KIP-345."""

from __future__ import annotations

import asyncio
import inspect
import logging
import ssl
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias, TypeVar

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import ConsumerStoppedError, RecordTooLargeError
from aiokafka.structs import ConsumerRecord, TopicPartition

from assignors import GroupAssignor

from .. import _compat
from .._compat import WakeMarker
from .._compat.auth import consumer_security_error
from .._instance_id import InstanceId
from .._observability.emitter import EventCallback, EventEmitter, event_options, producer_kwargs
from .._observability.health import consumer_endpoint, health_options
from .._observability.metrics import ConsumerMetrics, MetricLabels
from .._observability.otel import PROCESS_BRIDGE
from .._observability.publisher import EventPublisher
from ..drivers import AnyDriver, FatalCallback
from ..errors import (
    ClusterUnavailableError,
    ConfigurationError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
)
from ..membership import (
    DEFAULT_ROSTER_TOPIC,
    JOIN_REASON_ENFORCED_PREFIX,
    LEAVE_REASON_PREFIX,
    Lifecycle,
    LogIdentity,
)
from ..security import SecuritySettings
from .assembly import Observability, make_driver, roster_source
from .barrier import JoinBarrier
from .options import (
    CLIENT_ID,
    HEARTBEAT_INTERVAL_MS,
    SASL_KERBEROS_SERVICE_NAME,
    SASL_MECHANISM,
    SECURITY_PROTOCOL,
    SESSION_TIMEOUT_MS,
    check_aiokafka_options,
    default_assignors,
    given_options,
    group_assignors,
    group_protocol_options,
    roster_barrier_option,
    roster_topic_option,
    security_options,
)

log = logging.getLogger(__name__)
#: aiokafka's consumer logger: our ``__anext__`` logs what aiokafka's logs, where it logs it.
_aiokafka_log = logging.getLogger("aiokafka.consumer.consumer")
T = TypeVar("T")
#: How long a consumer-protocol member retries UNRELEASED_INSTANCE_ID before it also raises
#: it to the application (and goes on retrying): the broker's default
#: group.consumer.session.timeout.ms, after which the stale member is gone anyway.
UNRELEASED_INSTANCE_WAIT_MS = 45_000

Deserializer: TypeAlias = Callable[[bytes], Any]
#: An assignor object, an assignor class, a protocol or Java class name; or a list of them.
Strategy: TypeAlias = GroupAssignor | type[GroupAssignor] | str
Record: TypeAlias = ConsumerRecord[Any, Any]  # key and value: what the deserializers return


class StaticConsumer(Observability, AIOKafkaConsumer):  # type: ignore[misc]  # aiokafka is untyped
    """A drop-in :class:`aiokafka.AIOKafkaConsumer` for static group members (KIP-345).

    Every ``AIOKafkaConsumer`` argument and method works. What changes:

    * ``group_instance_id`` (Java ``group.instance.id``) is validated here, as Kafka does, and
      carried on JoinGroup v5+, SyncGroup v3+, Heartbeat v3+ and OffsetCommit v7+, negotiated
      from the broker's ApiVersions. A broker too old for that raises ``UnsupportedBrokerError``
      at :meth:`start` rather than silently losing fencing.
    * :meth:`stop` sends no LeaveGroup for a static member: a restart within
      ``session_timeout_ms`` gets the same partitions back without a rebalance. Static members
      therefore want a long ``session_timeout_ms`` (Java ``session.timeout.ms``; KIP-345 raised
      the broker's ``group.max.session.timeout.ms`` to 30 minutes): the price is that a member
      that really died holds its partitions, unconsumed, until that timeout passes (or until an
      admin removes it, or a scale-down uses ``stop(leave_group=True, ...)``).
    * FENCED_INSTANCE_ID (another process took our instance id) raises
      :class:`~staticconsumer.FencedInstanceIdError` from ``getone``, ``getmany``, ``async for``
      and ``commit``, and from every later call; heartbeats, re-joins, commits and LeaveGroup stop.
      ``on_fatal(error)`` runs once when that happens.
    * Membership events (``staticconsumer.events``; schema in ``docs/membership-events.md``):
      ``on_event(event)`` is called on the event loop for each join reason, join, assignment,
      revocation, enforced rebalance, leave, fence and session expiry (it must not block; what it
      raises is logged and counted in :attr:`events_callback_errors`). With ``events_topic`` the
      events are also published as JSON (key: the group id) by a producer this consumer owns, on
      the same cluster and security settings (``events_producer_config`` overrides producer
      arguments). Publishing never holds up consumption: a bounded buffer
      (``events_buffer_size``, default 10,000; when full the newest event is dropped and
      :attr:`events_dropped` grows), errors logged and counted in :attr:`events_publish_errors`,
      and :meth:`stop` flushes for at most ``events_flush_timeout_ms`` (default 5,000).
    * One JoinGroup per join, whatever the number of assignors, and the leader hands group
      instance ids to this project's assignors (``assignors`` package).
    * The default ``partition_assignment_strategy`` is :func:`default_assignors`: this project's
      instance-id-first ``range`` then ``roundrobin`` (aiokafka's default is its own
      ``roundrobin``, which orders members by member id, so a restart can move partitions).
    * :attr:`membership` is the member's state as a value (``joining``, ``rebalancing``,
      ``stable``, ``fenced``, ...; with generation and assignment). With ``health_port`` (default
      None: no endpoint; 0 takes a free port, see :attr:`health_address`) the consumer serves
      Kubernetes probes over HTTP on ``health_host`` (default None: every interface, IPv6 and
      IPv4 where the OS allows a dual-stack socket, else ``"0.0.0.0"``) from :meth:`start` until
      :meth:`stop`: ``GET /readyz`` is 200 while the consumer is a member of its group (a
      rebalance it takes part in keeps it ready), ``GET /livez`` is 503 once it is fenced or
      failed (``docs/kubernetes.md``). Several consumers in one process share one endpoint with
      :class:`~staticconsumer.HealthServer` instead.
    * :meth:`metrics` returns the coordinator metrics as Java's ``consumer.metrics()`` names
      them (``rebalance-latency-avg``, ``rebalance-total``, ``last-heartbeat-seconds-ago``, ...);
      the health endpoint serves them at ``GET /metrics`` (Prometheus text format), and with the
      ``otel`` extra they are OpenTelemetry instruments too (``docs/operations.md``).
    * Every aiokafka argument is an explicit, typed keyword with aiokafka's default, checked at
      construction (``_consumer/options.py``: a :class:`~staticconsumer.ConfigurationError`
      names the field and the Java key). ``security=SecuritySettings(...)`` replaces the raw
      security arguments (not both). ``partition_assignment_strategy`` also takes one value and
      names (``"range"``, ``"cooperative-sticky"``, Java's class names). ``getone``/``getmany``
      return aiokafka's ``ConsumerRecord`` (for mypy, follow ``aiokafka``, ``aiokafka.structs``
      and ``aiokafka.errors`` with ``follow_untyped_imports``, as this repository's
      pyproject.toml does).
    * ``group_protocol="consumer"`` (Java ``group.protocol``, KIP-848; default ``"classic"``)
      runs the member on the consumer group protocol, with ``group_remote_assignor`` and
      ``instance_takeover`` (default None: on when ``group_instance_id`` is this pod's own
      StatefulSet identity, ``InstanceId.is_statefulset_identity``; False opts out; see
      ``docs/consumer-protocol.md``).
    * A classic-protocol leader plans under the group's roster (KIP-469 pre-registration,
      ``docs/scaling.md``): while members registered with ``staticconsumer roster register``
      are missing, nothing owned moves and arrivals get nothing, so a scale-up moves each
      partition once. ``roster_topic`` (default ``_staticconsumer_rosters``) is where rosters
      live; None: plan without one. A roster that cannot be read is logged and planned without.
      With ``roster_barrier`` (default True) a registered new member waits in :meth:`start`
      (state ``waiting``, ready) until the other registered arrivals have started too, or the
      roster's deadline passes, so that they join in one rebalance.
    """

    def __init__(
        self,
        *topics: str,
        group_instance_id: str | None = None,
        on_fatal: FatalCallback | None = None,
        on_event: EventCallback | None = None,
        events_topic: str | None = None,
        events_buffer_size: int = 10_000,
        events_flush_timeout_ms: int = 5_000,
        events_producer_config: dict[str, Any] | None = None,
        health_port: int | None = None,
        health_host: str | None = None,
        group_protocol: str = "classic",
        group_remote_assignor: str | None = None,
        instance_takeover: bool | None = None,
        roster_topic: str | None = DEFAULT_ROSTER_TOPIC,
        roster_barrier: bool = True,
        security: SecuritySettings | None = None,
        # aiokafka's arguments, with aiokafka's defaults (partition_assignment_strategy: ours)
        loop: asyncio.AbstractEventLoop | None = None,
        bootstrap_servers: str | list[str] = "localhost",
        client_id: str = CLIENT_ID,
        group_id: str | None = None,
        key_deserializer: Deserializer | None = None,
        value_deserializer: Deserializer | None = None,
        fetch_max_wait_ms: int = 500,
        fetch_max_bytes: int = 52_428_800,
        fetch_min_bytes: int = 1,
        max_partition_fetch_bytes: int = 1_048_576,
        request_timeout_ms: int = 40_000,
        retry_backoff_ms: int = 100,
        auto_offset_reset: str = "latest",
        enable_auto_commit: bool = True,
        auto_commit_interval_ms: int = 5_000,
        check_crcs: bool = True,
        metadata_max_age_ms: int = 300_000,
        partition_assignment_strategy: Strategy | Sequence[Strategy] | None = None,
        max_poll_interval_ms: int = 300_000,
        rebalance_timeout_ms: int | None = None,
        session_timeout_ms: int = SESSION_TIMEOUT_MS,
        heartbeat_interval_ms: int = HEARTBEAT_INTERVAL_MS,
        consumer_timeout_ms: int = 200,
        max_poll_records: int | None = None,
        ssl_context: ssl.SSLContext | None = None,
        security_protocol: str = SECURITY_PROTOCOL,
        api_version: str | None = None,
        exclude_internal_topics: bool = True,
        connections_max_idle_ms: int | None = 540_000,
        isolation_level: str = "read_uncommitted",
        sasl_mechanism: str = SASL_MECHANISM,
        sasl_plain_password: str | None = None,
        sasl_plain_username: str | None = None,
        sasl_kerberos_service_name: str = SASL_KERBEROS_SERVICE_NAME,
        sasl_kerberos_domain_name: str | None = None,
        sasl_oauth_token_provider: Any = None,
        client_rack: str | None = None,
    ) -> None:
        # Every aiokafka argument, by name (the signature above is the one list of them): those
        # the caller gave are passed on, as a ``**kwargs`` catch-all did.
        values = dict(locals())
        kwargs = given_options(values, AIOKAFKA_DEFAULTS)
        if group_instance_id is not None:
            InstanceId.validate(group_instance_id)
            if kwargs.get("group_id") is None:
                raise ConfigurationError(
                    "group_instance_id (Java: group.instance.id, KIP-345) needs group_id "
                    "(Java: group.id): static membership is membership of a consumer group"
                )
        if on_fatal is not None and not callable(on_fatal):
            raise ConfigurationError(f"on_fatal must be callable, got {on_fatal!r}")
        events = event_options(
            on_event=on_event, events_topic=events_topic, events_buffer_size=events_buffer_size,
            events_flush_timeout_ms=events_flush_timeout_ms,
            events_producer_config=events_producer_config, group_id=kwargs.get("group_id"),
        )  # fmt: skip
        health = health_options(health_port, health_host, group_id=kwargs.get("group_id"))
        self._group_protocol = group_protocol_options(
            group_protocol, group_remote_assignor, instance_takeover,
            group_instance_id=group_instance_id, kwargs=kwargs,
        )  # fmt: skip
        check_aiokafka_options(values, classic=not self._group_protocol.consumer)
        kwargs.update(security_options(security, kwargs))
        self._roster = roster_source(
            roster_topic_option(roster_topic), kwargs.get("group_id"),
            {"bootstrap_servers": bootstrap_servers, **kwargs},
        )  # fmt: skip
        self._roster_barrier = roster_barrier_option(roster_barrier)
        if not self._group_protocol.consumer:
            strategies = kwargs.get("partition_assignment_strategy")
            if strategies is None:
                strategies = default_assignors()
            kwargs["partition_assignment_strategy"] = group_assignors(strategies)
        if kwargs.get("rebalance_timeout_ms") is None:
            # Java sends max.poll.interval.ms as JoinGroup's RebalanceTimeoutMs; aiokafka would
            # send session_timeout_ms, which static members set long (docs/scaling.md).
            kwargs["rebalance_timeout_ms"] = max_poll_interval_ms
        super().__init__(*topics, group_instance_id=group_instance_id, **kwargs)
        self._user_on_fatal = on_fatal
        self._lifecycle = Lifecycle.NOT_STARTED
        #: Who this consumer is in its log lines (``docs/logging.md``).
        self._identity = LogIdentity(kwargs.get("group_id") or "", group_instance_id, client_id,
                                     lambda: self.member_id)  # fmt: skip
        self._metrics = ConsumerMetrics(MetricLabels(
            kwargs.get("group_id") or "", group_instance_id or "",
            "consumer" if self._group_protocol.consumer else "classic", client_id,
        ))  # fmt: skip
        self._health = (consumer_endpoint(health, lambda: self.membership, self.metrics)
                        if health is not None else None)  # fmt: skip
        self._events_publisher: EventPublisher | None = None
        if events.topic is not None:
            settings = producer_kwargs(kwargs, events.producer_config)
            self._events_publisher = EventPublisher(
                events.topic,
                buffer_size=events.buffer_size,
                flush_timeout_ms=events.flush_timeout_ms,
                producer_factory=lambda: AIOKafkaProducer(**settings),
                abandon=_compat.abandon_producer,
                identity=self._identity,
            )
        self._events: EventEmitter | None = None
        if events.enabled:
            sink = self._events_publisher.offer if self._events_publisher is not None else None
            self._events = EventEmitter(events.on_event, sink)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass with its own getone: `async for` goes through it, as on aiokafka.
        if cls.getone is not StaticConsumer.getone and "__anext__" not in vars(cls):
            cls.__anext__ = AIOKafkaConsumer.__anext__  # type: ignore[method-assign]

    # -- identity --------------------------------------------------------------------------------

    @property
    def group_instance_id(self) -> str | None:
        value: str | None = self._group_instance_id
        return value

    @property
    def member_id(self) -> str:
        driver = _compat.coordinator_of(self)
        return driver.member_id if driver is not None else ""

    @property
    def generation_id(self) -> int:
        driver = _compat.coordinator_of(self)
        return driver.generation if driver is not None else -1

    @property
    def is_leader(self) -> bool:
        """Whether this member led the last join (it ran the assignor)."""
        driver = _compat.coordinator_of(self)
        return driver.is_leader if driver is not None else False

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        """The error that finished this consumer, if any (kept by the membership engine)."""
        driver = _compat.coordinator_of(self)
        return driver.fatal_error if driver is not None else None

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._lifecycle = Lifecycle.STARTED
        try:
            if self._health is not None:  # first: probes answer while the member joins
                await self._health.start()
            if self._events_publisher is not None:
                await self._events_publisher.start()  # returns at once; events are buffered
            PROCESS_BRIDGE.register(self._metrics)  # OpenTelemetry, when installed
            await self._wait_at_barrier()
            await _compat.start_consumer(self, self._make_driver, self._identity)
            if _compat.joins_group(self):  # without a group: its partitions once started
                await self._wait_for_assignment()
            _compat.start_poll_timer(self)  # as Java's: from when the application can poll
        except BaseException as exc:
            self._lifecycle = Lifecycle.STOPPED
            await super().stop()
            await self._stop_owned()
            security_error = await consumer_security_error(_compat.client_of(self), exc)
            if security_error is not None:  # a refused login or a missing ACL, typed (issue 13)
                raise security_error from exc
            if isinstance(exc, _compat.KafkaConnectionError):  # bootstrap found no broker
                raise ClusterUnavailableError(f"start() reached no broker: {exc}") from exc
            raise

    async def _wait_at_barrier(self) -> None:
        """A registered new member waits for the other registered arrivals before its first
        join (``_consumer/barrier.py``): ``waiting`` (ready) meanwhile."""
        if not (self._roster_barrier and self._roster is not None and self._group_instance_id):
            return
        if not _compat.subscribes_topics(self):  # assign() or nothing subscribed: no group join
            return

        def on_wait(waiting: bool) -> None:
            if self._lifecycle in (Lifecycle.STARTED, Lifecycle.AT_BARRIER):
                self._lifecycle = Lifecycle.AT_BARRIER if waiting else Lifecycle.STARTED

        await JoinBarrier(self._roster, self._group_instance_id, self._identity).wait(on_wait)

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

    def _make_driver(self, seam: _compat.ClientSeam, versions: Any) -> AnyDriver:
        return make_driver(
            _compat.consumer_settings(self), self._group_protocol, seam, versions,
            on_fatal=self._on_fatal, events=self._events,
            unreleased_wait_ms=UNRELEASED_INSTANCE_WAIT_MS, metrics=self._metrics,
            roster=self._roster,
        )  # fmt: skip

    async def stop(self, leave_group: bool = False, reason: str | None = None) -> None:
        """Stop consuming. First the rebalance listener hears of the partitions held, as Java's
        ``close()`` tells it (``onLeavePrepare``; aiokafka's ``stop()`` calls no listener:
        ``docs/aiokafka-differences.md``): ``on_partitions_revoked`` after the commit of what
        was consumed (auto-commit), or ``on_partitions_lost`` when the generation is gone, a
        rebalance is under way or the member was fenced (nothing is committed then). A static
        member then stays in the group (no LeaveGroup) unless ``leave_group=True``, which needs
        a ``reason`` (sent on LeaveGroup v5, KIP-800; a broker before Kafka 3.1 gets the leave
        without it, and the consumer logs one WARNING).
        With ``events_topic``, buffered events are then flushed for at most
        ``events_flush_timeout_ms`` and the events producer is closed; the health endpoint
        answers "not ready" from the first moment and is closed last."""
        if leave_group:
            if not reason or not reason.strip():
                raise ConfigurationError("stop(leave_group=True) needs a non-empty reason")
            driver = _compat.coordinator_of(self)
            if driver is not None:
                driver.leave_reason = f"{LEAVE_REASON_PREFIX}: {reason}"
        self._lifecycle = Lifecycle.STOPPED
        try:
            await super().stop()
        finally:
            await self._stop_owned()

    async def _stop_owned(self) -> None:
        """After aiokafka's stop (so the leave's event is published): the events producer, then
        the health endpoint."""
        PROCESS_BRIDGE.unregister(self._metrics)
        try:
            if self._events_publisher is not None:
                await self._events_publisher.stop()
        finally:
            if self._health is not None:
                await self._health.close()

    async def enforce_rebalance(self, reason: str | None = None) -> None:
        """Make the group rebalance now, or right after the rebalance in flight (Java
        ``enforceRebalance(reason)``, KIP-800).

        What it guarantees, under ``group_protocol="classic"``: once this returns, the member
        sends a JoinGroup that was built after the call and whose reason is ``"rebalance enforced
        by user: <reason>"`` (``"rebalance enforced by user"``, KIP-800's and Java's default,
        without a reason; truncated to 255 characters), which the coordinator writes to its log
        from Kafka 3.1 (JoinGroup v8); an older broker rebalances all the same without it, and
        the consumer logs one WARNING the first time a reason cannot reach the broker. The group
        then rebalances (generation + 1) even when this member is a follower whose subscription
        did not change: our subscription carries the generation (ConsumerProtocolSubscription
        v2+), so the member's metadata differs from what the coordinator holds.

        - Called while the member is stable: that JoinGroup starts the next rebalance.
        - Called during a rebalance (state ``rebalancing``: JoinGroup or SyncGroup in flight, or
          the leader planning): that rebalance may have planned without what made you enforce,
          so it completes first and the member then joins again with the reason. The group ends
          at least one generation after the rebalance in flight. Java does nothing there
          ("a no-op" if a rebalance is in progress); this one keeps the request.
        - Called before the member joined, or after it lost its generation: the join that is due
          carries the reason (it is sent after the call, so the plan follows it).

        It returns at once (the join happens in the background); it does not wait for the
        rebalance. Calls made before that JoinGroup is built coalesce into one rebalance; their
        reasons are joined with ``"; "`` in call order, each reason once. Nothing is sent once
        the member is fenced or stopped: a fenced consumer raises its fatal error here.

        Under ``group_protocol="consumer"`` (KIP-848) no member can trigger a rebalance: the call
        logs a warning and does nothing, as Java's does.

        Raises :class:`~staticconsumer.ConfigurationError` for a reason that is given but empty
        or blank (pass no reason for the default: a blank one is most likely a bug), and
        :class:`~staticconsumer.StaticConsumerError` without group management.
        """
        if reason is None:
            reason = JOIN_REASON_ENFORCED_PREFIX
        elif not isinstance(reason, str) or not reason.strip():
            raise ConfigurationError(
                "enforce_rebalance(reason): a reason, when given, must be a non-empty string "
                "(sent on JoinGroup v8+, KIP-800); leave it out for KIP-800's default "
                f"{JOIN_REASON_ENFORCED_PREFIX!r}; got {reason!r}"
            )
        self._raise_if_fatal()
        driver = _compat.coordinator_of(self)
        if driver is None:
            raise StaticConsumerError(
                "enforce_rebalance needs a started consumer with a group_id (group management)"
            )
        driver.enforce_rebalance(reason)

    def _on_fatal(self, error: StaticConsumerError) -> None:
        """Called once by the driver when the member turns fatal."""
        if self._user_on_fatal is not None:
            try:
                self._user_on_fatal(error)
            except Exception as exc:
                self._identity.logger(log).exception("on_fatal callback failed")
                error.__cause__ = error.__cause__ or exc

    # -- consuming: every call raises the fatal error once fenced ---------------------------------

    def _raise_if_fatal(self) -> None:
        driver = _compat.coordinator_of(self)
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

    def _raise_woken(self) -> None:
        """The driver woke a waiter: raise the fatal error, or the error pending for us."""
        self._raise_if_fatal()
        driver = _compat.coordinator_of(self)
        if driver is not None:
            driver.check_errors()

    async def getone(self, *partitions: TopicPartition) -> Record:
        # Inline rather than through _fatal_aware: no second coroutine per record.
        try:
            record: Record = await super().getone(*partitions)
            return record
        except WakeMarker:
            self._raise_woken()
            raise

    async def __anext__(self) -> Record:
        """aiokafka's ``__anext__`` (same loop, same errors, same log), but awaiting aiokafka's
        ``getone`` itself: through ``self.getone()`` every record of ``async for`` paid for one
        more coroutine (ours) than on a plain ``AIOKafkaConsumer``. A subclass that overrides
        ``getone`` gets aiokafka's ``__anext__`` back (``__init_subclass__``)."""
        while True:
            try:
                record: Record = await AIOKafkaConsumer.getone(self)
                return record
            except WakeMarker:
                self._raise_woken()
                raise
            except ConsumerStoppedError:
                raise StopAsyncIteration from None
            except RecordTooLargeError:
                _aiokafka_log.exception("error in consumer iterator: %s")

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
        await super().commit(offsets)

    async def committed(self, partition: Any) -> Any:
        self._raise_if_fatal()
        return await super().committed(partition)

    async def position(self, partition: Any) -> Any:
        self._raise_if_fatal()
        return await self._fatal_aware(super().position(partition))

    def seek(self, partition: Any, offset: int) -> None:
        self._raise_if_fatal()
        super().seek(partition, offset)

    async def seek_to_beginning(self, *partitions: Any) -> bool:
        self._raise_if_fatal()
        return bool(await super().seek_to_beginning(*partitions))

    async def seek_to_end(self, *partitions: Any) -> bool:
        self._raise_if_fatal()
        return bool(await super().seek_to_end(*partitions))

    async def seek_to_committed(self, *partitions: Any) -> Any:
        self._raise_if_fatal()
        return await super().seek_to_committed(*partitions)

    def subscribe(self, topics: Any = (), pattern: Any = None, listener: Any = None) -> None:
        self._raise_if_fatal()
        super().subscribe(topics, pattern=pattern, listener=listener)


#: StaticConsumer's defaults for aiokafka's arguments, read from its signature (written once).
AIOKAFKA_DEFAULTS = {
    name: parameter.default
    for name, parameter in inspect.signature(StaticConsumer.__init__).parameters.items()
    if name in inspect.signature(AIOKafkaConsumer.__init__).parameters
    and name not in ("self", "topics", "group_instance_id")
}
