"""Broker processes: start in their own process group, die with us, and leave no orphans.

Every launcher owns a run directory ``<cache>/run/<pid>-<token>/`` holding its pid and start time
and, per broker, the broker's process-group id. A launcher that crashed (``kill -9``, power loss)
leaves that directory behind; the next launcher finds it, kills any broker process group still
running ``kafka.Kafka`` (or the ZooKeeper of a Kafka before 3.3) from it, and removes the data
(:func:`reap_orphans`).

Brokers also die with the launcher on their own: each is started with ``PR_SET_PDEATHSIG`` (Linux),
an ``atexit`` hook kills what is left, and the CLI turns SIGINT/SIGTERM into an orderly stop.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from . import _retry
from .errors import BrokerStartError

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
#: The main classes of the processes a launcher starts: Kafka, and ZooKeeper before Kafka 3.3.
_MAIN_CLASSES = ("kafka.Kafka", "org.apache.zookeeper.server.ZooKeeperServerMain")


def die_with_parent() -> None:
    """``preexec_fn`` for broker processes: SIGKILL the broker when the launcher dies (Linux)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (guards against pid reuse), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return "?"
        return "?"
    return stat.rsplit(")", 1)[1].split()[19]


def _group_runs_kafka(pgid: int, marker: str) -> bool:
    """True when some process in group ``pgid`` is a broker of ours (cmdline names ``marker``)."""
    proc = Path("/proc")
    if not proc.exists():
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ProcessLookupError):
            continue
        if marker in cmdline and any(main in cmdline for main in _MAIN_CLASSES):
            return True
    return False


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class RunDirectory:
    """The launcher's own run directory (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        reap_orphans(root)
        token = os.urandom(4).hex()
        self.path = root / f"{os.getpid()}-{token}"
        self.path.mkdir()
        start = process_start_time(os.getpid()) or "?"
        (self.path / "launcher").write_text(f"{os.getpid()} {start}\n")

    def record_broker(self, node_id: int | str, pgid: int) -> None:
        """Record a process group to reap (a broker by node id, or ``"zookeeper"``)."""
        (self.path / f"broker-{node_id}.pgid").write_text(f"{pgid}\n")

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def reap_orphans(root: Path) -> int:
    """Kill brokers and remove data left by launchers that are no longer running."""
    reaped = 0
    for run in sorted(root.iterdir()) if root.exists() else []:
        if not run.is_dir():
            continue
        try:
            pid_text, start = (run / "launcher").read_text().split()
            alive = process_start_time(int(pid_text)) in (start, "?")
        except (OSError, ValueError):
            # A launcher writes its pid right after creating the directory: give it a minute.
            alive = time.time() - run.stat().st_mtime < 60
        if alive:
            continue
        for pgid_file in run.glob("broker-*.pgid"):
            with contextlib.suppress(OSError, ValueError):
                pgid = int(pgid_file.read_text())
                if _group_runs_kafka(pgid, str(run)):
                    log.warning("killing orphaned broker process group %d from %s", pgid, run)
                    kill_group(pgid)
        shutil.rmtree(run, ignore_errors=True)
        reaped += 1
    return reaped


def wait_listening(
    port: int, running: Callable[[], bool], failure: Callable[[str], str], deadline: float
) -> None:
    """Poll ``127.0.0.1:port`` under the ``broker_listening`` policy until it accepts a
    connection; :class:`BrokerStartError` (worded by ``failure``) when ``running()`` turns false
    or ``deadline`` (monotonic) passes."""

    def accepts_connections() -> None:
        if not running():
            raise BrokerStartError(failure("exited during start-up"))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError as exc:
            raise _retry.NotYet(f"port {port}: {exc}") from exc

    try:
        for attempt in _retry.broker_listening(deadline):
            with attempt:
                accepts_connections()
    except _retry.NotYet:
        raise BrokerStartError(failure("did not open its port in time")) from None
