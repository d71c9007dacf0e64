"""What a ``StaticConsumer`` owns besides aiokafka's parts: its coordinator metrics (and their
registration with the OpenTelemetry bridge), the health endpoint, the membership-event emitter
and the producer that publishes the events.

Started first in ``start()`` (probes answer while the member joins; the publisher buffers), and
stopped after aiokafka's stop (so that the leave's event is published), health endpoint last.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aiokafka import AIOKafkaProducer

from .. import _compat
from .._observability.emitter import EventEmitter, producer_kwargs
from .._observability.health import HealthServer, consumer_endpoint
from .._observability.metrics import ConsumerMetrics, MetricLabels, MetricValues
from .._observability.otel import PROCESS_BRIDGE
from .._observability.publisher import EventPublisher
from ..drivers import FatalCallback
from ..errors import StaticConsumerError
from ..membership import LogIdentity, Membership
from .construction import Construction

log = logging.getLogger(__name__)


def fatal_notice(on_fatal: FatalCallback | None, identity: LogIdentity) -> FatalCallback:
    """What the driver calls once when the member turns fatal: the application's ``on_fatal``;
    what it raises is logged and kept as the fatal error's ``__cause__``."""

    def notice(error: StaticConsumerError) -> None:
        if on_fatal is None:
            return
        try:
            on_fatal(error)
        except Exception as exc:
            identity.logger(log).exception("on_fatal callback failed")
            error.__cause__ = error.__cause__ or exc

    return notice


class OwnedServices:
    """The consumer's metrics, health endpoint, event emitter and event publisher."""

    def __init__(
        self, built: Construction, identity: LogIdentity, *,
        membership: Callable[[], Membership],
    ) -> None:  # fmt: skip
        options = built.options
        self.metrics = ConsumerMetrics(MetricLabels.of(options))
        self.health: HealthServer | None = None
        if built.health is not None:
            self.health = consumer_endpoint(built.health, membership, self.metric_values)
        self.publisher: EventPublisher | None = None
        if built.events.topic is not None:
            settings = producer_kwargs(built.aiokafka_kwargs, built.events.producer_config)
            self.publisher = EventPublisher(
                built.events.topic, buffer_size=built.events.buffer_size,
                flush_timeout_ms=built.events.flush_timeout_ms,
                producer_factory=lambda: AIOKafkaProducer(**settings),
                abandon=_compat.abandon_producer, identity=identity,
            )  # fmt: skip
        self.events: EventEmitter | None = None
        if built.events.enabled:
            sink = self.publisher.offer if self.publisher is not None else None
            self.events = EventEmitter(built.events.on_event, sink)

    def metric_values(self) -> MetricValues:
        return self.metrics.values()

    async def start(self) -> None:
        """Before the member joins: the endpoint first, then the publisher (which returns at
        once: events are buffered), then the OpenTelemetry registration (when installed)."""
        if self.health is not None:
            await self.health.start()
        if self.publisher is not None:
            await self.publisher.start()
        PROCESS_BRIDGE.register(self.metrics)

    async def stop(self) -> None:
        """After aiokafka's stop: the events producer (flushed, bounded), then the endpoint."""
        PROCESS_BRIDGE.unregister(self.metrics)
        try:
            if self.publisher is not None:
                await self.publisher.stop()
        finally:
            if self.health is not None:
                await self.health.close()
