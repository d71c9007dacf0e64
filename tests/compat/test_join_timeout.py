"""A JoinGroup waits ``max(request_timeout_ms, rebalance timeout + 5 s)`` through aiokafka's real
client and connection (``ClientSeam.send(..., timeout_at_least_ms=...)``), and no other request
on that connection waits longer than ``request_timeout_ms``. The broker is a TCP stand-in that
holds the JoinGroup answer, as a coordinator holds a join while a stopped static member keeps
the group (no Kafka needed for the timing itself; tests/integration/test_join_timeout.py has the
real coordinator)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiokafka.errors as Errors
import pytest
from aiokafka.client import AIOKafkaClient
from aiokafka.protocol.metadata import MetadataResponse_v1

from staticconsumer._compat import ClientSeam
from staticconsumer.protocol import ApiKey

from ..protocol import golden
from ..protocol.test_requests import heartbeat, join_group
from .test_wire import FakeBroker

REQUEST_TIMEOUT_MS = 300
HOLD_JOIN_S = 1.0  # longer than the request timeout, as a coordinator holds a join


def holding_broker() -> FakeBroker:
    """Answers a JoinGroup ``HOLD_JOIN_S`` late, then a heartbeat (at once, until told)."""
    versions = {ApiKey.API_VERSIONS: (0, 2), ApiKey.JOIN_GROUP: (0, 9), ApiKey.HEARTBEAT: (0, 4)}
    bodies = [golden.JOIN_GROUP_RESPONSE[9], golden.HEARTBEAT_RESPONSE[4]]
    return FakeBroker(versions, bodies, holds={ApiKey.JOIN_GROUP: HOLD_JOIN_S})


@contextlib.asynccontextmanager
async def seam_to(
    broker: FakeBroker, request_timeout_ms: int = REQUEST_TIMEOUT_MS
) -> AsyncIterator[ClientSeam]:
    """A ``ClientSeam`` over aiokafka's real client, whose node 0 is ``broker``."""
    server = await asyncio.start_server(broker.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = AIOKafkaClient(bootstrap_servers=f"127.0.0.1:{port}",
                            request_timeout_ms=request_timeout_ms)  # fmt: skip
    client.cluster.update_metadata(MetadataResponse_v1([(0, "127.0.0.1", port, None)], 0, []))
    try:
        yield ClientSeam(client, subscription=None)
    finally:
        await client.close()
        server.close()
        await server.wait_closed()


async def test_a_join_waits_past_the_request_timeout_and_nothing_else_does() -> None:
    broker = holding_broker()
    async with seam_to(broker) as seam:
        answer = await seam.send(0, join_group(9), timeout_at_least_ms=5_000)
        assert type(answer).__name__ == "JoinGroupResponse_v9"
        # The connection's own timeout is back: a heartbeat held as long times out.
        broker.holds[ApiKey.HEARTBEAT] = HOLD_JOIN_S
        with pytest.raises(Errors.RequestTimedOutError):
            await seam.send(0, heartbeat(4))


async def test_without_the_longer_wait_a_held_join_times_out() -> None:
    """The test's own control: the broker holds the join past ``request_timeout_ms``."""
    async with seam_to(holding_broker()) as seam:
        with pytest.raises(Errors.RequestTimedOutError):
            await seam.send(0, join_group(9))


async def test_the_longer_wait_never_shortens_a_longer_request_timeout() -> None:
    """``max(request_timeout_ms, ...)``: a join given less than the request timeout keeps it."""
    async with seam_to(holding_broker(), request_timeout_ms=5_000) as seam:
        answer = await seam.send(0, join_group(9), timeout_at_least_ms=REQUEST_TIMEOUT_MS)
        assert type(answer).__name__ == "JoinGroupResponse_v9"
