"""A secured broker for the security tests, launched the way a user would:
``staticconsumer local-kafka --security sasl_ssl`` (SASL_SSL, SCRAM-SHA-512 and PLAIN users,
StandardAuthorizer ACLs), read back from the ``BOOTSTRAP_SERVERS=`` and ``CLIENT_CONFIG=`` lines.

Every log record of the session's secured runs is captured at DEBUG (aiokafka's included) and,
with the launcher's own output, checked at the end: no password may appear in any of it.
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from staticconsumer.security import SecuritySettings

START_TIMEOUT_S = 180.0


@dataclass
class SecuredKafka:
    bootstrap: str
    client_config: Path
    launcher_output: list[str] = field(default_factory=list)

    def config(self, user: str = "app") -> Path:
        """The launcher's ``--command-config`` file for ``user`` (app, app_plain, limited,
        admin)."""
        return self.client_config.parent / f"client-{user}.properties"

    def settings(self, user: str = "app") -> SecuritySettings:
        return SecuritySettings.from_properties(self.config(user))

    def secrets(self) -> list[str]:
        return [s for user in ("app", "app_plain", "limited", "admin")
                for s in self.settings(user).secrets()]  # fmt: skip


class _Everything(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))  # the formatted text includes any traceback


def _read_lines(process: subprocess.Popen[str], wanted: tuple[str, ...]) -> dict[str, str]:
    """The ``KEY=value`` lines named in ``wanted``, read on a thread (bounded wait)."""
    assert process.stdout is not None
    stdout = process.stdout
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    found: dict[str, str] = {}
    deadline = time.monotonic() + START_TIMEOUT_S
    while len(found) < len(wanted) and time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        key, _, value = line.strip().partition("=")
        if key in wanted:
            found[key] = value
    return found


@pytest.fixture(scope="module")
def all_logs() -> Iterator[_Everything]:
    handler = _Everything()
    root, aiokafka = logging.getLogger(), logging.getLogger("aiokafka")
    levels = (root.level, aiokafka.level)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    aiokafka.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        aiokafka.setLevel(levels[1])


@pytest.fixture(scope="module")
def secured_kafka(
    all_logs: _Everything, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SecuredKafka]:
    stderr_path = tmp_path_factory.mktemp("secured") / "launcher.stderr"
    with stderr_path.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "staticconsumer", "-v", "local-kafka", "--security", "sasl_ssl",
             "--broker-config", "group.initial.rebalance.delay.ms=0",
             "--broker-config", "group.min.session.timeout.ms=1000"],
            stdout=subprocess.PIPE, stderr=stderr, text=True, stdin=subprocess.DEVNULL,
            env={**os.environ, "KAFKA_BOOTSTRAP_SERVERS": ""},
        )  # fmt: skip
    try:
        found = _read_lines(process, ("BOOTSTRAP_SERVERS", "CLIENT_CONFIG"))
        if len(found) < 2:
            pytest.fail(f"the secured launcher printed {found}; stderr:\n"
                        f"{stderr_path.read_text()[-4000:]}", pytrace=False)  # fmt: skip
        kafka = SecuredKafka(found["BOOTSTRAP_SERVERS"], Path(found["CLIENT_CONFIG"]))
        secrets = kafka.secrets()
        yield kafka
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
    assert process.returncode == 0, stderr_path.read_text()[-4000:]
    texts = {"launcher stderr": stderr_path.read_text(), "logs": "\n".join(all_logs.lines)}
    for name, text in texts.items():
        leaked = [line for line in text.splitlines() if any(s in line for s in secrets)]
        for secret in secrets:  # show where, not what
            leaked = [line.replace(secret, "<PASSWORD>") for line in leaked]
        assert not leaked, f"a password appears in the {name}: {leaked[:3]}"
    assert len(all_logs.lines) > 100, "the DEBUG capture caught (almost) nothing"
