"""A FastStream service as users write one, run by FastStream's own runner (``app.run()``): two
subscribers in one group, one per topic. Each prints what happened as JSON lines on stdout
(``assigned``/``revoked`` from a rebalance listener, ``record`` per handled record) for
``_scenario`` to read; logs go to stderr.

``--kind static``: ``StaticKafkaBroker`` (the one-line change); ``--kind plain``: FastStream's
``KafkaBroker`` with ``group_instance_id`` set per subscriber (``<base>-<topic>``), aiokafka's
membership underneath. The second subscriber is a batch subscriber with manual acks
(``AckPolicy.MANUAL``: the handler commits)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from aiokafka.abc import ConsumerRebalanceListener
from faststream import AckPolicy, FastStream
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage

from staticconsumer.drivers.driver import Driver
from staticconsumer.faststream import StaticKafkaBroker
from staticconsumer.protocol import ApiKey

#: FastStream's own lines go through logging (stderr), not to stdout, which carries the events.
LOG = logging.getLogger("service")


def emit(**event: Any) -> None:
    sys.stdout.write(json.dumps({**event, "t": time.monotonic()}) + "\n")
    sys.stdout.flush()


class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, sub: str) -> None:
        self.sub = sub

    async def on_partitions_revoked(self, revoked: Any) -> None:
        emit(ev="revoked", sub=self.sub, partitions=sorted(tp.partition for tp in revoked))

    async def on_partitions_assigned(self, assigned: Any) -> None:
        emit(ev="assigned", sub=self.sub, partitions=sorted(tp.partition for tp in assigned))


def slow_commits(flag: Path) -> None:
    """While ``flag`` exists, each OffsetCommit's answer is held for a minute (a coordinator
    slow to answer), and ``commit-held`` printed: a commit is pending when the fence lands
    (issue 52's window, made deterministic). This process only."""
    send = Driver.to_coordinator

    async def slow(self: Any, request: Any, **kwargs: Any) -> Any:
        if request.api_key == ApiKey.OFFSET_COMMIT and _exists(flag):
            emit(ev="commit-held")
            await asyncio.sleep(60)
        return await send(self, request, **kwargs)

    Driver.to_coordinator = slow  # type: ignore[method-assign]


def _exists(path: Path) -> bool:
    return path.exists()


def build(args: argparse.Namespace) -> FastStream:
    first, second = args.topics.split(",")
    options: dict[str, Any] = {}
    broker: KafkaBroker
    if args.kind == "static":
        broker = StaticKafkaBroker(
            args.bootstrap, instance_id=args.base_id, group_protocol=args.group_protocol,
            instance_takeover=True if args.takeover else None, health_port=args.health_port,
            logger=LOG,
        )  # fmt: skip
    else:
        broker = KafkaBroker(args.bootstrap, logger=LOG)
    options.update(options_of(args))

    def instance_id(topic: str) -> dict[str, Any]:
        return {} if args.kind == "static" else {"group_instance_id": f"{args.base_id}-{topic}"}

    @broker.subscriber(first, group_id=args.group, auto_offset_reset="earliest",
                       listener=Listener(first), **instance_id(first), **options)  # fmt: skip
    async def one(body: Any, msg: KafkaMessage) -> None:
        raw = msg.raw_message
        emit(ev="record", sub=first, partition=raw.partition, offset=raw.offset)

    @broker.subscriber(second, group_id=args.group, auto_offset_reset="earliest", batch=True,
                       ack_policy=AckPolicy.MANUAL, listener=Listener(second),
                       **instance_id(second), **options)  # fmt: skip
    async def batch(body: list[Any], msg: KafkaMessage) -> None:
        for raw in msg.raw_message:
            emit(ev="record", sub=second, partition=raw.partition, offset=raw.offset)
        await msg.ack()

    return FastStream(broker, logger=LOG)


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    """The subscribers' options from the command line (a classic member's session)."""
    if args.group_protocol == "classic":
        return {"session_timeout_ms": args.session_timeout_ms}
    return {}


def service_parser() -> argparse.ArgumentParser:
    """The command line ``_scenario.ServiceProcess`` gives (``_asgi_service`` takes it too)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", choices=("static", "plain", "fastapi"), default="static")
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--topics", required=True, help="two topics, comma-separated")
    parser.add_argument("--base-id", required=True)
    parser.add_argument("--group-protocol", default="classic")
    parser.add_argument("--takeover", action="store_true")
    parser.add_argument("--health-port", type=int, default=None)
    parser.add_argument("--session-timeout-ms", type=int, default=30000)
    parser.add_argument(
        "--slow-commits",
        type=Path,
        default=None,
        help="while this file exists, hold each OffsetCommit's answer",
    )
    return parser


def main() -> None:
    args = service_parser().parse_args()
    if args.slow_commits is not None:
        slow_commits(args.slow_commits)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")  # fmt: skip
    emit(ev="spawned")
    asyncio.run(build(args).run())


if __name__ == "__main__":
    main()
