"""The demo's data: seeded sample input, the reference aggregates, and reading results back.

The input is ``(key, value)`` pairs: keys ``user-00`` … ``user-47``, values 1 … 100, drawn from a
``random.Random(seed)``, so every run produces the same records. The reference is count and sum
per key computed directly from those pairs. The app's results are read back from the output topic
(and the changelog): per key, the record carrying the highest input offset is the final value.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

SEED = 345
KEYS = 48
Totals = dict[str, tuple[int, int]]  # key -> (count, sum)


def sample_records(count: int, rng: random.Random) -> list[tuple[str, int]]:
    return [(f"user-{rng.randrange(KEYS):02d}", rng.randint(1, 100)) for _ in range(count)]


def reference(pairs: Iterable[tuple[str, int]]) -> Totals:
    """Count and sum per key, straight from the input."""
    totals: Totals = {}
    for key, value in pairs:
        count, total = totals.get(key, (0, 0))
        totals[key] = (count + 1, total + value)
    return totals


def latest_per_key(values: Iterable[tuple[str, bytes]]) -> Totals:
    """From ``(key, JSON value)`` records of the output or changelog topic, per key the
    ``(count, sum)`` of the record with the highest input ``offset`` (records may repeat: the
    app's output is at-least-once)."""
    best: dict[str, tuple[int, int, int]] = {}
    for key, raw in values:
        doc = json.loads(raw)
        offset, count, total = int(doc["offset"]), int(doc["count"]), int(doc["sum"])
        if key not in best or offset > best[key][0]:
            best[key] = (offset, count, total)
    return {k: (c, s) for k, (_, c, s) in best.items()}


def mismatches(
    expected: Mapping[str, tuple[int, int]], actual: Totals, limit: int = 5
) -> list[str]:
    """Human-readable differences, at most ``limit``; empty when ``actual == expected``."""
    out = []
    for key in sorted(set(expected) | set(actual)):
        want, got = expected.get(key), actual.get(key)
        if want != got:
            out.append(f"{key}: expected (count, sum) {want}, got {got}")
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


async def produce(bootstrap: str, topic: str, records: Sequence[tuple[str, int]]) -> None:
    """Send ``records`` (key partitioner, as a Java producer would) and wait for every ack."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    try:
        for key, value in records:
            await producer.send(topic, str(value).encode(), key=key.encode())
        await producer.flush()
    finally:
        await producer.stop()


async def read_topic(bootstrap: str, topic: str, partitions: int) -> list[tuple[str, bytes]]:
    """Every ``(key, value)`` of ``topic`` from the beginning up to its current end."""
    # No group and "earliest": every assigned partition starts at its beginning. (An explicit
    # seek_to_beginning can lose a race with the reset to the default "latest".)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        fetch_max_wait_ms=50,
    )
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        consumer.assign(tps)
        ends = await consumer.end_offsets(tps)
        out: list[tuple[str, bytes]] = []
        pending = {tp for tp in tps if ends[tp] > 0}
        while pending:
            batch = await consumer.getmany(*pending, timeout_ms=500)
            for tp, records in batch.items():
                out.extend((r.key.decode(), r.value) for r in records if r.offset < ends[tp])
            pending = {tp for tp in pending if await consumer.position(tp) < ends[tp]}
        return out
    finally:
        await consumer.stop()
