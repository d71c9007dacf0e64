"""What StaticConsumer delegates so that its class stays a readable drop-in: choosing and
building the driver of its ``group_protocol``, and what it tells about itself (membership,
health endpoint, event counters)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _compat
from .._observability.emitter import EventEmitter
from .._observability.metrics import ConsumerMetrics, MetricValues
from ..drivers import AnyDriver, FatalCallback, classic_driver, consumer_group_driver
from ..errors import StaticConsumerError
from ..membership import Lifecycle, Membership, membership_state, snapshot
from ..roster import RosterReader
from .options import GroupProtocolOptions

if TYPE_CHECKING:  # owned.py imports this module (through construction.py)
    from .owned import OwnedServices


def make_driver(
    settings: _compat.ConsumerSettings, group_protocol: GroupProtocolOptions,
    seam: _compat.ClientSeam, versions: Any, *, on_fatal: FatalCallback,
    events: EventEmitter | None, unreleased_wait_ms: int, metrics: ConsumerMetrics | None = None,
    roster: RosterReader | None = None,
) -> AnyDriver:  # fmt: skip
    """The driver of ``group_protocol``, from the consumer's settings (read by ``_compat``).
    With ``roster`` (pre-registration on), a classic leader reads it on ``seam``."""
    s = settings
    common: dict[str, Any] = dict(
        group_id=s.group_id, group_instance_id=s.group_instance_id, client_rack=s.client_rack,
        max_poll_interval_ms=s.max_poll_interval_ms, client_id=s.client_id,
        retry_backoff_ms=s.retry_backoff_ms, enable_auto_commit=s.enable_auto_commit,
        auto_commit_interval_ms=s.auto_commit_interval_ms, on_fatal=on_fatal, events=events,
        metrics=metrics,
    )  # fmt: skip
    if group_protocol.consumer:
        return consumer_group_driver(
            seam, versions, server_assignor=group_protocol.remote_assignor,
            takeover=group_protocol.instance_takeover, unreleased_wait_ms=unreleased_wait_ms,
            **common,
        )  # fmt: skip
    return classic_driver(
        seam, versions, assignors=s.assignors, session_timeout_ms=s.session_timeout_ms,
        heartbeat_interval_ms=s.heartbeat_interval_ms,
        rebalance_timeout_ms=s.rebalance_timeout_ms,
        roster=roster.source(seam.read_partition_log) if roster is not None else None, **common,
    )  # fmt: skip


class Observability:
    """What ``StaticConsumer`` tells about itself: who it is in its group, its membership as a
    value, the health endpoint's address, its coordinator metrics, and the counters of its
    membership events (``docs/membership-events.md``). A read-only face over the consumer's
    :class:`~staticconsumer._consumer.owned.OwnedServices` and its driver."""

    _owned: OwnedServices
    _lifecycle: Lifecycle
    _group_id: str | None
    _group_instance_id: str | None

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

    @property
    def membership(self) -> Membership:
        """This member's state, generation and assignment now (a new value on each read)."""
        driver = _compat.coordinator_of(self)
        engine = driver.membership_state() if driver is not None else None
        return snapshot(
            membership_state(self._lifecycle, engine, group=self._group_id is not None),
            group_id=self._group_id,
            group_instance_id=self._group_instance_id,
            member_id=driver.member_id if driver is not None else "",
            generation_id=driver.generation if driver is not None else -1,
            owned=driver.owned if driver is not None else (),
            in_group=bool(driver.engine.in_group) if driver is not None else False,
        )  # fmt: skip

    @property
    def record_path(self) -> str | None:
        """How this started consumer builds its records: ``"compiled"`` (the Cython reader) or
        ``"pure"`` (aiokafka's own); None before ``start()`` (issue 37; logged at start too)."""
        return _compat.record_path_of(self)

    def metrics(self) -> MetricValues:
        """The coordinator metrics now, ``{java_name: value}`` as Java's ``consumer.metrics()``
        names them (group ``consumer-coordinator-metrics``; ``docs/operations.md`` lists each),
        with the consumer's ``labels`` (group, instance_id, protocol, client_id)."""
        return self._owned.metric_values()

    @property
    def health_address(self) -> tuple[str, int] | None:
        """``(host, port)`` the health endpoint listens on (``health_port=0``: the port taken),
        while the consumer runs; None without ``health_port``, before start and after stop."""
        health = self._owned.health
        return health.address if health is not None else None

    @property
    def events_dropped(self) -> int:
        """Events not published to ``events_topic``: the buffer was full, or they were still
        buffered when :meth:`stop` ran out of ``events_flush_timeout_ms``."""
        publisher = self._owned.publisher
        return publisher.dropped if publisher is not None else 0

    @property
    def events_publish_errors(self) -> int:
        """Events the producer failed to deliver, plus failed attempts to start the producer."""
        publisher = self._owned.publisher
        return publisher.publish_errors if publisher is not None else 0

    @property
    def events_published(self) -> int:
        """Events the producer delivered to ``events_topic``."""
        publisher = self._owned.publisher
        return publisher.published if publisher is not None else 0

    @property
    def events_callback_errors(self) -> int:
        """Exceptions raised by ``on_event`` (each logged, none propagated)."""
        events = self._owned.events
        return events.callback_errors if events is not None else 0
