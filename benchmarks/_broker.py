"""The broker a benchmark talks to: the one given, or a local one it starts and stops; and the
live producer the group benchmarks run beside."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping


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
