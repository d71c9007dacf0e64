"""The broker a benchmark talks to: the one given, or a local one it starts and stops; the
numbered records the read benchmarks produce once; and the live producer the group benchmarks
run beside."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


@contextlib.contextmanager
def bootstrap_servers(
    given: str | None, broker_config: Mapping[str, str] | None = None
) -> Iterator[str]:
    """``given`` as it is, or the address of a local Apache Kafka started for the block."""
    if given is not None:
        yield given
        return
    from staticconsumer.localkafka import cluster_from_environment

    cluster = cluster_from_environment(1, use_existing=False, broker_config=broker_config).start()
    try:
        yield cluster.bootstrap_servers
    finally:
        cluster.stop()


async def produce_numbered(
    bootstrap: str, topic: str, records: int, partitions: int, *, size: int = 0,
    keys: bool = False, max_batch_size: int = 65536, compression: str | None = None,
) -> None:  # fmt: skip
    """``records`` records to every partition in turn: values ``v<n>`` (nine digits) padded with
    ``x`` to ``size`` bytes, keys ``k<n>`` when ``keys``; sent 5,000 at a time, in batches
    compressed with ``compression`` (the producer's ``compression_type``) when given."""
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20,
                                max_batch_size=max_batch_size,
                                compression_type=compression)  # fmt: skip
    await producer.start()
    try:
        await send_all(producer, topic, (
            (b"k%d" % n if keys else None, (b"v%09d" % n).ljust(size, b"x"), n % partitions)
            for n in range(records)))  # fmt: skip
    finally:
        await producer.stop()


async def send_all(
    producer: Any, topic: str, records: Iterable[tuple[bytes | None, bytes, int | None]]
) -> None:
    """``(key, value, partition)`` records sent on a started producer, 5,000 at a time."""
    pending = []
    for key, value, partition in records:
        pending.append(producer.send(topic, value, key=key, partition=partition))
        if len(pending) >= 5000:
            await asyncio.gather(*pending)
            pending.clear()
    await asyncio.gather(*pending)


async def produce_until(bootstrap: str, topic: str, partitions: int, stop: asyncio.Event) -> None:
    """Small numbered records to every partition in turn, one each 2 ms, until ``stop``."""
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
    await producer.start()
    try:
        n = 0
        while not stop.is_set():
            await producer.send(topic, b"%d" % n, partition=n % partitions)
            n += 1
            await asyncio.sleep(0.002)
    finally:
        await producer.stop()
