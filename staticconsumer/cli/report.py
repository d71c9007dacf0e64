"""``staticconsumer report``: the command-line face of :mod:`staticconsumer.analytics`, through
its public names (the command line imports the report; the report never imports the command line).

Importing this module does not import pyspark, so the rest of the CLI works without the extra; the
command itself says which extra to install when pyspark or matplotlib is missing.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import analytics
from ..analytics import parse_time_ms, require_spark
from ..errors import ConfigurationError
from .security import add_cluster_options, security_from_args

if TYPE_CHECKING:
    from ..analytics import ReportResult

EXIT_OK, EXIT_FAILED = 0, 1
log = logging.getLogger(__name__)


def _conf(values: Sequence[str]) -> dict[str, str]:
    conf = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigurationError(f"--spark-conf takes key=value, got {item!r}")
        conf[key.strip()] = value.strip()
    return conf


def _summary(result: ReportResult) -> str:
    lines = []
    for group in sorted(result.groups.values(), key=lambda figures: figures.group_id):
        reasons = "; ".join(group.rebalance_reasons) or "-"
        lines.append(
            f"group {group.group_id}: {group.rebalances} rebalances (reasons: {reasons}), "
            f"{group.partitions_moved} partitions moved, "
            f"{group.paused_partition_seconds:.3f} paused partition-seconds, "
            f"{group.restarts} restarts ({group.restarts_without_rebalance} without rebalance), "
            f"{group.fencing_incidents} fencing incidents"
        )
    if not result.groups:
        lines.append("no membership events in the range read")
    lines.append(f"report: {result.report_html}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Entry point of ``staticconsumer report`` (``args`` from :func:`add_report_command`)."""
    since = parse_time_ms(args.since, field="--since") if args.since else None
    until = parse_time_ms(args.until, field="--until") if args.until else None
    if since is not None and until is not None and since >= until:
        raise ConfigurationError(f"--since ({args.since}) must be before --until ({args.until})")
    conf = _conf(args.spark_conf)
    security = security_from_args(args)
    try:
        require_spark()
    except ImportError as exc:
        print(f"staticconsumer: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    run_report, run_stream = analytics.run_report, analytics.run_stream

    logging.getLogger("py4j").setLevel(logging.WARNING)

    if args.stream:

        def show(result: ReportResult) -> None:
            sys.stdout.write(_summary(result))
            sys.stdout.flush()

        run_stream(
            args.bootstrap_servers, args.events_topic, args.out, since, until, args.master,
            trigger_seconds=args.trigger_seconds, spark_conf=conf, tables_uri=args.tables_uri,
            on_update=show, security=security,
        )  # fmt: skip
        return EXIT_OK
    result = run_report(
        args.bootstrap_servers, args.events_topic, args.out, since, until, args.master,
        spark_conf=conf, tables_uri=args.tables_uri, security=security,
    )  # fmt: skip
    sys.stdout.write(_summary(result))
    sys.stdout.flush()
    return EXIT_OK


def add_report_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``report`` on the ``staticconsumer`` command line."""
    report = commands.add_parser(
        "report",
        help="rebalance report from membership events, on Spark (needs the 'spark' extra)",
        description="Read StaticConsumer membership events (docs/membership-events.md) from a "
        "Kafka topic with PySpark and write Parquet tables (rebalances and their reasons, "
        "partitions moved, paused partition-seconds, restarts, fencing incidents, time without "
        "partitions per instance id), report.html and timeline.png under --out. Local Spark "
        "(local[2]) by default; --master for a cluster. See docs/analytics.md.",
    )
    add_cluster_options(report)
    report.add_argument("--events-topic", required=True, metavar="TOPIC", help="the events topic")
    report.add_argument("--out", required=True, metavar="DIR", help="output directory")
    report.add_argument(
        "--since", metavar="TIME",
        help="first event time included (ts_ms >= TIME): ISO-8601 (UTC if no offset) or epoch ms",
    )  # fmt: skip
    report.add_argument(
        "--until", metavar="TIME", help="end of the range, excluded (ts_ms < TIME); same formats"
    )
    report.add_argument(
        "--master", metavar="URL", help="Spark master (default local[2]), e.g. spark://host:7077"
    )
    report.add_argument(
        "--stream", action="store_true",
        help="keep the tables and report current with Structured Streaming until Ctrl-C",
    )  # fmt: skip
    report.add_argument(
        "--trigger-seconds", type=float, default=30.0, metavar="S",
        help="with --stream: how often to update (default 30)",
    )  # fmt: skip
    report.add_argument(
        "--tables-uri", metavar="URI",
        help="where the Parquet tables (and the stream's checkpoint) go; default DIR/tables. "
        "On a cluster use shared storage (hdfs://, s3a://)",
    )  # fmt: skip
    report.add_argument(
        "--spark-conf", action="append", default=[], metavar="KEY=VALUE",
        help="extra Spark setting, repeatable (e.g. spark.executor.memory=4g)",
    )  # fmt: skip
    report.set_defaults(run=run)
