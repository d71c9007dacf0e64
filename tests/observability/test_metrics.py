"""The coordinator metrics without a broker: Java's windows, the Prometheus text format (read back
with prometheus_client's parser), ``GET /metrics`` on the process-level HealthServer and on a
consumer's own endpoint, ``StaticConsumer.metrics()``, and the OpenTelemetry instruments (read
with the SDK's in-memory reader; a no-op when ``opentelemetry`` cannot be imported)."""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from staticconsumer import HealthServer, StaticConsumer
from staticconsumer._observability.metrics import (
    METRICS,
    PROMETHEUS_CONTENT_TYPE,
    ConsumerMetrics,
    MetricLabels,
    Sampled,
    prometheus_text,
)
from staticconsumer._observability.otel import OtelBridge
from staticconsumer.membership import Api

from .._http import http_request


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_avg_and_max_cover_java_s_two_samples_of_30_s_and_then_expire() -> None:
    window = Sampled()
    window.record(10, 0.0)
    window.record(30, 29.0)  # same sample
    window.record(50, 31.0)  # the second sample
    assert (window.avg(31.0), window.max(31.0)) == (30, 50)
    assert window.max(59.9) == 50 and window.avg(60.0) == 50, "the first sample expired at 60 s"
    assert math.isnan(window.avg(91.0)) and math.isnan(window.max(91.0))
    window.record(1, 100.0)
    window.record(1, 131.0)
    window.record(1, 162.0)  # a third sample drops the oldest
    assert window.avg(162.0) == 1 and window.rate(162.0) == pytest.approx(2 / 31)


def test_a_rate_takes_at_least_one_full_window_as_elapsed() -> None:
    window = Sampled()
    assert window.rate(5.0, 3600) == 0
    window.record(1, 0.0)
    window.record(1, 1.0)
    assert window.rate(1.0, 3600) == pytest.approx(2 / 31 * 3600)


def consumer_metrics(group: str, instance: str, clock: Clock | None = None) -> ConsumerMetrics:
    return ConsumerMetrics(MetricLabels(group, instance, "classic", "c-1"),
                           clock=clock or Clock())  # fmt: skip


def test_the_prometheus_text_parses_with_help_type_and_labels_per_consumer() -> None:
    clock = Clock()
    a = consumer_metrics("g", "i-0", clock)
    b = consumer_metrics('odd"group\\', "", clock)
    a.answered(Api.JOIN_GROUP, clock.now - 0.1, 0)
    a.answered(Api.SYNC_GROUP, clock.now - 0.05, 0)
    text = prometheus_text([a.values(), b.values()])
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert len(families) == len(METRICS)
    rebalances = families["kafka_consumer_coordinator_rebalance"]  # the parser strips _total
    assert rebalances.type == "counter"
    by_group = {s.labels["group"]: s for s in rebalances.samples}
    assert by_group["g"].value == 1 and by_group['odd"group\\'].value == 0
    assert by_group["g"].labels == {"group": "g", "instance_id": "i-0", "protocol": "classic",
                                    "client_id": "c-1"}  # fmt: skip
    latency = families["kafka_consumer_coordinator_rebalance_latency_max"]
    assert latency.type == "gauge" and "rebalance-latency-max" in latency.documentation
    assert {s.labels["group"]: s.value for s in latency.samples}["g"] == pytest.approx(100)
    assert "NaN" in text, "an average with no sample is NaN, as Java's"


def test_every_name_maps_one_to_one_and_counters_end_with_total() -> None:
    names = [spec.prometheus_name for spec in METRICS]
    assert len(set(names)) == len(names) == len({spec.otel_name for spec in METRICS})
    for spec in METRICS:
        assert (spec.kind == "counter") == spec.prometheus_name.endswith("_total")
        assert spec.otel_name == "org.apache.kafka.consumer.coordinator." + spec.name.replace(
            "-", "."
        )


async def test_static_consumer_metrics_are_java_s_names_with_the_consumer_s_labels() -> None:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                              group_instance_id="i-0", client_id="app")  # fmt: skip
    values = consumer.metrics()
    assert values["rebalance-total"] == 0 and values["assigned-partitions"] == 0
    assert values["last-rebalance-seconds-ago"] == -1
    assert set(values) == {spec.name for spec in METRICS}
    assert values.labels == MetricLabels("g", "i-0", "classic", "app")
    other = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                           group_protocol="consumer")  # fmt: skip
    assert other.metrics().labels.protocol == "consumer" and "join-rate" not in other.metrics()


async def test_the_health_server_serves_every_registered_consumer_at_metrics() -> None:
    consumers = [StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                                group_instance_id=f"i-{n}") for n in range(2)]  # fmt: skip
    async with HealthServer(port=0, host="127.0.0.1") as health:
        for consumer in consumers:
            health.register(consumer)
        assert health.address is not None
        answer = await http_request(health.address, "/metrics")
        head = await http_request(health.address, "/metrics", method="HEAD")
    assert answer.status == 200 and answer.headers["Content-Type"] == PROMETHEUS_CONTENT_TYPE
    assert head.status == 200 and head.body == b""
    families = {f.name: f for f in text_string_to_metric_families(answer.body.decode())}
    samples = families["kafka_consumer_coordinator_assigned_partitions"].samples
    assert sorted(s.labels["instance_id"] for s in samples) == ["i-0", "i-1"]


async def test_a_consumer_s_own_endpoint_serves_its_metrics() -> None:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                              group_instance_id="i-0", health_port=0,
                              health_host="127.0.0.1")  # fmt: skip
    endpoint = consumer._owned.health  # the endpoint start() would start, started alone
    assert endpoint is not None
    async with endpoint:
        assert endpoint.address is not None
        answer = await http_request(endpoint.address, "/metrics")
    assert answer.status == 200
    text = answer.body.decode()
    assert 'kafka_consumer_coordinator_rebalance_total{group="g",instance_id="i-0"' in text


def _otel_points(reader: Any) -> dict[str, list[Any]]:
    data = reader.get_metrics_data()
    if data is None:  # nothing observed
        return {}
    return {metric.name: list(metric.data.data_points)
            for resource in data.resource_metrics for scope in resource.scope_metrics
            for metric in scope.metrics}  # fmt: skip


def test_opentelemetry_observes_every_registered_consumer_with_its_labels() -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    bridge = OtelBridge(MeterProvider(metric_readers=[reader]))
    clock = Clock()
    metrics = consumer_metrics("g", "i-0", clock)
    assert bridge.register(metrics)
    metrics.answered(Api.JOIN_GROUP, clock.now - 0.2, 0)
    metrics.answered(Api.SYNC_GROUP, clock.now - 0.1, 0)
    points = _otel_points(reader)
    (total,) = points["org.apache.kafka.consumer.coordinator.rebalance.total"]
    assert total.value == 1 and dict(total.attributes) == metrics.labels.as_dict()
    (latency,) = points["org.apache.kafka.consumer.coordinator.rebalance.latency.max"]
    assert latency.value == pytest.approx(200)
    assert "org.apache.kafka.consumer.coordinator.commit.latency.avg" not in points, "NaN"
    bridge.unregister(metrics)
    assert "org.apache.kafka.consumer.coordinator.rebalance.total" not in _otel_points(reader)


def test_without_opentelemetry_registering_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import opentelemetry fails
    bridge = OtelBridge()
    assert bridge.register(consumer_metrics("g", "i-0")) is False
    bridge.unregister(consumer_metrics("g", "i-0"))  # nothing registered, nothing raised


def test_docs_operations_lists_every_metric_by_java_and_prometheus_name() -> None:
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    for spec in METRICS:
        assert f"| `{spec.name}` | `{spec.prometheus_name}` | {spec.kind} |" in page, spec.name
