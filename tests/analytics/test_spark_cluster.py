"""The report on a Spark standalone cluster (a master and two workers on 127.0.0.1) gives the same
tables as local mode, on the same events read from the real test broker."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from staticconsumer.analytics import TABLE_NAMES, run_report

from ._spark_cluster import SparkStandalone
from .test_kafka_report import _dynamic_bounce, _produce, _static_bounce

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkStandalone]:
    cluster = SparkStandalone(tmp_path_factory.mktemp("spark-standalone"), workers=2)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def _report(bootstrap: str, topic: str, out: Path, *extra: str) -> str:
    """``staticconsumer report`` as a user runs it; returns its summary (stdout)."""
    done = subprocess.run(
        [sys.executable, "-m", "staticconsumer", "report", "--bootstrap-servers", bootstrap,
         "--events-topic", topic, "--out", str(out), *extra],
        env=SparkStandalone.environment(), capture_output=True, text=True, timeout=600,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"report {extra} exited {done.returncode}\n{done.stderr[-4000:]}"
    return done.stdout


def _rows(spark: Any, directory: Path) -> list[str]:
    return sorted(repr(row.asDict()) for row in spark.read.parquet(str(directory)).collect())


def test_cluster_report_gives_the_local_tables(
    spark: Any,
    spark_cluster: SparkStandalone,
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
) -> None:
    topic = topic_factory(partitions=2)
    asyncio.run(_produce(kafka_bootstrap, topic, _static_bounce() + _dynamic_bounce()))
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    run_report(kafka_bootstrap, topic, local, spark=spark)  # local mode: the session fixture
    _report(
        kafka_bootstrap, topic, cluster, "--master", spark_cluster.master_url,
        "--spark-conf", "spark.executor.memory=512m", "--spark-conf", "spark.executor.cores=1",
        "--spark-conf", "spark.cores.max=2", "--spark-conf", "spark.sql.shuffle.partitions=4",
    )  # fmt: skip
    # The cluster really ran it: each worker launched an executor for the report.
    for n in range(spark_cluster.workers):
        assert list(spark_cluster.work_dir(n).glob("app-*/*/stderr")), f"worker {n} ran nothing"
    compared = 0
    for name in TABLE_NAMES:
        rows = _rows(spark, local / "tables" / name)
        assert _rows(spark, cluster / "tables" / name) == rows, name
        compared += len(rows)
    assert compared > 10, "the tables are not empty"
