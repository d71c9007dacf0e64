"""Our requests go through aiokafka's connection (0.12, 0.13, 0.14) as they are: flexible versions
get request header v2 and response header v1. If an aiokafka upgrade changes that seam, these
tests fail."""

from __future__ import annotations

import asyncio
import io
import struct
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka.conn import create_conn
from aiokafka.protocol.admin import ApiVersionResponse_v1

from staticconsumer._compat.features import CONNECTION_PICKS_VERSIONS
from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol import ApiKey, build_heartbeat
from staticconsumer.protocol._messages import _DECLARED, response_class

from . import golden
from .test_requests import heartbeat, join_group


def test_flexible_request_uses_request_header_v2() -> None:
    struct_ = join_group(9).struct
    header = struct_.build_request_header(correlation_id=5, client_id="cid").encode()
    # api key, api version, correlation id, client id (classic string), empty tagged fields
    assert header == struct.pack(">hhih", 11, 9, 5, 3) + b"cid" + b"\x00"
    parsed = struct_.parse_response_header(struct.pack(">i", 5) + b"\x00")
    assert parsed.correlation_id == 5 and parsed.tags == {}


def test_classic_request_uses_request_header_v1() -> None:
    struct_ = join_group(5).struct
    header = struct_.build_request_header(correlation_id=5, client_id="cid").encode()
    assert header == struct.pack(">hhih", 11, 5, 5, 3) + b"cid"
    assert struct_.parse_response_header(struct.pack(">i", 5)).correlation_id == 5


def test_prepare_sends_the_pinned_version_or_refuses() -> None:
    request = heartbeat(4)
    assert request.prepare({ApiKey.HEARTBEAT: (0, 4)}) is request.struct
    with pytest.raises(UnsupportedBrokerError, match=r"Heartbeat v4: this broker supports v0-v3"):
        request.prepare({ApiKey.HEARTBEAT: (0, 3)})
    with pytest.raises(UnsupportedBrokerError, match="does not support Heartbeat"):
        request.prepare({})


class FakeBroker:
    """Answers ApiVersions, then each request with the next canned response body."""

    def __init__(self, versions: dict[int, tuple[int, int]], bodies: list[bytes]) -> None:
        self.versions = versions
        self.bodies = bodies
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
    response = asyncio.run(_exchange(broker, join_group(9)))
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
        asyncio.run(_exchange(broker, request))
        assert [frame[:4] for frame in broker.requests] == [struct.pack(">hh", 12, 4)]
        return
    with pytest.raises(UnsupportedBrokerError, match="Heartbeat v4"):
        asyncio.run(_exchange(broker, request))
    assert broker.requests == []


def _field_kinds(kind: Any) -> Iterator[Any]:
    """``kind`` and every field type nested in it (structs, arrays, nullable structs)."""
    yield kind
    for inner in getattr(kind, "fields", None) or ():  # a Schema
        yield from _field_kinds(inner)
    inner = getattr(kind, "array_of", None) or getattr(kind, "schema", None)
    if inner is not None and inner is not kind:
        yield from _field_kinds(inner)


def test_every_response_field_type_has_the_repr_aiokafkas_debug_log_calls() -> None:
    """aiokafka's connection logs every response at DEBUG with ``repr(response)``, which calls
    ``repr`` on each field type: one without it (the KIP-848 heartbeat's nullable assignment)
    raised there, which closed the connection, so a consumer-protocol member with aiokafka's
    DEBUG log on never got its assignment (its heartbeat's answer lost, then
    UNRELEASED_INSTANCE_ID for its own join)."""
    missing = {
        (key.name, version, type(kind).__name__)
        for key, version in _all_defined()
        for kind in _field_kinds(response_class(key, version).SCHEMA)
        if not hasattr(kind, "repr")
    }
    assert missing == set()


def test_a_kip_848_heartbeat_answer_with_an_assignment_has_a_repr() -> None:
    cls = response_class(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0)
    topic_id = uuid.UUID(int=7)
    answer = cls(throttle_time_ms=0, error_code=0, error_message=None, member_id="m",
                 member_epoch=3, heartbeat_interval_ms=5000,
                 assignment=([(topic_id, [0, 1], {})], {}), tagged_fields={})  # fmt: skip
    decoded = cls.decode(io.BytesIO(answer.encode()))
    assert str(topic_id) in repr(decoded) and "member_epoch=3" in repr(decoded)


def _all_defined() -> Iterator[tuple[ApiKey, int]]:
    for key, version in sorted(_DECLARED):
        yield ApiKey(key), version
