"""``staticconsumer demo --report``: a real rolling bounce, static and dynamic, through Spark.

The demo runs both scenarios against the real test broker with membership events published to one
topic, then the Spark report job reads that topic through Spark's Kafka source. Its figures are
checked against a direct computation from the very events it read (saved as ``events.jsonl``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from staticconsumer.events import from_json

from ..analytics import _reference as ref

pytestmark = pytest.mark.kafka
ROOT = Path(__file__).resolve().parents[2]


def _paused_ms_in_window(
    events: list[dict[str, Any]], group: str, window: list[int], end: int
) -> int:
    """Each revoke of a partition in ``window`` paired with the next assign of that partition by
    any member of the group (an assign at the same millisecond counts as after it)."""
    assigns: dict[tuple[str, int], list[int]] = defaultdict(list)
    for e in events:
        if e["group_id"] == group and e["type"] == "assigned":
            for tp in e["partitions"]:
                assigns[(tp["topic"], tp["partition"])].append(e["ts_ms"])
    total = 0
    for e in events:
        if e["group_id"] != group or e["type"] != "revoked":
            continue
        if not window[0] <= e["ts_ms"] <= window[1]:
            continue
        for tp in e["partitions"]:
            later = [t for t in assigns[(tp["topic"], tp["partition"])] if t >= e["ts_ms"]]
            total += (min(later) if later else end) - e["ts_ms"]
    return total


@pytest.fixture(scope="module")
def demo_report(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("demo-report")
    command = [
        sys.executable, "-m", "staticconsumer", "demo", "--report", "--json",
        "--bootstrap-servers", kafka_bootstrap, "--report-out", str(out), "--records", "1500",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"demo --report failed ({done.returncode}):\n{done.stderr[-4000:]}"
    doc: dict[str, Any] = json.loads(done.stdout)
    doc["_out"] = out
    return doc


def test_static_bounce_has_no_rebalance_dynamic_has(demo_report: dict[str, Any]) -> None:
    groups = demo_report["report"]["groups"]
    assert demo_report["ok"], demo_report
    assert groups["static"]["during_restart"]["rebalances"] == 0
    assert groups["static"]["during_restart"]["partitions_moved"] == 0
    assert groups["static"]["restarts_without_rebalance"] == 2  # the two restarted threads
    assert groups["dynamic"]["during_restart"]["rebalances"] > 0
    assert groups["dynamic"]["restarts_without_rebalance"] == 0
    # The demo's own view (status lines of the apps) tells the same story.
    assert demo_report["static"]["rebalances_seen"] == 0
    assert demo_report["dynamic"]["rebalances_seen"] > 0


def test_report_files_exist(demo_report: dict[str, Any]) -> None:
    html = Path(demo_report["report"]["html"])
    png = Path(demo_report["report"]["timeline_png"])
    assert html.is_file() and "<html" in html.read_text(encoding="utf-8").lower()
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    tables = Path(demo_report["report"]["tables"])
    assert any((tables / "rebalances").glob("*.parquet"))


def test_figures_agree_with_a_direct_computation(demo_report: dict[str, Any]) -> None:
    lines = (demo_report["_out"] / "events.jsonl").read_text(encoding="utf-8").splitlines()
    events = [from_json(line).to_dict() for line in lines]  # every record is a valid v1 event
    assert len(events) == demo_report["report"]["events_read"]
    end = demo_report["report"]["range_end_ms"]
    rebalances = ref.rebalances(ref.prepare(events, None, None))
    for mode in ("static", "dynamic"):
        figures = demo_report["report"]["groups"][mode]
        group, window = figures["group"], demo_report[mode]["restart_window_ms"]
        paused = _paused_ms_in_window(events, group, window, end)
        assert figures["during_restart"]["paused_partition_seconds"] == pytest.approx(
            paused / 1000, abs=0.001
        )
        assert figures["rebalances_whole_run"] == len(rebalances[group])
    # Static members pause only the restarted process's partitions, while it is away.
    static = demo_report["report"]["groups"]["static"]["during_restart"]
    assert static["paused_partition_seconds"] > 0
