"""FastStream services in their own processes (``_service.py``, run by FastStream's runner), a
producer per topic, and the figures the tests and ``benchmarks/faststream_bench.py`` report:

* ``rebalances``: assignments a subscriber received after the group was stable while its
  process stayed up (each but a process's first per subscriber);
* ``duplicates``/``lost``: records handled more than once / acknowledged but never handled;
* ``moved``: subscribers (by base id and topic) whose partitions differ after the scenario.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _processes
from ..integration._group import wait_until
from ..reliability._harness import PARTITIONS, MemberProcess, Producer, Settings


class ServiceProcess(MemberProcess):
    """One FastStream service process with base id ``base_id`` (``name`` names its log)."""

    def __init__(self, name: str, base_id: str, settings: Settings, log_dir: Path,
                 *, takeover: bool = False) -> None:  # fmt: skip
        super().__init__(name, settings, log_dir)
        self.base_id = base_id
        self.takeover = takeover
        #: While this file exists the service's commits wait a minute for their answer
        #: (``_service.slow_commits``).
        self.slow_path = log_dir / f"{name}.slow"

    def member_argv(self, module: str = "tests.faststream._service") -> list[str]:
        s = self.settings
        if s.kind == "fastapi":  # the same service as a FastAPI app under uvicorn
            module = "tests.faststream._asgi_service"
        return [
            sys.executable, "-m", module, "--kind", s.kind, "--bootstrap", s.bootstrap,
            "--group", s.group, "--topics", s.topic, "--base-id", self.base_id,
            "--group-protocol", s.group_protocol,
            "--session-timeout-ms", str(s.session_timeout_ms),
            "--slow-commits", str(self.slow_path),
            *(["--takeover"] if self.takeover else []),
        ]  # fmt: skip

    @property
    def returncode(self) -> int | None:
        return None if self.process is None else self.process.returncode

    def log_text(self) -> str:
        return (self.log_dir / f"{self.name}.log").read_text(errors="replace")

    def assignment(self) -> dict[str, set[int]]:
        """What each subscriber of the current run holds (by topic)."""
        owned: dict[str, set[int]] = {}
        for event in self.events:
            if event["ev"] in ("spawned", "exited"):
                owned = {}
            elif event["ev"] == "assigned":
                owned.setdefault(event["sub"], set()).update(event["partitions"])
            elif event["ev"] == "revoked":
                owned.setdefault(event["sub"], set()).difference_update(event["partitions"])
        return owned


@dataclass
class Figures:
    scenario: str
    kind: str
    rebalances: int = 0
    duplicates: int = 0
    lost: int = 0
    moved: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def handled(processes: list[ServiceProcess]) -> Counter[tuple[str, int, int]]:
    return Counter(
        (e["sub"], e["partition"], e["offset"])
        for p in processes for e in p.events if e["ev"] == "record"
    )  # fmt: skip


def rebalances(processes: list[ServiceProcess], since: float) -> int:
    count = 0
    for process in processes:
        seen: set[str] = set()
        leaving = False
        for event in process.events:
            if event["ev"] == "spawned":
                seen, leaving = set(), False
            elif event["ev"] in ("stop_requested", "killed", "exited"):
                leaving = True
            elif event["ev"] == "assigned" and not leaving:
                count += int(event["sub"] in seen and event["t"] >= since)
                seen.add(event["sub"])
    return count


def by_instance(processes: list[ServiceProcess]) -> dict[str, frozenset[int]]:
    """``{<base id>/<topic>: partitions}`` of the processes that run."""
    return {
        f"{p.base_id}/{sub}": frozenset(parts)
        for p in processes if p.returncode is None
        for sub, parts in p.assignment().items()
    }  # fmt: skip


async def settled(processes: list[ServiceProcess], topics: list[str], timeout_s: float,
                  quiet_s: float = 2.0) -> None:  # fmt: skip
    """Every subscriber of every running process holds partitions, each topic's are all held,
    and nothing changed for ``quiet_s``."""

    def done() -> bool:
        running = [p for p in processes if p.returncode is None]
        owned = [p.assignment() for p in running]
        for topic in topics:
            parts = [o.get(topic, set()) for o in owned]
            if not all(parts) or set().union(*parts) != set(range(PARTITIONS)):
                return False
        changes = [e["t"] for p in running for e in p.events if e["ev"] in ("assigned", "revoked")]
        return bool(changes) and time.monotonic() - max(changes) >= quiet_s

    try:
        await wait_until(done, timeout_s, "every subscriber holding partitions, nothing moving")
    except AssertionError as exc:
        held = {p.name: p.assignment() for p in processes if p.returncode is None}
        raise AssertionError(f"{exc}; held: {held}") from None


async def drained(processes: list[ServiceProcess], producers: dict[str, Producer],
                  timeout_s: float) -> None:  # fmt: skip
    def done() -> bool:
        seen = {(s, p, o) for s, p, o in handled(processes)}
        return all({(topic, p, o) for p, o in producer.acked} <= seen
                   for topic, producer in producers.items())  # fmt: skip

    await wait_until(done, timeout_s, "every acknowledged record handled")


def figures(scenario: str, kind: str, processes: list[ServiceProcess],
            producers: dict[str, Producer], since: float,
            before: dict[str, frozenset[int]]) -> Figures:  # fmt: skip
    counts = handled(processes)
    acked = {(topic, p, o) for topic, prod in producers.items() for p, o in prod.acked}
    after = by_instance(processes)
    return Figures(
        scenario, kind, rebalances=rebalances(processes, since),
        duplicates=sum(n - 1 for n in counts.values()), lost=len(acked - set(counts)),
        moved=sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)),
    )  # fmt: skip


FATAL_LINE = "stopping the FastStream app"
#: The same line's end under StaticKafkaRouter (``Settings.kind == "fastapi"``).
FATAL_LINE_ASGI = "stopping the ASGI server (the process then exits with status 3)"


async def _start_all(processes: list[ServiceProcess], topics: list[str]) -> None:
    for process in processes:
        await process.start()
    await settled(processes, topics, timeout_s=90)


async def _stop_all(processes: list[ServiceProcess]) -> None:
    await _processes.stop_all([process.stop(timeout_s=60) for process in processes])


async def rolling_restart(settings: Settings, log_dir: Path, *, rounds: int = 1) -> Figures:
    """2 processes x 2 subscribers; each process stopped (SIGTERM: FastStream's graceful
    shutdown) and started again in turn while both topics receive records."""
    topics = settings.topic.split(",")
    processes = [ServiceProcess(f"svc-{i}", f"svc-{i}", settings, log_dir) for i in range(2)]
    producers = {t: Producer(settings.bootstrap, t, rate_per_s=50) for t in topics}
    try:
        await _start_all(processes, topics)
        before, since, since_epoch = by_instance(processes), time.monotonic(), time.time()
        for producer in producers.values():
            await producer.start()
        for _ in range(rounds):
            for process in processes:
                await process.stop(timeout_s=60)
                mark = len(process.events)
                await process.start()
                await process.wait_for(lambda e: e["ev"] == "assigned", 60, after=mark)
                await settled(processes, topics, timeout_s=60, quiet_s=1.0)
        for producer in producers.values():
            await producer.stop()
        await drained(processes, producers, timeout_s=60)
        out = figures("rolling restart", settings.kind, processes, producers, since, before)
        out.extra = {"since_epoch": since_epoch}
        return out
    finally:
        await _stop_all(processes)


async def duplicate_base_id(
    settings: Settings, log_dir: Path, *, watch_s: float = 15.0, takeover: bool = False,
    mid_commit: bool = False,
) -> Figures:  # fmt: skip
    """2 processes x 2 subscribers, then a third started with svc-0's base id. ``extra``:
    ``older_exit_s`` (None: still running after ``watch_s``), ``older_rc``, ``fatal_lines``
    (the older holder's log lines that say it stops the app), ``newer_rc``. ``mid_commit``:
    the twin starts once the older has a commit waiting for its answer (held a minute)."""
    topics = settings.topic.split(",")
    processes = [ServiceProcess(f"svc-{i}", f"svc-{i}", settings, log_dir, takeover=takeover)
                 for i in range(2)]  # fmt: skip
    twin = ServiceProcess("svc-0-twin", "svc-0", settings, log_dir, takeover=takeover)
    producers = {t: Producer(settings.bootstrap, t, rate_per_s=50) for t in topics}
    everyone = [*processes, twin]
    try:
        await _start_all(processes, topics)
        before, since = by_instance(processes), time.monotonic()
        for producer in producers.values():
            await producer.start()
        older = processes[0]
        if mid_commit:
            older.slow_path.touch()
            await older.wait_for(lambda e: e["ev"] == "commit-held", 30)
        started = time.monotonic()
        await twin.start()
        exited_at = None
        try:
            async with asyncio.timeout(watch_s):
                assert older.process is not None
                await older.process.wait()
                exited_at = time.monotonic()
        except TimeoutError:
            pass
        if exited_at is not None:
            await settled([processes[1], twin], topics, timeout_s=60, quiet_s=1.0)
        for producer in producers.values():
            await producer.stop()
        try:
            await drained(everyone, producers, timeout_s=60 if exited_at is not None else 20)
        except AssertionError:
            if exited_at is not None:
                raise  # else: both holders still fight, ``lost`` says what stayed unhandled
        out = figures("duplicate base id", settings.kind, everyone, producers, since, before)
        fatal_line = FATAL_LINE_ASGI if settings.kind == "fastapi" else FATAL_LINE
        out.extra = {
            "older_exit_s": None if exited_at is None else round(exited_at - started, 1),
            "older_rc": older.returncode,
            "fatal_lines": sum(fatal_line in line for line in older.log_text().splitlines()),
            "newer_rc": twin.returncode,
        }
        return out
    finally:
        await _stop_all(everyone)
