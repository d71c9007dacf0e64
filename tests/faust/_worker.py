"""A faust app as users write one, run by faust's own worker (``app.main()``: the ``worker``
command): an agent counting records per key in a ``Table``. It appends what happened as JSON
lines to the ``--events`` file for ``_harness`` to read (faust sends stdout to its log):

* ``assigned``: after each rebalance, the generation, the topic partitions and the tables'
  actives and standbys (faust's ``app.assignor``);
* ``record``: each record the agent handled (partition, offset);
* ``restored``: each changelog record recovery applied to an active table partition
  (``on_changelog_event``); ``replayed``: one applied to a standby.

``--kind static``: ``staticconsumer.faust.StaticApp`` (the one-line change); ``--kind plain``:
``faust.App`` with ``consumer_group_instance_id`` (aiokafka's membership underneath).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import faust

from staticconsumer import StaticConsumer
from staticconsumer.faust import StaticApp

EVENTS: list[Any] = []


def emit(**event: Any) -> None:
    out = EVENTS[0]
    out.write(json.dumps({**event, "t": time.monotonic()}) + "\n")
    out.flush()


def _tps(tps: Any) -> list[list[Any]]:
    return sorted([tp.topic, tp.partition] for tp in tps)


def build(args: argparse.Namespace) -> faust.App:
    settings: dict[str, Any] = {
        "broker": f"kafka://{args.bootstrap}",
        "store": args.store,
        "datadir": args.datadir,
        "web_port": args.web_port,
        "web_host": "127.0.0.1",
        "canonical_url": f"http://127.0.0.1:{args.web_port}",
        "table_standby_replicas": args.standbys,
        "topic_partitions": args.partitions,
        "broker_session_timeout": args.session_timeout_s,
        "broker_heartbeat_interval": 1.0,
        "consumer_auto_offset_reset": "earliest",
        "broker_commit_every": 1,
        "topic_replication_factor": 1,
    }
    if args.kind == "static":
        app: faust.App = StaticApp(args.group, instance_id=args.instance_id, **settings)
    else:
        app = faust.App(args.group, consumer_group_instance_id=args.instance_id, **settings)

    async def restored(event: Any) -> None:
        """Recovery applied a changelog record: to an active table partition (a restore) or
        to a standby (its replay of the changelog, all along)."""
        active = app.assignor.is_active(event.message.tp)
        emit(ev="restored" if active else "replayed", partition=event.message.partition,
             offset=event.message.offset)  # fmt: skip

    topic = app.topic(args.topic, key_type=str, value_type=str, partitions=args.partitions)
    counts = app.Table("counts", default=int, partitions=args.partitions,
                       on_changelog_event=restored)  # fmt: skip

    @app.agent(topic)
    async def count(stream: Any) -> None:
        async for event in stream.events():
            counts[event.key] += 1
            if slowed():
                await asyncio.sleep(SLOW_RECORD_S)
            emit(ev="record", partition=event.message.partition, offset=event.message.offset)

    @app.on_partitions_assigned.connect
    async def on_assigned(sender: Any, assigned: Any, **kwargs: Any) -> None:
        emit(ev="assigned", generation=app.consumer_generation_id, partitions=_tps(assigned),
             actives=_tps(app.assignor.assigned_actives()),
             standbys=_tps(app.assignor.assigned_standbys()))  # fmt: skip

    return app


def slow_down(flag: Path) -> None:
    """While ``flag`` exists, this worker's agent takes :data:`SLOW_RECORD_S` per record (so a
    record is nearly always being handled, acknowledged only after, when the fence lands), and a
    fatal consumer's stop in the consumer thread takes :data:`SLOW_STOP_S` (after faust's method
    queue has stopped: the window in which a call sent to the thread was never answered). The
    window of issue 52, made deterministic: the app's stop commits that record then."""
    stop = StaticConsumer.stop

    async def slow_stop(self: StaticConsumer) -> None:
        if slowed() and self.fatal_error is not None:
            emit(ev="slow-stop")
            await asyncio.sleep(SLOW_STOP_S)
        await stop(self)

    StaticConsumer.stop = slow_stop  # type: ignore[method-assign]  # this worker process only
    SLOW.append(flag)


SLOW: list[Path] = []


def slowed() -> bool:
    return bool(SLOW) and SLOW[0].exists()


SLOW_RECORD_S = 0.3
SLOW_STOP_S = 8.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", choices=["static", "plain"], default="static")
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--instance-id", required=True)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--standbys", type=int, default=1)
    parser.add_argument("--store", default="rocksdb://")
    parser.add_argument("--datadir", required=True)
    parser.add_argument("--web-port", type=int, required=True)
    parser.add_argument("--session-timeout-s", type=float, default=30.0)
    parser.add_argument("--events", required=True)
    parser.add_argument(
        "--slow-down",
        type=Path,
        default=None,
        help="while this file exists, slow the agent and a fatal stop down",
    )
    args = parser.parse_args()
    if args.slow_down is not None:
        slow_down(args.slow_down)
    EVENTS.append(open(args.events, "a", buffering=1))
    emit(ev="started")
    app = build(args)
    sys.argv = [sys.argv[0], "worker", "--loglevel", "info", "--without-web"]
    app.main()


if __name__ == "__main__":
    main()
