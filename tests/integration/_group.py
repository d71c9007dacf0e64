"""Helpers for group tests on the real broker: a member that consumes, commits and counts."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import CommitFailedError

from staticconsumer import StaticConsumer

FAST = {
    "session_timeout_ms": 10000,
    "heartbeat_interval_ms": 300,
    "auto_offset_reset": "earliest",
    "enable_auto_commit": False,
}


class Revocations(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self) -> None:
        self.revoked: list[set[TopicPartition]] = []
        self.assigned: list[set[TopicPartition]] = []

    def on_partitions_revoked(self, revoked: Any) -> None:
        if revoked:
            self.revoked.append(set(revoked))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.assigned.append(set(assigned))


@dataclass
class Member:
    """One incarnation loop: consume, remember values, commit after each batch."""

    consumer: StaticConsumer
    listener: Revocations
    seen: list[bytes] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    running: bool = True

    commit_failures: int = 0

    async def run(self) -> None:
        while self.running:
            batch = await self.consumer.getmany(timeout_ms=200)
            for records in batch.values():
                self.seen.extend(r.value for r in records)
            if batch:
                try:
                    await self.consumer.commit()
                except CommitFailedError:
                    # The group rebalanced under us (dynamic members do): the new owner will
                    # see these records again. Counted, so tests can tell.
                    self.commit_failures += 1

    async def stop(self, **kw: Any) -> None:
        self.running = False
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.consumer.stop(**kw)


async def start_member(
    topic: str, bootstrap: str, group: str, instance_id: str | None, **overrides: Any
) -> Member:
    listener = Revocations()
    consumer = StaticConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        group_instance_id=instance_id,
        **{**FAST, **overrides},
    )
    consumer.subscribe([topic], listener=listener)
    await consumer.start()
    member = Member(consumer, listener)
    member.task = asyncio.create_task(member.run())
    return member


def owned(member: Member) -> set[int]:
    return {tp.partition for tp in member.consumer.assignment()}


async def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    try:
        async with asyncio.timeout(timeout_s):
            while not check():  # noqa: ASYNC110  (polling state owned by other tasks)
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout_s}s waiting for {what}") from None


async def wait_stable(members: list[Member], partitions: int, timeout_s: float = 60) -> None:
    """Until every member is on one generation and together they own every partition."""

    def done() -> bool:
        gens = {m.consumer.generation_id for m in members}
        return len(gens) == 1 and sum(len(owned(m)) for m in members) == partitions

    await wait_until(done, timeout_s, "a stable group owning every partition")


async def produce(bootstrap: str, topic: str, values: list[bytes], **kw: object) -> None:
    """``values`` (each its own key), acknowledged by all, by a producer of their own (which
    bootstraps now: after a broker moved, too)."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", **kw)
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(topic, value, key=value)
    finally:
        await producer.stop()


async def put_record(bootstrap: str, topic: str, key: bytes, value: bytes | None) -> None:
    """One record, acknowledged (e.g. a roster record this version cannot read)."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        await producer.send_and_wait(topic, value, key=key)
    finally:
        await producer.stop()


class Producer:
    """Produces numbered records in the background until stopped."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.sent: list[bytes] = []
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    async def __aenter__(self) -> Producer:
        self._producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all")
        await self._producer.start()
        self._task = asyncio.create_task(self._run())
        return self

    async def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            value = f"r{n}".encode()
            await self._producer.send_and_wait(self.topic, value, key=value)
            self.sent.append(value)
            n += 1
            await asyncio.sleep(0.01)

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task
        await self._producer.stop()


def duplicates(values: list[bytes]) -> list[bytes]:
    return [v for v, n in Counter(values).items() if n > 1]
