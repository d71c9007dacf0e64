"""A small Streams-like application on StaticConsumer: N stream threads in one process.

Each stream thread is its own consumer (an asyncio task) in one consumer group, subscribed to the
input topic, with ``group.instance.id = InstanceId.for_thread(--instance-base, n)`` (none with
``--dynamic``). It keeps per-key running aggregates (count and sum) per input partition in a
sqlite file under ``--state-dir/<base>-thread-<n>/``, writes every change to a compacted
changelog topic and the new aggregates to the output topic. See ``stream_thread.py`` for why the
aggregates stay exact across restarts and rebalances.

It ships inside the package (``staticconsumer demo`` runs it from an installed wheel), so it
runs from anywhere::

    python -m staticconsumer.streams_app --bootstrap-servers 127.0.0.1:9092 --group agg \\
        --instance-base app-0 --threads 2 --state-dir /tmp/agg-state \\
        --input-topic in --output-topic out --changelog-topic agg-changelog

(``python -m examples.streams_app`` from the repository root runs the same code.)

``--health-port`` serves one Kubernetes readiness/liveness endpoint for all the stream threads
(:class:`staticconsumer.HealthServer`): ready while every thread is a member of the group, live
while none is fenced or failed (``docs/kubernetes.md``).

Logs go to stderr; status goes to stdout as JSON lines (see ``status.py``). SIGTERM or SIGINT
stops it cleanly: the last batch is committed and static members do not leave the group, so a
restart within ``--session-timeout-ms`` gets the same partitions and reuses their state.
Exit status: 0 after a clean stop, 1 when a stream thread failed, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from aiokafka import AIOKafkaProducer

from staticconsumer import HealthServer, StaticConsumer

from .config import GROUP_PROTOCOLS, AppConfig
from .status import emit
from .stream_thread import StreamThread

log = logging.getLogger(__name__)
STATUS_INTERVAL_S = 1.0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m staticconsumer.streams_app",
        description="Per-key running count and sum, one consumer per stream thread, local "
        "sqlite state per partition plus a compacted changelog topic.",
    )
    arg = parser.add_argument
    arg("--bootstrap-servers", required=True, metavar="HOST:PORT[,...]")
    arg("--group", required=True, help="consumer group id (Java group.id)")
    arg("--instance-base", required=True, help="thread n is <base>-thread-<n> (group.instance.id)")
    arg("--threads", type=int, default=2, help="stream threads (consumers) in this process")
    arg("--state-dir", required=True, type=Path, help="where the sqlite state files live")
    arg("--input-topic", required=True)
    arg("--output-topic", required=True)
    arg("--changelog-topic", required=True, help="compacted, as many partitions as the input")
    arg("--dynamic", action="store_true", help="no group.instance.id: plain dynamic members")
    arg("--group-protocol", choices=GROUP_PROTOCOLS, default="classic",
        help="classic, consumer (KIP-848) or streams (a streams group, KIP-1071; thread n is "
        "<base>-<n>, n from 1)")  # fmt: skip
    arg("--session-timeout-ms", type=int, default=30_000, help="Java session.timeout.ms")
    arg("--heartbeat-interval-ms", type=int, default=1_000, help="Java heartbeat.interval.ms")
    arg("--events-topic", default=None, help="passed to StaticConsumer(events_topic=...)")
    arg("--parent-pid", type=int, default=None, help="stop when this process is gone")
    arg(
        "--health-port",
        type=int,
        default=None,
        help="serve /readyz and /livez for all stream threads on this port (0: a free one)",
    )
    arg(
        "--health-host",
        default=None,
        help="where --health-port listens (default: every interface, IPv6 and IPv4)",
    )
    return parser


def events_topic_supported() -> bool:
    return "events_topic" in inspect.signature(StaticConsumer.__init__).parameters


async def run(config: AppConfig, parent_pid: int | None = None) -> int:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    producer = AIOKafkaProducer(
        bootstrap_servers=config.bootstrap_servers,
        client_id=f"{config.instance_base}-producer",
        acks="all",
        enable_idempotence=True,
        linger_ms=5,
    )
    threads = [StreamThread(n, config, producer) for n in range(config.threads)]
    async with contextlib.AsyncExitStack() as scope:
        health = await _health(config, threads, scope)  # first: probes answer while joining
        await producer.start()
        where = {"health": list(health.address)} if health and health.address else {}
        emit(
            "started",
            mode="dynamic" if config.dynamic else "static",
            group=config.group,
            threads=[t.name for t in threads],
            **where,
        )
        return await _run_threads(threads, producer, stopping, parent_pid)


async def _health(
    config: AppConfig, threads: list[StreamThread], scope: contextlib.AsyncExitStack
) -> HealthServer | None:
    """One health endpoint for every stream thread, closed when ``scope`` ends."""
    if config.health_port is None:
        return None
    health = await scope.enter_async_context(
        HealthServer(port=config.health_port, host=config.health_host)
    )
    for thread in threads:
        health.register(thread.consumer)
    return health


async def _run_threads(
    threads: list[StreamThread], producer: AIOKafkaProducer, stopping: asyncio.Event,
    parent_pid: int | None,
) -> int:  # fmt: skip
    tasks = [asyncio.create_task(t.run(stopping), name=t.name) for t in threads]
    reporter = asyncio.create_task(_report(threads, stopping, parent_pid))
    errors: list[str] = []
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        stopping.set()  # one thread failed (or all stopped): stop the others too
        for thread, outcome in zip(
            threads, await asyncio.gather(*tasks, return_exceptions=True), strict=True
        ):
            if isinstance(outcome, BaseException):
                log.error("%s failed: %r", thread.name, outcome)
                errors.append(f"{thread.name}: {outcome!r}")
    finally:
        reporter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reporter
        await producer.stop()
    emit("stopped", threads=[t.stats.to_dict() for t in threads], errors=errors)
    return 1 if errors else 0


async def _report(threads: list[StreamThread], stopping: asyncio.Event, parent: int | None) -> None:
    while not stopping.is_set():
        for thread in threads:
            thread.note_generation()
        emit("status", threads=[t.stats.to_dict() for t in threads])
        if parent is not None and os.getppid() != parent:
            log.warning("parent process %d is gone: stopping", parent)
            stopping.set()
        if any(t.consumer.streams is not None and t.consumer.streams.shutdown_requested
               for t in threads):  # fmt: skip
            log.warning("the streams group asked the whole application to shut down "
                        "(SHUTDOWN_APPLICATION): stopping")  # fmt: skip
            emit("shutdown_requested")
            stopping.set()
        await asyncio.sleep(STATUS_INTERVAL_S)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    try:
        config = AppConfig(
            bootstrap_servers=args.bootstrap_servers,
            group=args.group,
            instance_base=args.instance_base,
            threads=args.threads,
            state_dir=args.state_dir,
            input_topic=args.input_topic,
            output_topic=args.output_topic,
            changelog_topic=args.changelog_topic,
            dynamic=args.dynamic,
            session_timeout_ms=args.session_timeout_ms,
            heartbeat_interval_ms=args.heartbeat_interval_ms,
            events_topic=args.events_topic,
            health_port=args.health_port,
            health_host=args.health_host,
            group_protocol=args.group_protocol,
        )
    except ValueError as exc:
        parser.error(str(exc))
    if config.events_topic is not None and not events_topic_supported():
        parser.error(
            "--events-topic needs a StaticConsumer with the events_topic= option "
            "(membership events, docs/membership-events.md); this staticconsumer has none"
        )
    return asyncio.run(run(config, args.parent_pid))


if __name__ == "__main__":
    sys.exit(main())
