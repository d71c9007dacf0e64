"""Our requests go through aiokafka's connection (0.12, 0.13, 0.14) as they are
(``_compat.wire.AiokafkaRequest``): flexible versions get request header v2 and response header
v1, the pinned version or a refusal. If an aiokafka upgrade changes that seam, these tests
fail."""

from __future__ import annotations

import asyncio
import struct

import pytest
from aiokafka.conn import create_conn
from aiokafka.protocol.admin import ApiVersionResponse_v1

from staticconsumer._compat.features import CONNECTION_PICKS_VERSIONS
from staticconsumer._compat.wire import AiokafkaRequest, aiokafka_request
from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol import ApiKey, build_heartbeat

from ..protocol import golden
from ..protocol.test_requests import heartbeat, join_group


def test_flexible_request_uses_request_header_v2() -> None:
    struct_ = AiokafkaRequest(join_group(9))
    header = struct_.build_request_header(correlation_id=5, client_id="cid").encode()
    # api key, api version, correlation id, client id (classic string), empty tagged fields
    assert header == struct.pack(">hhih", 11, 9, 5, 3) + b"cid" + b"\x00"
    parsed = struct_.parse_response_header(struct.pack(">i", 5) + b"\x00")
    assert parsed.correlation_id == 5 and parsed.tags == {}


def test_classic_request_uses_request_header_v1() -> None:
    struct_ = AiokafkaRequest(join_group(5))
    header = struct_.build_request_header(correlation_id=5, client_id="cid").encode()
    assert header == struct.pack(">hhih", 11, 5, 5, 3) + b"cid"
    assert struct_.parse_response_header(struct.pack(">i", 5)).correlation_id == 5


def test_prepare_sends_the_pinned_version_or_refuses() -> None:
    request = AiokafkaRequest(heartbeat(4))
    assert request.prepare({ApiKey.HEARTBEAT: (0, 4)}) is request  # what the connection writes
    with pytest.raises(UnsupportedBrokerError, match=r"Heartbeat v4: this broker supports v0-v3"):
        request.prepare({ApiKey.HEARTBEAT: (0, 3)})
    with pytest.raises(UnsupportedBrokerError, match="does not support Heartbeat"):
        request.prepare({})


class FakeBroker:
    """Answers ApiVersions, then each request with the next canned response body; a request
    whose api key is in ``holds`` is answered that many seconds late."""

    def __init__(
        self, versions: dict[int, tuple[int, int]], bodies: list[bytes],
        holds: dict[int, float] | None = None,
    ) -> None:  # fmt: skip
        self.versions = versions
        self.bodies = bodies
        self.holds = holds if holds is not None else {}
        self.requests: list[bytes] = []
        self.closed = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                (size,) = struct.unpack(">i", await reader.readexactly(4))
                frame = await reader.readexactly(size)
                api_key, _, correlation_id = struct.unpack(">hhi", frame[:8])
                if api_key == ApiKey.API_VERSIONS:
                    rows = [(k, lo, hi) for k, (lo, hi) in self.versions.items()]
                    reply = (
                        struct.pack(">i", correlation_id)
                        + ApiVersionResponse_v1(0, rows, 0).encode()
                    )
                else:
                    self.requests.append(frame)
                    await asyncio.sleep(self.holds.get(api_key, 0.0))
                    # response header v1: correlation id + empty tagged fields
                    reply = struct.pack(">i", correlation_id) + b"\x00" + self.bodies.pop(0)
                writer.write(struct.pack(">i", len(reply)) + reply)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            self.closed.set()


async def _exchange(broker: FakeBroker, request: object) -> object:
    server = await asyncio.start_server(broker.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = await create_conn("127.0.0.1", port, client_id="cid", request_timeout_ms=5000)
    try:
        return await conn.send(request)
    finally:
        conn.close()
        await asyncio.wait_for(broker.closed.wait(), 5)
        server.close()
        await server.wait_closed()


def test_flexible_request_through_aiokafka_connection() -> None:
    broker = FakeBroker(
        {ApiKey.API_VERSIONS: (0, 2), ApiKey.JOIN_GROUP: (0, 9)}, [golden.JOIN_GROUP_RESPONSE[9]]
    )
    response = asyncio.run(_exchange(broker, aiokafka_request(join_group(9))))
    (frame,) = broker.requests
    assert frame[:4] == struct.pack(">hh", 11, 9)  # then the correlation id
    assert frame[8:] == struct.pack(">h", 3) + b"cid" + b"\x00" + golden.JOIN_GROUP_REQUEST[9]
    assert type(response).__name__ == "JoinGroupResponse_v9"
    assert response.skip_assignment is True  # type: ignore[attr-defined]


def test_connection_refuses_a_version_its_broker_lacks() -> None:
    """aiokafka 0.13 and 0.14: the connection reads ApiVersions and asks ``prepare``. 0.12's does
    neither and sends the request (its broker would close the connection): there the consumer's
    seam refuses it (``tests/compat/test_consumer.py``, ``..._refused_before_it_is_sent``)."""
    broker = FakeBroker({ApiKey.API_VERSIONS: (0, 2), ApiKey.HEARTBEAT: (0, 3)},
                        [golden.HEARTBEAT_RESPONSE[4]])  # fmt: skip
    request = build_heartbeat(
        4, group_id="g", generation_id=1, member_id="m", group_instance_id="i"
    )
    if not CONNECTION_PICKS_VERSIONS:
        asyncio.run(_exchange(broker, aiokafka_request(request)))
        assert [frame[:4] for frame in broker.requests] == [struct.pack(">hh", 12, 4)]
        return
    with pytest.raises(UnsupportedBrokerError, match="Heartbeat v4"):
        asyncio.run(_exchange(broker, aiokafka_request(request)))
    assert broker.requests == []
