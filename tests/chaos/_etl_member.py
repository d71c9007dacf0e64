"""One member of the chaos suite's ETL group, in its own process: consume -> produce -> commit.

It runs the reliability suite's member consumer (``tests/reliability/_member.py``: the same
options, the same JSON events on stdout) and adds the ETL step. Each batch is written to the
output topic, to the partition it came from (so per-partition order can be checked there), keyed
by its source coordinate ``"<partition>:<offset>"``, its value saying who wrote it::

    {"p": 3, "o": 1207, "i": "m1", "n": 4, "ts": 1767312345678}

(source partition and offset, the member's name and process incarnation, the source record's
timestamp), by an idempotent ``acks=all`` producer; once every record of the batch is
acknowledged, the batch's offsets are committed (explicitly: what was written, never merely
what was fetched; a commit refused during a rebalance stays pending). A batch is processed under
a lock that the rebalance listener also takes, so a revocation waits for the batch in hand and
commits what is pending of the partitions it takes (Java's "commit in onPartitionsRevoked"), as
does a clean stop; records of a partition the member no longer owns are not written (``stale``
event: the consumer handed out a revoked partition's records, which it must not).

Signals: SIGTERM is a clean stop (the batch in hand is written and committed, then ``stop()``,
staying in the group when static); SIGUSR1 is a scale-down (the same, then ``stop(leave_group=True,
reason=...)``; plain aiokafka's dynamic member leaves on any stop). FencedInstanceIdError prints
``fenced`` and exits with status 4 (``stop()`` after it commits nothing), wherever it is met:
in ``start()`` too (a member frozen while it starts and replaced meanwhile). Events added to the
reliability member's: ``signals`` (the handlers are in place: the nemesis waits for it before it
sends SIGTERM or SIGUSR1), ``produced`` (count per batch), ``commit_failed``, ``stale``,
``fenced``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from typing import Any

from aiokafka import AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition

from tests.reliability._member import emit, make_consumer, member_parser, start_failure

#: How long one batch may take to be written and committed before the member says so (a
#: deadlock between the listener's lock and the commit would show here, not as a hang).
BATCH_TIMEOUT_S = 60.0
LEAVE_REASON = "chaos: scale down"


class EtlListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Keeps the owned partitions and what was written but not yet committed (``pending``); a
    revocation waits for the batch in hand, then commits what is pending of the partitions it
    takes (Java's pattern: a commit refused while the group rebalances is made up for here, or
    the next owner writes those records again); a loss drops it (there is nothing to commit
    with)."""

    def __init__(self, lock: asyncio.Lock) -> None:
        self.lock = lock
        self.owned: set[int] = set()
        self.pending: dict[TopicPartition, int] = {}
        self.consumer: Any = None

    async def commit_pending(self, partitions: set[TopicPartition] | None = None) -> None:
        """Commit what is pending (of ``partitions``); raises what the commit raises."""
        offsets = {tp: o for tp, o in self.pending.items()
                   if partitions is None or tp in partitions}  # fmt: skip
        if not offsets:
            return
        await self.consumer.commit(offsets)
        for tp, o in offsets.items():
            if self.pending.get(tp) == o:
                del self.pending[tp]
        emit("commit", positions={tp.partition: o for tp, o in offsets.items()})

    async def on_partitions_revoked(self, revoked: Any) -> None:
        async with self.lock:
            try:
                await self.commit_pending(set(revoked))
            except Exception as exc:
                emit("commit_failed", error=type(exc).__name__, detail=repr(exc)[:300],
                     on_revoke=True)  # fmt: skip
            self._drop(revoked)
            emit("revoked", partitions=sorted(tp.partition for tp in revoked))

    async def on_partitions_lost(self, lost: Any) -> None:
        async with self.lock:
            self._drop(lost)
            emit("revoked", partitions=sorted(tp.partition for tp in lost), lost=True)

    def _drop(self, partitions: Any) -> None:
        self.owned -= {tp.partition for tp in partitions}
        for tp in partitions:
            self.pending.pop(tp, None)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        async with self.lock:
            self.owned |= {tp.partition for tp in assigned}
            emit("assigned", partitions=sorted(tp.partition for tp in assigned),
                 member_id=getattr(self.consumer, "member_id", ""))  # fmt: skip


def fenced_error() -> type[BaseException]:
    from staticconsumer import FencedInstanceIdError

    return FencedInstanceIdError


async def write(producer: AIOKafkaProducer, args: argparse.Namespace,
                batch: dict[Any, list[Any]]) -> dict[TopicPartition, int]:  # fmt: skip
    """Write a batch to the output topic, wait for every acknowledgement; the offsets to
    commit."""
    futures = []
    offsets: dict[TopicPartition, int] = {}
    for tp, records in batch.items():
        for r in records:
            value = {"p": tp.partition, "o": r.offset, "i": args.name, "n": args.incarnation,
                     "ts": r.timestamp}  # fmt: skip
            futures.append(await producer.send(
                args.output_topic, json.dumps(value).encode(),
                key=f"{tp.partition}:{r.offset}".encode(), partition=tp.partition,
            ))  # fmt: skip
        offsets[tp] = records[-1].offset + 1
    await asyncio.gather(*futures)
    return offsets


async def run(args: argparse.Namespace) -> int:
    stopping = asyncio.Event()
    leave = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)
    loop.add_signal_handler(signal.SIGUSR1, lambda: (leave.set(), stopping.set()))
    emit("signals")  # from now on SIGTERM and SIGUSR1 are ours, not the default's (exit)
    lock = asyncio.Lock()
    consumer = make_consumer(args)
    listener = EtlListener(lock)
    listener.consumer = consumer
    consumer.subscribe([args.topic], listener=listener)
    producer = AIOKafkaProducer(bootstrap_servers=args.bootstrap, acks="all",
                                enable_idempotence=True, linger_ms=2)  # fmt: skip
    fenced = fenced_error()
    began = time.monotonic()
    try:
        await producer.start()
        await consumer.start()
    except Exception as exc:  # a fence met while starting is a fence (exit 4), not a failure
        event, status = start_failure(exc)
        emit(event, where="start", error=type(exc).__name__, detail=repr(exc)[:300])
        await producer.stop()
        return status
    import staticconsumer

    emit("started", seconds=time.monotonic() - began, code=staticconsumer.__file__)
    status = 0
    try:
        while not stopping.is_set():
            try:
                batch = await consumer.getmany(timeout_ms=200)
            except fenced as exc:
                emit("fenced", where="getmany", detail=repr(exc)[:300])
                status = 4
                break
            except Exception as exc:
                emit("error", where="getmany", error=type(exc).__name__, detail=repr(exc)[:300])
                await asyncio.sleep(0.2)
                continue
            if not batch:
                continue
            # No await between getmany's return and here: a revocation either ran before
            # getmany handed the batch out, or waits for this block.
            async with lock:
                stale = {tp.partition for tp in batch} - listener.owned
                if stale:
                    emit("stale", partitions=sorted(stale))
                batch = {tp: rs for tp, rs in batch.items() if tp.partition in listener.owned}
                for tp, records in batch.items():
                    emit("records", partition=tp.partition, offsets=[r.offset for r in records])
                try:
                    async with asyncio.timeout(BATCH_TIMEOUT_S):
                        listener.pending.update(await write(producer, args, batch))
                        emit("produced", count=sum(len(rs) for rs in batch.values()))
                        await listener.commit_pending()
                except fenced as exc:
                    emit("fenced", where="commit", detail=repr(exc)[:300])
                    status = 4
                    break
                except Exception as exc:  # pending: the next commit, or the revocation's
                    emit("commit_failed", error=type(exc).__name__, detail=repr(exc)[:300])
        emit("stopping", leave=leave.is_set())
        if status == 0:
            async with lock:
                try:
                    await listener.commit_pending()
                except Exception as exc:
                    emit("commit_failed", error=type(exc).__name__, detail=repr(exc)[:300])
        positions: dict[int, int] = {}
        if status == 0:
            for tp in consumer.assignment():
                positions[tp.partition] = await consumer.position(tp)
        try:
            if leave.is_set() and args.kind == "staticconsumer":
                await consumer.stop(leave_group=True, reason=LEAVE_REASON)
            else:
                await consumer.stop()
        except fenced as exc:  # stop() after the fence sends nothing; it may say so
            emit("fenced", where="stop", detail=repr(exc)[:300])
            status = 4
        emit("stopped", positions=positions)
    finally:
        await producer.stop()
    return status


def die_with_parent() -> None:
    """SIGKILL this process when the harness dies (Linux ``PR_SET_PDEATHSIG``), so a harness
    killed mid-run (a CI timeout) leaves no member behind."""
    import ctypes
    import os

    parent = os.getppid()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the call
        os._exit(1)


def main() -> int:
    die_with_parent()
    parser = member_parser()
    parser.add_argument("--strategy", default="")
    parser.add_argument("--output-topic", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--incarnation", type=int, required=True)
    args = parser.parse_args()
    args.auto_commit = False
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
