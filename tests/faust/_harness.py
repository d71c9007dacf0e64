"""faust workers in their own processes (``_worker.py``, faust's own worker runner), a keyed
producer, and the figures the scenarios assert on:

* ``duplicates``: records (partition, offset) handled more than once, across all workers;
* ``lost``: records the producer had acknowledged (``acks=all``) that no worker handled;
* ``rebalances``: assignments a worker received after its first one while its process stayed up;
* ``restored``: changelog records table recovery applied (``on_changelog_event``).

Each worker appends JSON events to ``<log_dir>/<name>.events`` and logs to ``<name>.log``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient

from staticconsumer.admin import describe_group

from .. import _processes
from ..integration._group import wait_until
from ..reliability._harness import PARTITIONS, ROOT, Producer


@dataclass
class Settings:
    kind: str  # "static" (StaticApp) or "plain" (faust.App)
    bootstrap: str
    topic: str
    group: str
    log_dir: Path
    partitions: int = PARTITIONS
    standbys: int = 1
    store: str = "rocksdb://"
    session_timeout_s: float = 30.0


class Worker:
    """One faust worker process with instance id ``instance_id`` (``name`` names its files;
    a second worker with the same id has another name and data directory)."""

    _ports = iter(range(20000 + (os.getpid() % 500) * 20, 65000))

    def __init__(self, name: str, instance_id: str, settings: Settings) -> None:
        self.name, self.instance_id, self.settings = name, instance_id, settings
        self.process: asyncio.subprocess.Process | None = None
        self.events_path = settings.log_dir / f"{name}.events"
        #: While this file exists the worker's agent and its fatal stop are slow
        #: (``_worker.slow_down``).
        self.slow_path = settings.log_dir / f"{name}.slow"
        self.datadir = settings.log_dir / f"{name}.data"
        self.web_port = next(self._ports)  # its canonical URL: the same across restarts

    def argv(self) -> list[str]:
        s = self.settings
        return [
            sys.executable, "-m", "tests.faust._worker", "--kind", s.kind,
            "--bootstrap", s.bootstrap, "--group", s.group, "--topic", s.topic,
            "--instance-id", self.instance_id, "--partitions", str(s.partitions),
            "--standbys", str(s.standbys), "--store", s.store, "--datadir", str(self.datadir),
            "--web-port", str(self.web_port), "--events", str(self.events_path),
            "--session-timeout-s", str(s.session_timeout_s),
            "--slow-down", str(self.slow_path),
        ]  # fmt: skip

    async def start(self) -> None:
        log = (self.settings.log_dir / f"{self.name}.log").open("ab")
        try:
            self.process = await _processes.spawn(
                self.name, *self.argv(), cwd=ROOT, stdin=asyncio.subprocess.DEVNULL, stdout=log,
                stderr=log, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )  # fmt: skip
        finally:
            log.close()

    @property
    def returncode(self) -> int | None:
        return None if self.process is None else self.process.returncode

    @property
    def events(self) -> list[dict[str, Any]]:
        if not self.events_path.exists():
            return []
        # a line the worker is still writing has no newline yet: read it next time
        lines = self.events_path.read_text().split("\n")[:-1]
        return [json.loads(line) for line in lines if line.strip()]

    def log_text(self) -> str:
        return (self.settings.log_dir / f"{self.name}.log").read_text(errors="replace")

    def runs(self) -> list[list[dict[str, Any]]]:
        """The events of each process run (split at ``started``)."""
        runs: list[list[dict[str, Any]]] = []
        for event in self.events:
            if event["ev"] == "started" or not runs:
                runs.append([])
            runs[-1].append(event)
        return runs

    def assignments(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["ev"] == "assigned"]

    def last_assignment(self) -> dict[str, Any] | None:
        """The last assignment of the last run (None: none yet)."""
        runs = self.runs()
        last = [e for e in (runs[-1] if runs else []) if e["ev"] == "assigned"]
        return last[-1] if last else None

    def actives(self, topic: str) -> set[int]:
        """The partitions of ``topic`` active here after the last assignment of the last run."""
        last = self.last_assignment()
        return {p for t, p in last["actives"] if t == topic} if last else set()

    def tables(self) -> dict[str, dict[str, set[int]]]:
        """``{topic: {"actives": partitions, "standbys": partitions}}`` after the last
        assignment of the last run (faust's ``app.assignor``)."""
        last = self.last_assignment()
        held: dict[str, dict[str, set[int]]] = {}
        for kind in ("actives", "standbys"):
            for topic, partition in last[kind] if last else ():
                held.setdefault(topic, {"actives": set(), "standbys": set()})[kind].add(partition)
        return held

    def handled(self) -> dict[int, int]:
        """``{partition: the highest offset handled}`` over all runs."""
        top: dict[int, int] = {}
        for e in self.events:
            if e["ev"] == "record":
                top[e["partition"]] = max(e["offset"], top.get(e["partition"], -1))
        return top

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def stop(self, timeout_s: float = 90) -> None:
        """SIGTERM (faust's clean stop), then wait for the process; past ``timeout_s`` its
        process group is killed and the test fails with its last log lines."""
        if self.process is None:
            return
        log = self.settings.log_dir / f"{self.name}.log"
        await _processes.stop(self.process, name=f"faust worker {self.name}",
                              timeout_s=timeout_s, log=log)  # fmt: skip

    async def kill(self) -> None:
        if self.process is not None:
            await _processes.kill(self.process)


def keyed_producer(bootstrap: str, topic: str, rate_per_s: float = 100.0) -> Producer:
    """The reliability suite's producer (every partition in turn, ``acks=all``), with keys:
    faust's agent counts records per key in its table."""
    return Producer(bootstrap, topic, rate_per_s, key=lambda n: f"k{n % 20}".encode())


@contextlib.asynccontextmanager
async def running_group(
    settings: Settings, size: int = 3
) -> AsyncIterator[tuple[list[Worker], Producer]]:
    """Workers ``w-0``..``w-<size-1>`` started, the keyed producer running, the group
    settled (:func:`wait_settled`); on exit the producer and every worker in the list (a
    test may append more) are stopped."""
    workers = [Worker(f"w-{n}", f"w-{n}", settings) for n in range(size)]
    producer = keyed_producer(settings.bootstrap, settings.topic)
    try:
        for worker in workers:
            await worker.start()
        await wait_settled(workers, settings, handling=False)  # formed before records arrive
        await producer.start()
        await wait_settled(workers, settings)
        yield workers, producer
    finally:
        await producer.stop()
        await _processes.stop_all([worker.stop() for worker in workers])


def settled(workers: list[Worker], settings: Settings, since: float | None) -> bool:
    """Every running worker's last assignment is of one generation, their actives of the
    topic are each partition once, and (unless ``since`` is None) each has handled a record
    since ``since`` (its tables recovered, its agent reading)."""
    running = [w for w in workers if w.running]
    last = [w.last_assignment() for w in running]
    if not running or any(a is None for a in last):
        return False
    if len({a["generation"] for a in last if a is not None}) != 1:
        return False
    actives = sorted(p for a in last if a is not None for t, p in a["actives"]
                     if t == settings.topic)  # fmt: skip
    if actives != list(range(settings.partitions)):
        return False
    return since is None or all(any(e["ev"] == "record" and e["t"] > since
                                    for e in w.runs()[-1]) for w in running)  # fmt: skip


async def wait_settled(
    workers: list[Worker], settings: Settings, *, handling: bool = True, timeout_s: float = 90
) -> None:
    """Until :func:`settled`: the group has formed (or re-formed) and, with ``handling``,
    every worker in it is handling records (the producer runs). Waits on what the workers
    report, not on time."""
    since = now() if handling else None
    what = "one generation, every partition active once" + (", every worker handling" * handling)
    await wait_until(lambda: settled(workers, settings, since), timeout_s, what)


@dataclass
class Figures:
    duplicates: int = 0
    lost: int = 0
    rebalances: int = 0
    restored: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def figures(workers: list[Worker], producer: Producer, *, since: float = 0.0) -> Figures:
    """The figures of a scenario (module docstring); ``rebalances`` and ``restored`` count
    from ``since`` (a ``time.monotonic()`` after the group was stable)."""
    handled: Counter[tuple[int, int]] = Counter(
        (e["partition"], e["offset"]) for w in workers for e in w.events if e["ev"] == "record"
    )
    rebalances = sum(max(0, len([e for e in run if e["ev"] == "assigned" and e["t"] > since])
                         - (1 if run and run[0]["t"] > since else 0))
                     for w in workers for run in w.runs())  # fmt: skip
    restored = sum(1 for w in workers for e in w.events if e["ev"] == "restored" and e["t"] > since)
    return Figures(duplicates=sum(n - 1 for n in handled.values() if n > 1),
                   lost=len(producer.acked - set(handled)), rebalances=rebalances,
                   restored=restored)  # fmt: skip


async def wait_handled(workers: list[Worker], producer: Producer, timeout_s: float = 60) -> bool:
    """Until every acknowledged record was handled by some worker, or ``timeout_s`` (False:
    the figures then count the rest as lost)."""

    def done() -> bool:
        seen = {(e["partition"], e["offset"]) for w in workers for e in w.events
                if e["ev"] == "record"}  # fmt: skip
        return producer.acked <= seen

    try:
        await wait_until(done, timeout_s, "every acknowledged record handled")
    except AssertionError:
        return False
    return True


async def group_instance_ids(settings: Settings) -> list[str]:
    """The group's members as the coordinator lists them (DescribeGroups): their instance
    ids, sorted."""
    description = await describe_group(settings.bootstrap, settings.group)
    return sorted(str(m.group_instance_id) for m in description.members)


async def commit_gaps(
    settings: Settings, workers: list[Worker], partitions: set[int]
) -> dict[int, list[int]]:
    """Of ``partitions``, those whose committed offset (the coordinator's) is not one past
    the last record any worker handled there: ``{partition: [committed, handled + 1]}``
    (a stopped worker's clean stop commits what it handled, no less and no more)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(settings.group)
    finally:
        await admin.close()
    committed = {tp.partition: m.offset for tp, m in offsets.items() if tp.topic == settings.topic}
    handled: dict[int, int] = {}
    for worker in workers:
        for partition, offset in worker.handled().items():
            handled[partition] = max(offset, handled.get(partition, -1))
    return {p: [committed.get(p, 0), handled.get(p, -1) + 1] for p in sorted(partitions)
            if committed.get(p, 0) != handled.get(p, -1) + 1}  # fmt: skip


def now() -> float:
    return time.monotonic()
