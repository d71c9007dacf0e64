"""The whole job through Spark's Kafka source, on events produced to the real test broker."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer

from staticconsumer.analytics import TABLE_NAMES, run_report, run_stream

from . import _reference as ref
from ._events import Event, Member

pytestmark = pytest.mark.kafka

T = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _static_bounce() -> list[Event]:
    """Three static members; s0 and s1 restart (no rebalance), s2's old process is fenced."""
    group = "bounce-static"
    members = [Member(group, f"s{k}", member_id=f"m-s{k}", host=f"h{k}") for k in range(3)]
    events: list[Event] = []
    for k, member in enumerate(members):
        events.append(member.join_reason(T + k, "initial"))
        events.append(member.joined(T + 10 + k, 1, leader=k == 0))
        events.append(member.assigned(T + 20 + k, [("orders", 2 * k), ("orders", 2 * k + 1)]))
    for k, start in ((0, T + 10_000), (1, T + 20_000)):
        owned = list(members[k].owned)
        events.append(members[k].revoked(start, reason="close"))
        new = Member(group, f"s{k}", host=f"h{k}")
        events.append(new.join_reason(start + 2000, "static member restarted"))
        events.append(new.emit("joined", start + 2100, member_id=f"m-s{k}b", generation_id=1))
        new.member_id = f"m-s{k}b"
        events.append(new.assigned(start + 2150, owned))
    zombie = members[2]
    new = Member(group, "s2", host="h2-new")  # no member id before its first join
    events.append(new.join_reason(T + 29_900, "static member restarted"))
    new.member_id = "m-s2b"
    events.append(new.joined(T + 30_000, 1))
    events.append(new.assigned(T + 30_050, zombie.owned))
    events.append(zombie.fenced(T + 30_500, api="Heartbeat", other_holder="m-s2b"))
    return events


def _dynamic_bounce() -> list[Event]:
    """Two dynamic members; d0 restarts: it leaves (rebalance) and joins again (rebalance)."""
    group = "bounce-dynamic"
    d0, d1 = Member(group, None, member_id="d0"), Member(group, None, member_id="d1")
    parts = [("orders", p) for p in range(4)]
    events = [
        d0.join_reason(T, "initial"), d1.join_reason(T + 1, "initial"),
        d0.joined(T + 10, 1, leader=True), d1.joined(T + 11, 1),
        d0.assigned(T + 20, parts[:2]), d1.assigned(T + 21, parts[2:]),
        d0.revoked(T + 10_000, reason="close"), d0.emit("left", T + 10_001, reason="stopping"),
        d1.revoked(T + 10_500), d1.join_reason(T + 10_501, "group is already rebalancing"),
        d1.joined(T + 10_600, 2, leader=True), d1.assigned(T + 10_650, parts),
    ]  # fmt: skip
    d0b = Member(group, None)
    events += [
        d0b.join_reason(T + 12_000, "initial"), d1.revoked(T + 12_100),
        d1.join_reason(T + 12_101, "group is already rebalancing"),
    ]  # fmt: skip
    d0b.member_id = "d0b"
    events += [
        d1.joined(T + 12_200, 3, leader=True), d0b.joined(T + 12_201, 3),
        d1.assigned(T + 12_250, parts[2:]), d0b.assigned(T + 12_251, parts[:2]),
    ]  # fmt: skip
    return events


async def _produce(bootstrap: str, topic: str, events: list[Event]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for index, item in enumerate(events):
            value = json.dumps(item).encode()
            key = item["group_id"].encode()
            copies = 2 if index % 5 == 0 else 1  # at-least-once publishing: duplicates
            for _ in range(copies):
                await producer.send(topic, value, key=key)
        await producer.send(topic, b"not a membership event", key=b"junk")
        await producer.flush()
    finally:
        await producer.stop()


@pytest.fixture
def events_topic(
    kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> tuple[str, list[Event]]:
    topic = topic_factory(partitions=2)
    events = _static_bounce() + _dynamic_bounce()
    asyncio.run(_produce(kafka_bootstrap, topic, events))
    return topic, events


def _check(result: Any, events: list[Event]) -> None:
    duplicates = sum(1 for index in range(len(events)) if index % 5 == 0)
    assert result.records_read == len(events) + duplicates + 1
    assert result.valid_events == len(events) + duplicates
    assert result.duplicates == duplicates
    assert result.events_in_range == len(events)
    assert result.range_end_ms == T + 30_500

    static = result.group("bounce-static")
    assert static.rebalances == 0
    assert static.generations == 1
    assert static.restarts == 3
    assert static.restarts_without_rebalance == 3
    assert static.fencing_incidents == 1
    assert static.partitions_moved == 0
    assert static.paused_partition_seconds == pytest.approx(8.6)  # 2 x 2 partitions x 2.15 s

    dynamic = result.group("bounce-dynamic")
    assert dynamic.rebalances == 2
    assert dynamic.rebalance_reasons == ("group is already rebalancing", "initial")
    assert dynamic.partitions_moved == 4  # gen 2: d1 takes p0, p1 from d0; gen 3: d0b takes them
    # d0's p0, p1: 650 ms each; d1's p2, p3: 150 ms (gen 2) and 150 ms (gen 3); p0, p1: 151 ms.
    assert dynamic.paused_partition_seconds == pytest.approx(2.202)
    reference = ref.paused_ms(ref.prepare(events, None, None), result.range_end_ms)
    assert reference == {"bounce-static": 8600, "bounce-dynamic": 2202}


def test_batch_report_from_kafka(
    spark: Any, kafka_bootstrap: str, events_topic: tuple[str, list[Event]], tmp_path: Path
) -> None:
    topic, events = events_topic
    out = tmp_path / "report"
    result = run_report(kafka_bootstrap, topic, out)
    _check(result, events)
    for name in TABLE_NAMES:
        assert list((out / "tables" / name).glob("*.parquet")), name
    fencing = spark.read.parquet(result.tables["fencing"]).collect()
    assert [(r.fenced_member_id, r.holder_member_id, r.holder_host) for r in fencing] == [
        ("m-s2", "m-s2b", "h2-new")
    ]
    png = result.timeline_png.read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5_000
    page = result.report_html.read_text()
    assert "bounce-static" in page and "bounce-dynamic" in page
    assert "data:image/png;base64," in page


def test_streaming_mode_gives_the_batch_figures(
    spark: Any, kafka_bootstrap: str, events_topic: tuple[str, list[Event]], tmp_path: Path
) -> None:
    topic, events = events_topic
    updates: list[Any] = []
    result = run_stream(
        kafka_bootstrap, topic, tmp_path / "stream", available_now=True, on_update=updates.append
    )
    assert result is not None and updates and updates[-1] is result
    _check(result, events)
    assert (tmp_path / "stream" / "tables" / "_stream" / "checkpoint").is_dir()
    assert result.report_html.exists()
