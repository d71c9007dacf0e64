"""``staticconsumer demo --report``: the static and the dynamic run, then the Spark report on both.

Both runs publish their membership events (``docs/membership-events.md``) to one events topic;
the report job (:mod:`staticconsumer.analytics`) then reads that topic through Spark's Kafka
source and the demo puts the two groups side by side, looking at the rolling restart's window
(from the restarted process's SIGTERM until the group was stable again with every record
processed): rebalances, partitions moved and paused partition-seconds in that window, plus the
whole run's figures. The events the report read are also written to ``events.jsonl`` next to it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..localkafka import create_topic
from . import _data

Say = Callable[[str], None]
MODES = ("static", "dynamic")


async def create_events_topic(bootstrap: str, topic: str) -> None:
    # One partition: the report reads events of one group in the order they were published.
    await create_topic(bootstrap, topic, partitions=1)


async def save_events(bootstrap: str, topic: str, path: Path) -> int:
    """Write every event record of ``topic`` to ``path`` (JSON lines); return how many."""
    records = await asyncio.wait_for(_data.read_topic(bootstrap, topic, 1), 60)
    with path.open("w", encoding="utf-8") as out:
        for _key, value in records:
            out.write(value.decode("utf-8") + "\n")
    return len(records)


def _window_figures(
    spark: Any, tables: dict[str, str], group: str, window: list[int]
) -> dict[str, Any]:
    """Rebalances, partitions moved and paused partition-seconds of ``group`` in ``window``,
    computed by Spark from the report's tables."""
    from pyspark.sql import functions as F

    start, end = window
    rebalances = (
        spark.read.parquet(tables["rebalances"])
        .where((F.col("group_id") == group) & F.col("ts_ms").between(start, end))
        .agg(F.count(F.lit(1)).alias("n"), F.sum("partitions_moved").alias("moved"))
        .first()
    )
    paused = (
        spark.read.parquet(tables["pauses"])
        .where((F.col("group_id") == group) & F.col("revoked_ms").between(start, end))
        .agg(F.sum("paused_ms").alias("ms"))
        .first()
    )
    return {
        "rebalances": int(rebalances["n"] or 0),
        "partitions_moved": int(rebalances["moved"] or 0),
        "paused_partition_seconds": round(int(paused["ms"] or 0) / 1000, 3),
    }


def build_report(
    bootstrap: str, events_topic: str, out: Path, runs: dict[str, dict[str, Any]], say: Say
) -> dict[str, Any]:
    """Run the Spark report over ``events_topic`` into ``out``; the side-by-side figures."""
    from ..analytics import build_session, run_report

    say("starting Spark (local) for the membership report")
    spark = build_session(conf={"spark.sql.shuffle.partitions": "2"})
    try:
        result = run_report(bootstrap, events_topic, out, spark=spark)
        figures: dict[str, Any] = {}
        for mode, run in runs.items():
            whole = result.group(run["group"])
            figures[mode] = {
                "group": run["group"],
                "during_restart": _window_figures(
                    spark, dict(result.tables), run["group"], run["restart_window_ms"]
                ),
                "rebalances_whole_run": whole.rebalances,
                "restarts_without_rebalance": whole.restarts_without_rebalance,
                "fencing_incidents": whole.fencing_incidents,
                "rebalance_reasons": list(whole.rebalance_reasons),
            }
    finally:
        spark.stop()
    return {
        "html": str(result.report_html),
        "timeline_png": str(result.timeline_png),
        "tables": str(out / "tables"),
        "events_read": result.valid_events,
        "range_end_ms": result.range_end_ms,
        "groups": figures,
    }


def render_side_by_side(report: dict[str, Any]) -> str:
    groups = report["groups"]
    rows: list[tuple[str, Callable[[dict[str, Any]], object]]] = [
        ("rebalances during the restart", lambda g: g["during_restart"]["rebalances"]),
        ("partitions moved during the restart", lambda g: g["during_restart"]["partitions_moved"]),
        (
            "paused partition-seconds (restart)",
            lambda g: f"{g['during_restart']['paused_partition_seconds']:.1f}",
        ),
        ("restarts without a rebalance", lambda g: g["restarts_without_rebalance"]),
        ("rebalances in the whole run", lambda g: g["rebalances_whole_run"]),
        ("fencing incidents", lambda g: g["fencing_incidents"]),
    ]
    present = [m for m in MODES if m in groups]
    lines = [
        f"membership report (Spark, from {report['events_read']} events): {report['html']}",
        f"  {'':38}" + "".join(f"{m:>10}" for m in present),
    ]
    for label, cell in rows:
        lines.append(f"  {label:38}" + "".join(f"{cell(groups[m])!s:>10}" for m in present))
    for mode in present:
        reasons = groups[mode]["rebalance_reasons"]
        if reasons:
            quoted = "; ".join(json.dumps(r) for r in reasons)
            lines.append(f"  {mode} rebalance reasons: {quoted}")
    return "\n".join(lines) + "\n"
