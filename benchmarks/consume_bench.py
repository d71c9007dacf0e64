"""Records per second: StaticConsumer vs aiokafka's AIOKafkaConsumer, same topic, same run.

    python benchmarks/consume_bench.py [--records 400000] [--rounds 7] [--bootstrap-servers H:P]

Produces ``--records`` small records to a 4-partition topic once, then, for each mode (``async
for`` over the consumer and ``getmany`` batches), alternates the two consumer classes for
``--rounds`` rounds each. Every round is a fresh group (``auto_offset_reset="earliest"``) that
reads the whole topic (``getmany`` in batches of at most 500 records, Java's
``max.poll.records``); the clock runs from the moment the consumer holds its partitions until the
last record was returned. Prints each round's records/s, the median per class and mode, the
ratio StaticConsumer / AIOKafkaConsumer of the medians and the median of the per-round ratios
("paired"; the goal is >= 0.97 in both modes). A local broker is started unless
``--bootstrap-servers`` is given. ``hot_path_bench.py`` measures the consumer's own cost per
record without Kafka.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time
import uuid
from typing import Any

from _broker import bootstrap_servers  # benchmarks/, the script's own folder
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from staticconsumer import StaticConsumer

PARTITIONS = 4
MAX_RECORDS = 500  # per getmany, as Java's max.poll.records default


async def produce(bootstrap: str, topic: str, records: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, max_batch_size=65536)
    await producer.start()
    try:
        batch = []
        for n in range(records):
            batch.append(producer.send(topic, b"v%09d" % n, partition=n % PARTITIONS))
            if len(batch) >= 5000:
                await asyncio.gather(*batch)
                batch.clear()
        await asyncio.gather(*batch)
    finally:
        await producer.stop()


async def consume(cls: type[Any], mode: str, bootstrap: str, topic: str, records: int) -> float:
    """One round: a fresh group reads ``records`` records; returns records per second."""
    kwargs: dict[str, Any] = {}
    if cls is StaticConsumer:
        kwargs["group_instance_id"] = "bench-0"
    consumer = cls(
        topic, bootstrap_servers=bootstrap, group_id=f"bench-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest", enable_auto_commit=False, **kwargs,
    )  # fmt: skip
    await consumer.start()
    try:
        assert consumer.assignment(), "start() returns once the consumer holds its partitions"
        seen = 0
        started = time.perf_counter()
        if mode == "async for":
            async for _record in consumer:
                seen += 1
                if seen >= records:
                    break
        else:
            while seen < records:
                batch = await consumer.getmany(timeout_ms=1000, max_records=MAX_RECORDS)
                seen += sum(len(rs) for rs in batch.values())
        return seen / (time.perf_counter() - started)
    finally:
        await consumer.stop()


async def run(bootstrap: str, records: int, rounds: int) -> dict[tuple[str, str], list[float]]:
    topic = f"consume-bench-{uuid.uuid4().hex[:8]}"
    from staticconsumer.localkafka import create_topic

    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    print(f"producing {records:,} records to {topic} ({PARTITIONS} partitions)", file=sys.stderr)
    await produce(bootstrap, topic, records)
    results: dict[tuple[str, str], list[float]] = {}
    for mode in ("async for", "getmany"):
        for r in range(rounds):
            order = (StaticConsumer, AIOKafkaConsumer) if r % 2 == 0 else (
                AIOKafkaConsumer, StaticConsumer)  # fmt: skip
            for cls in order:
                rate = await consume(cls, mode, bootstrap, topic, records)
                results.setdefault((mode, cls.__name__), []).append(rate)
                print(f"  {mode:9} round {r + 1} {cls.__name__:16} {rate:12,.0f} records/s",
                      file=sys.stderr)  # fmt: skip
    return results


def report(results: dict[tuple[str, str], list[float]], records: int) -> None:
    print(f"records per second, {records:,} records per round, median of "
          f"{len(next(iter(results.values())))} rounds (alternating)")  # fmt: skip
    print(f"{'mode':10} {'StaticConsumer':>16} {'AIOKafkaConsumer':>18} {'ratio':>7} "
          f"{'paired':>7}")  # fmt: skip
    for mode in ("async for", "getmany"):
        ours_all = results[(mode, "StaticConsumer")]
        theirs_all = results[(mode, "AIOKafkaConsumer")]
        ours, theirs = statistics.median(ours_all), statistics.median(theirs_all)
        # Each round runs both classes back to back: the median of the per-round ratios is
        # steadier on a noisy machine than the ratio of the medians.
        paired = statistics.median(o / t for o, t in zip(ours_all, theirs_all, strict=True))
        print(f"{mode:10} {ours:16,.0f} {theirs:18,.0f} {ours / theirs:7.2f} {paired:7.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bootstrap-servers", default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    with bootstrap_servers(args.bootstrap_servers) as bootstrap:
        report(asyncio.run(run(bootstrap, args.records, args.rounds)), args.records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
