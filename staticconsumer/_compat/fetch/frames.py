"""Fetch responses read into buffers the consumer keeps (issue 43).

aiokafka's connection reads every response through asyncio's ``StreamReader``: the socket's
chunks are appended to a growing ``bytearray``, ``readexactly`` copies the frame out into new
``bytes``, and aiokafka's decoder copies each partition's records out again. A Fetch response is
megabytes, so each one grows glibc's heap (or maps fresh pages), the kernel faults in and zeroes
those pages, and they are handed back once the response is freed: measured, the larger part of a
1 KiB-record read (docs/performance.md).

Here a fetch connection's socket is read straight into a kept buffer (``recv_into``, asyncio's
``BufferedProtocol``), one frame per buffer, and the records are read in place (views, see
``protocol.fetch``). :class:`FrameBuffers` owns the buffers: a buffer is written again only
once no view of it is alive (every partition reader over it done, released or dropped); a
``bytearray`` refuses to be resized while a view of it exists, and that refusal is the test.

:class:`FetchConnection` is an aiokafka connection of its own (``AIOKafkaClient``'s connection
group :data:`FETCH_GROUP`: aiokafka connects it, with TLS and SASL, and closes it with the
client) whose reading side is then taken over: aiokafka's reader task is cancelled and the
transport's protocol becomes a :class:`_FrameReceiver`. Only Fetch requests go on it, one at a
time (aiokafka's fetcher keeps one fetch in flight per node).

aiokafka internals used (private, aiokafka 0.14's: ``features.KEPT_FETCH_AVAILABLE``, checked by
``choose.kept_fetch``): ``AIOKafkaClient._get_conn``;
``AIOKafkaConnection._read_task``, ``_writer``, ``_protocol``, ``_versions``, ``_client_id``,
``_request_timeout``, ``_last_action`` (kept fresh so its idle check does not drop a busy
connection) and ``close``.
"""

from __future__ import annotations

import asyncio
import collections
import struct
import time
from typing import Any

import aiokafka.errors as Errors
from aiokafka.conn import CloseReason

from ...protocol import FETCH_VERSIONS, PinnedRequest, request_header

#: aiokafka's ``ConnectionGroup`` has DEFAULT (0) and COORDINATION (1); fetches get their own.
FETCH_GROUP = 2
_SIZE = struct.Struct(">i")
#: Buffers are allocated in whole MiB, so sizes that vary a little fit one buffer.
_GRAIN = 1 << 20


def _probe_unviewed(buffer: bytearray) -> bool:
    """Whether no view of ``buffer`` is alive: a ``bytearray`` with a live export (a memoryview
    or a slice of one, held by a partition reader) refuses to change size."""
    try:
        buffer.append(0)
    except BufferError:
        return False
    buffer.pop()
    return True


def _new_buffer(size: int) -> bytearray:
    buffer = bytearray(-(-size // _GRAIN) * _GRAIN)
    _probe_unviewed(buffer)  # the one reallocation the probe can cause, done before any view
    return buffer


class FrameBuffers:
    """The buffers one consumer reads Fetch responses into, kept for its life.

    :meth:`take` hands out a buffer of at least ``size`` bytes that nothing can see; it is
    ``lent`` from then on, and comes back to the free list once no view of it is alive. At
    most ``keep_free`` free buffers are kept (the largest); a buffer is allocated only when
    none fits, as large as the largest frame seen yet (in whole MiB), so that it fits the next
    ones too."""

    def __init__(self, keep_free: int = 2) -> None:
        #: the largest frame seen: a buffer is never allocated smaller
        self.expected = 0
        self.keep_free = keep_free
        self.free: list[bytearray] = []
        self.lent: list[bytearray] = []
        #: Buffers allocated so far (a steady read allocates a few, then none).
        self.allocated = 0

    def take(self, size: int) -> bytearray:
        self.expected = max(self.expected, size)
        still: list[bytearray] = []
        for lent in self.lent:
            (self.free if _probe_unviewed(lent) else still).append(lent)
        self.lent = still
        fits = [b for b in self.free if len(b) >= size]
        if fits:
            buffer = min(fits, key=len)
            self.free.remove(buffer)
        else:
            buffer = _new_buffer(max(size, self.expected))
            self.allocated += 1
        self.lent.append(buffer)
        if len(self.free) > self.keep_free:
            self.free.sort(key=len, reverse=True)
            del self.free[self.keep_free :]
        return buffer

    @property
    def kept_bytes(self) -> int:
        """Bytes held: free and lent buffers."""
        return sum(map(len, self.free)) + sum(map(len, self.lent))


#: A response frame: a view of the kept buffer it was read into (the view pins the buffer, so
#: the buffer is not reused before whoever got the frame is done with it and its slices).
Frame = memoryview


class _FrameReceiver(asyncio.BufferedProtocol):
    """The transport's protocol once taken over: reads each size-prefixed frame into a buffer
    from :class:`FrameBuffers` and hands it to the oldest request sent (Kafka answers a
    connection's requests in order); a request given up (cancelled, timed out) still takes its
    frame, which is dropped. Everything else (connection lost, flow control) also goes to the
    protocol it replaced, aiokafka's."""

    def __init__(self, previous: Any, buffers: FrameBuffers, on_lost: Any) -> None:
        self._previous = previous
        self._buffers = buffers
        self._on_lost = on_lost
        self._head = bytearray(4)
        self._got = 0
        self._buffer: bytearray | None = None
        self._target: memoryview = memoryview(self._head)
        self._size = 0
        #: (correlation id, future) of every request sent and not answered yet, oldest first
        self.pending: collections.deque[tuple[int, asyncio.Future[Frame]]] = collections.deque()

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._target[self._got :]

    def buffer_updated(self, nbytes: int) -> None:
        self._got += nbytes
        if self._got < len(self._target):
            return
        if self._buffer is None:  # the size prefix is in
            self._size = _SIZE.unpack(self._head)[0]
            self._buffer = self._buffers.take(self._size)
            self._target = memoryview(self._buffer)[: self._size]
            self._got = 0
            if self._size:
                return
        frame = self._target  # the frame's own view of its buffer
        self._buffer, self._target, self._got = None, memoryview(self._head), 0
        self._deliver(frame)

    def _deliver(self, frame: memoryview) -> None:
        if not self.pending:
            self._on_lost(Errors.CorrelationIdError("a response to no request"))
            return
        correlation_id, waiter = self.pending.popleft()
        if len(frame) < 4 or _SIZE.unpack_from(frame)[0] != correlation_id:
            error = Errors.CorrelationIdError(
                f"a response does not answer request {correlation_id}"
            )
            if not waiter.done():
                waiter.set_exception(error)
            self._on_lost(error)
        elif not waiter.done():
            waiter.set_result(frame)

    def connection_lost(self, exc: Exception | None) -> None:
        while self.pending:
            _, waiter = self.pending.popleft()
            if not waiter.done():
                waiter.set_exception(Errors.KafkaConnectionError(f"Connection lost: {exc}"))
        self._previous.connection_lost(exc)
        self._on_lost(exc)

    def eof_received(self) -> bool | None:
        """The broker closed its side (it shuts down, or drops the connection): no response
        will come. aiokafka's stream protocol would keep the transport half open for its reader
        to see the EOF and close the connection; that reader is gone, so the transport closes
        here and ``connection_lost`` fails every pending request."""
        self._previous.eof_received()
        return False

    def pause_writing(self) -> None:
        self._previous.pause_writing()

    def resume_writing(self) -> None:
        self._previous.resume_writing()


class FetchConnection:
    """Fetch requests to one node on a connection whose responses land in kept buffers."""

    def __init__(self, conn: Any, buffers: FrameBuffers) -> None:
        self._conn = conn
        self._correlation_id = 0
        conn._read_task.cancel()  # aiokafka's reader: nothing is pending (connect() is done)
        transport = conn._writer.transport
        self._receiver = _FrameReceiver(conn._protocol, buffers, self._lost)
        transport.set_protocol(self._receiver)
        self._transport = transport

    @classmethod
    async def open(
        cls, client: Any, node_id: int, buffers: FrameBuffers, opened: dict[int, FetchConnection]
    ) -> FetchConnection:
        """The fetch connection to ``node_id``: the client's own in :data:`FETCH_GROUP`, taken
        over the first time it is seen (``opened``: by node, the last one taken over; a
        connection the client replaced is taken over anew). ``NodeNotReadyError`` when the
        client cannot connect."""
        conn = await client._get_conn(node_id, group=FETCH_GROUP)
        if conn is None:
            raise Errors.NodeNotReadyError(f"cannot connect to node {node_id} to fetch")
        known = opened.get(node_id)
        if known is None or known._conn is not conn:
            known = opened[node_id] = cls(conn, buffers)
        return known

    def version(self) -> int | None:
        """The newest Fetch version both this package and the broker speak (None: none)."""
        low, high = self._conn._versions.get(1, (0, -1))
        both = [v for v in FETCH_VERSIONS if low <= v <= high]
        return max(both) if both else None

    async def request(self, request: PinnedRequest) -> Frame:
        """Send ``request``; its response frame (a view of a kept buffer: the response header,
        its correlation id checked, then the body). ``KafkaConnectionError`` if the connection
        fails, ``RequestTimedOutError`` (the connection closed) after the connection's request
        timeout."""
        if self._transport.is_closing():
            raise Errors.KafkaConnectionError("the fetch connection is closed")
        self._correlation_id = (self._correlation_id + 1) % 2**31
        header = request_header(request.api_key, request.api_version, self._correlation_id,
                                self._conn._client_id, flexible=request.flexible)  # fmt: skip
        message = header + request.encode()
        waiter: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._receiver.pending.append((self._correlation_id, waiter))
        self._transport.write(_SIZE.pack(len(message)) + message)
        try:
            frame = await asyncio.wait_for(waiter, self._conn._request_timeout)
        except TimeoutError as exc:
            self._conn.close(reason=CloseReason.CONNECTION_TIMEOUT)
            raise Errors.RequestTimedOutError() from exc
        self._conn._last_action = time.monotonic()
        return frame

    def read(self, reader: Any, *args: Any) -> Any:
        """``reader(*args)``, a response's decoder: malformed bytes (``ValueError``) close the
        connection (what follows cannot be trusted) and raise ``KafkaConnectionError``."""
        try:
            return reader(*args)
        except ValueError as exc:
            self._conn.close(reason=CloseReason.OUT_OF_SYNC, exc=exc)
            raise Errors.KafkaConnectionError(f"malformed response: {exc}") from exc

    def _lost(self, exc: Exception | None) -> None:
        reason = CloseReason.OUT_OF_SYNC if isinstance(exc, Errors.CorrelationIdError) else (
            CloseReason.CONNECTION_BROKEN)  # fmt: skip
        self._conn.close(reason=reason, exc=exc)
