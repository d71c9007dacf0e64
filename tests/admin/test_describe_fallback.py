"""describe_group falls back to DescribeGroups wherever ConsumerGroupDescribe does not describe
the group, without a broker: Kafka 3.9 lists ConsumerGroupDescribe in ApiVersions but answers
UNSUPPORTED_VERSION while its consumer protocol is off (measured on 3.9.1; the broker matrix,
tests/matrix, checks it on the real broker)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from staticconsumer._admin import describe
from staticconsumer.errors import GroupAdminAuthorizationError, GroupAdminError
from staticconsumer.protocol import ApiKey, ErrorCode, GroupApiVersions
from staticconsumer.protocol._messages import response_class
from staticconsumer.protocol._wire import to_values

#: Kafka 3.9.1's answer for the group APIs (ApiVersions), ConsumerGroupDescribe v0 included.
KAFKA_3_9 = GroupApiVersions(
    join_group=9, sync_group=5, heartbeat=4, leave_group=5, offset_commit=9, offset_fetch=9,
    describe_groups=5, find_coordinator=4,
    broker={ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 0), ApiKey.DESCRIBE_GROUPS: (0, 5)},
)  # fmt: skip


def _response(api_key: int, version: int, fields: dict[str, Any]) -> Any:
    cls = response_class(api_key, version)
    return cls(*to_values(cls.SCHEMA, fields))


def _consumer_group_describe(code: int) -> Any:
    group = {
        "error_code": code, "error_message": None, "group_id": "orders", "group_state": "",
        "group_epoch": 0, "assignment_epoch": 0, "assignor_name": "", "members": [],
        "authorized_operations": -(2**31),
    }  # fmt: skip
    return _response(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, {"throttle_time_ms": 0, "groups": [group]})


DESCRIBE_GROUPS = {
    "throttle_time_ms": 0,
    "groups": [{
        "error_code": 0, "group_id": "orders", "group_state": "Stable",
        "protocol_type": "consumer", "protocol_data": "range", "authorized_operations": -(2**31),
        "members": [{
            "member_id": "orders-0-5f1c", "group_instance_id": "orders-0", "client_id": "svc",
            "client_host": "/127.0.0.1", "member_metadata": b"", "member_assignment": b"",
        }],
    }],
}  # fmt: skip


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The APIs describe sends, in order; ConsumerGroupDescribe answers as the test says."""
    apis: list[str] = []

    async def fake_send(client: Any, node_id: int, request: Any, *, api: str, **_: Any) -> Any:
        apis.append(api)
        if api == "ConsumerGroupDescribe":
            return _consumer_group_describe(client)
        return _response(ApiKey.DESCRIBE_GROUPS, 5, DESCRIBE_GROUPS)

    monkeypatch.setattr(describe, "send", fake_send)
    return apis


@pytest.mark.parametrize("code", [ErrorCode.UNSUPPORTED_VERSION, ErrorCode.GROUP_ID_NOT_FOUND])
async def test_a_refused_consumer_group_describe_falls_back_to_describe_groups(
    sent: list[str], code: int
) -> None:
    run = describe._describe_request("orders", 5.0, client=code)  # the fake reads the code here
    description = await run(1, KAFKA_3_9)
    assert sent == ["ConsumerGroupDescribe", "DescribeGroups"]
    assert description.state == "Stable" and description.group_protocol == "classic"
    assert [m.group_instance_id for m in description.members] == ["orders-0"]


async def test_other_consumer_group_describe_errors_still_raise(sent: list[str]) -> None:
    run = describe._describe_request("orders", 5.0, client=ErrorCode.GROUP_AUTHORIZATION_FAILED)
    with pytest.raises(GroupAdminError, match="GROUP_AUTHORIZATION_FAILED"):
        await run(1, KAFKA_3_9)
    assert sent == ["ConsumerGroupDescribe"]


async def test_a_broker_without_consumer_group_describe_asks_describe_groups_only(
    sent: list[str],
) -> None:
    run = describe._describe_request("orders", 5.0, client=None)
    await run(1, dataclasses.replace(KAFKA_3_9, broker={ApiKey.DESCRIBE_GROUPS: (0, 5)}))
    assert sent == ["DescribeGroups"]


async def test_our_own_error_passes_through_unwrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every StaticConsumerError is an aiokafka KafkaError too (issue 28): the wrapper that turns
    aiokafka's failures into GroupAdminError must let ours through as they are (a missing group
    ACL stayed a GroupAdminAuthorizationError only so; found by tests/security)."""
    refused = GroupAdminAuthorizationError("no ACL", error_name="GROUP_AUTHORIZATION_FAILED")

    async def refuse(*args: object, **kwargs: object) -> object:
        raise refused

    monkeypatch.setattr(describe, "with_coordinator", refuse)
    with pytest.raises(GroupAdminAuthorizationError) as raised:
        await describe.describe_group_with_client(object(), "orders", timeout_s=1)
    assert raised.value is refused
