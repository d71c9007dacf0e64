"""The Spark tables agree with a direct Python computation on random event streams."""

from __future__ import annotations

import random
from typing import Any

import pytest

from staticconsumer.analytics.schema import in_range
from staticconsumer.analytics.tables import compute_tables

from . import _reference as ref
from ._synthetic import random_group

START = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def _streams(seed: int, groups: int = 8) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    for index in range(groups):
        events += random_group(rng, f"s{seed}-g{index}", START + rng.randint(0, 60_000))
    return events


def _rows(frame: Any) -> list[dict[str, Any]]:
    return [row.asDict(recursive=True) for row in frame.collect()]


@pytest.mark.parametrize(
    ("seed", "cut"),
    [(1, False), (2, False), (3, True), (4, True)],
    ids=["seed1-all", "seed2-all", "seed3-range", "seed4-range"],
)
def test_spark_tables_match_the_reference(events_frame: Any, seed: int, cut: bool) -> None:
    raw = _streams(seed)
    times = sorted(item["ts_ms"] for item in raw)
    since, until = (times[len(times) // 5], times[4 * len(times) // 5]) if cut else (None, None)
    expected_events = ref.prepare(raw, since, until)
    range_end = until if until is not None else max(item["ts_ms"] for item in expected_events)

    events = in_range(events_frame(raw), since, until).cache()
    tables = compute_tables(events, range_end, lambda _, frame: frame.cache())
    groups = {row["group_id"]: row for row in _rows(tables["groups"])}
    rebalances = _rows(tables["rebalances"])
    instances = {(r["group_id"], r["group_instance_id"]): r for r in _rows(tables["instances"])}
    for frame in [events, *tables.values()]:
        frame.unpersist()

    expected_rebalances = ref.rebalances(expected_events)
    expected_paused = ref.paused_ms(expected_events, range_end)
    expected_restarts = ref.restarts(expected_events)
    expected_idle = ref.time_without_partitions(expected_events, range_end)

    assert set(groups) == {item["group_id"] for item in expected_events}
    for group, row in groups.items():
        got = sorted(
            (r["generation_id"], tuple(r["reasons"]), r["partitions_moved"])
            for r in rebalances
            if r["group_id"] == group
        )
        assert got == expected_rebalances[group], group
        assert row["rebalances"] == len(expected_rebalances[group])
        assert row["paused_partition_seconds"] == pytest.approx(
            expected_paused.get(group, 0) / 1000
        ), group
        assert row["restarts_without_rebalance"] == sum(
            quiet for (g, _), (_, quiet) in expected_restarts.items() if g == group
        ), group
    assert {
        key: (r["restarts"], r["restarts_without_rebalance"]) for key, r in instances.items()
    } == (expected_restarts)
    assert {key: r["time_without_partitions_ms"] for key, r in instances.items()} == expected_idle
    # The streams are not degenerate: they hold what the comparison is about.
    assert sum(len(rows) for rows in expected_rebalances.values()) > 5
    assert sum(expected_paused.values()) > 0
    assert any(quiet for _, quiet in expected_restarts.values())
