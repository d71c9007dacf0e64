"""What StaticConsumer delegates so that its class stays a readable drop-in: choosing and
building the driver of its ``group_protocol``, and what it tells about itself (membership,
health endpoint, event counters)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from .. import _compat
from .._admin.roster_store import read_roster_as
from .._compat.auth import who
from .._observability.emitter import SHARED_CLIENT_KEYS, EventEmitter
from .._observability.health import HealthServer
from .._observability.metrics import ConsumerMetrics, MetricValues
from .._observability.publisher import EventPublisher
from ..drivers import AnyDriver, FatalCallback, classic_driver, consumer_group_driver
from ..drivers.roster_gate import RosterSource
from ..membership import Lifecycle, Membership, Roster, membership_state, snapshot
from .options import GroupProtocolOptions


def make_driver(
    settings: _compat.ConsumerSettings, group_protocol: GroupProtocolOptions,
    seam: _compat.ClientSeam, versions: Any, *, on_fatal: FatalCallback,
    events: EventEmitter | None, unreleased_wait_ms: int, metrics: ConsumerMetrics | None = None,
    roster: RosterSource | None = None,
) -> AnyDriver:  # fmt: skip
    """The driver of ``group_protocol``, from the consumer's settings (read by ``_compat``)."""
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
        rebalance_timeout_ms=s.rebalance_timeout_ms, roster=roster, **common,
    )  # fmt: skip


#: The bound on the leader's roster read (it plans while the group waits in SyncGroup).
ROSTER_READ_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class RosterReader:
    """How this consumer's leader reads its group's roster (a ``RosterSource``): connected as the
    consumer is (its bootstrap servers and security arguments; never in the repr), bounded by
    :data:`ROSTER_READ_TIMEOUT_S`."""

    group_id: str
    roster_topic: str
    client_kwargs: Mapping[str, Any] = field(repr=False)
    principal: str

    async def __call__(self) -> Roster | None:
        return await read_roster_as(
            self.client_kwargs, self.principal, self.group_id, roster_topic=self.roster_topic,
            timeout_s=ROSTER_READ_TIMEOUT_S,
        )  # fmt: skip


def roster_source(
    roster_topic: str | None, group_id: str | None, consumer_kwargs: Mapping[str, Any]
) -> RosterReader | None:
    """The consumer's :class:`RosterReader`; None without a roster topic or a group."""
    if roster_topic is None or not group_id:
        return None
    client_kwargs = {k: consumer_kwargs[k] for k in SHARED_CLIENT_KEYS if k in consumer_kwargs}
    principal = who(SimpleNamespace(**client_kwargs))
    return RosterReader(group_id, roster_topic, client_kwargs, principal)


class Observability:
    """What ``StaticConsumer`` tells about itself: its membership as a value, the health
    endpoint's address, its coordinator metrics, and the counters of its membership events
    (``docs/membership-events.md``)."""

    _metrics: ConsumerMetrics
    _events: EventEmitter | None
    _events_publisher: EventPublisher | None
    _health: HealthServer | None
    _lifecycle: Lifecycle
    _group_id: str | None
    _group_instance_id: str | None

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

    def metrics(self) -> MetricValues:
        """The coordinator metrics now, ``{java_name: value}`` as Java's ``consumer.metrics()``
        names them (group ``consumer-coordinator-metrics``; ``docs/operations.md`` lists each),
        with the consumer's ``labels`` (group, instance_id, protocol, client_id)."""
        return self._metrics.values()

    @property
    def health_address(self) -> tuple[str, int] | None:
        """``(host, port)`` the health endpoint listens on (``health_port=0``: the port taken),
        while the consumer runs; None without ``health_port``, before start and after stop."""
        return self._health.address if self._health is not None else None

    @property
    def events_dropped(self) -> int:
        """Events not published to ``events_topic``: the buffer was full, or they were still
        buffered when :meth:`stop` ran out of ``events_flush_timeout_ms``."""
        return self._events_publisher.dropped if self._events_publisher is not None else 0

    @property
    def events_publish_errors(self) -> int:
        """Events the producer failed to deliver, plus failed attempts to start the producer."""
        return self._events_publisher.publish_errors if self._events_publisher is not None else 0

    @property
    def events_published(self) -> int:
        """Events the producer delivered to ``events_topic``."""
        return self._events_publisher.published if self._events_publisher is not None else 0

    @property
    def events_callback_errors(self) -> int:
        """Exceptions raised by ``on_event`` (each logged, none propagated)."""
        return self._events.callback_errors if self._events is not None else 0
