"""Records per second: StaticConsumer vs aiokafka's AIOKafkaConsumer, same topic, same run.

    python benchmarks/consume_bench.py [--records 400000] [--rounds 7] [--bootstrap-servers H:P]

Produces ``--records`` small records to a 4-partition topic once, then, for each mode (``async
for`` over the consumer and ``getmany`` batches), alternates the two consumer classes for
``--rounds`` rounds each. Every round is a fresh group (``auto_offset_reset="earliest"``) that
reads the whole topic (``getmany`` in batches of at most 500 records, Java's
``max.poll.records``); the clock runs from the moment the consumer holds its partitions until the
last record was returned. Prints each round's records/s, the median per class and mode, the
ratio StaticConsumer / AIOKafkaConsumer of the medians and the median of the per-round ratios
("paired"; the goal is >= 0.97 in both modes). It also splits each round: the time from holding
the partitions to the first record ("first ms": finding the positions, the first fetch), and
the rate from the first record on ("steady", and its paired ratio). "CPU paired" is the paired
ratio of records per CPU second of this process (``time.process_time``): what the consumer itself
spends, fetch decoding included, which the broker's share of the machine does not swing as it
swings the wall-clock rate. Then, per mode, ``--rounds`` *interleaved* rounds: one consumer of
each class, started side by side, read the topic in turns of 20,000 records (the order flips
every turn), and "interleaved" is the median over rounds of StaticConsumer's rate over its own
turns as a ratio of aiokafka's: the machine's slow stretches (single rounds swing by ±30 % here)
fall on both alike. A local broker is started unless
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

from _broker import bootstrap_servers, produce_numbered  # benchmarks/, the script's own folder
from aiokafka import AIOKafkaConsumer

from staticconsumer import StaticConsumer

PARTITIONS = 4
MAX_RECORDS = 500  # per getmany, as Java's max.poll.records default
TURN = 20_000  # records per turn in the interleaved rounds


#: records/s, ms to the first record, records/s after it, records per CPU second of this process
Round = tuple[float, float, float, float]


async def started_consumer(cls: type[Any], bootstrap: str, topic: str) -> Any:
    """A started consumer of ``cls`` in a fresh group, holding every partition of ``topic``."""
    kwargs: dict[str, Any] = {}
    if cls is StaticConsumer:
        kwargs["group_instance_id"] = "bench-0"
    consumer = cls(
        topic, bootstrap_servers=bootstrap, group_id=f"bench-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest", enable_auto_commit=False, **kwargs,
    )  # fmt: skip
    await consumer.start()
    return consumer


async def consume(cls: type[Any], mode: str, bootstrap: str, topic: str, records: int) -> Round:
    """One round: a fresh group reads ``records`` records."""
    consumer = await started_consumer(cls, bootstrap, topic)
    try:
        assert consumer.assignment(), "start() returns once the consumer holds its partitions"
        seen = 0
        started, cpu_started = time.perf_counter(), time.process_time()
        first = 0.0
        if mode == "async for":
            async for _record in consumer:
                seen += 1
                if seen == 1:
                    first = time.perf_counter()
                if seen >= records:
                    break
        else:
            while seen < records:
                batch = await consumer.getmany(timeout_ms=1000, max_records=MAX_RECORDS)
                if batch and not seen:
                    first = time.perf_counter()
                seen += sum(len(rs) for rs in batch.values())
        ended, cpu = time.perf_counter(), time.process_time() - cpu_started
        wall, first_ms = ended - started, (first - started) * 1000
        return seen / wall, first_ms, seen / (ended - first), seen / cpu
    finally:
        await consumer.stop()


async def read(consumer: Any, mode: str, records: int) -> None:
    """``records`` records the way ``mode`` reads them (``async for`` calls ``__anext__``)."""
    if mode == "async for":
        for _ in range(records):
            await consumer.__anext__()
        return
    seen = 0
    while seen < records:
        batch = await consumer.getmany(
            timeout_ms=1000, max_records=min(MAX_RECORDS, records - seen)
        )
        seen += sum(len(rs) for rs in batch.values())


async def interleaved(mode: str, bootstrap: str, topic: str, records: int) -> float:
    """Both classes read the topic in one process, taking turns of :data:`TURN` records, the
    order flipping every turn, so that a slow stretch of the machine falls on both alike (a
    consumer whose buffers are full fetches nothing during the other's turn). StaticConsumer's
    records/s over its own turns as a ratio of aiokafka's."""
    classes = (StaticConsumer, AIOKafkaConsumer)
    consumers = [await started_consumer(cls, bootstrap, topic) for cls in classes]
    spent = [0.0, 0.0]
    try:
        for turn, at in enumerate(range(0, records, TURN)):
            want = min(TURN, records - at)
            for i in (0, 1) if turn % 2 == 0 else (1, 0):
                began = time.perf_counter()
                await read(consumers[i], mode, want)
                spent[i] += time.perf_counter() - began
    finally:
        for consumer in consumers:
            await consumer.stop()
    return spent[1] / spent[0]


async def run(
    bootstrap: str, records: int, rounds: int, modes: list[str]
) -> tuple[dict[tuple[str, str], list[Round]], dict[str, list[float]]]:
    topic = f"consume-bench-{uuid.uuid4().hex[:8]}"
    from staticconsumer.localkafka import create_topic

    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    print(f"producing {records:,} records to {topic} ({PARTITIONS} partitions)", file=sys.stderr)
    await produce_numbered(bootstrap, topic, records, PARTITIONS)
    results: dict[tuple[str, str], list[Round]] = {}
    for mode in modes:
        for r in range(rounds):
            order = (StaticConsumer, AIOKafkaConsumer) if r % 2 == 0 else (
                AIOKafkaConsumer, StaticConsumer)  # fmt: skip
            for cls in order:
                got = await consume(cls, mode, bootstrap, topic, records)
                results.setdefault((mode, cls.__name__), []).append(got)
                print(f"  {mode:9} round {r + 1} {cls.__name__:16} {got[0]:12,.0f} records/s, "
                      f"first record after {got[1]:5.0f} ms, then {got[2]:12,.0f} records/s, "
                      f"{got[3]:12,.0f} records per CPU s", file=sys.stderr)  # fmt: skip
    turns: dict[str, list[float]] = {}
    for mode in modes:
        for r in range(rounds):
            ratio = await interleaved(mode, bootstrap, topic, records)
            turns.setdefault(mode, []).append(ratio)
            print(f"  {mode:9} interleaved round {r + 1}: StaticConsumer / AIOKafkaConsumer "
                  f"{ratio:.3f}", file=sys.stderr)  # fmt: skip
    return results, turns


def report(
    results: dict[tuple[str, str], list[Round]], turns: dict[str, list[float]], records: int
) -> None:  # fmt: skip
    print(f"records per second, {records:,} records per round, median of "
          f"{len(next(iter(results.values())))} rounds (alternating)")  # fmt: skip
    print(f"{'mode':10} {'StaticConsumer':>16} {'AIOKafkaConsumer':>18} {'ratio':>7} "
          f"{'paired':>7} {'first ms (ours/theirs)':>24} {'steady paired':>14} "
          f"{'CPU paired':>11} {'interleaved':>12}")  # fmt: skip
    modes = dict.fromkeys(mode for mode, _cls in results)
    for mode in modes:
        ours_all = results[(mode, "StaticConsumer")]
        theirs_all = results[(mode, "AIOKafkaConsumer")]
        ours = statistics.median(r[0] for r in ours_all)
        theirs = statistics.median(r[0] for r in theirs_all)
        # Each round runs both classes back to back: the median of the per-round ratios is
        # steadier on a noisy machine than the ratio of the medians.
        pairs = list(zip(ours_all, theirs_all, strict=True))
        paired = statistics.median(o[0] / t[0] for o, t in pairs)
        steady = statistics.median(o[2] / t[2] for o, t in pairs)
        cpu = statistics.median(o[3] / t[3] for o, t in pairs)
        first_ours = statistics.median(r[1] for r in ours_all)
        first_theirs = statistics.median(r[1] for r in theirs_all)
        firsts = f"{first_ours:.0f} / {first_theirs:.0f}"
        print(f"{mode:10} {ours:16,.0f} {theirs:18,.0f} {ours / theirs:7.2f} {paired:7.2f} "
              f"{firsts:>24} {steady:14.2f} {cpu:11.2f} "
              f"{statistics.median(turns[mode]):12.2f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument("--mode", action="append", choices=("async for", "getmany"),
                        help="only this mode (repeatable; default: both)")  # fmt: skip
    args = parser.parse_args(argv)
    modes = args.mode or ["async for", "getmany"]
    logging.basicConfig(level=logging.WARNING)
    with bootstrap_servers(args.bootstrap_servers) as bootstrap:
        results, turns = asyncio.run(run(bootstrap, args.records, args.rounds, modes))
        report(results, turns, args.records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
