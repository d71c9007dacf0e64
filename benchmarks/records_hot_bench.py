"""The record path alone, without Kafka (issue 37): where ``records_bench.py``'s time goes.

    python benchmarks/records_hot_bench.py [--rounds 5] [--codecs snappy,lz4,zstd]

One Fetch response (6 partitions, 20 batches of 500 records each: 100-byte values, keys, no
compression) is handed to aiokafka's ``Fetcher`` and to the compiled path's ``FetchSeam`` as the
network would hand it; then ``fetched_records(max_records=500)`` (what ``getmany`` calls) drains
it, the records dropped batch by batch as an application drops them. Records per CPU second of
the draining alone: no socket, no response decoding, no event loop wake-ups. Set beside
``records_bench.py``'s end-to-end figures, the difference is what a record costs outside the
record path (fetching, decoding the response, asyncio).

Then compressed batches (issue 43): one partition's message set of 20 batches of 256 records of
1 KiB values, in each codec, read whole by the compiled reader decompressing each batch into new
``bytes`` (aiokafka's decoders, as the compiled path over aiokafka's fetcher does) and into a
buffer kept from read to read (``DecompressionBuffers``, the kept fetch's), side by side:
records per CPU second and the nanoseconds per record the kept buffer saves."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import struct
import time
from collections.abc import Callable
from typing import Any

from aiokafka.consumer.fetcher import Fetcher
from aiokafka.consumer.subscription_state import SubscriptionState
from aiokafka.protocol.fetch import FetchRequest, FetchResponse_v4
from aiokafka.record.default_records import DefaultRecordBatchBuilder
from aiokafka.structs import TopicPartition

from staticconsumer._compat.fetch import reader as seam
from staticconsumer._compat.fetch import tap

PARTITIONS, BATCHES, PER_BATCH = 6, 20, 500
CODEC_IDS = {"gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


class Client:
    """What aiokafka's Fetcher reads of its client; every send answers ``answer``."""

    def __init__(self, answer: Any) -> None:
        self._loop = asyncio.get_running_loop()
        self._metadata_max_age_ms = 300_000
        self.answer = answer

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        return self.answer


Record = tuple[bytes, bytes, int]  # key, value, timestamp


def small_record(batch: int, i: int) -> Record:
    """100-byte values; a timestamp shared by 50 records."""
    return b"k%d" % i, (b"v%09d" % i).ljust(100, b"x"), 1_700_000_000_000 + i // 50


def event_record(batch: int, i: int) -> Record:
    """1 KiB values that compress as JSON events do: a counter and repeated text."""
    head = b'{"n": %d, "batch": %d, "text": "' % (i, batch)
    return (
        b"k%d" % i,
        (head + b"lorem ipsum dolor sit amet " * 40)[:1022] + b'"}',
        1_700_000_000_000 + i,
    )


def message_set(
    codec: int = 0, per_batch: int = PER_BATCH, record: Callable[[int, int], Record] = small_record
) -> bytes:
    """``BATCHES`` batches of ``per_batch`` records each, in ``codec``."""
    batches = []
    for b in range(BATCHES):
        builder = DefaultRecordBatchBuilder(2, codec, 0, -1, -1, -1, 1 << 24)
        for i in range(per_batch):
            key, value, timestamp = record(b, i)
            builder.append(i, timestamp, key, value, [])
        raw = builder.build()
        struct.pack_into(">q", raw, 0, b * per_batch)
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


def read_compressed(data: bytes, pool: Any, reads: int) -> tuple[int, float]:
    tp = TopicPartition("bench", 0)
    seen, cpu = 0, time.process_time()
    for _ in range(reads):
        reader = seam.PartitionReader(tp, data, [], 0, None, None, True, False, pool)
        while True:
            records, done = reader.take(500)
            seen += len(records)
            if done:
                break
    return seen, time.process_time() - cpu


def compressed(codecs: list[str], rounds: int) -> None:
    print("compressed batches, 1 KiB records: new bytes vs a kept buffer (records per CPU second)")
    for name in codecs:
        data = message_set(CODEC_IDS[name], 256, event_record)
        rates: dict[str, list[float]] = {"new bytes": [], "kept buffer": []}
        for _ in range(rounds):
            for label, pool in (("new bytes", None), ("kept buffer", seam.DecompressionBuffers())):
                seen, cpu = read_compressed(data, pool, 10)
                rates[label].append(seen / cpu)
        new, kept = (statistics.median(rates[k]) for k in ("new bytes", "kept buffer"))
        print(
            f"{name:7} new bytes {new:11,.0f}  kept buffer {kept:11,.0f}  "
            f"x {kept / new:.3f}  saves {1e9 / new - 1e9 / kept:6.1f} ns per record"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--codecs", default="snappy,lz4,zstd", help="comma-separated; none: skip")
    args = parser.parse_args()
    data = message_set()
    kinds: dict[str, type[Any]] = {"aiokafka": Fetcher}
    if seam.compiled_available():
        kinds["compiled"] = tap.FetchSeam
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
        if args.codecs != "none":
            compressed(args.codecs.split(","), args.rounds)


if __name__ == "__main__":
    main()
