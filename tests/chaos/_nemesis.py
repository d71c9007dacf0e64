"""The nemesis: faults applied to an ETL group of member processes on a seeded schedule.

Fault kinds (Jepsen calls the thing that applies them a nemesis; franz-go's ``TestGroupETL``
kills connections and adds and removes members):

* ``bounce`` -- SIGTERM (clean stop: the batch in hand is written and committed, ``stop()``
  without leaving), then a new process with the same group_instance_id;
* ``kill`` -- SIGKILL, then a new process with the same group_instance_id;
* ``freeze`` -- SIGSTOP for ``hold_s`` (shorter than the session), then SIGCONT;
* ``freeze_replace`` -- SIGSTOP, a replacement started with the same group_instance_id takes the
  partitions, then SIGCONT: the frozen one must be fenced (exit status 4) and commit nothing
  more, even when the freeze landed inside its ``start()`` (it is frozen once its first join is
  done: before that the broker does not know it by its id). A dynamic member (plain aiokafka)
  cannot be fenced: it is stopped after ``hold_s``;
* ``conn_kill`` -- every TCP connection of one member to the brokers is reset (``ss -K``: needs
  root and a kernel with ``CONFIG_INET_DIAG_DESTROY``; a kill that resets nothing fails the run);
* ``scale_up`` -- a member with a new group_instance_id is added (at most ``MAX_MEMBERS``);
* ``scale_down`` -- a member leaves: ``stop(leave_group=True, reason=...)`` (SIGUSR1), at least
  ``MIN_MEMBERS`` stay.

The schedule is a pure function of the seed, so StaticConsumer and plain aiokafka can be run on
the same one (``benchmarks/chaos_bench.py``); every kind comes once, in a seeded order, before
any comes twice. A fault's target is an index into the members running then, sorted by name.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.reliability._harness import MemberProcess, Settings

log = logging.getLogger("staticconsumer.chaos")
KINDS = ("bounce", "kill", "freeze", "freeze_replace", "conn_kill", "scale_up", "scale_down")
#: Faults after which a record written by the victim may be written again (a crash window).
CRASH_KINDS = ("kill", "freeze", "freeze_replace")
MIN_MEMBERS, MAX_MEMBERS = 2, 5


@dataclass(frozen=True)
class Fault:
    at_s: float  # from the start of the chaos
    kind: str
    target: int
    hold_s: float  # how long a freeze lasts


def schedule(seed: int, duration_s: float, gap_s: tuple[float, float] = (0.5, 2.0)) -> list[Fault]:
    """Faults for ``duration_s`` seconds (at least one of each kind, however short)."""
    rng = random.Random(seed)
    first = list(KINDS)
    rng.shuffle(first)
    out: list[Fault] = []
    at = 0.0
    while first or at < duration_s:
        at += rng.uniform(*gap_s)
        kind = first.pop() if first else rng.choice(KINDS)
        out.append(Fault(round(at, 3), kind, rng.randrange(1 << 16), round(rng.uniform(1, 3), 3)))
    return out


class EtlMember(MemberProcess):
    """One incarnation of an ETL member (``_etl_member.py``)."""

    def __init__(self, name: str, incarnation: int, settings: Settings, log_dir: Path,
                 output_topic: str, strategy: str) -> None:  # fmt: skip
        super().__init__(name, settings, log_dir)
        self.incarnation = incarnation
        self.output_topic, self.strategy = output_topic, strategy
        self.ended_by = ""  # what the nemesis did to end it: stop, kill, fence, leave

    def member_argv(self, module: str = "tests.chaos._etl_member") -> list[str]:
        return [*super().member_argv(module), "--output-topic", self.output_topic,
                "--name", self.name, "--incarnation", str(self.incarnation),
                "--strategy", self.strategy]  # fmt: skip

    def mark(self, event: str, **fields: Any) -> None:
        self.events.append({"ev": event, "t": time.monotonic(), **fields})

    def signal(self, sig: signal.Signals, event: str, **fields: Any) -> None:
        assert self.process is not None
        self.mark(event, **fields)
        self.process.send_signal(sig)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def wait_exit(self, timeout_s: float) -> int | None:
        assert self.process is not None
        try:
            async with asyncio.timeout(timeout_s):
                code = await self.process.wait()
                if self._reader is not None:
                    await self._reader
                return code
        except TimeoutError:
            return None


@dataclass
class Applied:
    """A fault as it was applied: when (wall clock and monotonic), to whom, what came of it."""

    fault: Fault
    wall: float
    mono: float
    victim: str = ""
    skipped: str = ""
    notes: list[str] = field(default_factory=list)


class Group:
    """Every incarnation of every member; the running ones by name."""

    def __init__(self, make: Callable[[str, int], EtlMember]) -> None:
        self.make = make
        self.all: list[EtlMember] = []
        self.running: dict[str, EtlMember] = {}
        self._incarnations: dict[str, itertools.count[int]] = {}
        self._names = itertools.count()

    def new_name(self) -> str:
        return f"m{next(self._names)}"

    async def spawn(self, name: str) -> EtlMember:
        number = next(self._incarnations.setdefault(name, itertools.count(1)))
        member = self.make(name, number)
        self.all.append(member)
        self.running[name] = member
        await member.start()
        return member

    def pick(self, target: int) -> EtlMember:
        names = sorted(self.running)
        return self.running[names[target % len(names)]]


class Nemesis:
    def __init__(self, group: Group, broker_ports: list[int], static: bool,
                 replace_timeout_s: float) -> None:  # fmt: skip
        self.group, self.ports, self.static = group, broker_ports, static
        self.replace_timeout_s = replace_timeout_s
        self.applied: list[Applied] = []
        self.problems: list[str] = []

    async def run(self, faults: list[Fault]) -> None:
        began = time.monotonic()
        for fault in faults:
            await asyncio.sleep(max(0.0, began + fault.at_s - time.monotonic()))
            applied = Applied(fault, time.time(), time.monotonic())
            self.applied.append(applied)
            await self.apply(fault, applied)
            log.info("fault %s -> %s %s %s", fault.kind, applied.victim, applied.skipped,
                     applied.notes)  # fmt: skip

    async def apply(self, fault: Fault, applied: Applied) -> None:
        group = self.group
        if fault.kind == "scale_up":
            if len(group.running) >= MAX_MEMBERS:
                applied.skipped = f"{MAX_MEMBERS} members run"
                return
            applied.victim = group.new_name()
            await group.spawn(applied.victim)
            return
        victim = group.pick(fault.target)
        applied.victim = f"{victim.name}#{victim.incarnation}"
        if fault.kind in ("scale_down", "bounce"):  # a member just spawned: its handlers first
            await victim.wait_for(lambda e: e["ev"] == "signals", 60)
        if fault.kind == "scale_down":
            if len(group.running) <= MIN_MEMBERS:
                applied.skipped = f"{MIN_MEMBERS} members run"
                return
            del group.running[victim.name]
            victim.ended_by = "leave"
            victim.signal(signal.SIGUSR1, "leave_requested")
            if await victim.wait_exit(90) is None:
                self.problems.append(f"{applied.victim} did not leave within 90 s")
        elif fault.kind == "bounce":
            victim.ended_by = "stop"
            await victim.stop()
            await group.spawn(victim.name)
        elif fault.kind == "kill":
            victim.ended_by = "kill"
            await victim.kill()
            await group.spawn(victim.name)
        elif fault.kind == "freeze":
            victim.signal(signal.SIGSTOP, "frozen", fault="freeze")
            await asyncio.sleep(fault.hold_s)
            victim.signal(signal.SIGCONT, "thawed")
        elif fault.kind == "freeze_replace":
            await self._freeze_replace(fault, victim, applied)
        elif fault.kind == "conn_kill":
            applied.notes.append(f"{self.kill_connections(victim)} connections reset")
        else:
            raise ValueError(f"unknown fault kind {fault.kind!r}")

    async def _freeze_replace(self, fault: Fault, victim: EtlMember, applied: Applied) -> None:
        if self.static:
            # Until its first join is done the broker does not know the victim by its instance
            # id: a replacement would then be the older holder, and the thawed victim's join
            # would fence it. A victim frozen later, even inside start(), must be fenced.
            await victim.wait_for(lambda e: e["ev"] == "joined", 60)
        victim.signal(signal.SIGSTOP, "frozen", fault="freeze_replace")
        replacement = await self.group.spawn(victim.name)  # now group.running[name]
        try:
            await replacement.wait_for(lambda e: e["ev"] == "assigned" and bool(e["partitions"]),
                                       self.replace_timeout_s)  # fmt: skip
        except (TimeoutError, AssertionError) as exc:
            self.problems.append(f"the replacement of {applied.victim} got nothing: {exc!r}")
        if not self.static:
            await asyncio.sleep(fault.hold_s)
        victim.signal(signal.SIGCONT, "thawed")
        if self.static:
            victim.ended_by = "fence"
            code = await victim.wait_exit(60)
            applied.notes.append(f"exit {code}")
            if code != 4:
                self.problems.append(f"{applied.victim}, replaced while frozen, was not fenced "
                                     f"(exit status {code})")  # fmt: skip
                await victim.kill()
        else:  # a dynamic member is not fenced; it rejoins, and is stopped
            victim.ended_by = "stop"
            await victim.stop()

    def kill_connections(self, victim: EtlMember) -> int:
        """Reset every established TCP connection of ``victim`` to a broker; how many."""
        assert victim.process is not None
        pid, listed, killed = victim.process.pid, 0, 0
        for port in self.ports:
            listing = subprocess.run(
                ["ss", "-tnpH", "state", "established", "dst", "127.0.0.1", "dport", "=",
                 f":{port}"], capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            for line in listing.splitlines():
                if f"pid={pid}," not in line:
                    continue
                listed += 1
                local_port = line.split()[2].rsplit(":", 1)[1]
                done = subprocess.run(
                    ["ss", "-K", "-tnH", "dst", "127.0.0.1", "dport", "=", f":{port}",
                     "sport", "=", f":{local_port}"], capture_output=True, text=True,
                )  # fmt: skip
                killed += sum(1 for row in done.stdout.splitlines() if row.strip())
        victim.mark("connections_reset", count=killed)
        if killed < listed:
            self.problems.append(f"ss -K reset {killed} of {victim.name}'s {listed} connections"
                                 " (it needs root and CONFIG_INET_DIAG_DESTROY)")  # fmt: skip
        return killed
