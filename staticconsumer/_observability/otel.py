"""The coordinator metrics through the OpenTelemetry metrics API (the optional extra
``staticconsumer[otel]``, ``opentelemetry-api``): when ``opentelemetry`` is importable, every
metric of :data:`~.metrics.METRICS` is an observable instrument (``*-total``: an observable
counter; the others: observable gauges) named as KIP-714 names Java's metrics for telemetry
(``org.apache.kafka.consumer.coordinator.rebalance.latency.avg``), observed once per started
consumer with its labels as attributes (``group``, ``instance_id``, ``protocol``,
``client_id``). A value Java would give as NaN (an average with no sample in its window) is not
observed. Without ``opentelemetry`` everything here is a no-op.

The instruments are made once per process on the global meter provider (OpenTelemetry's
``get_meter`` hands out a proxy until the application sets its provider, so the order does not
matter); each consumer adds itself while it runs (``start()`` to ``stop()``).
"""

from __future__ import annotations

import logging
import math
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from .._version import __version__
from .metrics import METRICS, ConsumerMetrics, MetricSpec

log = logging.getLogger(__name__)

#: The instrumentation scope's name.
METER_NAME = "staticconsumer"


class OtelBridge:
    """The consumers whose metrics the OpenTelemetry instruments observe. ``meter_provider``:
    None for the global one (``opentelemetry.metrics.get_meter_provider()``)."""

    def __init__(self, meter_provider: Any = None) -> None:
        self._meter_provider = meter_provider
        self._consumers: weakref.WeakSet[ConsumerMetrics] = weakref.WeakSet()
        self._available: bool | None = None  # None: not tried yet

    def register(self, metrics: ConsumerMetrics) -> bool:
        """Observe ``metrics`` from now on; False (nothing done) without ``opentelemetry``."""
        if not self._instruments():
            return False
        self._consumers.add(metrics)
        return True

    def unregister(self, metrics: ConsumerMetrics) -> None:
        self._consumers.discard(metrics)

    def _instruments(self) -> bool:
        """Make the instruments on first use; whether ``opentelemetry`` is there."""
        if self._available is None:
            try:
                from opentelemetry import metrics as otel_metrics
            except ImportError:
                self._available = False
                return False
            provider = self._meter_provider or otel_metrics.get_meter_provider()
            meter = provider.get_meter(METER_NAME, __version__)
            for spec in METRICS:
                make = (meter.create_observable_counter if spec.kind == "counter"
                        else meter.create_observable_gauge)  # fmt: skip
                make(spec.otel_name, callbacks=[self._callback(spec)], unit=spec.unit,
                     description=spec.help)  # fmt: skip
            self._available = True
        return self._available

    def _callback(self, spec: MetricSpec) -> Callable[[Any], Iterable[Any]]:
        def observe(options: Any) -> Iterable[Any]:
            from opentelemetry.metrics import Observation

            for metrics in list(self._consumers):
                value = metrics.value(spec.name)
                if value is not None and not math.isnan(value):
                    yield Observation(value, metrics.labels.as_dict())

        return observe


#: The process's bridge, on the global meter provider (which is process-wide too).
PROCESS_BRIDGE = OtelBridge()
