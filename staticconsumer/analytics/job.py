"""The report job: Kafka (batch or streaming) -> events -> Parquet tables -> HTML + PNG.

Batch: :func:`run_report` reads the events topic from the earliest to the latest offsets, keeps the
events with ``since <= ts_ms < until``, de-duplicates them on ``event_id``, writes every table of
:data:`.tables.TABLE_NAMES` as Parquet and renders the report. Only the aggregated tables are
collected to the driver, and only a bounded number of rows of each.

Streaming: :func:`run_stream` follows the topic with Structured Streaming. Each micro-batch appends
the raw records to ``<tables>/_stream/values`` (Parquet), then recomputes the tables and the report
from everything stored, so they always equal what the batch job would give for the same records.
The checkpoint lives in ``<tables>/_stream/checkpoint``; restarting with the same ``--out`` resumes.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ..security import SecuritySettings
from ._kafka_options import spark_options
from ._result import GroupFigures, ReportResult
from ._time import format_ms
from .report import ReportData, plotted_groups, render_html, render_timeline_png
from .schema import deduplicate, in_range, input_counts, parse_records, valid_events
from .session import build_session
from .tables import TABLE_NAMES, compute_tables

log = logging.getLogger(__name__)

#: Rows of each table shown in the HTML (the Parquet tables are complete).
HTML_ROWS = 200
#: Timeline points collected for the PNG (of the groups plotted).
TIMELINE_POINTS = 50_000


def read_kafka(
    spark: SparkSession, bootstrap_servers: str, topic: str,
    security: SecuritySettings | None = None,
) -> DataFrame:  # fmt: skip
    """The events topic from the earliest to the latest offsets, as Spark's Kafka source gives."""
    return (
        spark.read.format("kafka")
        .options(**spark_options(security))
        .option("kafka.bootstrap.servers", bootstrap_servers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("endingOffsets", "latest")
        .option("failOnDataLoss", "false")
        .load()
    )


def _uri(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *parts])


def _rows(frame: DataFrame) -> list[dict[str, Any]]:
    return [row.asDict(recursive=True) for row in frame.collect()]


def _figures(row: Mapping[str, Any]) -> GroupFigures:
    return GroupFigures(
        group_id=str(row["group_id"]),
        events=int(row["events"]),
        first_ms=int(row["first_ms"]),
        last_ms=int(row["last_ms"]),
        instances=int(row["instances"]),
        members=int(row["members"]),
        generations=int(row["generations"]),
        rebalances=int(row["rebalances"]),
        partitions_moved=int(row["partitions_moved"]),
        revocations=int(row["revocations"]),
        restarts=int(row["restarts"]),
        restarts_without_rebalance=int(row["restarts_without_rebalance"]),
        fencing_incidents=int(row["fencing_incidents"]),
        paused_partition_seconds=float(row["paused_partition_seconds"]),
        rebalance_reasons=tuple(row["rebalance_reasons"] or ()),
    )


def _report_data(
    spark: SparkSession, tables: Mapping[str, str], title: str, range_end_ms: int,
    facts: dict[str, str],
) -> ReportData:  # fmt: skip
    def table(name: str) -> DataFrame:
        return spark.read.parquet(tables[name])

    groups = _rows(table("groups").orderBy("group_id"))
    shown = plotted_groups(groups)
    timeline = table("timeline").where(F.col("group_id").isin(shown))
    points = _rows(timeline.orderBy("ts_ms").limit(TIMELINE_POINTS + 1))
    notes = []
    if len(points) > TIMELINE_POINTS:
        points = points[:TIMELINE_POINTS]
        notes.append(f"the timeline shows the first {TIMELINE_POINTS} assignment changes only")
    if len(groups) > len(shown):
        notes.append(f"the timeline shows the {len(shown)} groups with the most events")
    latest = F.desc("ts_ms")
    return ReportData(
        title=title,
        groups=groups,
        rebalances=_rows(table("rebalances").orderBy(latest).limit(HTML_ROWS)),
        timeline=points,
        fencing=_rows(table("fencing").orderBy(latest).limit(HTML_ROWS)),
        restarts=_rows(table("restarts").orderBy(latest).limit(HTML_ROWS)),
        instances=_rows(
            table("instances")
            .orderBy(F.desc("restarts"), F.desc("time_without_partitions_ms"))
            .limit(HTML_ROWS)
        ),
        range_end_ms=range_end_ms,
        facts=facts,
        notes=notes,
    )


def analyse(
    spark: SparkSession,
    values: DataFrame,
    out: Path,
    *,
    since_ms: int | None = None,
    until_ms: int | None = None,
    tables_uri: str | None = None,
    title: str = "Consumer group membership report",
    source: str = "",
) -> ReportResult:
    """Compute, write and render everything from ``values`` (a DataFrame with a ``value`` column
    holding the JSON records, as Spark's Kafka source or a Parquet copy of it gives)."""
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    base = tables_uri or out.joinpath("tables").resolve().as_uri()
    # The source (Kafka) is read once: parsed records are kept until the events are materialised.
    records = parse_records(values).persist(StorageLevel.MEMORY_AND_DISK)
    events = deduplicate(in_range(valid_events(records), since_ms, until_ms))
    events = events.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        counts = input_counts(records).first()
        read, valid, distinct = (int(counts[i] or 0) for i in range(3)) if counts else (0, 0, 0)
        log.info("read %d records: %d membership events, %d distinct", read, valid, distinct)
        newest = events.agg(F.count(F.lit(1)), F.max("ts_ms")).first()
        records.unpersist()
        in_range_count = int(newest[0]) if newest else 0
        newest_ms = int(newest[1]) if newest and newest[1] is not None else None
        range_end_ms = until_ms if until_ms is not None else (newest_ms or since_ms or 0)
        tables = {name: _uri(base, name) for name in TABLE_NAMES}
        written: list[str] = []

        def write(name: str, frame: DataFrame) -> DataFrame:
            written.append(name)
            log.info("writing table %d/%d: %s", len(written), len(tables), name)
            frame.write.mode("overwrite").parquet(tables[name])
            return spark.read.parquet(tables[name])

        compute_tables(events, range_end_ms, write)
    finally:
        records.unpersist()
        events.unpersist()
    facts = {
        "source": source or "DataFrame",
        "time range": f"{format_ms(since_ms) if since_ms is not None else 'start'} .. "
        f"{format_ms(until_ms) if until_ms is not None else 'end'} (UTC, on ts_ms)",
        "open pauses closed at": format_ms(range_end_ms),
        "records read": str(read),
        "membership events (schema v1)": str(valid),
        "duplicates dropped": str(valid - distinct),
        "events in range": str(in_range_count),
        "tables": base,
    }
    data = _report_data(spark, tables, title, range_end_ms, facts)
    png = render_timeline_png(data)
    (out / "timeline.png").write_bytes(png)
    (out / "report.html").write_text(render_html(data, png), encoding="utf-8")
    log.info("report written to %s in %.1f s", out / "report.html", time.monotonic() - started)
    return ReportResult(
        out=out,
        report_html=out / "report.html",
        timeline_png=out / "timeline.png",
        tables=tables,
        groups={row["group_id"]: _figures(row) for row in data.groups},
        records_read=read,
        valid_events=valid,
        duplicates=valid - distinct,
        events_in_range=in_range_count,
        since_ms=since_ms,
        until_ms=until_ms,
        range_end_ms=range_end_ms,
    )


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """SIGINT/SIGTERM set an event instead of raising inside a py4j call.

    PySpark's own SIGINT handler calls into the JVM while the main thread is blocked in another
    py4j call (``awaitTermination``), which breaks the connection; so while streaming, a signal only
    sets the event and the loop stops the query between one-second waits.
    """
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _Session:
    """Use the caller's (or the process's active) SparkSession, else build one and stop it."""

    def __init__(
        self, spark: SparkSession | None, master: str | None, conf: Mapping[str, str] | None
    ) -> None:
        self._given = spark or SparkSession.getActiveSession()
        self._master = master
        self._conf = conf
        self._built: SparkSession | None = None

    def __enter__(self) -> SparkSession:
        if self._given is not None:
            return self._given
        self._built = build_session(self._master, conf=self._conf)
        return self._built

    def __exit__(self, *exc: object) -> None:
        if self._built is not None:
            self._built.stop()


def run_report(
    bootstrap_servers: str,
    topic: str,
    out: str | Path,
    since: int | None = None,
    until: int | None = None,
    master: str | None = None,
    *,
    spark: SparkSession | None = None,
    spark_conf: Mapping[str, str] | None = None,
    tables_uri: str | None = None,
    security: SecuritySettings | None = None,
) -> ReportResult:
    """Batch report over ``since <= ts_ms < until`` (epoch ms; ``None`` leaves a side open).

    Uses ``spark`` (or the process's active session) when given, else starts Spark on ``master``
    (default ``local[2]``) and stops it at the end. Writes ``<out>/tables/<name>`` (or under
    ``tables_uri``), ``<out>/report.html`` and ``<out>/timeline.png``. ``security``: the
    cluster's TLS/SASL settings (:class:`~staticconsumer.security.SecuritySettings`).
    """
    with _Session(spark, master, spark_conf) as session:
        log.info("reading %s from %s", topic, bootstrap_servers)
        values = read_kafka(session, bootstrap_servers, topic, security)
        return analyse(
            session, values, Path(out), since_ms=since, until_ms=until, tables_uri=tables_uri,
            source=f"Kafka topic {topic} at {bootstrap_servers}",
        )  # fmt: skip


def run_stream(
    bootstrap_servers: str,
    topic: str,
    out: str | Path,
    since: int | None = None,
    until: int | None = None,
    master: str | None = None,
    *,
    trigger_seconds: float = 30.0,
    available_now: bool = False,
    spark: SparkSession | None = None,
    spark_conf: Mapping[str, str] | None = None,
    tables_uri: str | None = None,
    on_update: Callable[[ReportResult], None] | None = None,
    security: SecuritySettings | None = None,
) -> ReportResult | None:
    """Keep the tables and the report current as events arrive (Structured Streaming).

    Runs until interrupted (Ctrl-C stops the query cleanly), or, with ``available_now``, until
    the records present at the start are processed. Returns the last result (None if no batch ran).
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = tables_uri or out_dir.joinpath("tables").resolve().as_uri()
    store, checkpoint = _uri(base, "_stream", "values"), _uri(base, "_stream", "checkpoint")
    latest: list[ReportResult] = []

    with _Session(spark, master, spark_conf) as session:

        def on_batch(batch: DataFrame, batch_id: int) -> None:
            batch.select(F.col("value").cast("string").alias("value"), "partition", "offset") \
                .write.mode("append").parquet(store)  # fmt: skip
            log.info("micro-batch %d stored; recomputing the report", batch_id)
            result = analyse(
                session, session.read.parquet(store), out_dir, since_ms=since, until_ms=until,
                tables_uri=base, source=f"Kafka topic {topic} at {bootstrap_servers} (streaming)",
            )  # fmt: skip
            latest[:] = [result]
            if on_update is not None:
                on_update(result)

        stream = (
            session.readStream.format("kafka")
            .options(**spark_options(security))
            .option("kafka.bootstrap.servers", bootstrap_servers)
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("failOnDataLoss", "false")
            .load()
        )
        writer = stream.writeStream.foreachBatch(on_batch).option("checkpointLocation", checkpoint)
        if available_now:
            writer = writer.trigger(availableNow=True)
        else:
            writer = writer.trigger(processingTime=f"{trigger_seconds} seconds")
        query = writer.start()
        log.info("streaming %s every %.0f s; Ctrl-C stops", topic, trigger_seconds)
        with _stop_on_signals() as stop:
            try:
                while not stop.is_set() and not query.awaitTermination(1):
                    pass
            finally:
                if stop.is_set():
                    log.info("stopping the stream")
                query.stop()
    return latest[0] if latest else None
