"""``staticconsumer demo``: a rolling restart of a stateful Streams-like app, static vs dynamic.

It starts a local Apache Kafka (unless ``--bootstrap-server`` or ``KAFKA_BOOTSTRAP_SERVERS``
names one), runs two processes of :mod:`staticconsumer.streams_app` (two stream threads each, one
``StaticConsumer`` per thread with ``group.instance.id = <base>-thread-<n>``), restarts one of
them while data keeps arriving, and prints what happened: generation and partitions per instance
id before and after, rebalances, state reused vs restored from the changelog, and a check of the
final aggregates against a reference computed from the input. ``--dynamic`` runs the same
scenario without instance ids. Progress goes to stderr, the summary to stdout. Exit status 0 when
the check passes, 1 when it fails or the scenario could not run.

The scenario itself is in :mod:`._scenario`; the app processes in :mod:`._apps`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError

#: For the broker the demo starts itself: the first rebalance at once, a small offsets topic.
DEMO_BROKER_CONFIG = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "4",
    # --protocol streams: assign at once, and one standby per task (KIP-1071)
    "group.streams.initial.rebalance.delay.ms": "0",
    "group.streams.num.standby.replicas": "1",
}
EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
DESCRIPTION = (
    "Start a local Apache Kafka (unless --bootstrap-server or KAFKA_BOOTSTRAP_SERVERS names "
    "one), run 2 processes x 2 stream threads of the Streams-like example app (one "
    "StaticConsumer per thread, group.instance.id <base>-thread-<n>), restart one process while "
    "data keeps arriving, and print: generation and partitions per instance id before and after, "
    "rebalances seen, state reused vs restored from the changelog, and a check of the final "
    "aggregates against a reference computed from the input. --dynamic: the same without "
    "instance ids. Progress on stderr, summary on stdout; exit 1 when the check fails."
)


class _Progress:
    def __init__(self) -> None:
        self.started = time.monotonic()

    def __call__(self, message: str) -> None:
        print(f"[{time.monotonic() - self.started:6.1f}s] {message}", file=sys.stderr, flush=True)


def add_demo_command(commands: Any) -> None:
    """Register ``demo`` on the CLI's sub-command parsers."""
    demo = commands.add_parser(
        "demo",
        help="rolling restart of a stateful Streams-like app: static vs dynamic membership",
        description=DESCRIPTION,
    )
    demo.add_argument("--dynamic", action="store_true", help="no group.instance.id (KIP-345 off)")
    demo.add_argument(
        "--protocol", choices=("classic", "consumer", "streams"), default="classic",
        help="the stream threads' group protocol: classic (default), consumer (KIP-848) or "
        "streams (a streams group, KIP-1071: the broker assigns tasks and creates the changelog; "
        "Kafka 4.4+ for static threads)",
    )  # fmt: skip
    demo.add_argument("--json", action="store_true", help="print the summary as one JSON document")
    demo.add_argument(
        "--bootstrap-server",
        "--bootstrap-servers",
        dest="bootstrap_servers",
        default=None,
        metavar="HOST:PORT[,...]",
        help="use this cluster (default: $KAFKA_BOOTSTRAP_SERVERS, else start a local Kafka)",
    )
    demo.add_argument(
        "--events-topic",
        default=None,
        help="passed to each StaticConsumer as events_topic= (membership events)",
    )
    demo.add_argument(
        "--records",
        type=int,
        default=3000,
        help="records produced before the restart, and again during it (default 3000)",
    )
    demo.add_argument(
        "--session-timeout-ms",
        type=int,
        default=None,
        help="the apps' session.timeout.ms (default 20000 static, 10000 dynamic)",
    )
    demo.add_argument(
        "--restart-pause",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="time between stopping the process and starting it again (default 3)",
    )
    demo.add_argument(
        "--report",
        action="store_true",
        help="run the static and the --dynamic scenario, both publishing membership events, then "
        "the Spark report on them side by side (needs the 'spark' extra)",
    )
    demo.add_argument(
        "--report-out",
        type=Path,
        default=Path("staticconsumer-demo-report"),
        metavar="DIR",
        help="with --report: where report.html, timeline.png, the Parquet tables and "
        "events.jsonl go (default ./staticconsumer-demo-report)",
    )
    demo.set_defaults(run=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from ..localkafka import ExternalCluster, cluster_from_environment, delete_topics
    from . import _report
    from ._scenario import DemoOptions, run_scenario
    from ._summary import render_text

    if args.records < 1:
        raise ConfigurationError(f"--records must be at least 1, got {args.records}")
    if args.restart_pause < 0:
        raise ConfigurationError(f"--restart-pause must be >= 0, got {args.restart_pause}")
    if args.events_topic is not None:
        import inspect

        from .. import StaticConsumer

        if "events_topic" not in inspect.signature(StaticConsumer.__init__).parameters:
            raise ConfigurationError(
                "--events-topic needs a StaticConsumer with the events_topic= option "
                "(membership events, docs/membership-events.md); this staticconsumer has none"
            )
    if args.report:
        from ..analytics import require_spark

        try:
            require_spark()
        except ImportError as exc:
            raise ConfigurationError(f"--report: {exc}") from None
        if args.dynamic:
            raise ConfigurationError("--report runs both the static and the dynamic scenario; "
                                     "drop --dynamic")  # fmt: skip
    events_topic = args.events_topic
    if args.report and events_topic is None:
        events_topic = f"scdemo-events-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    modes = (False, True) if args.report else (args.dynamic,)
    runs = [
        DemoOptions(
            dynamic=dynamic,
            records=args.records,
            session_timeout_ms=args.session_timeout_ms,
            events_topic=events_topic,
            restart_pause_s=args.restart_pause,
            protocol=args.protocol,
        )
        for dynamic in modes
    ]
    say = _Progress()
    cluster = (
        ExternalCluster(args.bootstrap_servers)
        if args.bootstrap_servers
        else cluster_from_environment(1, broker_config=DEMO_BROKER_CONFIG)
    )
    shared = isinstance(cluster, ExternalCluster)
    workdir = Path(tempfile.mkdtemp(prefix="staticconsumer-demo-"))
    try:
        if not shared:
            say("starting a local Apache Kafka (stopped and removed at the end)")
        cluster.start()
        bootstrap = cluster.bootstrap_servers
        summaries: list[dict[str, Any]] = []
        report: dict[str, Any] | None = None
        if args.report:
            asyncio.run(_report.create_events_topic(bootstrap, str(events_topic)))
        try:
            for options in runs:
                say(f"Kafka at {bootstrap}; {options.mode} membership")
                rundir = workdir / options.mode
                rundir.mkdir()
                scenario = run_scenario(bootstrap, options, rundir, say, shared_cluster=shared)
                summaries.append(asyncio.run(_with_sigterm(scenario)))
            if args.report:
                out = args.report_out.resolve()
                out.mkdir(parents=True, exist_ok=True)
                saved = asyncio.run(
                    _report.save_events(bootstrap, str(events_topic), out / "events.jsonl")
                )
                say(f"{saved} membership events saved to {out / 'events.jsonl'}")
                report = _report.build_report(
                    bootstrap, str(events_topic), out, {s["mode"]: s for s in summaries}, say
                )
        finally:
            if args.report and shared and args.events_topic is None:
                asyncio.run(delete_topics(bootstrap, [str(events_topic)]))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("staticconsumer demo: interrupted; cleaned up", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        cluster.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    ok = all(s["ok"] for s in summaries)
    if args.json:
        doc: dict[str, Any] = summaries[0] if len(summaries) == 1 else {
            "ok": ok, **{s["mode"]: s for s in summaries}
        }  # fmt: skip
        if report is not None:
            doc["report"] = report
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write("\n".join(render_text(s) for s in summaries))
        if report is not None:
            sys.stdout.write("\n" + _report.render_side_by_side(report))
    sys.stdout.flush()
    return EXIT_OK if ok else EXIT_FAILED


async def _with_sigterm(work: Any) -> Any:
    """Run ``work``; SIGTERM cancels it, so its cleanup (stopping the apps) still runs."""
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
