"""Java's Kafka Streams 4.4 beside ``staticconsumer.streams_app`` on one streams group broker.

    python benchmarks/streams_bench.py [--quick] [--records N] [--bootstrap-servers H:P]

Both sides run the same topology shape on one Kafka 4.4.0 broker (started here by
``staticconsumer.localkafka`` unless given): one source topic of :data:`PARTITIONS` partitions
(as many tasks), a per-key count and sum in a store whose changelog the broker creates
(KIP-1071), each new aggregate written to an output topic; :data:`THREADS` stream threads per
process, each a static member ``<base>-<n>``. Java's side is ``StreamsBench.java`` beside this
script (kafka-streams 4.4.0 from Maven Central, ``group.protocol=streams``, ``group.instance.id``
= the base: Kafka Streams names thread n's member ``<base>-<n>``); ours is
``python -m staticconsumer.streams_app --group-protocol streams``. The sides run one after the
other (a 2-core machine: side by side they would share the cores), each on its own topics and
group, through the same scenario:

1. two processes start on the empty topic and settle (the broker's view: every task active on
   one member, the group Stable);
2. **workload**: ``--records`` records are produced; the processes' CPU seconds (``/proc``, user
   + system, every thread of the process) from before the first record until every record is
   folded in and its input offset committed (so the changelog and output writes are in), and
   their peak RSS (``VmHWM``); both per stream thread. Java commits every second here
   (``commit.interval.ms`` 1000; its default 30 s would hold the output that long), ours after
   every batch;
3. **rolling restart** with records arriving (one each 2 ms): each process in turn gets SIGTERM
   (a static stop: member epoch -2, Java's ``REMAIN_IN_GROUP``), and is started again with the
   same state directory; timed from the new process's start to its first record processed and
   to every one of its threads processing;
4. **scale-up**: a third process joins; timed until it holds tasks and the group is Stable;
5. the input stops, every record is folded in, the processes stop, and the output topic's last
   aggregate per key is checked against the input (both sides: exact counts and sums).

**Tasks moved** are counted from the broker's side for both: StreamsGroupDescribe every
:data:`POLL_S`, each active task's owner (the member's instance id); a task whose owner changes
to another member counts once, whatever the client says. The group epoch before and after the
rolling restart is printed too. No figure is asserted; ``tests/benchmarks`` runs ``--quick``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _broker import bootstrap_servers, send_all  # benchmarks/, the script's own folder

from staticconsumer._demo._apps import AppProcess

HERE = Path(__file__).resolve().parent
KAFKA_STREAMS = "org.apache.kafka:kafka-streams:4.4.0"
PARTITIONS = 6
THREADS = 2
KEYS = 1000
POLL_S = 0.2
SETTLE_TIMEOUT_S = 120.0
#: The broker: first assignment at once, one standby per task (as the demo's), and a 500 ms
#: streams heartbeat so both sides hear of a new assignment equally soon. The session stays
#: the broker's default (45 s): every restart here is shorter.
BROKER_CONFIG = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "4",
    "group.streams.initial.rebalance.delay.ms": "0",
    "group.streams.num.standby.replicas": "1",
    "group.streams.min.heartbeat.interval.ms": "100",
    "group.streams.heartbeat.interval.ms": "500",
}
CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- the processes ---------------------------------------------------------------------------


class Proc(AppProcess):
    """One incarnation of an app process (the demo's, running ``program``), when it started and
    when each of its threads first folded a record in."""

    def __init__(self, label: str, program: list[str], args: list[str], log: Path) -> None:
        super().__init__(label, args, log, self._note, program=tuple(program))
        self.started_at = 0.0
        self.first_processing: dict[str, float] = {}  # thread -> when

    async def start(self) -> None:
        await super().start()
        self.started_at = time.monotonic()

    def _note(self, _: AppProcess, doc: dict[str, Any]) -> None:
        if doc.get("event") == "processing":
            self.first_processing.setdefault(str(doc["thread"]), time.monotonic())

    def cpu_s(self) -> float:
        """User + system CPU seconds of every thread of the process so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")


@dataclass
class Side:
    """How to start one process of one side: ``program`` and its arguments."""

    name: str
    program: list[str]
    args: Callable[[str, str, Path, str, str], list[str]]  # bootstrap, base, state, in, out
    group: str


def java_side(command: list[str], group: str) -> Side:
    def args(bootstrap: str, base: str, state: Path, topic_in: str, topic_out: str) -> list[str]:
        return [bootstrap, group, base, str(THREADS), str(state), topic_in, topic_out]

    return Side("Java", command, args, group)


def python_side(group: str) -> Side:
    def args(bootstrap: str, base: str, state: Path, topic_in: str, topic_out: str) -> list[str]:
        return ["--bootstrap-servers", bootstrap, "--group", group, "--instance-base", base,
                "--threads", str(THREADS), "--state-dir", str(state), "--input-topic", topic_in,
                "--output-topic", topic_out, "--changelog-topic", f"{group}-aggregate-changelog",
                "--group-protocol", "streams"]  # fmt: skip

    return Side("ours", [sys.executable, "-m", "staticconsumer.streams_app"], args, group)


def java_command() -> list[str]:
    """``java -cp ... StreamsBench`` compiled against kafka-streams 4.4.0 (cached by source)."""
    from staticconsumer.localkafka.maven import cache_root, resolve_jars

    classpath = os.pathsep.join(str(j) for j in resolve_jars([KAFKA_STREAMS]))
    source = HERE / "StreamsBench.java"
    digest = hashlib.sha256(source.read_bytes() + classpath.encode()).hexdigest()[:12]
    out = cache_root() / "streams-bench" / digest
    if not (out / "StreamsBench.class").exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-d", str(out), "-cp", classpath, str(source)], check=True)
    return ["java", "-cp", os.pathsep.join([str(out), classpath]), "StreamsBench"]


# -- the broker's view: StreamsGroupDescribe ------------------------------------------------


class Observer:
    """Polls the group's description; counts active tasks whose owner changes."""

    def __init__(self, bootstrap: str, group: str) -> None:
        self.bootstrap, self.group = bootstrap, group
        self.owner: dict[tuple[str, int], str] = {}
        self.moves = 0
        self.latest: Any = None
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Observer:
        from staticconsumer._admin.client import open_client
        from staticconsumer.security import SecuritySettings

        self._client = await open_client(self.bootstrap, 10.0, SecuritySettings.coerce(None))
        self._task = asyncio.create_task(self._poll())
        return self

    async def __aexit__(self, *exc: object) -> None:
        from staticconsumer._compat import close_client

        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await close_client(self._client)

    async def describe(self) -> Any:
        from staticconsumer._admin.coordinator import send, with_coordinator
        from staticconsumer.protocol import (
            build_streams_group_describe,
            parse_streams_group_describe,
        )

        async def ask(node: int, versions: Any) -> Any:
            request = build_streams_group_describe(0, [self.group])
            response = await send(self._client, node, request, group_id=self.group,
                                  api="StreamsGroupDescribe", timeout_s=10.0)  # fmt: skip
            return parse_streams_group_describe(response)[0]

        return await with_coordinator(self._client, self.group, ask, timeout_s=10.0)

    async def _poll(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a slow answer: the next poll will do
                self.note(await self.describe())
            await asyncio.sleep(POLL_S)

    def note(self, described: Any) -> None:
        self.latest = described
        for m in described.members:
            for task in m.assignment.active:
                for p in task.partitions:
                    key, who = (task.subtopology_id, p), m.instance_id or m.member_id
                    if self.owner.get(key, who) != who:
                        self.moves += 1
                    self.owner[key] = who

    def settled(self, members: int, holders: set[str] | None = None) -> bool:
        """Stable with ``members`` live members, every task active once, no warm-ups, each of
        ``holders`` (instance ids) holding an active task."""
        g = self.latest
        if g is None or g.group_state.lower() != "stable":
            return False
        live = [m for m in g.members if m.member_epoch >= 0]
        active = [(t.subtopology_id, p) for m in live for t in m.assignment.active
                  for p in t.partitions]  # fmt: skip
        warm = [t for m in live for t in m.assignment.warmup]
        held = {m.instance_id for m in live if m.assignment.active}
        return (len(live) == members and len(active) == len(set(active)) == PARTITIONS
                and not warm and (holders or set()) <= held
                and all(m.assignment == m.target_assignment for m in live))  # fmt: skip


async def until(what: str, check: Callable[[], bool], timeout_s: float = SETTLE_TIMEOUT_S) -> float:
    """Wait for ``check``; the seconds it took. Raises with ``what`` on timeout."""
    t0 = time.monotonic()
    while not check():
        if time.monotonic() - t0 > timeout_s:
            raise TimeoutError(f"no {what} after {timeout_s:.0f} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - t0


# -- records ---------------------------------------------------------------------------------


class Input:
    """Records ``k<n % KEYS>`` = ``n % 100`` to the input topic; what was sent, per key."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic, self.sent = bootstrap, topic, 0
        self.expected: dict[str, tuple[int, int]] = {}

    def _next(self) -> tuple[bytes, bytes]:
        n = self.sent
        key, value = f"k{n % KEYS}", n % 100
        count, total = self.expected.get(key, (0, 0))
        self.expected[key] = (count + 1, total + value)
        self.sent += 1
        return key.encode(), b"%d" % value

    async def produce(self, records: int) -> None:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, linger_ms=20, acks="all")
        await producer.start()
        try:
            await send_all(producer, self.topic, ((*self._next(), None) for _ in range(records)))
        finally:
            await producer.stop()

    async def paced(self, stop: asyncio.Event) -> None:
        """One record each 2 ms until ``stop``."""
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, linger_ms=5, acks="all")
        await producer.start()
        try:
            while not stop.is_set():
                key, value = self._next()
                await producer.send(self.topic, value, key=key)
                await asyncio.sleep(0.002)
        finally:
            await producer.stop()


async def last_aggregates(bootstrap: str, topic: str) -> dict[str, tuple[int, int]]:
    """The output topic read whole: per key, the aggregate with the highest count."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]  # create_topics'
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        got: dict[str, tuple[int, int]] = {}
        while any([await consumer.position(tp) < ends[tp] for tp in tps]):
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                for r in records:
                    doc = json.loads(r.value)
                    key = r.key.decode()
                    if doc["count"] >= got.get(key, (0, 0))[0]:
                        got[key] = (int(doc["count"]), int(doc["sum"]))
        return got
    finally:
        await consumer.stop()


async def committed(bootstrap: str, group: str, topic: str, records: int) -> None:
    """Until the group's committed offsets on ``topic`` add up to ``records``: what was folded
    in is also written out (both sides commit only after their changelog and output writes)."""
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        async with asyncio.timeout(SETTLE_TIMEOUT_S):
            while True:
                offsets = await admin.list_consumer_group_offsets(group)
                if sum(m.offset for tp, m in offsets.items() if tp.topic == topic) >= records:
                    return
                await asyncio.sleep(0.1)
    finally:
        await admin.close()


async def create_topics(bootstrap: str, *topics: str) -> None:
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in topics])
    finally:
        await admin.close()


# -- the scenario ----------------------------------------------------------------------------


@dataclass
class Figures:
    """What one side measured (``None``: not reached)."""

    side: str
    start_to_settled_s: float = 0.0
    workload_records: int = 0
    workload_wall_s: float = 0.0
    workload_cpu_s: float = 0.0
    peak_rss_mb_per_thread: float = 0.0
    startup_cpu_s: float = 0.0
    stop_s: list[float] = field(default_factory=list)
    restart_to_first_processing_s: list[float] = field(default_factory=list)
    restart_to_all_threads_processing_s: list[float] = field(default_factory=list)
    rolling_moves: int = -1
    rolling_epoch_bump: int = -1
    scaleup_moves: int = -1
    scaleup_settled_s: float | None = None
    produced: int = 0
    exact_keys: int = 0
    keys: int = 0
    counted: int = 0

    @property
    def cpu_s_per_thread(self) -> float:
        return self.workload_cpu_s / (2 * THREADS)

    @property
    def records_per_cpu_s(self) -> float:
        return self.workload_records / self.workload_cpu_s if self.workload_cpu_s else 0.0


def total_processed(procs: list[Proc]) -> int:
    return sum(p.counter("processed") for p in procs)


async def run_side(side: Side, bootstrap: str, records: int, work: Path,
                   say: Callable[[str], None]) -> Figures:  # fmt: skip
    """The scenario of the module docstring for one side."""
    fig = Figures(side.name)
    tag = side.group
    topic_in, topic_out = f"{tag}-in", f"{tag}-out"
    await create_topics(bootstrap, topic_in, topic_out)
    data = Input(bootstrap, topic_in)
    every: list[Proc] = []

    async def spawn(base: str) -> Proc:
        state = work / tag / base
        state.mkdir(parents=True, exist_ok=True)
        proc = Proc(base, side.program, side.args(bootstrap, base, state, topic_in, topic_out),
                    work / f"{tag}-{base}.log")  # fmt: skip
        every.append(proc)
        await proc.start()
        return proc

    async with Observer(bootstrap, side.group) as seen:
        try:
            live = {b: await spawn(b) for b in ("a", "b")}
            fig.start_to_settled_s = await until("settled group", lambda: seen.settled(4))
            say(f"{side.name}: 2 processes settled in {fig.start_to_settled_s:.1f} s")
            # -- workload
            before = {b: p.cpu_s() for b, p in live.items()}
            fig.startup_cpu_s = sum(before.values())
            t0 = time.monotonic()
            await data.produce(records)
            await until("workload folded in", lambda: total_processed(every) >= records, 600)
            await committed(bootstrap, side.group, topic_in, records)
            fig.workload_wall_s = time.monotonic() - t0
            fig.workload_records = records
            fig.workload_cpu_s = sum(p.cpu_s() - before[b] for b, p in live.items())
            fig.peak_rss_mb_per_thread = max(p.peak_rss_mb() for p in live.values()) / THREADS
            say(f"{side.name}: {records} records in {fig.workload_wall_s:.1f} s, "
                f"{fig.workload_cpu_s:.1f} CPU s")  # fmt: skip
            # -- rolling restart, records arriving
            stop = asyncio.Event()
            producing = asyncio.create_task(data.paced(stop))
            moves, epoch = seen.moves, (await seen.describe()).group_epoch
            for base in ("a", "b"):
                t = time.monotonic()
                await live[base].terminate(60)
                fig.stop_s.append(time.monotonic() - t)
                new = live[base] = await spawn(base)
                await until(
                    f"{base} processing again", lambda n=new: len(n.first_processing) == THREADS
                )  # type: ignore[misc]
                first = sorted(new.first_processing.values())
                fig.restart_to_first_processing_s.append(first[0] - new.started_at)
                fig.restart_to_all_threads_processing_s.append(first[-1] - new.started_at)
                await until("settled group", lambda: seen.settled(4))
                say(f"{side.name}: {base} restarted, processing after "
                    f"{fig.restart_to_all_threads_processing_s[-1]:.1f} s")  # fmt: skip
            fig.rolling_moves = seen.moves - moves
            fig.rolling_epoch_bump = (await seen.describe()).group_epoch - epoch
            # -- scale-up
            moves = seen.moves
            live["c"] = await spawn("c")
            newcomers = {f"c-{n}" for n in range(1, THREADS + 1)}
            with contextlib.suppress(TimeoutError):
                fig.scaleup_settled_s = await until(
                    "settled group with c", lambda: seen.settled(6, newcomers)
                )
            fig.scaleup_moves = seen.moves - moves
            say(f"{side.name}: scale-up, {fig.scaleup_moves} task(s) moved")
            stop.set()
            await producing
            fig.produced = data.sent
            await until("every record folded in", lambda: total_processed(every) >= data.sent)
        finally:
            for proc in every:
                if proc.running:
                    await proc.terminate(60)
    got = await last_aggregates(bootstrap, topic_out)
    fig.keys = len(data.expected)
    fig.exact_keys = sum(1 for k, v in data.expected.items() if got.get(k) == v)
    fig.counted = sum(c for c, _ in got.values())
    return fig


# -- the report ------------------------------------------------------------------------------


def _ratio(ours: float | None, java: float | None) -> str:
    if ours is None or java is None or java == 0:
        return "-"
    return f"{ours / java:.2f}"


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def rows(java: Figures, ours: Figures) -> list[tuple[str, Any, Any, str]]:
    """(figure, Java, ours, ours / Java)."""
    out: list[tuple[str, Any, Any, str]] = []

    def row(name: str, get: Callable[[Figures], Any], ratio: bool = True) -> None:
        j, o = get(java), get(ours)
        out.append((name, j, o, _ratio(o, j) if ratio else ""))

    row("start to settled group (s)", lambda f: f.start_to_settled_s)
    row(
        "restart to first thread processing (s, mean)",
        lambda f: _mean(f.restart_to_first_processing_s),
    )
    row(
        "restart to every thread processing (s, mean)",
        lambda f: _mean(f.restart_to_all_threads_processing_s),
    )
    row("SIGTERM to exit (s, mean)", lambda f: _mean(f.stop_s))
    row("tasks moved, rolling restart", lambda f: f.rolling_moves, ratio=False)
    row("group epoch bumps, rolling restart", lambda f: f.rolling_epoch_bump, ratio=False)
    row("tasks moved, scale-up 2 -> 3 processes", lambda f: f.scaleup_moves, ratio=False)
    row("scale-up to settled (s)", lambda f: f.scaleup_settled_s)
    row("workload records", lambda f: f.workload_records, ratio=False)
    row("workload wall (s)", lambda f: f.workload_wall_s)
    row("CPU s per thread (workload)", lambda f: f.cpu_s_per_thread)
    row("records per CPU second", lambda f: f.records_per_cpu_s)
    row("CPU s per process to settle (startup)", lambda f: f.startup_cpu_s / 2)
    row("peak RSS per thread (MB)", lambda f: f.peak_rss_mb_per_thread)
    row("records produced", lambda f: f.produced, ratio=False)
    row("keys exact (count and sum)", lambda f: f"{f.exact_keys}/{f.keys}", ratio=False)
    row("records counted in the output", lambda f: f.counted, ratio=False)
    return out


def _cell(v: Any) -> str:
    if v is None:
        return "not reached"
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def report(java: Figures, ours: Figures) -> None:
    print(f"{'':46} {'Java Streams':>13} {'staticconsumer':>15} {'ours/Java':>10}")
    for name, j, o, r in rows(java, ours):
        print(f"{name:46} {_cell(j):>13} {_cell(o):>15} {r:>10}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument(
        "--records", type=int, default=None, help="the workload (default 100000; --quick 10000)"
    )
    parser.add_argument("--quick", action="store_true", help="CI smoke: a small workload")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON line too")
    args = parser.parse_args()
    records = args.records or (10_000 if args.quick else 100_000)

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    java_cmd = java_command()
    run = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory(prefix="streams-bench-") as tmp, \
            bootstrap_servers(args.bootstrap_servers, BROKER_CONFIG) as bootstrap:  # fmt: skip
        work = Path(tmp)
        sides = (java_side(java_cmd, f"java-{run}"), python_side(f"py-{run}"))
        java, ours = (asyncio.run(run_side(s, bootstrap, records, work, say)) for s in sides)
    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, {_java_version()}; {PARTITIONS} tasks, {THREADS} "
          f"threads per process, {KEYS} keys, kafka-streams 4.4.0 vs staticconsumer")  # fmt: skip
    report(java, ours)
    if args.json:
        doc = {f.side: {**f.__dict__, "records_per_cpu_s": f.records_per_cpu_s,
                        "cpu_s_per_thread": f.cpu_s_per_thread} for f in (java, ours)}  # fmt: skip
        print(json.dumps(doc, sort_keys=True))


def _java_version() -> str:
    done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    return (done.stderr.splitlines() or ["java ?"])[0]


if __name__ == "__main__":
    main()
