"""One group member in its own process, for the broker- and consumer-failure scenarios.

The parent (``_harness.MemberProcess``) reads one JSON event per line on stdout: ``started``,
``start_failed``, ``fenced``, ``joined``, ``assigned``, ``revoked``, ``records``, ``commit``,
``stopping``, ``stopped``. A ``start()`` that raises the fence error (another process took the
instance id while this one was starting: frozen, or simply slower) is a fenced member, not a
failed start: ``fenced`` (where ``start``) and exit status 4, as a fence met later
(:func:`start_failure`). ``joined`` is a StaticConsumer's first completed join (its
``GroupJoined`` event): from then on the broker knows the member by its instance id.
SIGTERM is a clean stop (the batch in hand is finished and committed, then ``stop()``); SIGKILL is a
crash. With ``--pause-on-assign`` the first non-empty assignment blocks the whole process (the
event loop included, so no request goes out) until the parent writes a line on stdin: that is how
a test kills the coordinator at the exact moment a member holds its partitions and has not yet
asked for their committed offsets.

``--kind staticconsumer`` runs :class:`staticconsumer.StaticConsumer`; ``--kind aiokafka`` runs
plain ``aiokafka.AIOKafkaConsumer`` with the same settings, for the side-by-side figures.
``--group-protocol consumer`` runs the StaticConsumer on KIP-848's consumer group protocol;
``streams`` as one thread of a KIP-1071 streams group (one stateless subtopology on the topic).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition


def emit(event: str, **fields: Any) -> None:
    fields.update(ev=event, t=time.monotonic())
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, pause_on_assign: bool) -> None:
        self.pause = pause_on_assign
        self.consumer: Any = None

    def on_partitions_revoked(self, revoked: Any) -> None:
        emit("revoked", partitions=sorted(tp.partition for tp in revoked))

    def on_partitions_assigned(self, assigned: Any) -> None:
        member_id = getattr(self.consumer, "member_id", "")
        emit("assigned", partitions=sorted(tp.partition for tp in assigned), member_id=member_id)
        if self.pause and assigned:
            self.pause = False
            sys.stdin.readline()  # blocks the event loop on purpose (module docstring)


#: Exit statuses of a member that ended on its own: start() failed, or it was fenced.
START_FAILED, FENCED = 3, 4


def start_failure(exc: BaseException) -> tuple[str, int]:
    """The event and exit status for an exception raised by ``start()``: the fence error is a
    fence (``fenced``, 4) wherever it is met; anything else is a failed start
    (``start_failed``, 3)."""
    from staticconsumer import FencedInstanceIdError

    if isinstance(exc, FencedInstanceIdError):
        return "fenced", FENCED
    return "start_failed", START_FAILED


def emit_joined_once() -> Callable[[Any], None]:
    """An ``on_event`` callback that emits ``joined`` at the first ``GroupJoined``."""
    from staticconsumer.events import GroupJoined

    seen = False

    def on_event(event: Any) -> None:
        nonlocal seen
        if isinstance(event, GroupJoined) and not seen:
            seen = True
            emit("joined", member_id=event.member_id, generation=event.generation_id)

    return on_event


def make_consumer(args: argparse.Namespace) -> Any:
    common: dict[str, Any] = dict(
        bootstrap_servers=args.bootstrap,
        group_id=args.group,
        enable_auto_commit=args.auto_commit,
        auto_commit_interval_ms=1000,
        auto_offset_reset="earliest",
        session_timeout_ms=args.session_timeout_ms,
        heartbeat_interval_ms=min(3000, args.session_timeout_ms // 3),
        request_timeout_ms=30000,
        retry_backoff_ms=200,
    )
    strategy = getattr(args, "strategy", "")  # the chaos suite's ETL member sets it
    if args.kind == "staticconsumer":
        from staticconsumer import StaticConsumer

        if strategy:
            common["partition_assignment_strategy"] = strategy

        if args.group_protocol in ("consumer", "streams"):  # KIP-848/1071: the broker's two
            del common["session_timeout_ms"], common["heartbeat_interval_ms"]
            common["group_protocol"] = args.group_protocol
        if args.group_protocol == "streams":  # one stateless subtopology reading the topic
            from staticconsumer.protocol import StreamsTopology, Subtopology

            source = Subtopology("0", source_topics=(args.topic,))
            common["streams_topology"] = StreamsTopology(0, (source,))
        return StaticConsumer(group_instance_id=args.instance_id or None,
                              on_event=emit_joined_once(), **common)  # fmt: skip
    if strategy:  # aiokafka has no cooperative protocol: its eager range or roundrobin
        from aiokafka.coordinator.assignors.range import RangePartitionAssignor
        from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

        by_name = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor}
        common["partition_assignment_strategy"] = (by_name[strategy],)
    return AIOKafkaConsumer(group_instance_id=args.instance_id or None, **common)


async def consume(args: argparse.Namespace) -> int:
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    consumer = make_consumer(args)
    listener = Listener(args.pause_on_assign)
    listener.consumer = consumer
    consumer.subscribe([args.topic], listener=listener)
    began = time.monotonic()
    try:
        await consumer.start()
    except Exception as exc:
        event, status = start_failure(exc)
        emit(event, where="start", error=type(exc).__name__, detail=repr(exc)[:300])
        return status
    emit("started", seconds=time.monotonic() - began)
    while not stopping.is_set():
        try:
            batch = await consumer.getmany(timeout_ms=200)
        except Exception as exc:
            emit("error", where="getmany", error=type(exc).__name__, detail=repr(exc)[:300])
            await asyncio.sleep(0.2)
            continue
        positions: dict[int, int] = {}
        for tp, records in batch.items():
            offsets = [r.offset for r in records]
            emit("records", partition=tp.partition, offsets=offsets)
            positions[tp.partition] = offsets[-1] + 1
        if positions and not args.auto_commit:
            try:
                await consumer.commit()
                emit("commit", positions=positions)
            except Exception as exc:
                emit("error", where="commit", error=type(exc).__name__, detail=repr(exc)[:300])
    emit("stopping")
    positions = {}
    for tp in consumer.assignment():
        positions[tp.partition] = await consumer.position(TopicPartition(tp.topic, tp.partition))
    await consumer.stop()
    emit("stopped", positions=positions)
    return 0


def member_parser() -> argparse.ArgumentParser:
    """The options the harness gives every member (``MemberProcess.member_argv``); logging set
    up on stderr (the parent reads stdout)."""
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )  # fmt: skip
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", choices=["staticconsumer", "aiokafka"], required=True)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--instance-id", default="")
    parser.add_argument("--session-timeout-ms", type=int, default=45000)
    protocols = ["classic", "consumer", "streams"]
    parser.add_argument("--group-protocol", choices=protocols, default="classic")
    return parser


def main() -> int:
    parser = member_parser()
    parser.add_argument("--auto-commit", action="store_true")
    parser.add_argument("--pause-on-assign", action="store_true")
    return asyncio.run(consume(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
