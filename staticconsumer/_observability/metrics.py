"""Per-consumer coordinator metrics, named and defined as the Java client's
(``consumer-coordinator-metrics``: ``AbstractCoordinator``'s and ``ConsumerCoordinator``'s sensors
for the classic protocol, ``ConsumerRebalanceMetricsManager``/``HeartbeatMetricsManager`` for the
consumer protocol). ``docs/operations.md`` lists every metric.

:class:`ConsumerMetrics` is fed by the driver at the points where things happen, one call per
event (never per record): :meth:`~ConsumerMetrics.answered` after each group request's answer
(JoinGroup, SyncGroup, Heartbeat, ConsumerGroupHeartbeat, OffsetCommit),
:meth:`~ConsumerMetrics.rebalance_started` / :meth:`~ConsumerMetrics.rebalance_ended` /
:meth:`~ConsumerMetrics.rebalance_failed` where the engine decides them (its ``RecordRebalance``
actions, ``membership._io``: the consumer protocol's span, a leader's assignor failing),
:meth:`~ConsumerMetrics.listener_returned` after a rebalance listener call.

What Java's definitions come to:

- a classic **rebalance** spans the first JoinGroup sent (while none is in progress) to the
  successful SyncGroup answer; a failed JoinGroup/SyncGroup (an error answer, no answer, or the
  leader's assignor raising) counts in ``failed-rebalance-total`` and the rebalance goes on: the
  next success's latency counts from the first attempt. (So a dynamic member's first join, refused
  with MEMBER_ID_REQUIRED, counts one failed rebalance, as in Java.)
- a consumer-protocol **rebalance** spans a heartbeat answer carrying an assignment other than the
  one the member holds to the heartbeat that acknowledges it (sent once the listener returned);
  a fence or a lost member epoch while one is in progress counts as failed.
- ``*-avg``/``*-max`` are over Java's default window, 2 samples of 30 s (NaN with no sample in it,
  as Java's ``Avg``/``Max``); ``*-rate`` is per second and ``*-rate-per-hour`` per hour over the
  same samples (Java's ``Rate``: at least one full window is assumed elapsed); ``*-total`` counts
  since the consumer was made. Latencies are milliseconds, ``*-seconds-ago`` whole seconds (-1
  before the first event).
- ``join-*`` and ``sync-*`` are classic only (the consumer protocol has no JoinGroup/SyncGroup);
  every other metric exists for both protocols.
- ``rebootstrap-total`` is staticconsumer's own (Java only logs "Rebootstrapping with ..."): the
  times the client went back to its bootstrap servers and got metadata there (KIP-899,
  KIP-1102; :meth:`~ConsumerMetrics.rebootstrapped`, told by the client's seam). In the same
  group so that one scrape has it beside the rebalances it spares.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import assert_never

from ..membership import Api, RebalanceMetric
from ..options import ConsumerOptions

#: Java's ``MetricConfig`` defaults: ``metrics.sample.window.ms`` and ``metrics.num.samples``.
SAMPLE_WINDOW_S = 30.0
SAMPLES = 2
#: Java's metric group; the Prometheus and OpenTelemetry names derive from it.
GROUP = "consumer-coordinator-metrics"
PROMETHEUS_PREFIX = "kafka_consumer_coordinator_"
#: KIP-714's naming (Java's ``TelemetryMetricNamingConvention``): ``org.apache.kafka.`` + the group
#: without ``-metrics`` + the name, dashes turned to dots.
OTEL_PREFIX = "org.apache.kafka.consumer.coordinator."

CLASSIC = "classic"
CONSUMER = "consumer"
BOTH = (CLASSIC, CONSUMER)


@dataclass(frozen=True)
class MetricSpec:
    """One metric: Java's name, ``gauge`` or ``counter``, Java's description, its unit, and the
    group protocols it exists for."""

    name: str
    kind: str
    help: str
    unit: str = ""
    protocols: tuple[str, ...] = BOTH

    @property
    def prometheus_name(self) -> str:
        return PROMETHEUS_PREFIX + self.name.replace("-", "_")

    @property
    def otel_name(self) -> str:
        return OTEL_PREFIX + self.name.replace("-", ".")


def _spec(name: str, help: str, unit: str = "", protocols: tuple[str, ...] = BOTH) -> MetricSpec:
    kind = "counter" if name.endswith("-total") else "gauge"
    return MetricSpec(name, kind, help, unit, protocols)


#: Every metric, in the order they are listed (``docs/operations.md`` follows it).
METRICS: tuple[MetricSpec, ...] = (
    _spec("rebalance-latency-avg", "The average time taken for a group to complete a rebalance",
          "ms"),
    _spec("rebalance-latency-max", "The max time taken for a group to complete a rebalance", "ms"),
    _spec("rebalance-latency-total",
          "The total number of milliseconds spent in rebalances", "ms"),
    _spec("rebalance-total", "The total number of rebalance events"),
    _spec("rebalance-rate-per-hour", "The number of rebalance events per hour", "1/h"),
    _spec("failed-rebalance-total", "The total number of failed rebalance events"),
    _spec("failed-rebalance-rate-per-hour", "The number of failed rebalance events per hour",
          "1/h"),
    _spec("last-rebalance-seconds-ago", "The number of seconds since the last rebalance event",
          "s"),
    _spec("join-time-avg", "The average time taken for a group rejoin", "ms", (CLASSIC,)),
    _spec("join-time-max", "The max time taken for a group rejoin", "ms", (CLASSIC,)),
    _spec("join-rate", "The number of group joins per second", "1/s", (CLASSIC,)),
    _spec("join-total", "The total number of group joins", "", (CLASSIC,)),
    _spec("sync-time-avg", "The average time taken for a group sync", "ms", (CLASSIC,)),
    _spec("sync-time-max", "The max time taken for a group sync", "ms", (CLASSIC,)),
    _spec("sync-rate", "The number of group syncs per second", "1/s", (CLASSIC,)),
    _spec("sync-total", "The total number of group syncs", "", (CLASSIC,)),
    _spec("heartbeat-response-time-max",
          "The max time taken to receive a response to a heartbeat request", "ms"),
    _spec("heartbeat-rate", "The number of heartbeats per second", "1/s"),
    _spec("heartbeat-total", "The total number of heartbeats"),
    _spec("last-heartbeat-seconds-ago", "The number of seconds since the last coordinator "
          "heartbeat was sent", "s"),
    _spec("assigned-partitions",
          "The number of partitions currently assigned to this consumer"),
    _spec("commit-latency-avg", "The average time taken for a commit request", "ms"),
    _spec("commit-latency-max", "The max time taken for a commit request", "ms"),
    _spec("commit-rate", "The number of commit calls per second", "1/s"),
    _spec("commit-total", "The total number of commit calls"),
    _spec("partition-revoked-latency-avg",
          "The average time taken for a partition-revoked rebalance listener callback", "ms"),
    _spec("partition-revoked-latency-max",
          "The max time taken for a partition-revoked rebalance listener callback", "ms"),
    _spec("partition-assigned-latency-avg",
          "The average time taken for a partition-assigned rebalance listener callback", "ms"),
    _spec("partition-assigned-latency-max",
          "The max time taken for a partition-assigned rebalance listener callback", "ms"),
    _spec("partition-lost-latency-avg",
          "The average time taken for a partition-lost rebalance listener callback", "ms"),
    _spec("partition-lost-latency-max",
          "The max time taken for a partition-lost rebalance listener callback", "ms"),
    _spec("rebootstrap-total", "The total number of times the client went back to its "
          "bootstrap servers for metadata (KIP-899; staticconsumer's own)"),
)  # fmt: skip
SPECS: Mapping[str, MetricSpec] = {spec.name: spec for spec in METRICS}


@dataclass(frozen=True)
class MetricLabels:
    """Who the metrics are about: ``group`` (Java ``group.id``), ``instance_id``
    (``group.instance.id``, empty for a dynamic member), ``protocol`` (``group.protocol``:
    classic or consumer) and ``client_id`` (``client.id``)."""

    group: str
    instance_id: str
    protocol: str
    client_id: str

    @classmethod
    def of(cls, options: ConsumerOptions) -> MetricLabels:
        """The labels of a consumer with these options."""
        return cls(options.group_id or "", options.group_instance_id or "",
                   options.group_protocol, options.client_id)  # fmt: skip

    def as_dict(self) -> dict[str, str]:
        return {"group": self.group, "instance_id": self.instance_id,
                "protocol": self.protocol, "client_id": self.client_id}  # fmt: skip


class MetricValues(Mapping[str, float]):
    """``{java_name: value}`` at one instant (what ``StaticConsumer.metrics()`` returns, as Java's
    ``consumer.metrics()``), with the consumer's :attr:`labels`."""

    def __init__(self, labels: MetricLabels, values: dict[str, float]) -> None:
        self.labels = labels
        self._values = values

    def __getitem__(self, name: str) -> float:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"MetricValues({self.labels!r}, {self._values!r})"


class Sampled:
    """Java's ``SampledStat`` for one sensor: samples of :data:`SAMPLE_WINDOW_S`, the last
    :data:`SAMPLES` kept; a sample older than all of them together no longer counts. Each sample
    is ``[start, count, total, max]``."""

    __slots__ = ("_samples",)

    def __init__(self) -> None:
        self._samples: list[list[float]] = []

    def record(self, value: float, now: float) -> None:
        samples = self._samples
        if not samples or now - samples[-1][0] >= SAMPLE_WINDOW_S:
            samples.append([now, 0, 0.0, -math.inf])
            del samples[:-SAMPLES]
        sample = samples[-1]
        sample[1] += 1
        sample[2] += value
        sample[3] = max(sample[3], value)

    def _live(self, now: float) -> list[list[float]]:
        return [s for s in self._samples if now - s[0] < SAMPLES * SAMPLE_WINDOW_S]

    def avg(self, now: float) -> float:
        live = self._live(now)
        count = sum(s[1] for s in live)
        return sum(s[2] for s in live) / count if count else math.nan

    def max(self, now: float) -> float:
        live = self._live(now)
        return max(s[3] for s in live) if live else math.nan

    def rate(self, now: float, per_s: float = 1.0) -> float:
        """Events per ``per_s`` seconds: the count over the time since the oldest sample began,
        taken as at least ``SAMPLES - 1`` full windows (Java's ``Rate.windowSize``)."""
        live = self._live(now)
        elapsed = now - min((s[0] for s in live), default=now)
        full = int(elapsed // SAMPLE_WINDOW_S)
        if full < SAMPLES - 1:
            elapsed += (SAMPLES - 1 - full) * SAMPLE_WINDOW_S
        return sum(s[1] for s in live) / max(elapsed, 0.001) * per_s


class _Sensor:
    """A sensor with a windowed part (:class:`Sampled`) and cumulative ``count`` and ``total``."""

    __slots__ = ("count", "total", "window")

    def __init__(self) -> None:
        self.window = Sampled()
        self.count = 0
        self.total = 0.0

    def record(self, value: float, now: float) -> None:
        self.window.record(value, now)
        self.count += 1
        self.total += value


_LISTENERS = {"on_partitions_revoked": "revoked", "on_partitions_assigned": "assigned",
              "on_partitions_lost": "lost"}  # fmt: skip


class ConsumerMetrics:
    """The coordinator metrics of one consumer (module docstring). ``clock``: seconds, monotonic.
    ``assigned`` tells the number of assigned partitions (the driver binds it)."""

    def __init__(
        self, labels: MetricLabels, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._clock = clock
        self.assigned: Callable[[], int] = lambda: 0
        self._rebalance = _Sensor()
        self._failed = _Sensor()
        self._join = _Sensor()
        self._sync = _Sensor()
        self._heartbeat = _Sensor()
        self._commit = _Sensor()
        self._listeners = {kind: _Sensor() for kind in _LISTENERS.values()}
        self._rebalance_start: float | None = None
        self._last_rebalance_end: float | None = None
        self._last_heartbeat_sent: float | None = None
        self._rebootstraps = 0
        self._read = self._readers()
        self.relabel(labels)

    def relabel(self, labels: MetricLabels) -> None:
        """The consumer's labels, and with their protocol the metrics it has
        (``group_protocol="auto"`` has none until ``start()`` decides)."""
        self.labels = labels
        self._names = tuple(s.name for s in METRICS if labels.protocol in s.protocols)

    # -- the driver's hooks ---------------------------------------------------------------------

    def now(self) -> float:
        """The clock the hooks' times are on (``sent_at``, ``started_at``)."""
        return self._clock()

    def answered(self, api: Api, sent_at: float, error_code: int | None) -> None:
        """A group request sent at ``sent_at`` (the clock's seconds) was answered with
        ``error_code`` (None: no answer)."""
        now = self._clock()
        latency_ms = (now - sent_at) * 1000
        if api is Api.HEARTBEAT or api is Api.CONSUMER_GROUP_HEARTBEAT:
            self._last_heartbeat_sent = sent_at
            if error_code is not None:
                self._heartbeat.record(latency_ms, now)
        elif api is Api.OFFSET_COMMIT:
            if error_code is not None:
                self._commit.record(latency_ms, now)
        elif api is Api.JOIN_GROUP:
            self.rebalance_started(sent_at)
            if error_code == 0:
                self._join.record(latency_ms, now)
            else:
                self.rebalance_failed()
        elif api is Api.SYNC_GROUP:
            if error_code == 0:
                self._sync.record(latency_ms, now)
                self.rebalance_ended()
            else:
                self.rebalance_failed()

    def rebalance(self, what: RebalanceMetric) -> None:
        """What an engine decided about the rebalance (its ``RecordRebalance`` action)."""
        match what:
            case RebalanceMetric.STARTED:
                self.rebalance_started()
            case RebalanceMetric.ENDED:
                self.rebalance_ended()
            case RebalanceMetric.FAILED:
                self.rebalance_failed()
            case _:
                assert_never(what)

    def rebalance_started(self, at: float | None = None) -> None:
        """A rebalance begins (unless one is in progress: a retried one keeps its start)."""
        if self._rebalance_start is None:
            self._rebalance_start = self._clock() if at is None else at

    def rebalance_ended(self) -> None:
        """The rebalance in progress (if any) completed."""
        if self._rebalance_start is None:
            return
        now = self._clock()
        self._rebalance.record((now - self._rebalance_start) * 1000, now)
        self._rebalance_start = None
        self._last_rebalance_end = now

    def rebalance_failed(self) -> None:
        """The rebalance in progress (if any) failed; it goes on (its start is kept)."""
        if self._rebalance_start is not None:
            self._failed.record(1.0, self._clock())

    def listener_returned(self, method: str, started_at: float) -> None:
        """The rebalance listener's ``method`` (``on_partitions_revoked``, ...) returned."""
        kind = _LISTENERS.get(method)
        if kind is not None:
            now = self._clock()
            self._listeners[kind].record((now - started_at) * 1000, now)

    def rebootstrapped(self, reason: str) -> None:
        """The client went back to its bootstrap servers and got metadata (``reason``: why, as
        its log line says)."""
        self._rebootstraps += 1

    # -- reading ----------------------------------------------------------------------------

    def values(self) -> MetricValues:
        """Every metric of this consumer's protocol now, by Java name."""
        now = self._clock()
        return MetricValues(self.labels, {name: self._read[name](now) for name in self._names})

    def value(self, name: str) -> float | None:
        """One metric now; None when it does not exist for this consumer's protocol."""
        if name not in self._names:
            return None
        return self._read[name](self._clock())

    def _readers(self) -> dict[str, Callable[[float], float]]:
        rebalance, failed = self._rebalance, self._failed
        readers: dict[str, Callable[[float], float]] = {
            "rebalance-latency-total": lambda now: rebalance.total,
            "rebalance-total": lambda now: float(rebalance.count),
            "rebalance-rate-per-hour": lambda now: rebalance.window.rate(now, 3600.0),
            "failed-rebalance-total": lambda now: failed.total,
            "failed-rebalance-rate-per-hour": lambda now: failed.window.rate(now, 3600.0),
            "last-rebalance-seconds-ago": lambda now: _seconds_ago(self._last_rebalance_end, now),
            "last-heartbeat-seconds-ago": lambda now: _seconds_ago(self._last_heartbeat_sent,
                                                                   now),
            "heartbeat-response-time-max": self._heartbeat.window.max,
            "assigned-partitions": lambda now: float(self.assigned()),
            "rebootstrap-total": lambda now: float(self._rebootstraps),
        }  # fmt: skip
        readers.update(_avg_max("rebalance-latency", rebalance))
        for name, sensor in (("join", self._join), ("sync", self._sync)):
            readers.update(_avg_max(f"{name}-time", sensor))
            readers.update(_meter(name, sensor))
        for name, sensor in (("heartbeat", self._heartbeat), ("commit", self._commit)):
            readers.update(_meter(name, sensor))
        readers.update(_avg_max("commit-latency", self._commit))
        for kind, sensor in self._listeners.items():
            readers.update(_avg_max(f"partition-{kind}-latency", sensor))
        assert set(readers) == set(SPECS), set(readers) ^ set(SPECS)
        return readers


def _avg_max(prefix: str, sensor: _Sensor) -> dict[str, Callable[[float], float]]:
    return {f"{prefix}-avg": sensor.window.avg, f"{prefix}-max": sensor.window.max}


def _meter(prefix: str, sensor: _Sensor) -> dict[str, Callable[[float], float]]:
    """Java's ``Meter``: a per-second rate and a cumulative total of events."""
    return {f"{prefix}-rate": sensor.window.rate,
            f"{prefix}-total": lambda now: float(sensor.count)}  # fmt: skip


def _seconds_ago(at: float | None, now: float) -> float:
    """Whole seconds since ``at`` (Java's ``TimeUnit.SECONDS.convert`` truncates); -1 before."""
    return -1.0 if at is None else float(int(now - at))


# -- the Prometheus text format (0.0.4) ----------------------------------------------------------

PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def prometheus_text(consumers: Iterable[MetricValues]) -> str:
    """Every metric as a Prometheus family (``# HELP``, ``# TYPE``), one sample per consumer
    that has it, labelled with its :class:`MetricLabels`."""
    consumers = list(consumers)
    lines: list[str] = []
    for spec in METRICS:
        name = spec.prometheus_name
        unit = f" ({spec.unit})" if spec.unit else ""
        lines.append(f"# HELP {name} {spec.help}{unit}; Java: {GROUP} {spec.name}")
        lines.append(f"# TYPE {name} {spec.kind}")
        for values in consumers:
            if spec.name in values:
                labels = ",".join(f'{k}="{_escape(v)}"' for k, v in values.labels.as_dict().items())
                lines.append(f"{name}{{{labels}}} {_number(values[spec.name])}")
    return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))
