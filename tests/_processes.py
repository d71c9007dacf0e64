"""Child processes of the test harnesses (faust workers, FastStream services, reliability and
chaos members): each in a process group of its own, and never left behind (issue 52).

* :func:`spawn` starts one in a new session (its own process group, which holds whatever it
  starts in turn) and remembers it;
* :func:`stop` sends SIGTERM and waits; a process that does not end in time has its whole
  group killed, and the test fails with its last log lines;
* :func:`kill` is a crash (SIGKILL to the group);
* :func:`kill_leftovers` (the suite's ``conftest.py``, after every test) kills what a test
  left running and names it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any

_LIVE: dict[int, tuple[asyncio.subprocess.Process, str]] = {}

#: How many lines of a process's log a failed stop shows.
TAIL_LINES = 40


async def spawn(name: str, *argv: str, **kwargs: Any) -> asyncio.subprocess.Process:
    """``asyncio.create_subprocess_exec(*argv, **kwargs)`` in a process group of its own."""
    process = await asyncio.create_subprocess_exec(*argv, start_new_session=True, **kwargs)
    _LIVE[process.pid] = (process, name)
    return process


def kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL to the process's group (it, and anything it started and left running)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def kill(process: asyncio.subprocess.Process) -> None:
    """A crash: SIGKILL to its group; nothing is sent on the way out."""
    kill_group(process)
    await process.wait()
    _LIVE.pop(process.pid, None)


async def stop(
    process: asyncio.subprocess.Process, *, name: str, timeout_s: float, log: Path | None
) -> None:
    """SIGTERM (a clean stop), then wait ``timeout_s``; past it the group is killed and an
    ``AssertionError`` names the process with its last log lines (a hang is a failure, not
    something the next test shares the machine with)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
    try:
        async with asyncio.timeout(timeout_s):
            await process.wait()
    except TimeoutError:
        kill_group(process)
        await process.wait()
        raise AssertionError(
            f"{name} (pid {process.pid}) did not stop within {timeout_s:g} s of SIGTERM: its "
            f"process group was killed. Its last log lines:\n{tail(log)}"
        ) from None
    finally:
        _LIVE.pop(process.pid, None)
    kill_group(process)  # anything it started that outlived it


def tail(log: Path | None, lines: int = TAIL_LINES) -> str:
    if log is None or not log.exists():
        return "(no log)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


async def stop_all(stops: list[Any]) -> None:
    """Await every stop (coroutines), then raise the first failure: one process that hangs
    does not leave the others running."""
    results = await asyncio.gather(*stops, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        raise failures[0]


def kill_leftovers() -> list[str]:
    """Kill the group of every process still running that a harness started; their names."""
    left = []
    for pid, (process, name) in list(_LIVE.items()):
        if process.returncode is None:
            kill_group(process)
            left.append(f"{name} (pid {pid})")
        _LIVE.pop(pid, None)
    return left
