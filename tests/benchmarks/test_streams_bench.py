"""``benchmarks/streams_bench.py --quick`` on the test broker: Java's Kafka Streams 4.4 and our
Streams-like app run the same scenario on a streams group, and the printed figures are present
and sane. No timing is asserted (a shared machine is noisy): only what must hold on any machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.timeout(600)]
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "streams_bench.py"
ROWS = (
    "restart to every thread processing (s, mean)",
    "tasks moved, rolling restart",
    "tasks moved, scale-up 2 -> 3 processes",
    "records per CPU second",
    "peak RSS per thread (MB)",
)


def test_quick_run_prints_both_sides_and_every_record_counted(kafka_bootstrap: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--json", "--bootstrap-servers", kafka_bootstrap],
        capture_output=True, text=True, timeout=540, check=False, cwd=BENCH.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.splitlines()
    for row in ROWS:
        assert any(line.startswith(row) for line in lines), (row, done.stdout)
    figures: dict[str, dict[str, Any]] = json.loads(lines[-1])
    assert set(figures) == {"Java", "ours"}
    for side, f in figures.items():
        assert f["workload_records"] == 10_000 and f["records_per_cpu_s"] > 0, side
        assert f["produced"] > f["workload_records"], side  # records arrived during the restarts
        assert f["exact_keys"] == f["keys"] > 0, f"{side}: a key's count or sum is off"
        assert f["counted"] == f["produced"], f"{side}: every record counted once"
        assert len(f["restart_to_all_threads_processing_s"]) == 2, side
        assert f["peak_rss_mb_per_thread"] > 0, side
        assert f["scaleup_moves"] >= 1, f"{side}: the new process got no task"
    assert figures["ours"]["rolling_moves"] == 0, "a static rolling restart moved a task"
    assert figures["ours"]["rolling_epoch_bump"] == 0, "a static rolling restart bumped the epoch"
