"""``tests/_processes.py``: a harness's process that does not stop in time is killed with its
whole process group and the test fails with its last log lines; nothing is left behind."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests import _processes

# A process that ignores SIGTERM (as a hung worker did) and has a child of its own.
HUNG = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("child", child.pid, flush=True)
print("the last line a person needs", flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its parent) counts as gone
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


async def _start_hung(tmp_path: Path) -> tuple[asyncio.subprocess.Process, Path, int]:
    log = tmp_path / "hung.log"
    with log.open("ab") as out:
        process = await _processes.spawn("hung", sys.executable, "-c", HUNG, stdout=out,
                                         stderr=out)  # fmt: skip
    for _ in range(100):
        if "last line" in log.read_text():
            break
        await asyncio.sleep(0.05)
    child = int(log.read_text().split()[1])
    return process, log, child


async def test_a_stop_past_its_time_kills_the_group_and_fails_with_the_log(tmp_path: Path) -> None:
    process, log, child = await _start_hung(tmp_path)
    with pytest.raises(AssertionError) as info:
        await _processes.stop(process, name="worker w-9", timeout_s=0.5, log=log)
    assert "worker w-9" in str(info.value) and "the last line a person needs" in str(info.value)
    assert process.returncode is not None
    for _ in range(50):
        if not _alive(child):
            break
        await asyncio.sleep(0.05)
    assert not _alive(child), "the process's own child was left running"
    assert _processes.kill_leftovers() == []


async def test_stop_all_stops_every_process_even_when_one_hangs(tmp_path: Path) -> None:
    hung, log, _ = await _start_hung(tmp_path)
    quick = await _processes.spawn("quick", sys.executable, "-c", "import time; time.sleep(600)")
    with pytest.raises(AssertionError, match="hung"):
        await _processes.stop_all([
            _processes.stop(hung, name="hung", timeout_s=0.5, log=log),
            _processes.stop(quick, name="quick", timeout_s=5, log=None),
        ])  # fmt: skip
    assert hung.returncode is not None and quick.returncode is not None


async def test_a_process_a_test_left_running_is_killed_and_named(tmp_path: Path) -> None:
    process = await _processes.spawn("left", sys.executable, "-c", "import time; time.sleep(600)")
    assert _processes.kill_leftovers() == [f"left (pid {process.pid})"]
    await asyncio.wait_for(process.wait(), 5)
