"""The consumer's own cost per record, without Kafka: StaticConsumer vs aiokafka's
AIOKafkaConsumer over the same fake fetcher, alternated in one run.

    python benchmarks/hot_path_bench.py [--records 300000] [--rounds 7]

``consume_bench.py`` measures records/s from a real broker, where fetch and decode dominate and
the machine's noise swings single rounds by ±40 %. This script isolates what the consumer class
itself adds per record: the fetcher hands out a record at once, the driver has nothing to raise,
so what is timed is ``async for`` / ``getone`` / ``getmany`` and the wrappers around them. It
prints each class's median ns per record and StaticConsumer's throughput as a ratio of
aiokafka's (the goal is >= 0.97).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import time
import types
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka import AIOKafkaConsumer

from staticconsumer import StaticConsumer

BATCH = 500  # records per getmany, as Java's max.poll.records


class Fetcher:
    """Hands out one record per ``next_record`` and ``BATCH`` per ``fetched_records``."""

    def __init__(self) -> None:
        self.batch = {object(): [object()] * BATCH}

    async def next_record(self, partitions: Any) -> object:
        return self

    async def fetched_records(
        self,
        partitions: Any,
        timeout: Any,  # noqa: ASYNC109
        max_records: Any = None,
    ) -> Any:  # aiokafka's Fetcher.fetched_records signature
        return self.batch


class Driver:
    fatal_error = None

    def check_errors(self) -> None:
        pass


def consumer(cls: type[Any]) -> Any:
    extra = {"group_instance_id": "bench-0"} if cls is StaticConsumer else {}
    c = cls("t", group_id="g", bootstrap_servers="127.0.0.1:9", **extra)
    driver = Driver()
    c._coordinator = types.SimpleNamespace(driver=driver, check_errors=driver.check_errors)
    c._fetcher = Fetcher()
    return c


async def async_for(c: Any, records: int) -> float:
    n, started = 0, time.perf_counter()
    async for _record in c:
        n += 1
        if n >= records:
            break
    return (time.perf_counter() - started) / records * 1e9


async def getone(c: Any, records: int) -> float:
    started = time.perf_counter()
    for _ in range(records):
        await c.getone()
    return (time.perf_counter() - started) / records * 1e9


async def getmany(c: Any, records: int) -> float:
    started = time.perf_counter()
    for _ in range(records // BATCH):
        await c.getmany(timeout_ms=0, max_records=BATCH)
    return (time.perf_counter() - started) / records * 1e9


MODES: dict[str, Callable[[Any, int], Awaitable[float]]] = {
    "async for": async_for, "getone": getone, "getmany": getmany,
}  # fmt: skip


async def main(records: int, rounds: int) -> None:
    for mode, run in MODES.items():
        times: dict[str, list[float]] = {"aiokafka": [], "StaticConsumer": []}
        for _ in range(rounds):
            times["aiokafka"].append(await run(consumer(AIOKafkaConsumer), records))
            times["StaticConsumer"].append(await run(consumer(StaticConsumer), records))
        medians = {name: statistics.median(values) for name, values in times.items()}
        paired = [a / s for a, s in zip(times["aiokafka"], times["StaticConsumer"], strict=True)]
        print(f"{mode:9}  aiokafka {medians['aiokafka']:7.0f} ns/record  StaticConsumer "
              f"{medians['StaticConsumer']:7.0f} ns/record  throughput ratio (median of rounds) "
              f"{statistics.median(paired):.3f}")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    asyncio.run(main(args.records, args.rounds))
