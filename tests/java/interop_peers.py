"""Java ``KafkaConsumer``s as group peers: the ``InteropConsumer`` JVM (``InteropConsumer.java``),
driven over its stdin and read from its stdout, for the Java interop tests
(``tests/integration/test_java_*.py``) and ``benchmarks/scaleup_bench.py``. No pytest here."""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any


class JavaPeers:
    """The InteropConsumer JVM: ``start`` consumers, read the events they print."""

    def __init__(self, process: asyncio.subprocess.Process, stderr: Any) -> None:
        self.process = process
        self.stderr = stderr
        self.events: list[dict[str, Any]] = []
        self.read_at: list[float] = []  # when each event was read (monotonic)
        self.stderr_text: str | None = None  # kept once the JVM has exited
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for line in self.process.stdout:
            self.events.append(json.loads(line))
            self.read_at.append(time.monotonic())  # a few ms after Java printed it

    async def start(
        self, group: str, instance: str, topics: Sequence[str], *, cooperative: bool = False,
        group_protocol: str = "classic",
    ) -> None:  # fmt: skip
        """Start a static consumer: classic with "range" (or ``cooperative``: Java's
        CooperativeStickyAssignor), or ``group_protocol="consumer"`` (KIP-848, the broker
        assigns)."""
        modes = {("classic", False): "", ("classic", True): " cooperative",
                 ("consumer", False): " consumer"}  # fmt: skip
        mode = modes.get((group_protocol, cooperative))
        if mode is None:
            raise ValueError(f"no such Java peer: {group_protocol=}, {cooperative=}")
        await self._command(f"start {group} {instance} {','.join(topics)}{mode}")

    async def close(self, instance: str) -> None:
        """Close ``instance``'s consumer as Java's default ``close()`` does; "closed" follows."""
        await self._command(f"close {instance}")

    async def _command(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{line}\n".encode())
        await self.process.stdin.drain()

    def assigned(self, group: str, instance: str) -> dict[str, Any] | None:
        """The last assignment ``instance`` reported in ``group``, if any."""
        found = [e for e in self.events if e["event"] == "assigned" and e["group"] == group]
        mine = [e for e in found if e["instance"] == instance]
        return mine[-1] if mine else None

    def led(self, group: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == "led" and e["group"] == group]

    def read_stderr(self) -> str:
        if self.stderr_text is not None:
            return self.stderr_text
        self.stderr.seek(0)
        text: str = self.stderr.read().decode(errors="replace")
        return text

    def diagnostics(self) -> str:
        errors = [e for e in self.events if e["event"] == "error"]
        return f"java errors: {errors}\njava stderr (tail): {self.read_stderr()[-3000:]!r}"


@contextlib.asynccontextmanager
async def java_peers(command: list[str], bootstrap: str) -> AsyncIterator[JavaPeers]:
    with tempfile.TemporaryFile() as stderr:
        process = await asyncio.create_subprocess_exec(
            *command,
            bootstrap,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
        peers = JavaPeers(process, stderr)
        try:
            yield peers
        finally:
            assert process.stdin is not None
            with contextlib.suppress(ConnectionError):
                process.stdin.write(b"stop\n")
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 40)
            except TimeoutError:
                process.kill()
                await process.wait()
            await peers.reader
            peers.stderr_text = peers.read_stderr()
