"""``_service``'s FastStream service as a FastAPI app: the same two subscribers (one per topic,
the second a batch with manual acks) declared on a :class:`StaticKafkaRouter`, the app run by a
real ASGI server (uvicorn, in this process, its own signal handling: SIGTERM is a graceful
stop). The same command line and the same JSON lines on stdout as ``_service``; a ``GET
/handled`` route answers how many records this process handled (an HTTP route beside the
subscribers, as a FastAPI service has)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import warnings
from pathlib import Path
from typing import Any

import uvicorn
from faststream import AckPolicy

from staticconsumer.faststream import StaticKafkaRouter

from ._service import LOG, Listener, emit, options_of, service_parser, slow_commits

with warnings.catch_warnings():  # FastStream 0.7 says its FastAPI integration will move
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi import FastAPI
    from faststream.kafka.fastapi import KafkaMessage


def build(args: argparse.Namespace) -> FastAPI:
    first, second = args.topics.split(",")
    router = StaticKafkaRouter(
        args.bootstrap, instance_id=args.base_id, group_protocol=args.group_protocol,
        instance_takeover=True if args.takeover else None, health_port=args.health_port,
        logger=LOG,
    )  # fmt: skip
    options = options_of(args)
    handled = {"n": 0}

    @router.subscriber(first, group_id=args.group, auto_offset_reset="earliest",
                       listener=Listener(first), **options)  # fmt: skip
    async def one(body: Any, msg: KafkaMessage) -> None:
        raw = msg.raw_message
        handled["n"] += 1
        emit(ev="record", sub=first, partition=raw.partition, offset=raw.offset)

    @router.subscriber(second, group_id=args.group, auto_offset_reset="earliest", batch=True,
                       ack_policy=AckPolicy.MANUAL, listener=Listener(second),
                       **options)  # fmt: skip
    async def batch(body: list[Any], msg: KafkaMessage) -> None:
        for raw in msg.raw_message:
            handled["n"] += 1
            emit(ev="record", sub=second, partition=raw.partition, offset=raw.offset)
        await msg.ack()

    @router.get("/handled")
    async def count() -> dict[str, int]:
        return handled

    app = FastAPI()
    app.include_router(router)
    return app


def main() -> None:
    parser = service_parser()
    args = parser.parse_args()
    if args.slow_commits is not None:
        slow_commits(Path(args.slow_commits))
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")  # fmt: skip
    emit(ev="spawned")
    config = uvicorn.Config(build(args), host="127.0.0.1", port=0, lifespan="on",
                            log_config=None)  # fmt: skip
    asyncio.run(uvicorn.Server(config).serve())


if __name__ == "__main__":
    main()
