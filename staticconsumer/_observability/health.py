"""Readiness and liveness endpoints for Kubernetes probes: one tiny HTTP/1.1 server per process.

:class:`HealthServer` serves every consumer registered with it (one per stream thread, say):
``GET /readyz`` answers 200 while every registered consumer is a member of its group
(:attr:`Membership.ready <staticconsumer.membership.Membership.ready>`: a rebalance it takes part
in does not count against it; the contract is ``membership._status``'s docstring), else 503 (also
with no consumer registered); ``GET /livez`` answers 200 unless a registered consumer is finished
by a fatal error (``fenced``, ``failed``), then 503. The body is JSON: ``ready``, ``live`` and
``consumers``, each a :class:`~staticconsumer.membership.Membership` value (group, instance id,
state, ``ready``/``live``, generation, assignment). ``HEAD`` answers the same without the body;
``GET /metrics`` answers 200 with every registered consumer's coordinator metrics in the
Prometheus text format (``_observability.metrics``: Java's names, one sample per consumer
labelled with its group, instance id, protocol and client id; a consumer that is fenced stays
there until it is unregistered). Any other path is 404, any other method 405. One request per
connection (``Connection: close``), as kubelet's probes send them.

By default it listens on every interface of both families: ``::`` with ``IPV6_V6ONLY`` off
(IPv4 clients arrive as ``::ffff:a.b.c.d``) where the OS allows it, else ``0.0.0.0``; an explicit
``host`` is taken as given.

``StaticConsumer(health_port=...)`` keeps its own endpoint (:func:`consumer_endpoint`): a server
with that one consumer registered, started by its ``start()`` and closed by its ``stop()``,
whose body is that consumer's membership value alone (the format of that option). Closing also
ends the connections still open. Standard library only (``asyncio.start_server``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from ..errors import ConfigurationError, StaticConsumerError
from ..membership import Membership
from .metrics import PROMETHEUS_CONTENT_TYPE, MetricValues, prometheus_text

log = logging.getLogger(__name__)

READY_PATH = "/readyz"
LIVE_PATH = "/livez"
METRICS_PATH = "/metrics"
JSON = "application/json"
#: A probe that has not sent its request by then is dropped (kubelet's default timeout is 1 s).
REQUEST_TIMEOUT_S = 10.0
#: Where ``host=None`` listens when the OS has no dual-stack IPv6 socket.
IPV4_ANY = "0.0.0.0"
_IPV6_ANY = "::"
_NO_IPV6 = (errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL, errno.EPROTONOSUPPORT)
_MAX_HEADER_LINES = 100
_LINE_LIMIT = 8192
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            503: "Service Unavailable"}  # fmt: skip
#: What reading a request may raise besides cancellation: the answer is 400.
_NO_REQUEST = (TimeoutError, ValueError, ConnectionError, EOFError, asyncio.LimitOverrunError)
_WHERE = "(staticconsumer option, no Java equivalent; see docs/kubernetes.md)"


class SupportsMembership(Protocol):
    """What :meth:`HealthServer.register` takes: a ``StaticConsumer``, or anything that tells
    its membership as a value."""

    @property
    def membership(self) -> Membership: ...


@dataclass(frozen=True)
class HealthOptions:
    """Where the endpoint listens (validated by :func:`health_options`); ``host=None``: every
    interface, dual-stack where the OS allows it (module docstring)."""

    port: int
    host: str | None = None


def health_options(
    health_port: int | None, health_host: str | None, *, group_id: str | None
) -> HealthOptions | None:
    """Check ``health_port`` and ``health_host`` (at run time: callers may be untyped); None when
    there is no endpoint. ``health_port=0`` takes a free port (see ``health_address``)."""
    if health_port is None:
        if health_host is not None:
            raise ConfigurationError(f"health_host {_WHERE} needs health_port")
        return None
    options = _checked(health_port, health_host, port_field="health_port",
                       host_field="health_host")  # fmt: skip
    if group_id is None:
        raise ConfigurationError(
            f"health_port {_WHERE} needs group_id (Java: group.id): readiness means holding a "
            "group assignment"
        )
    return options


def _checked(port: Any, host: Any, *, port_field: str, host_field: str) -> HealthOptions:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigurationError(
            f"{port_field} {_WHERE} must be an int from 0 to 65535 (0: any free port), got {port!r}"
        )
    if host is not None and (not isinstance(host, str) or not host.strip()):
        raise ConfigurationError(
            f"{host_field} {_WHERE} must be a non-empty host, or None for every interface "
            f"(IPv6 and IPv4), got {host!r}"
        )
    return HealthOptions(port, host)


class _Reads:
    """A membership and metrics read from functions (the consumer's own endpoint)."""

    def __init__(
        self, read: Callable[[], Membership], metrics: Callable[[], MetricValues] | None
    ) -> None:
        self._read = read
        self.metrics = metrics

    @property
    def membership(self) -> Membership:
        return self._read()


def consumer_endpoint(
    options: HealthOptions, membership: Callable[[], Membership],
    metrics: Callable[[], MetricValues] | None = None,
) -> HealthServer:  # fmt: skip
    """The endpoint of ``StaticConsumer(health_port=...)``: one consumer registered, its
    membership value alone as the body of ``/readyz`` and ``/livez``, its ``metrics`` at
    ``/metrics``."""
    server = HealthServer(port=options.port, host=options.host)
    server._port_field = "health_port"
    server._single = True
    server.register(_Reads(membership, metrics))
    return server


class HealthServer:
    """One health endpoint for the consumers of a process (module docstring).

    ``port``: where it listens (0 takes a free port, see :attr:`address`); ``host``: None (the
    default) for every interface, IPv6 and IPv4, else as given. Neither has a Java key: the Java
    client has no health endpoint. Use it as ``async with HealthServer(port=8080) as health:``
    or with :meth:`start` and :meth:`close`; :meth:`register` each consumer (before or after it
    starts: a consumer not started yet is not ready).
    """

    def __init__(self, *, port: int, host: str | None = None) -> None:
        self._options = _checked(port, host, port_field="port", host_field="host")
        self._port_field = "port"
        self._single = False
        self._consumers: list[SupportsMembership] = []
        self._server: asyncio.Server | None = None
        self._address: tuple[str, int] | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    @property
    def address(self) -> tuple[str, int] | None:
        """``(host, port)`` it listens on while started (the bound port for ``port=0``;
        ``"::"`` when dual-stack); None before :meth:`start` and after :meth:`close`."""
        return self._address

    @property
    def consumers(self) -> tuple[SupportsMembership, ...]:
        """The registered consumers, in registration order."""
        return tuple(self._consumers)

    def register(self, consumer: SupportsMembership) -> None:
        """Serve ``consumer``'s membership too, from the next request on."""
        if not hasattr(consumer, "membership"):
            raise TypeError(f"register() needs a consumer with a membership, got {consumer!r}")
        if any(c is consumer for c in self._consumers):
            raise ConfigurationError(f"{consumer!r} is registered already")
        self._consumers.append(consumer)

    def unregister(self, consumer: SupportsMembership) -> None:
        """Stop serving ``consumer`` (e.g. a stream thread that ended for good)."""
        for i, registered in enumerate(self._consumers):
            if registered is consumer:
                del self._consumers[i]
                return
        raise ConfigurationError(f"{consumer!r} is not registered")

    async def __aenter__(self) -> HealthServer:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:  # fmt: skip
        await self.close()

    async def start(self) -> None:
        if self._server is not None:
            raise StaticConsumerError("start() was called twice")
        host, port = self._options.host, self._options.port
        try:
            dual_stack = _dual_stack_socket(port) if host is None else None
            if dual_stack is not None:
                self._server = await asyncio.start_server(self._serve, sock=dual_stack,
                                                          limit=_LINE_LIMIT)  # fmt: skip
            else:
                host = IPV4_ANY if host is None else host
                self._server = await asyncio.start_server(self._serve, host, port,
                                                          limit=_LINE_LIMIT)  # fmt: skip
        except OSError as exc:
            where = "every interface" if host is None else host
            raise StaticConsumerError(
                f"{self._port_field}={port}: cannot listen on {where}:{port}: {exc.strerror or exc}"
            ) from exc
        sockname = self._server.sockets[0].getsockname()
        self._address = (str(sockname[0]), int(sockname[1]))
        log.info("Health endpoint listening on %s port %s (%s, %s)", *self._address,
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
            metrics = _target(request_line) == METRICS_PATH
            writer.write(_response(status, body, PROMETHEUS_CONTENT_TYPE if metrics else JSON,
                                   head=_method(request_line) == "HEAD"))  # fmt: skip
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
        if target not in (READY_PATH, LIVE_PATH, METRICS_PATH):
            return 404, b""
        if method not in ("GET", "HEAD"):
            return 405, b""
        if target == METRICS_PATH:
            return 200, prometheus_text(self._metrics()).encode()
        memberships = [c.membership for c in self._consumers]
        ready = bool(memberships) and all(m.ready for m in memberships)
        live = all(m.live for m in memberships)
        ok = ready if target == READY_PATH else live
        if self._single:
            body: dict[str, Any] = memberships[0].to_dict()
        else:
            body = {"ready": ready, "live": live,
                    "consumers": [m.to_dict() for m in memberships]}  # fmt: skip
        return (200 if ok else 503), json.dumps(body).encode()

    def _metrics(self) -> list[MetricValues]:
        """The metrics of every registered consumer that has them (a ``StaticConsumer`` has)."""
        found = (getattr(c, "metrics", None) for c in self._consumers)
        return [read() for read in found if callable(read)]


def _dual_stack_socket(port: int) -> socket.socket | None:
    """A listening socket on ``::`` that takes IPv4 too (``IPV6_V6ONLY`` off), or None where the
    OS has no IPv6 or no dual-stack sockets. A port in use raises (no fallback hides it)."""
    if not (socket.has_ipv6 and socket.has_dualstack_ipv6()):
        return None
    try:
        return socket.create_server((_IPV6_ANY, port), family=socket.AF_INET6,
                                    dualstack_ipv6=True, backlog=100)  # fmt: skip
    except OSError as exc:
        if exc.errno in _NO_IPV6:
            return None
        raise


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


def _target(request_line: str | None) -> str:
    parts = (request_line or "").split()
    return parts[1].split("?", 1)[0] if len(parts) > 1 else ""


def _response(status: int, body: bytes, content_type: str, *, head: bool) -> bytes:
    headers = [
        f"HTTP/1.1 {status} {_REASONS[status]}",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    if body:
        headers.append(f"Content-Type: {content_type}")
    if status == 405:
        headers.append("Allow: GET, HEAD")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + (b"" if head else body)
