"""The record path side by side (issue 37): records/s on the clock and records per CPU second.

    python benchmarks/records_bench.py [--records 3000000] [--records-1k 100000] [--rounds 3]
        [--bootstrap-servers H:P] [--no-java] [--modes getmany,"async for"] [--compression zstd]

One broker, three topics of 6 partitions (100-byte and 1 KiB values, and 1 KiB values in
zstd-compressed batches (``--compression``); keys, no headers, produced once). Readers:
``StaticConsumer`` on the compiled record path over aiokafka's fetcher
(``STATICCONSUMER_KEPT_FETCH=0``), the same with its Fetch responses read into kept buffers on our
own wire ("kept": ``STATICCONSUMER_KEPT_FETCH=1``, the default with aiokafka 0.14, issue 43), the
same on aiokafka's own record path (``STATICCONSUMER_PURE_RECORDS=1``), the compiled path again in
a child process whose glibc malloc keeps its freed heap ("tuned": :data:`TUNED_MALLOC`,
docs/performance.md), raw ``AIOKafkaConsumer``, confluent-kafka's ``Consumer`` (librdkafka;
``consume(500)``; skipped when not installed) and Java's ``KafkaConsumer`` in its own JVM
(``RecordsBench.java`` beside this script; skipped without a JDK or with ``--no-java``). Each reads
the whole topic from the start, with ``assign()`` (no group: the record path, not the join, is
measured), in ``getmany(max_records=500)`` batches (Java's ``max.poll.records``) or ``async for``,
with no deserializer or a Python one on the values (``bytes.decode`` through a lambda). The clock
runs from the first read call to the last record; CPU is this process's (``time.process_time``,
every thread: librdkafka's too). Rounds alternate the readers; the median is printed. Then the
memory of buffered records: tracemalloc's bytes per record for 50,000 records held in a list
(records, values, everything they hold); and the resident memory of a process reading each
topic whole (its peak RSS, ``VmHWM``; each reader in a child process of its own, records
handed on, not held)."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _broker import bootstrap_servers, produce_numbered  # benchmarks/, the script's own folder
from aiokafka import AIOKafkaConsumer, TopicPartition

from staticconsumer import StaticConsumer

PARTITIONS = 6
MAX_RECORDS = 500
PURE_ENV = "STATICCONSUMER_PURE_RECORDS"
KEPT_ENV = "STATICCONSUMER_KEPT_FETCH"
#: The "tuned" reader: the compiled path in a process whose glibc malloc keeps the heap it freed
#: (docs/performance.md). Without it the multi-megabyte Fetch responses (asyncio's stream buffer,
#: aiokafka's copies of them) grow the heap and give it back over and over: page faults and
#: zeroed pages for every response. glibc reads these once, at process start: a child process.
TUNED_MALLOC = {
    "MALLOC_MMAP_THRESHOLD_": str(512 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(512 << 20),
    "MALLOC_TOP_PAD_": str(64 << 20),
}
HERE = Path(__file__).resolve().parent
#: The Python readers whose peak RSS is measured, each in a child process.
RSS_READERS = ("compiled", "kept", "pure", "aiokafka")
Result = tuple[float, float]  # records/s on the clock, records per CPU second


def decode(value: bytes) -> str:
    return value.decode()


def _python_consumer(reader: str, bootstrap: str, deserializer: Any) -> Any:
    if reader == "aiokafka":
        return AIOKafkaConsumer(bootstrap_servers=bootstrap, value_deserializer=deserializer,
                                enable_auto_commit=False)  # fmt: skip
    if reader == "pure":
        os.environ[PURE_ENV] = "1"
    else:
        os.environ.pop(PURE_ENV, None)
    # said either way: "compiled" is aiokafka's fetcher feeding the compiled reader
    os.environ[KEPT_ENV] = "1" if reader == "kept" else "0"
    return StaticConsumer(bootstrap_servers=bootstrap, value_deserializer=deserializer,
                          enable_auto_commit=False)  # fmt: skip


async def read_python(reader: str, mode: str, bootstrap: str, topic: str, records: int,
                      deserializer: Any) -> Result:  # fmt: skip
    consumer = _python_consumer(reader, bootstrap, deserializer)
    consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
    await consumer.start()
    try:
        await consumer.seek_to_beginning()
        if reader != "aiokafka":
            expected_path = "compiled" if reader == "kept" else reader
            assert consumer.record_path == expected_path, consumer.record_path
        seen = 0
        started, cpu = time.perf_counter(), time.process_time()
        if mode == "async for":
            async for _record in consumer:
                seen += 1
                if seen >= records:
                    break
        else:
            while seen < records:
                batch = await consumer.getmany(timeout_ms=1000, max_records=MAX_RECORDS)
                for partition_records in batch.values():
                    seen += len(partition_records)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        return seen / wall, seen / cpu
    finally:
        await consumer.stop()
        os.environ.pop(PURE_ENV, None)
        os.environ.pop(KEPT_ENV, None)


def read_confluent(bootstrap: str, topic: str, records: int, deserializer: Any) -> Result:
    from confluent_kafka import OFFSET_BEGINNING, Consumer
    from confluent_kafka import TopicPartition as CTopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"rb-{uuid.uuid4().hex[:8]}",
                         "enable.auto.commit": False})  # fmt: skip
    consumer.assign([CTopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)])
    try:
        seen = 0
        started, cpu = time.perf_counter(), time.process_time()
        while seen < records:
            for message in consumer.consume(MAX_RECORDS, 1.0):
                if message.error() is None:
                    if deserializer is not None:
                        deserializer(message.value())
                    seen += 1
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        return seen / wall, seen / cpu
    finally:
        consumer.close()


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB: Linux's ``VmHWM``, which starts again at
    ``exec``. (``ru_maxrss`` does not: a child forked from this benchmark's process, which holds
    gigabytes of records at times, inherits its high-water mark across ``exec``.)"""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux: the best there is


def read_child(reader: str, bootstrap: str, topic: str, records: int, mode: str, deser: bool,
               env: dict[str, str] | None = None) -> tuple[float, float, float]:  # fmt: skip
    """``reader`` in a child process (with ``env`` added to its environment): records/s on the
    clock, records per CPU second, and the child's peak resident memory in MiB."""
    child = [sys.executable, __file__, "--bootstrap-servers", bootstrap,
             "--child", reader, mode, topic, str(records), "1" if deser else "0"]  # fmt: skip
    done = subprocess.run(child, capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})  # fmt: skip
    wall, cpu, rss = (float(x) for x in done.stdout.split())
    return wall, cpu, rss


def read_tuned(bootstrap: str, topic: str, records: int, mode: str, deser: bool) -> Result:
    """The compiled path in a child process started with :data:`TUNED_MALLOC`."""
    wall, cpu, _ = read_child("compiled", bootstrap, topic, records, mode, deser, TUNED_MALLOC)
    return wall, cpu


def java_command() -> list[str] | None:
    """``java -cp ... RecordsBench`` compiled against kafka-clients, or None (said on stderr)."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        print("Java reader skipped: no JDK (javac, java) on PATH", file=sys.stderr)
        return None
    from staticconsumer.localkafka.maven import resolve_jars

    jars = resolve_jars(["org.apache.kafka:kafka-clients:4.4.0"])
    classpath = os.pathsep.join(str(j) for j in jars)
    out = Path(os.environ.get("TMPDIR", "/tmp")) / "staticconsumer-records-bench"
    out.mkdir(exist_ok=True)
    subprocess.run(["javac", "-d", str(out), "-cp", classpath, str(HERE / "RecordsBench.java")],
                   check=True)  # fmt: skip
    return ["java", "-cp", os.pathsep.join([str(out), classpath]), "RecordsBench"]


def read_java(command: list[str], bootstrap: str, topic: str, records: int,
              deserializer: Any) -> Result:  # fmt: skip
    args = [bootstrap, topic, str(PARTITIONS), str(records), "1" if deserializer else "0"]
    done = subprocess.run([*command, *args], capture_output=True, text=True, check=True)
    wall, cpu = (float(x) for x in done.stdout.split())
    return wall, cpu


def memory_per_record(reader: str, bootstrap: str, topic: str, records: int) -> float:
    """tracemalloc's bytes per record for ``records`` records held (getmany, no deserializer)."""

    async def hold() -> float:
        consumer = _python_consumer(reader, bootstrap, None)
        consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
        await consumer.start()
        try:
            await consumer.seek_to_beginning()
            held: list[Any] = []
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            while len(held) < records:
                for rs in (await consumer.getmany(timeout_ms=1000, max_records=500)).values():
                    held.extend(rs)
            await asyncio.sleep(2)  # every buffer refilled: only what is held differs
            grew = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
            return grew / len(held)
        finally:
            await consumer.stop()
            os.environ.pop(PURE_ENV, None)
            os.environ.pop(KEPT_ENV, None)

    return asyncio.run(hold())


def run(args: argparse.Namespace, bootstrap: str) -> None:
    from staticconsumer.localkafka import create_topic

    java = None if args.no_java else java_command()
    try:
        import confluent_kafka  # noqa: F401
    except ImportError:
        print("confluent-kafka reader skipped: not installed (pip install confluent-kafka)",
              file=sys.stderr)  # fmt: skip
        confluent = False
    else:
        confluent = True
    topics = {}
    wanted = [("100 B", 100, args.records, None), ("1 KiB", 1024, args.records_1k, None)]
    if args.compression != "none":
        wanted.append((f"1 KiB {args.compression}", 1024, args.records_1k, args.compression))
    for label, size, records, compression in wanted:
        topic = f"records-bench-{size}-{compression or 'none'}-{uuid.uuid4().hex[:6]}"
        asyncio.run(create_topic(bootstrap, topic, partitions=PARTITIONS))
        print(f"producing {records:,} records of {label} to {topic}", file=sys.stderr)
        produce = produce_numbered(bootstrap, topic, records, PARTITIONS, size=size, keys=True,
                                   max_batch_size=262_144, compression=compression)  # fmt: skip
        asyncio.run(produce)
        topics[label] = (topic, records)
    readers = ["compiled", "kept", "pure", "aiokafka", "confluent", "java", "tuned"]
    table: dict[tuple[str, str, bool, str], list[Result]] = {}
    for size, (topic, records) in topics.items():
        for mode in args.modes.split(","):
            for with_deser in (False, True):
                deser: Callable[[bytes], Any] | None = (lambda v: decode(v)) if with_deser else None
                for r in range(args.rounds):
                    order = readers if r % 2 == 0 else readers[::-1]
                    for reader in order:
                        got = one(reader, mode, bootstrap, topic, records, deser, java, confluent)
                        if got is None:
                            continue
                        table.setdefault((size, mode, with_deser, reader), []).append(got)
                        print(f"  {size:10} {mode:9} deser={with_deser!s:5} round {r + 1} "
                              f"{reader:9} {got[0]:12,.0f} rec/s {got[1]:12,.0f} rec/CPU-s",
                              file=sys.stderr)  # fmt: skip
    report(table)
    print("\nmemory of buffered records (tracemalloc, bytes per record held, 50,000 at most):")
    for size, (topic, records) in topics.items():
        held = min(50_000, records)
        row = {reader: memory_per_record(reader, bootstrap, topic, held)
               for reader in ("compiled", "kept", "pure", "aiokafka")}  # fmt: skip
        print(f"  {size:10}  " + "  ".join(f"{k} {v:,.0f}" for k, v in row.items()))
    print("\npeak resident memory of a process reading the topic whole (MiB, getmany):")
    for size, (topic, records) in topics.items():
        peaks = {reader: read_child(reader, bootstrap, topic, records, "getmany", False)[2]
                 for reader in RSS_READERS}  # fmt: skip
        print(f"  {size:10}  " + "  ".join(f"{k} {v:,.0f}" for k, v in peaks.items()))


def one(reader: str, mode: str, bootstrap: str, topic: str, records: int, deser: Any,
        java: list[str] | None, confluent: bool) -> Result | None:  # fmt: skip
    if reader == "java":
        if java is None or mode != "getmany":  # Java has poll(), no async for
            return None
        return read_java(java, bootstrap, topic, records, deser)
    if reader == "tuned":
        return read_tuned(bootstrap, topic, records, mode, deser is not None)
    if reader == "confluent":
        if not confluent or mode != "getmany":
            return None
        return read_confluent(bootstrap, topic, records, deser)
    return asyncio.run(read_python(reader, mode, bootstrap, topic, records, deser))


def report(table: dict[tuple[str, str, bool, str], list[Result]]) -> None:
    print("median records/s (wall) and records per CPU second; x: per CPU-s over raw aiokafka's")
    print(f"{'topic':>10} {'mode':9} {'deser':5} {'reader':9} {'rec/s':>11} {'rec/CPU-s':>11} "
          f"{'x CPU':>6} {'x wall':>6}")  # fmt: skip
    for size, mode, deser, reader in table:
        wall, cpu = _median(table, (size, mode, deser, reader))
        base_wall, base_cpu = _median(table, (size, mode, deser, "aiokafka"))
        x_cpu, x_wall = cpu / base_cpu, wall / base_wall
        print(f"{size:>10} {mode:9} {deser!s:5} {reader:9} {wall:11,.0f} {cpu:11,.0f} "
              f"{x_cpu:6.2f} {x_wall:6.2f}")  # fmt: skip
    peers(table)


def peers(table: dict[tuple[str, str, bool, str], list[Result]]) -> None:
    """The issue-43 ratios: kept (the default) per CPU second over librdkafka's, and on the clock
    over Java's; and kept over the compiled path on aiokafka's fetcher (100 B: not slower)."""
    print("\nkept (the default path) beside its peers, medians of the rounds:")
    print(f"{'topic':>10} {'mode':9} {'deser':5} {'CPU / librdkafka':>17} {'wall / Java':>12} "
          f"{'CPU / compiled':>15}")  # fmt: skip

    for size, mode, deser, reader in table:
        if reader != "kept":
            continue
        kept_wall, kept_cpu = _median(table, (size, mode, deser, "kept"))
        print(f"{size:>10} {mode:9} {deser!s:5} "
              f"{kept_cpu / _median(table, (size, mode, deser, 'confluent'))[1]:17.2f} "
              f"{kept_wall / _median(table, (size, mode, deser, 'java'))[0]:12.2f} "
              f"{kept_cpu / _median(table, (size, mode, deser, 'compiled'))[1]:15.2f}")  # fmt: skip


def _median(table: dict[tuple[str, str, bool, str], list[Result]],
            key: tuple[str, str, bool, str]) -> Result:  # fmt: skip
    """A reader's median records/s and records per CPU second over its rounds (NaN when it did
    not run: no JDK, no confluent-kafka, a mode it lacks)."""
    results = table.get(key)
    if not results:
        return float("nan"), float("nan")
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # millions: Java's JIT needs about a second before its consumer reads at its own speed
    parser.add_argument("--records", type=int, default=3_000_000)
    parser.add_argument("--records-1k", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bootstrap-servers")
    parser.add_argument("--no-java", action="store_true")
    parser.add_argument("--modes", default="getmany,async for", help="comma-separated")
    codecs = "gzip, snappy, lz4, zstd; none: no compressed topic"
    parser.add_argument("--compression", default="zstd", help=f"the compressed topic's ({codecs})")
    # a reader in a child process: READER MODE TOPIC RECORDS DESER (1/0); prints its wall and CPU
    # rates and its peak RSS in MiB
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        reader, mode, topic, records, deser = args.child
        deserializer = (lambda v: decode(v)) if deser == "1" else None
        got = asyncio.run(read_python(reader, mode, args.bootstrap_servers, topic,
                                      int(records), deserializer))  # fmt: skip
        print(*got, peak_rss_mib())
        return 0
    with bootstrap_servers(args.bootstrap_servers) as bootstrap:
        run(args, bootstrap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
