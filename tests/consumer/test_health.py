"""The health endpoint without a broker: its options, its answers over real loopback sockets (the
standard library's HTTP client), its lifetime, and the consumer's membership before and after."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
from aiokafka.errors import KafkaError

from staticconsumer import ConfigurationError, StaticConsumer, StaticConsumerError
from staticconsumer._observability.health import (
    LIVE_PATH,
    READY_PATH,
    HealthOptions,
    HealthServer,
    health_options,
)
from staticconsumer.membership import Membership, MembershipState

from .._http import http_request

LOOPBACK = HealthOptions(port=0, host="127.0.0.1")


class Member:
    """A membership the test sets, read by the server on each request."""

    def __init__(self) -> None:
        self.value = Membership(MembershipState.JOINING, "g", "i-0")

    def __call__(self) -> Membership:
        return self.value


@pytest.fixture
async def served() -> Any:
    member = Member()
    server = HealthServer(LOOPBACK, member)
    await server.start()
    try:
        yield server, member
    finally:
        await server.close()


# -- options --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("port", "host", "group", "match"),
    [
        (-1, None, "g", "health_port .* from 0 to 65535"),
        (65536, None, "g", "health_port .* from 0 to 65535"),
        ("8080", None, "g", "health_port .* must be an int"),
        (True, None, "g", "health_port .* must be an int"),
        (8080, "", "g", "health_host .* non-empty"),
        (8080, 5, "g", "health_host .* non-empty"),
        (None, "127.0.0.1", "g", "health_host .* needs health_port"),
        (8080, None, None, "health_port .* needs group_id"),
    ],
)
def test_options_are_checked_naming_the_field(
    port: Any, host: Any, group: str | None, match: str
) -> None:
    with pytest.raises(ConfigurationError, match=match):
        health_options(port, host, group_id=group)
    with pytest.raises(ConfigurationError, match=match):  # the consumer checks at construction
        StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id=group, health_port=port,
                       health_host=host)  # fmt: skip


def test_options_default_to_no_endpoint_and_every_interface() -> None:
    assert health_options(None, None, group_id="g") is None
    assert health_options(8080, None, group_id="g") == HealthOptions(8080, "0.0.0.0")
    assert health_options(0, "::1", group_id="g") == HealthOptions(0, "::1")


# -- answers --------------------------------------------------------------------------------------


async def test_ready_only_while_stable_and_live_until_fatal(served: Any) -> None:
    server, member = served
    assert server.address[0] == "127.0.0.1" and server.address[1] > 0  # port 0: one was taken
    for state in MembershipState:
        member.value = Membership(state, "g", "i-0", "m-1", 7, frozenset({("t", 1), ("t", 0)}))
        ready = await http_request(server.address, READY_PATH)
        live = await http_request(server.address, LIVE_PATH)
        assert ready.status == (200 if state is MembershipState.STABLE else 503), state
        assert live.status == (503 if state.value in ("fenced", "failed") else 200), state
        assert ready.json() == live.json() == member.value.to_dict()
        assert ready.json()["state"] == state.value
        assert ready.headers["Content-Type"] == "application/json"
        assert ready.headers["Connection"] == "close"


async def test_head_query_strings_unknown_paths_and_methods(served: Any) -> None:
    server, member = served
    member.value = Membership(MembershipState.STABLE, "g", "i-0", "m-1", 3)
    head = await http_request(server.address, READY_PATH, method="HEAD")
    get = await http_request(server.address, READY_PATH)
    assert (head.status, head.body) == (200, b"")
    assert head.headers["Content-Length"] == str(len(get.body)) != "0"
    assert (await http_request(server.address, f"{LIVE_PATH}?verbose=1")).status == 200
    for path in ("/", "/readyz/", "/healthz", "/READYZ"):
        assert (await http_request(server.address, path)).status == 404, path
    refused = await http_request(server.address, READY_PATH, method="POST")
    assert (refused.status, refused.headers["Allow"]) == (405, "GET, HEAD")


async def _raw(address: tuple[str, int], data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(*address)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(30):  # a guard against a hang, not a measurement
            return await reader.read()
    finally:
        writer.close()
        await writer.wait_closed()


async def test_what_is_not_an_http_request_is_answered_400(served: Any) -> None:
    server, _ = served
    assert (await _raw(server.address, b"hello\r\n\r\n")).startswith(b"HTTP/1.1 400 ")
    assert (await _raw(server.address, b"GET /readyz\r\n\r\n")).startswith(b"HTTP/1.1 400 ")
    too_long = b"GET /" + b"x" * 20_000 + b" HTTP/1.1\r\n\r\n"
    assert (await _raw(server.address, too_long)).startswith(b"HTTP/1.1 400 ")
    ok = await _raw(server.address, b"GET /livez HTTP/1.1\r\nHost: pod\r\nAccept: */*\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 OK\r\n")


# -- lifetime -------------------------------------------------------------------------------------


async def test_close_ends_open_connections_refuses_new_ones_and_is_idempotent() -> None:
    server = HealthServer(LOOPBACK, Member())
    await server.start()
    address = server.address
    assert address is not None
    reader, writer = await asyncio.open_connection(*address)
    writer.write(b"GET /readyz HTTP/1.1\r\n")  # and never the blank line
    await writer.drain()
    async with asyncio.timeout(30):  # a guard against a hang, not a measurement
        await server.close()
        try:
            assert await reader.read() == b""  # the server ended the connection, unanswered
        except ConnectionResetError:
            pass  # ended by a reset: as good
    writer.close()
    assert server.address is None
    with pytest.raises(ConnectionRefusedError):
        await asyncio.open_connection(*address)
    await server.close()


async def test_a_port_in_use_fails_start_naming_the_option() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        server = HealthServer(HealthOptions(port, "127.0.0.1"), Member())
        with pytest.raises(StaticConsumerError, match=f"health_port={port}: cannot listen"):
            await server.start()
        assert server.address is None
    finally:
        taken.close()


async def test_start_twice_is_refused(served: Any) -> None:
    server, _ = served
    with pytest.raises(StaticConsumerError, match="twice"):
        await server.start()


# -- the consumer's side, where no broker is needed ----------------------------------------------


async def test_membership_before_start_and_after_stop() -> None:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                              group_instance_id="i-0", health_port=0,
                              health_host="127.0.0.1")  # fmt: skip
    assert consumer.membership == Membership(MembershipState.NOT_STARTED, "g", "i-0")
    assert consumer.health_address is None
    await consumer.stop()
    await consumer.stop()
    assert consumer.membership.state is MembershipState.STOPPED
    assert consumer.health_address is None


async def test_a_consumer_whose_health_port_is_taken_does_not_start() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                              group_instance_id="i-0", health_port=port,
                              health_host="127.0.0.1")  # fmt: skip
    try:
        with pytest.raises(StaticConsumerError, match=f"health_port={port}"):
            await consumer.start()  # before any connection to Kafka
        assert consumer.membership.state is MembershipState.STOPPED
        assert consumer.health_address is None
    finally:
        taken.close()
        await consumer.stop()


async def test_a_failed_start_closes_the_endpoint() -> None:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                              group_instance_id="i-0", health_port=0, health_host="127.0.0.1",
                              request_timeout_ms=2_000)  # fmt: skip
    with pytest.raises((KafkaError, StaticConsumerError)):  # no broker there
        async with asyncio.timeout(60):  # a guard against a hang, not a measurement
            await consumer.start()
    assert consumer.health_address is None
    assert consumer.membership.state is MembershipState.STOPPED
