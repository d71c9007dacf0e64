"""The parts the reliability scenarios are built of: members in their own processes, a producer
that runs throughout, the cluster's coordinator, and the figures Kafka's system tests assert on.

Figures (per scenario run):

* ``duplicates`` -- records consumed more than once (by offset);
* ``lost`` -- records the producer had acknowledged (``acks=all``) that no member consumed;
* ``rebalances`` -- rebalances the members went through while they stayed up (each ends with an
  assignment: every one after a member's first), from the moment the group was stable;
* ``failed_starts`` -- ``start()`` calls that raised;
* ``stall_s`` -- the longest time, while the producer ran, in which the group consumed nothing;
* ``consumed_vs_committed`` -- per partition, records consumed (duplicates included) against the
  committed offset after every member stopped cleanly: equal when nothing was consumed twice and
  every consumed record was committed (Kafka's ``total_consumed == current_position``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from staticconsumer.localkafka import LocalKafkaCluster

from .. import _processes
from ..integration._group import wait_until

log = logging.getLogger("staticconsumer.reliability")
ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = 6


@dataclass
class Settings:
    kind: str  # "staticconsumer" or "aiokafka"
    bootstrap: str
    topic: str
    group: str
    static: bool = True
    auto_commit: bool = False
    session_timeout_ms: int = 45000
    group_protocol: str = "classic"  # "consumer": KIP-848, "streams": KIP-1071 (ours only)


class MemberProcess:
    """One member process (``_member.py``) and the events it printed."""

    def __init__(self, name: str, settings: Settings, log_dir: Path) -> None:
        self.name = name
        self.settings = settings
        self.log_dir = log_dir
        self.events: list[dict[str, Any]] = []
        self.process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.stop_requested_at: float | None = None

    def member_argv(self, module: str = "tests.reliability._member") -> list[str]:
        """The member's command line: ``python -m module`` with the settings' options (the
        chaos suite's ETL member takes these and adds its own)."""
        s = self.settings
        return [
            sys.executable, "-m", module, "--kind", s.kind,
            "--bootstrap", s.bootstrap, "--topic", s.topic, "--group", s.group,
            "--instance-id", self.name if s.static else "",
            "--session-timeout-ms", str(s.session_timeout_ms), "--group-protocol", s.group_protocol,
        ]  # fmt: skip

    async def start(self, *, pause_on_assign: bool = False) -> None:
        s = self.settings
        argv = self.member_argv()
        if s.auto_commit:
            argv.append("--auto-commit")
        if pause_on_assign:
            argv.append("--pause-on-assign")
        stderr = (self.log_dir / f"{self.name}.log").open("ab")
        try:
            self.process = await _processes.spawn(
                self.name, *argv, cwd=ROOT, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=stderr,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )  # fmt: skip
        finally:
            stderr.close()
        self.events.append({"ev": "spawned", "t": time.monotonic()})
        self.stop_requested_at = None
        self._reader = asyncio.ensure_future(self._read(self.process))

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        async for line in process.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                log.warning("%s printed %r", self.name, line)
            self._changed.set()
        self.events.append({"ev": "exited", "t": time.monotonic()})
        self._changed.set()

    async def wait_for(self, what: Callable[[dict[str, Any]], bool], timeout_s: float,
                       after: int = 0) -> dict[str, Any]:  # fmt: skip
        """The first event from index ``after`` on for which ``what`` holds."""
        async with asyncio.timeout(timeout_s):
            while True:
                for event in self.events[after:]:
                    if what(event):
                        return event
                if self.events and self.events[-1]["ev"] == "exited":
                    raise AssertionError(f"{self.name} exited: {self.events[-3:]}")
                self._changed.clear()
                await self._changed.wait()

    def resume(self) -> None:
        """Let a member paused on its first assignment go on (``--pause-on-assign``)."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(b"go\n")

    async def stop(self, timeout_s: float = 90) -> None:
        """Clean stop: SIGTERM, then wait for the process to finish its batch, commit, stop;
        past ``timeout_s`` its process group is killed and the test fails with its last log
        lines."""
        if self.process is None or self.process.returncode is not None:
            return
        self.stop_requested_at = time.monotonic()
        self.events.append({"ev": "stop_requested", "t": self.stop_requested_at})
        await _processes.stop(self.process, name=f"member {self.name}", timeout_s=timeout_s,
                              log=self.log_dir / f"{self.name}.log")  # fmt: skip
        if self._reader is not None:
            await self._reader

    async def kill(self) -> None:
        """A crash: SIGKILL; nothing is committed or sent on the way out."""
        if self.process is None or self.process.returncode is not None:
            return
        self.events.append({"ev": "killed", "t": time.monotonic()})
        await _processes.kill(self.process)
        if self._reader is not None:
            await self._reader

    def current_assignment(self) -> set[int]:
        owned: set[int] = set()
        for event in self.events:
            if event["ev"] in ("spawned", "killed", "stopped", "exited"):
                owned = set()
            elif event["ev"] == "assigned":
                owned |= set(event["partitions"])
            elif event["ev"] == "revoked":
                owned -= set(event["partitions"])
        return owned


class Producer:
    """An idempotent ``acks=all`` producer writing to every partition in turn, all along;
    ``key(sequence)`` gives each record a key (none by default)."""

    def __init__(self, bootstrap: str, topic: str, rate_per_s: float = 200.0,
                 key: Callable[[int], bytes] | None = None) -> None:  # fmt: skip
        self.bootstrap, self.topic, self.interval = bootstrap, topic, 1.0 / rate_per_s
        self.key = key
        self.acked: set[tuple[int, int]] = set()
        self.failed = 0
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self.started_at = self.stopped_at = 0.0

    async def start(self) -> None:
        self._producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap, acks="all", enable_idempotence=True,
            request_timeout_ms=30000, linger_ms=5,
        )  # fmt: skip
        await self._producer.start()
        self.started_at = time.monotonic()
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        sequence = 0
        pending: set[asyncio.Future[Any]] = set()
        while not self._stop.is_set():
            partition = sequence % PARTITIONS
            try:
                future = await self._producer.send(
                    self.topic, str(sequence).encode(), partition=partition,
                    key=None if self.key is None else self.key(sequence),
                )  # fmt: skip
            except KafkaError as exc:  # not accepted: counted, never acknowledged
                log.info("produce failed: %r", exc)
                self.failed += 1
                await asyncio.sleep(self.interval)
                continue
            pending.add(future)
            future.add_done_callback(self._acked)
            future.add_done_callback(pending.discard)
            sequence += 1
            await asyncio.sleep(self.interval)
        await asyncio.gather(*pending, return_exceptions=True)

    def _acked(self, future: asyncio.Future[Any]) -> None:
        if future.cancelled() or future.exception() is not None:
            self.failed += 1
            return
        metadata = future.result()
        self.acked.add((metadata.partition, metadata.offset))

    async def stop(self) -> None:
        """Idempotent: waits for what was sent, then closes the producer."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._task is not None:
            await self._task
        await self._producer.stop()
        self.stopped_at = time.monotonic()


async def coordinator_of(bootstrap: str, group: str) -> int:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        return int(await admin.find_coordinator(group))
    finally:
        await admin.close()


async def committed_offsets(bootstrap: str, group: str) -> dict[int, int]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items()}


async def wait_fully_replicated(cluster: LocalKafkaCluster, timeout_s: float = 120) -> None:
    """Wait until every broker runs and every partition of every topic (``__consumer_offsets``
    included) has all its replicas in sync, so that the next fault starts from a healthy
    cluster (Kafka's system tests wait for the ISR the same way)."""

    async def lagging() -> list[str]:
        admin = AIOKafkaAdminClient(bootstrap_servers=live_bootstrap(cluster))
        await admin.start()
        try:
            topics = await admin.describe_topics()
        finally:
            await admin.close()
        return [
            f"{t['topic']}-{p['partition']}"
            for t in topics
            for p in t["partitions"]
            if sorted(p["isr"]) != sorted(p["replicas"]) or p["leader"] < 0
        ]

    deadline = time.monotonic() + timeout_s
    behind: list[str] | str = "not every broker runs"
    while time.monotonic() < deadline:
        if all(b.is_running() for b in cluster.brokers):
            try:
                behind = await lagging()
            except Exception as exc:  # a broker just back may refuse a moment
                behind = repr(exc)
            if not behind:
                return
        await asyncio.sleep(0.5)
    raise AssertionError(f"the cluster did not become fully replicated in {timeout_s}s: {behind}")


def live_bootstrap(cluster: LocalKafkaCluster) -> str:
    return ",".join(b.address for b in cluster.brokers if b.is_running())


@dataclass
class Figures:
    scenario: str
    kind: str
    duplicates: int = 0
    lost: int = 0
    rebalances: int = 0
    failed_starts: int = 0
    stall_s: float = 0.0
    consumed: dict[int, int] = field(default_factory=dict)
    committed: dict[int, int] = field(default_factory=dict)
    last_positions: dict[int, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def row(self) -> str:
        return (f"| {self.scenario} | {self.kind} | {self.duplicates} | {self.lost} | "
                f"{self.rebalances} | {self.failed_starts} | {self.stall_s:.1f} |")  # fmt: skip


#: The coordinator's line for each rebalance it starts (Kafka 3.x and 4.x):
#: ``[2026-11-25 02:09:55,538] INFO [GroupCoordinator ...] Preparing to rebalance group <g> in
#: state PreparingRebalance with old generation 2 (reason: ...; client reason: ...)``.
_REBALANCE_LINE = re.compile(
    r"^\[(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(?P<ms>\d{3})\].*Preparing to rebalance "
    r"group (?P<group>\S+) .*?with old generation (?P<gen>\d+) \((?P<why>.*?)\)\.?"
    r"(?: \([\w.$]+\))?\s*$"  # the logger's class name closes the line
)


def rebalance_reasons(logs: str, group: str, since_epoch_s: float) -> list[str]:
    """The reasons the brokers' logs give for each rebalance of ``group`` they started at or
    after ``since_epoch_s`` (the brokers log local time, as this process reads it), so a run
    that counts a rebalance says why: ``"gen 3: reason: ...; client reason: ..."``."""
    found = []
    for line in logs.splitlines():
        match = _REBALANCE_LINE.match(line)
        if match is None or match["group"] != group:
            continue
        at = time.mktime(time.strptime(match["ts"], "%Y-%m-%d %H:%M:%S")) + int(match["ms"]) / 1000
        if at >= since_epoch_s:
            found.append(f"gen {match['gen']}: {match['why']}")
    return found


def consumed_offsets(members: list[MemberProcess]) -> dict[int, list[int]]:
    seen: dict[int, list[int]] = {}
    for member in members:
        for event in member.events:
            if event["ev"] == "records":
                seen.setdefault(event["partition"], []).extend(event["offsets"])
    return seen


def rebalances_of(member: MemberProcess, since: float) -> int:
    """Rebalances one member went through after ``since`` while it stayed up. Each one ends with
    an assignment (``on_partitions_assigned``, eager or cooperative, ours and aiokafka's): per
    process, every assignment after its first, before it was asked to stop, is one."""
    count, joined, leaving = 0, False, False
    for event in member.events:
        kind = event["ev"]
        if kind == "spawned":
            joined, leaving = False, False
        elif kind in ("stop_requested", "killed", "stopping"):
            leaving = True
        elif kind == "assigned" and not leaving:
            count += int(joined and event["t"] >= since)
            joined = True
    return count


def figures(scenario: str, members: list[MemberProcess], producer: Producer,
            committed: dict[int, int], since: float) -> Figures:  # fmt: skip
    """The figures of one run (module docstring); rebalances are counted from ``since`` (the
    group was stable then)."""
    out = Figures(scenario, members[0].settings.kind, committed=committed)
    seen = consumed_offsets(members)
    out.consumed = {p: len(offsets) for p, offsets in seen.items()}
    out.duplicates = sum(len(o) - len(set(o)) for o in seen.values())
    out.lost = len(producer.acked - {(p, o) for p, offsets in seen.items() for o in offsets})
    out.rebalances = sum(rebalances_of(m, since) for m in members)
    times: list[float] = []
    stops: list[dict[str, Any]] = []
    for member in members:
        for event in member.events:
            if event["ev"] == "start_failed":
                out.failed_starts += 1
            elif event["ev"] == "records":
                times.append(event["t"])
            elif event["ev"] == "stopped":
                stops.append(event)
    for event in sorted(stops, key=lambda e: e["t"]):  # the last owner of a partition wins
        out.last_positions.update({int(p): o for p, o in event["positions"].items()})
    times = sorted(t for t in times if producer.started_at <= t <= producer.stopped_at)
    out.stall_s = max((b - a for a, b in itertools.pairwise(times)), default=0.0)
    return out


async def drain(members: list[MemberProcess], producer: Producer, timeout_s: float) -> None:
    """Wait until every record the producer had acknowledged was consumed by some member."""

    def done() -> bool:
        seen = consumed_offsets(members)
        return producer.acked <= {(p, o) for p, offsets in seen.items() for o in offsets}

    await wait_until(done, timeout_s, "every acknowledged record consumed")


async def settled(members: list[MemberProcess], timeout_s: float, quiet_s: float = 2.0) -> None:
    """Wait until every member holds partitions, together all of them, and no assignment changed
    for ``quiet_s``: the group is stable (rebalances are counted from then on)."""

    def done() -> bool:
        owned = [m.current_assignment() for m in members]
        if not all(owned) or set().union(*owned) != set(range(PARTITIONS)):
            return False
        changes = [e["t"] for m in members for e in m.events if e["ev"] in ("assigned", "revoked")]
        return time.monotonic() - max(changes) >= quiet_s

    await wait_until(done, timeout_s, "a stable group: every member holding partitions")


async def covered(members: list[MemberProcess], timeout_s: float) -> None:
    """Wait until the members that run hold every partition between them."""

    def done() -> bool:
        return set().union(*(m.current_assignment() for m in members)) == set(range(PARTITIONS))

    await wait_until(done, timeout_s, "the members holding every partition")
