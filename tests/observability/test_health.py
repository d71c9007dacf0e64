"""The health endpoint without a broker: its options, its answers over real loopback sockets (the
standard library's HTTP client), its lifetime, and the consumer's membership before and after."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

import pytest
from aiokafka.errors import KafkaError

from staticconsumer import ConfigurationError, HealthServer, StaticConsumer, StaticConsumerError
from staticconsumer._observability.health import (
    LIVE_PATH,
    READY_PATH,
    HealthOptions,
    consumer_endpoint,
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
    server = consumer_endpoint(LOOPBACK, member)
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
    # issue 22: None is every interface of both families (was "0.0.0.0": IPv4 only)
    assert health_options(8080, None, group_id="g") == HealthOptions(8080, None)
    assert health_options(0, "::1", group_id="g") == HealthOptions(0, "::1")


# -- answers --------------------------------------------------------------------------------------


async def test_ready_only_while_stable_or_at_the_barrier_and_live_until_fatal(
    served: Any,
) -> None:
    server, member = served
    assert server.address[0] == "127.0.0.1" and server.address[1] > 0  # port 0: one was taken
    for state in MembershipState:
        member.value = Membership(state, "g", "i-0", "m-1", 7, frozenset({("t", 1), ("t", 0)}))
        ready = await http_request(server.address, READY_PATH)
        live = await http_request(server.address, LIVE_PATH)
        ready_states = (MembershipState.STABLE, MembershipState.WAITING)
        assert ready.status == (200 if state in ready_states else 503), state
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
    server = consumer_endpoint(LOOPBACK, Member())
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
        server = consumer_endpoint(HealthOptions(port, "127.0.0.1"), Member())
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


# -- one endpoint per process (issue 22) ----------------------------------------------------------


class Fake:
    """A consumer as the server sees it: something with a membership."""

    def __init__(self, instance_id: str, state: MembershipState = MembershipState.JOINING) -> None:
        self.membership = Membership(state, "g", instance_id)

    def set(self, state: MembershipState, *, in_group: bool = False) -> None:
        self.membership = Membership(state, "g", self.membership.group_instance_id,
                                     in_group=in_group)  # fmt: skip


async def test_ready_only_while_every_registered_consumer_is_and_live_unless_one_is_fatal() -> None:
    a, b = Fake("p-0-thread-0"), Fake("p-0-thread-1")
    async with HealthServer(port=0, host="127.0.0.1") as server:
        assert server.address is not None
        ready, live = await _probes(server.address)
        assert (ready.status, live.status) == (503, 200)  # nothing registered: not ready
        assert ready.json() == {"ready": False, "live": True, "consumers": []}
        server.register(a)
        server.register(b)
        assert server.consumers == (a, b)
        a.set(MembershipState.STABLE)
        assert (await http_request(server.address, READY_PATH)).status == 503  # b joins still
        b.set(MembershipState.REBALANCING, in_group=True)  # a rebalance it takes part in
        ready, live = await _probes(server.address)
        assert (ready.status, live.status) == (200, 200)
        assert ready.json() == {
            "ready": True,
            "live": True,
            "consumers": [a.membership.to_dict(), b.membership.to_dict()],
        }
        assert [c["group_instance_id"] for c in ready.json()["consumers"]] == [
            "p-0-thread-0", "p-0-thread-1"]  # fmt: skip
        b.set(MembershipState.REBALANCING)  # the first join, not a member yet
        assert (await http_request(server.address, READY_PATH)).status == 503
        b.set(MembershipState.FENCED)
        ready, live = await _probes(server.address)
        assert (ready.status, live.status) == (503, 503)
        assert live.json()["live"] is False and live.json()["consumers"][1]["state"] == "fenced"
        server.unregister(b)  # the fenced thread is gone: the rest serves on
        ready, live = await _probes(server.address)
        assert (ready.status, live.status) == (200, 200)
        assert server.consumers == (a,)
    assert server.address is None


def test_register_and_unregister_refuse_misuse() -> None:
    server, a = HealthServer(port=0), Fake("i-0")
    server.register(a)
    with pytest.raises(ConfigurationError, match="registered already"):
        server.register(a)
    server.unregister(a)
    with pytest.raises(ConfigurationError, match="not registered"):
        server.unregister(a)
    with pytest.raises(TypeError, match="membership"):
        server.register(object())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("port", "host", "match"),
    [(-1, None, r"^port \(staticconsumer option, no Java equivalent.* from 0 to 65535"),
     ("8080", None, "^port .* must be an int"), (True, None, "^port .* must be an int"),
     (8080, "", r"^host \(.* non-empty host, or None"), (8080, 5, "^host .* non-empty")],
)  # fmt: skip
def test_server_options_are_checked_naming_the_field(port: Any, host: Any, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        HealthServer(port=port, host=host)


def _dual_stack_available() -> bool:
    """Whether this machine lets a socket on ``::`` take IPv4 too (what the server tries)."""
    if not (socket.has_ipv6 and socket.has_dualstack_ipv6()):
        return False
    try:
        socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True).close()
        return True
    except OSError:
        return False


async def test_the_default_host_is_dual_stack_where_the_os_allows_it() -> None:
    dual = _dual_stack_available()
    async with HealthServer(port=0) as server:
        server.register(Fake("i-0", MembershipState.STABLE))
        assert server.address is not None
        host, port = server.address
        assert host == ("::" if dual else "0.0.0.0")
        assert (await http_request(("127.0.0.1", port), READY_PATH)).status == 200
        if dual:
            assert (await http_request(("::1", port), READY_PATH)).status == 200


async def test_without_dual_stack_the_default_host_falls_back_to_ipv4(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(socket, "has_dualstack_ipv6", lambda: False)
    async with HealthServer(port=0) as server:
        server.register(Fake("i-0", MembershipState.STABLE))
        assert server.address is not None and server.address[0] == "0.0.0.0"
        assert (await http_request(("127.0.0.1", server.address[1]), LIVE_PATH)).status == 200


async def test_an_explicit_host_is_taken_as_given() -> None:
    async with HealthServer(port=0, host="127.0.0.1") as server:
        assert server.address is not None and server.address[0] == "127.0.0.1"


async def test_a_dual_stack_port_in_use_fails_start_with_no_fallback() -> None:
    if not _dual_stack_available():
        pytest.skip("no dual-stack sockets here: the fallback test covers this OS")
    with socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True) as taken:
        port = taken.getsockname()[1]
        server = HealthServer(port=port)
        with pytest.raises(StaticConsumerError, match=f"^port={port}: cannot listen on every"):
            await server.start()
        assert server.address is None


async def test_a_consumers_own_endpoint_listens_dual_stack_by_default() -> None:
    options = health_options(0, None, group_id="g")  # StaticConsumer(health_port=0)'s
    assert options is not None
    member = Member()
    async with consumer_endpoint(options, member) as endpoint:
        assert endpoint.address is not None
        host, port = endpoint.address
        assert host == ("::" if _dual_stack_available() else "0.0.0.0")
        answer = await http_request(("127.0.0.1", port), LIVE_PATH)
        assert answer.status == 200 and answer.json() == member.value.to_dict()  # its own body


async def _probes(address: tuple[str, int]) -> tuple[Any, Any]:
    return await http_request(address, READY_PATH), await http_request(address, LIVE_PATH)


async def test_the_streams_app_serves_all_its_stream_threads_on_one_endpoint(
    tmp_path: Any,
) -> None:
    from aiokafka import AIOKafkaProducer

    from staticconsumer.streams_app.app import _health
    from staticconsumer.streams_app.config import AppConfig
    from staticconsumer.streams_app.stream_thread import StreamThread

    config = AppConfig(bootstrap_servers="127.0.0.1:1", group="agg", instance_base="app-0",
                       threads=3, state_dir=tmp_path, input_topic="in", output_topic="out",
                       changelog_topic="cl", health_port=0, health_host="127.0.0.1")  # fmt: skip
    producer = AIOKafkaProducer(bootstrap_servers="127.0.0.1:1")  # never started
    threads = [StreamThread(n, config, producer) for n in range(config.threads)]
    async with contextlib.AsyncExitStack() as scope:
        health = await _health(config, threads, scope)
        assert health is not None and health.address is not None
        ready, live = await _probes(health.address)
        assert (ready.status, live.status) == (503, 200)  # no thread has joined yet
        assert [c["group_instance_id"] for c in ready.json()["consumers"]] == [
            "app-0-thread-0", "app-0-thread-1", "app-0-thread-2"]  # fmt: skip
        address = health.address
    assert health.address is None  # closed with the app's scope
    with pytest.raises(ConnectionRefusedError):
        await asyncio.open_connection(*address)
    for thread in threads:
        await thread.consumer.stop()


@pytest.mark.parametrize(
    ("port", "host", "match"),
    [(70000, None, "--health-port must be from 0 to 65535"),
     (None, "::", "--health-host needs --health-port")],
)  # fmt: skip
def test_the_streams_app_checks_its_health_flags(
    tmp_path: Any, port: int | None, host: str | None, match: str
) -> None:
    from staticconsumer.streams_app.config import AppConfig

    with pytest.raises(ValueError, match=match):
        AppConfig(bootstrap_servers="b:1", group="g", instance_base="a", threads=1,
                  state_dir=tmp_path, input_topic="i", output_topic="o", changelog_topic="c",
                  health_port=port, health_host=host)  # fmt: skip
