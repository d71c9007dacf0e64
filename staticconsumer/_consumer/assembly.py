"""What StaticConsumer delegates so that its class stays a readable drop-in: choosing and
building the driver of its ``group_protocol``, and what it tells about itself (membership,
health endpoint, event counters)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _compat
from .._observability.metrics import MetricValues
from ..drivers import (
    AnyDriver,
    FatalCallback,
    classic_driver,
    consumer_group_driver,
    streams_group_driver,
)
from ..errors import StaticConsumerError
from ..membership import Lifecycle, Membership, membership_state, snapshot
from ..options import ConsumerOptions
from ..protocol import GroupApiVersions
from ..roster import RosterReader

if TYPE_CHECKING:  # owned.py imports this module (through construction.py)
    from .owned import OwnedServices


def make_driver(
    options: ConsumerOptions, seam: _compat.ClientSeam, versions: GroupApiVersions, *,
    on_fatal: FatalCallback, owned: OwnedServices, roster: RosterReader | None = None,
) -> AnyDriver:  # fmt: skip
    """The driver of ``options.group_protocol``, built from the options value. With ``roster``
    (pre-registration on), a classic leader reads it on ``seam``."""
    if options.streams_protocol:
        return streams_group_driver(seam, versions, options, on_fatal=on_fatal,
                                    events=owned.events, metrics=owned.metrics)  # fmt: skip
    if options.consumer_protocol:
        return consumer_group_driver(seam, versions, options, on_fatal=on_fatal,
                                     events=owned.events, metrics=owned.metrics)  # fmt: skip
    return classic_driver(
        seam, versions, options, on_fatal=on_fatal, events=owned.events, metrics=owned.metrics,
        roster=roster.source(seam.read_partition_log) if roster is not None else None,
    )  # fmt: skip


class Observability:
    """What ``StaticConsumer`` tells about itself: who it is in its group, its membership as a
    value, the health endpoint's address, its coordinator metrics, and the counters of its
    membership events (``docs/membership-events.md``). A read-only face over the consumer's
    :class:`~staticconsumer._consumer.owned.OwnedServices` and its driver."""

    _owned: OwnedServices
    _lifecycle: Lifecycle
    _options: ConsumerOptions
    _driver: AnyDriver | None

    @property
    def options(self) -> ConsumerOptions:
        """This consumer's group options, checked (:class:`~staticconsumer.ConsumerOptions`)."""
        return self._options

    @property
    def group_instance_id(self) -> str | None:
        return self._options.group_instance_id

    @property
    def member_id(self) -> str:
        driver = self._driver
        return driver.member_id if driver is not None else ""

    @property
    def generation_id(self) -> int:
        driver = self._driver
        return driver.generation if driver is not None else -1

    @property
    def is_leader(self) -> bool:
        """Whether this member led the last join (it ran the assignor)."""
        driver = self._driver
        return driver.is_leader if driver is not None else False

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        """The error that finished this consumer, if any (kept by the membership engine)."""
        driver = self._driver
        return driver.fatal_error if driver is not None else None

    @property
    def membership(self) -> Membership:
        """This member's state, generation and assignment now (a new value on each read)."""
        driver = self._driver
        engine = driver.membership_state() if driver is not None else None
        return snapshot(
            membership_state(self._lifecycle, engine, group=self._options.group_id is not None),
            group_id=self._options.group_id,
            group_instance_id=self._options.group_instance_id,
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
