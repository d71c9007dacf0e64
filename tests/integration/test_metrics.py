"""The coordinator metrics on the real broker, scraped from a process-level HealthServer's
``/metrics`` (Prometheus text format, read with prometheus_client's parser): a second static
member joins (the group rebalances: ``rebalance-total`` grows, the latency is above zero, the
assigned partitions add up to the topic's), then a twin takes an instance id (the fenced
consumer's metrics stay scrapeable while liveness is 503)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prometheus_client.parser import text_string_to_metric_families

from staticconsumer import HealthServer, StaticConsumer
from staticconsumer._observability.health import LIVE_PATH
from staticconsumer.membership import MembershipState

from .._http import http_request
from ._group import FAST, wait_until

PREFIX = "kafka_consumer_coordinator_"


async def scrape(address: tuple[str, int]) -> dict[str, dict[str, float]]:
    """``{metric: {instance_id: value}}`` (counter names with their ``_total``)."""
    answer = await http_request(address, "/metrics")
    assert answer.status == 200
    found: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(answer.body.decode()):
        for sample in family.samples:
            found.setdefault(sample.name, {})[sample.labels["instance_id"]] = sample.value
    return found


async def test_metrics_move_through_a_rebalance_and_survive_a_fence(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, b, twin = (StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                                 group_instance_id=name, **FAST)
                  for name in ("a", "b", "a"))  # fmt: skip
    try:
        async with HealthServer(port=0, host="127.0.0.1") as health:
            assert health.address is not None
            health.register(a)
            health.register(b)
            before = await scrape(health.address)
            assert before[PREFIX + "rebalance_total"] == {"a": 0, "b": 0}
            async with asyncio.timeout(60):  # a guard against a hang, not a measurement
                await a.start()
            await wait_until(lambda: a.membership.state is MembershipState.STABLE, 30, "a stable")
            first = await scrape(health.address)
            assert first[PREFIX + "rebalance_total"]["a"] >= 1
            assert first[PREFIX + "assigned_partitions"] == {"a": 4, "b": 0}
            generation = a.generation_id

            async with asyncio.timeout(60):
                await b.start()
            await wait_until(lambda: a.generation_id > generation and a.membership.state is
                             MembershipState.STABLE and b.membership.ready, 30,
                             "both members to hold their partitions")  # fmt: skip
            after = await scrape(health.address)
            total = after[PREFIX + "rebalance_total"]
            assert total["a"] > first[PREFIX + "rebalance_total"]["a"] and total["b"] >= 1
            assert after[PREFIX + "rebalance_latency_max"]["a"] > 0
            assert after[PREFIX + "rebalance_latency_total"]["b"] > 0
            assert sum(after[PREFIX + "assigned_partitions"].values()) == 4
            assert after[PREFIX + "join_total"]["a"] >= 2
            assert after[PREFIX + "last_rebalance_seconds_ago"]["a"] >= 0
            await wait_until(lambda: b.metrics()["heartbeat-total"] >= 1, 10, "b to heartbeat")

            async with asyncio.timeout(60):
                await twin.start()  # another process takes a's instance id
            await wait_until(lambda: a.membership.state is MembershipState.FENCED, 30,
                             "a to be fenced")  # fmt: skip
            assert (await http_request(health.address, LIVE_PATH)).status == 503
            fenced = await scrape(health.address)
            assert fenced[PREFIX + "rebalance_total"]["a"] == total["a"], "a's stay scrapeable"
            assert set(fenced[PREFIX + "heartbeat_total"]) == {"a", "b"}
    finally:
        for consumer in (a, b, twin):
            await consumer.stop()
