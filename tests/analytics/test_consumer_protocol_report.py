"""The report on membership events of a KIP-848 consumer group (``group_protocol="consumer"``),
produced by real StaticConsumers on the real broker: an epoch is the consumer protocol's
generation (``docs/membership-events.md``), so a static restart reads as a restart without
rebalance, and a member joining for the first time as a rebalance."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from staticconsumer.analytics.tables import compute_tables
from staticconsumer.events import MembershipEvent

from ..integration.test_consumer_protocol import settled, start

pytestmark = pytest.mark.kafka


def _rows(frame: Any) -> list[dict[str, Any]]:
    return [row.asDict(recursive=True) for row in frame.collect()]


async def _run(bootstrap: str, topic: str, group: str) -> list[dict[str, Any]]:
    seen: list[MembershipEvent] = []
    a, b = [await start(topic, bootstrap, group, f"rep-{n}", on_event=seen.append) for n in "ab"]
    await settled([a, b], 4)
    await a.stop()  # epoch -2: a's partitions wait for it
    await asyncio.sleep(1.0)
    a = await start(topic, bootstrap, group, "rep-a", on_event=seen.append)
    await settled([a, b], 4)
    await asyncio.sleep(1.0)
    await a.stop()
    await b.stop()
    return [event.to_dict() for event in seen]


def test_a_static_restart_is_a_restart_without_rebalance(
    events_frame: Any, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=4), unique_group_id()
    raw = asyncio.run(_run(kafka_bootstrap, topic, group))
    assert {e["type"] for e in raw} >= {"joined", "assigned", "revoked"}
    assert "join_reason" not in {e["type"] for e in raw}  # no JoinGroup in this protocol
    events = events_frame(raw).cache()
    range_end = max(e["ts_ms"] for e in raw)
    tables = compute_tables(events, range_end, lambda _, frame: frame.cache())
    instances = {r["group_instance_id"]: r for r in _rows(tables["instances"])}
    assert instances["rep-a"]["restarts"] == 1
    assert instances["rep-a"]["restarts_without_rebalance"] == 1
    assert instances["rep-b"]["restarts"] == 0
    rebalances = _rows(tables["rebalances"])
    restart_at = max(e["ts_ms"] for e in raw if e["type"] == "joined"
                     and e["group_instance_id"] == "rep-a")  # fmt: skip
    generations_before = {e["generation_id"] for e in raw if e["ts_ms"] < restart_at}
    assert all(r["generation_id"] in generations_before for r in rebalances), (
        "no rebalance after the static restart"
    )
