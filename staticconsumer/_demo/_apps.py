"""The demo's app processes: ``python -m staticconsumer.streams_app`` children and what they report.

The app ships inside the package, so the demo works from an installed wheel as from a checkout.
Each child writes JSON status lines on stdout (``streams_app/status.py``); a reader task
keeps the latest ``assigned`` event and the latest counters of each of its stream threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TERMINATE_TIMEOUT_S = 30.0


@dataclass
class AppProcess:
    """One incarnation of an app process (a restart is a new AppProcess with the same args)."""

    label: str  # "app-0", "app-1 (restarted)", ...
    args: list[str]
    log_path: Path
    on_event: Callable[[AppProcess, dict[str, Any]], None]
    events: list[dict[str, Any]] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)
    assigned: dict[str, dict[str, Any]] = field(default_factory=dict)  # thread -> latest event
    rebalancing: set[str] = field(default_factory=set)  # threads between revoke and assign
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)  # thread -> latest counters
    stopped: bool = False  # the "stopped" line arrived
    killed: bool = False  # SIGKILLed on purpose (a crash), see kill()
    #: What runs ``args`` (then ``--parent-pid <ours>``); another program that writes the same
    #: status lines can stand in (``benchmarks/streams_bench.py`` runs Java's Kafka Streams).
    program: tuple[str, ...] = (sys.executable, "-m", "staticconsumer.streams_app")
    _proc: asyncio.subprocess.Process | None = None
    _reader: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.returncode

    async def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        with self.log_path.open("ab") as log:
            self._proc = await asyncio.create_subprocess_exec(
                *self.program,
                *self.args,
                "--parent-pid",
                str(os.getpid()),
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        async for raw in self._proc.stdout:
            try:
                doc = json.loads(raw)
            except ValueError:
                continue  # not a status line
            if not isinstance(doc, dict):
                continue
            self.events.append(doc)
            kind = doc.get("event")
            if kind == "started":
                self.threads = list(doc.get("threads", []))
            elif kind == "assigned":
                self.assigned[str(doc["thread"])] = doc
                self.rebalancing.discard(str(doc["thread"]))
            elif kind == "revoked":
                self.rebalancing.add(str(doc["thread"]))
            elif kind in ("status", "stopped"):
                self.stats.update({str(t["thread"]): t for t in doc.get("threads", [])})
                self.stopped = self.stopped or kind == "stopped"
            self.on_event(self, doc)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    async def terminate(self, timeout_s: float = TERMINATE_TIMEOUT_S) -> int | None:
        """SIGTERM (a clean stop), then SIGKILL after ``timeout_s``; returns the exit code."""
        proc = self._proc
        if proc is None:
            return None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout_s)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)
        return proc.returncode

    async def kill(self) -> int | None:
        """SIGKILL: a crash, with no chance to finish a batch or commit."""
        self.killed = True
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
        return await self.terminate()

    def log_tail(self, lines: int = 25) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def counter(self, name: str) -> int:
        return sum(int(s.get(name, 0)) for s in self.stats.values())
