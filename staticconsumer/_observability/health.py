"""The consumer's readiness and liveness endpoint: a tiny HTTP/1.1 server for Kubernetes probes.

``GET /readyz`` answers 200 only while the member holds its assignment (membership ``stable``),
else 503; ``GET /livez`` answers 200 unless the member is finished by a fatal error (``fenced``,
``failed``), then 503. Both bodies are the :class:`~staticconsumer.membership.Membership` value
as JSON; ``HEAD`` answers the same without the body; any other path is 404, any other method 405.
One request per connection (``Connection: close``), as kubelet's probes send them.

:class:`HealthServer` belongs to one consumer: started by its ``start()``, closed by its
``stop()``; closing also ends the connections still open. Standard library only
(``asyncio.start_server``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ConfigurationError, StaticConsumerError
from ..membership import Membership

log = logging.getLogger("staticconsumer")

READY_PATH = "/readyz"
LIVE_PATH = "/livez"
#: A probe that has not sent its request by then is dropped (kubelet's default timeout is 1 s).
REQUEST_TIMEOUT_S = 10.0
_MAX_HEADER_LINES = 100
_LINE_LIMIT = 8192
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            503: "Service Unavailable"}  # fmt: skip
#: What reading a request may raise besides cancellation: the answer is 400.
_NO_REQUEST = (TimeoutError, ValueError, ConnectionError, EOFError, asyncio.LimitOverrunError)
_WHERE = "(staticconsumer option, no Java equivalent; see docs/kubernetes.md)"


@dataclass(frozen=True)
class HealthOptions:
    """Where the endpoint listens (validated by :func:`health_options`)."""

    port: int
    host: str


def health_options(
    health_port: int | None, health_host: str | None, *, group_id: str | None
) -> HealthOptions | None:
    """Check ``health_port`` and ``health_host`` (at run time: callers may be untyped); None when
    there is no endpoint. ``health_port=0`` takes a free port (see ``health_address``)."""
    if health_port is None:
        if health_host is not None:
            raise ConfigurationError(f"health_host {_WHERE} needs health_port")
        return None
    if isinstance(health_port, bool) or not isinstance(health_port, int) or not (
        0 <= health_port <= 65535
    ):  # fmt: skip
        raise ConfigurationError(
            f"health_port {_WHERE} must be an int from 0 to 65535 (0: any free port), "
            f"got {health_port!r}"
        )
    host = "0.0.0.0" if health_host is None else health_host
    if not isinstance(host, str) or not host.strip():
        raise ConfigurationError(f"health_host {_WHERE} must be a non-empty host, got {host!r}")
    if group_id is None:
        raise ConfigurationError(
            f"health_port {_WHERE} needs group_id (Java: group.id): readiness means holding a "
            "group assignment"
        )
    return HealthOptions(health_port, host)


class HealthServer:
    """Serves ``/readyz`` and ``/livez`` from ``membership()`` (module docstring)."""

    def __init__(self, options: HealthOptions, membership: Callable[[], Membership]) -> None:
        self._options = options
        self._membership = membership
        self._server: asyncio.Server | None = None
        self._address: tuple[str, int] | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    @property
    def address(self) -> tuple[str, int] | None:
        """``(host, port)`` it listens on while started (the bound port for ``port=0``)."""
        return self._address

    async def start(self) -> None:
        if self._server is not None:
            raise StaticConsumerError("start() was called twice")
        host, port = self._options.host, self._options.port
        try:
            self._server = await asyncio.start_server(self._serve, host, port, limit=_LINE_LIMIT)
        except OSError as exc:
            raise StaticConsumerError(
                f"health_port={port}: cannot listen on {host}:{port}: {exc.strerror or exc}"
            ) from exc
        sockname = self._server.sockets[0].getsockname()
        self._address = (str(sockname[0]), int(sockname[1]))
        log.info("Health endpoint listening on %s:%s (%s, %s)", *self._address,
                 READY_PATH, LIVE_PATH)  # fmt: skip

    async def close(self) -> None:
        """Stop listening and end the connections still open. Idempotent."""
        server, self._server, self._address = self._server, None, None
        if server is None:
            return
        server.close()
        # Abort rather than cancel: each connection's task sees its peer gone and ends by itself.
        for writer in self._connections.values():
            writer.transport.abort()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if self._server is None:  # accepted just before close(): not served
            writer.close()
            return
        self._connections[task] = writer
        try:
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT_S):
                    request_line = await _read_request(reader)
            except _NO_REQUEST:
                request_line = None  # no request, or not one we read: 400
            if self._server is None:  # close() ended the connection
                return
            status, body = self._answer(request_line)
            writer.write(_response(status, body, head=_method(request_line) == "HEAD"))
            with contextlib.suppress(ConnectionError):
                await writer.drain()
        finally:
            del self._connections[task]
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _answer(self, request_line: str | None) -> tuple[int, bytes]:
        parts = (request_line or "").split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            return 400, b""
        method, target = parts[0], parts[1].split("?", 1)[0]
        if target not in (READY_PATH, LIVE_PATH):
            return 404, b""
        if method not in ("GET", "HEAD"):
            return 405, b""
        membership = self._membership()
        ok = membership.ready if target == READY_PATH else membership.live
        return (200 if ok else 503), json.dumps(membership.to_dict()).encode()


async def _read_request(reader: asyncio.StreamReader) -> str:
    """The request line; the header lines are read and dropped (unread input would make the
    close reset the connection before the client read the answer)."""
    request_line = (await reader.readuntil(b"\n")).decode("latin-1").strip()
    for _ in range(_MAX_HEADER_LINES):
        if not (await reader.readuntil(b"\n")).strip():
            return request_line
    raise ValueError("too many header lines")


def _method(request_line: str | None) -> str:
    return (request_line or "").split(" ", 1)[0]


def _response(status: int, body: bytes, *, head: bool) -> bytes:
    headers = [
        f"HTTP/1.1 {status} {_REASONS[status]}",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    if body:
        headers.append("Content-Type: application/json")
    if status == 405:
        headers.append("Allow: GET, HEAD")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + (b"" if head else body)
