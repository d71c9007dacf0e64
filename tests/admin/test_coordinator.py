"""Reaching a group's coordinator for admin calls, over a scripted client (no broker):
FindCoordinator on a plain connection, a metadata refresh for an unknown coordinator, fresh
lookups after a retriable answer, and every transport failure worded as a GroupAdminError."""

from __future__ import annotations

import asyncio
from typing import Any

import aiokafka.errors as Errors
import pytest
from aiokafka.client import ConnectionGroup

from staticconsumer._admin import coordinator as coord
from staticconsumer.errors import (
    GroupAdminAuthorizationError,
    GroupAdminError,
    UnsupportedBrokerError,
)
from staticconsumer.protocol import ApiKey, ErrorCode, GroupApiVersions, build_find_coordinator
from tests._fake_client import FakeClient, api_versions, find_coordinator

VERSIONS = GroupApiVersions(
    join_group=9, sync_group=5, heartbeat=4, leave_group=5, offset_commit=9, offset_fetch=9,
    describe_groups=6, find_coordinator=4,
)  # fmt: skip


async def never(*_: Any, **__: Any) -> Any:
    await asyncio.Event().wait()


async def test_find_coordinator_asks_a_known_broker_on_its_plain_connection() -> None:
    client = FakeClient(brokers=(1, 2), answers={ApiKey.FIND_COORDINATOR: [find_coordinator(2)]})
    assert await coord.find_coordinator(client, "g", VERSIONS, 5.0) == 2
    [sent] = client.sent
    assert (sent.node_id, sent.group) == (1, ConnectionGroup.DEFAULT)
    assert sent.request.struct.to_object()["coordinator_keys"] == ["g"]
    assert client.metadata_updates == 0, "the coordinator's address is known"


async def test_an_unknown_coordinator_node_refreshes_the_metadata_once() -> None:
    client = FakeClient(brokers=(1,), answers={ApiKey.FIND_COORDINATOR: [find_coordinator(7)]})
    assert await coord.find_coordinator(client, "g", VERSIONS, 5.0) == 7
    assert client.metadata_updates == 1


async def test_a_metadata_refresh_that_never_ends_is_a_group_admin_error() -> None:
    client = FakeClient(brokers=(1,), answers={ApiKey.FIND_COORDINATOR: [find_coordinator(7)]})
    client.force_metadata_update = never  # type: ignore[method-assign]
    with pytest.raises(GroupAdminError, match="no metadata for coordinator node 7"):
        await coord.find_coordinator(client, "g", VERSIONS, 0.05)


async def test_no_known_broker_is_a_group_admin_error_before_any_request() -> None:
    client = FakeClient(brokers=())
    with pytest.raises(GroupAdminError, match="no broker is known"):
        await coord.find_coordinator(client, "g", VERSIONS, 5.0)
    assert client.sent == []


async def test_an_answer_for_another_key_is_no_answer() -> None:
    answer = find_coordinator(1, key="other")
    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [answer]})
    with pytest.raises(GroupAdminError, match="no answer for the group"):
        await coord.find_coordinator(client, "g", VERSIONS, 5.0)


async def test_a_refused_lookup_names_the_missing_acl_and_the_brokers_message() -> None:
    refused = find_coordinator(-1, error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED,
                               error_message="denied by ACL")  # fmt: skip
    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [refused]})
    with pytest.raises(GroupAdminAuthorizationError, match="denied by ACL") as raised:
        await coord.find_coordinator(client, "g", VERSIONS, 5.0)
    assert raised.value.error_name == "GROUP_AUTHORIZATION_FAILED"


async def test_versions_are_negotiated_and_a_retriable_lookup_is_made_again() -> None:
    loading = find_coordinator(-1, error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)
    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [loading, find_coordinator(1)]})
    seen: list[tuple[int, GroupApiVersions]] = []

    async def fn(node_id: int, versions: GroupApiVersions) -> str:
        seen.append((node_id, versions))
        return "done"

    assert await coord.with_coordinator(client, "g", fn, timeout_s=5.0) == "done"
    assert client.apis() == ["API_VERSIONS", "FIND_COORDINATOR", "FIND_COORDINATOR"]
    [(node, versions)] = seen
    assert node == 1 and versions.find_coordinator == 4 and versions.describe_groups == 6


async def test_a_send_without_answer_in_time_names_api_group_and_node() -> None:
    client = FakeClient(brokers=(1, 3), answers={ApiKey.FIND_COORDINATOR: [find_coordinator(1)]})
    client.send = never  # type: ignore[method-assign]
    with pytest.raises(GroupAdminError, match="LeaveGroup for group 'g' got no answer from node 3"):
        await coord.send(client, 3, object(), group_id="g", api="LeaveGroup", timeout_s=0.05)


async def test_a_transport_failure_is_a_group_admin_error_caused_by_it() -> None:
    lost = Errors.KafkaConnectionError("connection reset")
    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [lost]})
    with pytest.raises(GroupAdminError, match="FindCoordinator for group 'g' to node 1") as raised:
        await coord.find_coordinator(client, "g", VERSIONS, 5.0)
    assert raised.value.__cause__ is lost


async def test_a_group_request_goes_on_the_coordination_connection() -> None:
    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [find_coordinator(1)]})
    request = build_find_coordinator(4, keys=["g"])
    await coord.send(client, 1, request, group_id="g", api="FindCoordinator", timeout_s=5.0)
    assert client.sent[0].group == ConnectionGroup.COORDINATION


async def test_no_broker_answering_api_versions_is_a_group_admin_error() -> None:
    client = FakeClient(answers={ApiKey.API_VERSIONS: [Errors.NodeNotReadyError("down")]})
    with pytest.raises(GroupAdminError, match="ApiVersions got no answer"):
        await coord.group_api_versions(client, 0.05)


async def test_a_final_api_versions_failure_is_a_group_admin_error_caused_by_it() -> None:
    refused = Errors.UnsupportedVersionError("no")
    client = FakeClient(answers={ApiKey.API_VERSIONS: [refused]})
    with pytest.raises(GroupAdminError, match="ApiVersions failed") as raised:
        await coord.group_api_versions(client, 5.0)
    assert raised.value.__cause__ is refused


async def test_a_broker_too_old_for_static_membership_says_so_unwrapped() -> None:
    old = api_versions({ApiKey.JOIN_GROUP: (0, 4), ApiKey.DESCRIBE_GROUPS: (0, 3)})
    client = FakeClient(answers={ApiKey.API_VERSIONS: [old]})
    with pytest.raises(UnsupportedBrokerError):
        await coord.group_api_versions(client, 5.0)
