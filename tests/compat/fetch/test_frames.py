"""The kept Fetch response buffers and the frame receiver (``_compat.fetch.frames``, issue 43),
without a socket: the receiver is fed bytes as a transport feeds a ``BufferedProtocol`` (into the
buffer it hands out, in chunks of any size)."""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import pytest
from aiokafka.errors import CorrelationIdError, KafkaConnectionError
from hypothesis import given
from hypothesis import strategies as st

from staticconsumer._compat.fetch.frames import FrameBuffers, _FrameReceiver

MIB = 1 << 20


def test_a_buffer_is_reused_only_once_no_view_of_it_is_alive() -> None:
    buffers = FrameBuffers()
    first = buffers.take(3 * MIB + 5)
    assert len(first) == 4 * MIB and buffers.allocated == 1  # whole MiB, at least the frame
    view = memoryview(first)[100:200]  # a partition reader's records
    second = buffers.take(1000)
    assert second is not first and buffers.allocated == 2  # the first is still seen
    assert len(second) == 4 * MIB  # never smaller than the largest frame seen
    del view
    assert buffers.take(10) is first  # nothing sees it any more: reused, not allocated
    assert buffers.allocated == 2


def test_a_slice_of_a_view_pins_the_buffer_too() -> None:
    buffers = FrameBuffers()
    buffer = buffers.take(10)
    frame = memoryview(buffer)[:10]
    records = frame[4:8]
    del frame
    assert buffers.take(10) is not buffer
    del records
    assert buffers.take(10) is buffer


def test_a_larger_frame_gets_a_larger_buffer_and_free_buffers_are_bounded() -> None:
    buffers = FrameBuffers(keep_free=1)
    small = buffers.take(MIB)
    views = [memoryview(small)]
    large = buffers.take(2 * MIB + 1)  # the small one is seen: a new one, 3 MiB
    views.append(memoryview(large))
    assert len(small) == MIB and len(large) == 3 * MIB
    third = buffers.take(3 * MIB)
    assert third is not small and third is not large and buffers.allocated == 3
    views.append(memoryview(third))
    del views
    assert buffers.take(10) is small  # three unseen: the smallest that fits taken,
    assert len(buffers.free) == 1 and buffers.kept_bytes == MIB + 3 * MIB  # one kept free


class _Previous:
    """aiokafka's protocol, as the receiver forwards to it."""

    def __init__(self) -> None:
        self.lost: list[Any] = []

    def connection_lost(self, exc: Any) -> None:
        self.lost.append(exc)


def _frame(correlation_id: int, body: bytes) -> bytes:
    return struct.pack(">ii", 4 + len(body), correlation_id) + body


def _feed(receiver: _FrameReceiver, data: bytes, chunks: list[int]) -> None:
    """Write ``data`` into the receiver's buffers as a transport does, ``chunks`` bytes at most
    at a time (cycled)."""
    at, n = 0, 0
    while at < len(data):
        target = receiver.get_buffer(-1)
        size = min(len(target), len(data) - at, chunks[n % len(chunks)])
        target[:size] = data[at : at + size]
        receiver.buffer_updated(size)
        at, n = at + size, n + 1


@given(
    bodies=st.lists(st.binary(max_size=300), min_size=1, max_size=5),
    chunks=st.lists(st.integers(1, 400), min_size=1, max_size=6),
)
def test_frames_reach_their_requests_in_order_in_any_chunking(
    bodies: list[bytes], chunks: list[int]
) -> None:
    async def run() -> None:
        lost: list[Any] = []
        receiver = _FrameReceiver(_Previous(), FrameBuffers(), lost.append)
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in bodies]
        receiver.pending.extend(zip(range(7, 7 + len(bodies)), futures, strict=True))
        data = b"".join(_frame(7 + n, body) for n, body in enumerate(bodies))
        _feed(receiver, data, chunks)
        for n, (body, future) in enumerate(zip(bodies, futures, strict=True)):
            assert bytes(future.result()) == struct.pack(">i", 7 + n) + body  # its own bytes
        assert not lost and not receiver.pending

    asyncio.run(run())


def test_the_frame_of_a_request_given_up_is_dropped_and_the_next_gets_its_own() -> None:
    async def run() -> None:
        receiver = _FrameReceiver(_Previous(), FrameBuffers(), pytest.fail)
        loop = asyncio.get_running_loop()
        given_up, waiting = loop.create_future(), loop.create_future()
        receiver.pending.extend([(1, given_up), (2, waiting)])
        given_up.cancel()  # a fetch cancelled by a rebalance: its answer still comes
        _feed(receiver, _frame(1, b"old") + _frame(2, b"new"), [1000])
        assert bytes(waiting.result()[4:]) == b"new"

    asyncio.run(run())


def test_a_response_to_another_request_fails_it_and_drops_the_connection() -> None:
    async def run() -> None:
        lost: list[Any] = []
        receiver = _FrameReceiver(_Previous(), FrameBuffers(), lost.append)
        future = asyncio.get_running_loop().create_future()
        receiver.pending.append((5, future))
        _feed(receiver, _frame(6, b"x"), [1000])
        with pytest.raises(CorrelationIdError):
            future.result()
        assert [type(e) for e in lost] == [CorrelationIdError]

    asyncio.run(run())


def test_a_lost_connection_fails_every_pending_request_and_tells_aiokafka() -> None:
    async def run() -> None:
        lost: list[Any] = []
        previous = _Previous()
        receiver = _FrameReceiver(previous, FrameBuffers(), lost.append)
        futures = [asyncio.get_running_loop().create_future() for _ in range(2)]
        receiver.pending.extend([(1, futures[0]), (2, futures[1])])
        _feed(receiver, _frame(1, b"abc")[:6], [1000])  # half a frame, then the connection ends
        error = ConnectionResetError("reset")
        receiver.connection_lost(error)
        for future in futures:
            with pytest.raises(KafkaConnectionError):
                future.result()
        assert previous.lost == [error] and lost == [error]

    asyncio.run(run())


def test_the_broker_closing_the_connection_fails_every_pending_request() -> None:
    """A broker that shuts down (a controlled shutdown: a leader change) closes its side of the
    connection. aiokafka's stream protocol answers that EOF by keeping the transport half open
    (its reader, which the receiver replaced, would have read the EOF and closed it): the
    receiver must close it, or a fetch waits out its whole request timeout (found by
    tests/integration/test_fetch_cluster.py's leader change on the kept path)."""

    async def run() -> None:
        closed = asyncio.Event()

        async def close_at_once(_reader: Any, writer: asyncio.StreamWriter) -> None:
            writer.close()
            closed.set()

        server = await asyncio.start_server(close_at_once, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        lost: list[Any] = []
        transport = writer.transport
        receiver = _FrameReceiver(transport.get_protocol(), FrameBuffers(), lost.append)
        transport.set_protocol(receiver)
        pending = asyncio.get_running_loop().create_future()
        receiver.pending.append((1, pending))
        await closed.wait()
        with pytest.raises(KafkaConnectionError):
            await asyncio.wait_for(pending, 30)  # a bound against a hang, not a speed goal
        assert transport.is_closing() and len(lost) == 1
        server.close()
        await server.wait_closed()

    asyncio.run(run())
