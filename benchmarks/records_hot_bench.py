"""The record path alone, without Kafka (issue 37): where ``records_bench.py``'s time goes.

    python benchmarks/records_hot_bench.py [--rounds 5]

One Fetch response (6 partitions, 20 batches of 500 records each: 100-byte values, keys, no
compression) is handed to aiokafka's ``Fetcher`` and to the compiled path's ``FetchSeam`` as the
network would hand it; then ``fetched_records(max_records=500)`` (what ``getmany`` calls) drains
it, the records dropped batch by batch as an application drops them. Records per CPU second of
the draining alone: no socket, no response decoding, no event loop wake-ups. Set beside
``records_bench.py``'s end-to-end figures, the difference is what a record costs outside the
record path (fetching, decoding the response, asyncio)."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import struct
import time
from typing import Any

from aiokafka.consumer.fetcher import Fetcher
from aiokafka.consumer.subscription_state import SubscriptionState
from aiokafka.protocol.fetch import FetchRequest, FetchResponse_v4
from aiokafka.record.default_records import DefaultRecordBatchBuilder
from aiokafka.structs import TopicPartition

from staticconsumer._compat import records as seam

PARTITIONS, BATCHES, PER_BATCH = 6, 20, 500


class Client:
    """What aiokafka's Fetcher reads of its client; every send answers ``answer``."""

    def __init__(self, answer: Any) -> None:
        self._loop = asyncio.get_running_loop()
        self._metadata_max_age_ms = 300_000
        self.answer = answer

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        return self.answer


def message_set() -> bytes:
    batches = []
    for b in range(BATCHES):
        builder = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 24)
        for i in range(PER_BATCH):
            value = (b"v%09d" % i).ljust(100, b"x")
            builder.append(i, 1_700_000_000_000 + i // 50, b"k%d" % i, value, [])
        raw = builder.build()
        struct.pack_into(">q", raw, 0, b * PER_BATCH)
        batches.append(bytes(raw))
    return b"".join(batches)


async def drain(kind: type[Any], data: bytes) -> tuple[int, float]:
    tps = [TopicPartition("bench", p) for p in range(PARTITIONS)]
    rows = [(tp.partition, 0, 10**9, 10**9, [], data) for tp in tps]
    subscription = SubscriptionState()
    subscription.assign_from_user(set(tps))
    assignment = subscription.subscription.assignment
    for tp in tps:
        assignment.state_value(tp).seek(0)
    fetcher = kind(Client(FetchResponse_v4(0, [("bench", rows)])), subscription)
    fetcher._fetch_task.cancel()  # the one fetch is sent below
    request = FetchRequest(500, 1, 1 << 30, 0, [("bench", [(tp.partition, 0, 1 << 30)
                                                           for tp in tps])])  # fmt: skip
    await fetcher._proc_fetch_request(assignment, 0, request)
    seen, cpu = 0, time.process_time()
    while batch := await fetcher.fetched_records((), 0, max_records=500):
        seen += sum(len(records) for records in batch.values())
    cpu = time.process_time() - cpu
    await fetcher.close()
    return seen, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    data = message_set()
    kinds: dict[str, type[Any]] = {"aiokafka": Fetcher}
    if seam.compiled_available():
        kinds["compiled"] = seam.FetchSeam
    rates: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(args.rounds):
        for name, kind in kinds.items():
            seen, cpu = asyncio.run(drain(kind, data))
            rates[name].append(seen / cpu)
    for name, got in rates.items():
        print(f"{name:9} {statistics.median(got):12,.0f} records per CPU second "
              f"(median of {args.rounds})")  # fmt: skip
    if "compiled" in rates:
        ratio = statistics.median(rates["compiled"]) / statistics.median(rates["aiokafka"])
        print(f"compiled / aiokafka: {ratio:.2f}")


if __name__ == "__main__":
    main()
