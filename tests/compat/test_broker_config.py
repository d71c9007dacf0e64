"""Reading the broker's group session-timeout bounds (DescribeConfigs, resource type broker)
over a scripted client: the two values when the broker tells them, None whenever it does not."""

from __future__ import annotations

import asyncio
from typing import Any

import aiokafka.errors as Errors
from aiokafka.protocol.admin import DescribeConfigsResponse_v2

from staticconsumer._compat.broker_config import MAX_KEY, MIN_KEY, session_timeout_bounds
from tests._fake_client import FakeClient

DESCRIBE_CONFIGS = 32


def configs(*entries: tuple[str, str | None], code: int = 0) -> Any:
    # name, value, read only, config source (5: static broker config), sensitive, synonyms
    rows = [(name, value, True, 5, False, []) for name, value in entries]
    return DescribeConfigsResponse_v2(0, [(code, None, 4, "1", rows)])


def answering(*answers: Any) -> FakeClient:
    return FakeClient(answers={DESCRIBE_CONFIGS: list(answers)})


async def test_the_bounds_the_broker_tells() -> None:
    client = answering(configs((MAX_KEY, "1800000"), (MIN_KEY, "6000")))
    assert await session_timeout_bounds(client, 1) == (6000, 1800000)
    [sent] = client.sent
    assert sent.node_id == 1
    assert type(sent.request.struct).__name__ == "DescribeConfigsRequest_v2"
    [(resource_type, name, keys)] = sent.request.struct.resources
    assert (resource_type, name, sorted(keys)) == (4, "1", sorted([MIN_KEY, MAX_KEY]))


async def test_a_missing_or_unset_bound_is_none() -> None:
    assert await session_timeout_bounds(answering(configs((MIN_KEY, "6000"))), 1) is None
    unset = configs((MIN_KEY, "6000"), (MAX_KEY, None))
    assert await session_timeout_bounds(answering(unset), 1) is None


async def test_a_refusal_or_a_lost_broker_is_none() -> None:
    denied = Errors.ClusterAuthorizationFailedError("no DESCRIBE_CONFIGS")
    assert await session_timeout_bounds(answering(denied), 1) is None
    assert await session_timeout_bounds(answering(Errors.KafkaConnectionError("gone")), 1) is None


async def test_no_answer_in_time_is_none() -> None:
    client = FakeClient()

    async def never(*_: Any, **__: Any) -> Any:
        await asyncio.Event().wait()

    client.send = never  # type: ignore[method-assign]
    assert await session_timeout_bounds(client, 1, timeout_s=0.05) is None


async def test_no_node_asks_nothing() -> None:
    client = answering(configs())
    assert await session_timeout_bounds(client, None) is None
    assert client.sent == []
