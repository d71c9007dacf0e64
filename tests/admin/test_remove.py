"""Removing static members over a scripted client (no broker): one LeaveGroup batch by instance
id, each id's answer reported, and the whole request's failures raised; the client is closed
whatever happens."""

from __future__ import annotations

from typing import Any

import aiokafka.errors as Errors
import pytest

from staticconsumer._admin import remove
from staticconsumer.errors import (
    GroupAdminAuthorizationError,
    GroupAdminError,
    GroupAdminUnsupportedVersionError,
    InvalidGroupIdError,
    UnknownMemberError,
)
from staticconsumer.protocol import ApiKey, ErrorCode
from tests._fake_client import FakeClient, find_coordinator, response


def leave_group(code: int = 0, **codes: int) -> Any:
    members = [{"member_id": "", "group_instance_id": i, "error_code": c} for i, c in codes.items()]
    return response(ApiKey.LEAVE_GROUP, 5,
                    {"throttle_time_ms": 0, "error_code": code, "members": members})  # fmt: skip


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> FakeClient:
    """The client ``try_remove_members`` opens; the test scripts its LeaveGroup answers."""
    fake = FakeClient(answers={ApiKey.FIND_COORDINATOR: [find_coordinator(1)]})

    async def open_client(*_: Any) -> FakeClient:
        return fake

    monkeypatch.setattr(remove, "open_client", open_client)
    return fake


async def test_one_batch_by_instance_id_each_ids_answer_reported(client: FakeClient) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [
        leave_group(**{"a": 0, "b": ErrorCode.UNKNOWN_MEMBER_ID, "c": ErrorCode.FENCED_INSTANCE_ID})
    ]
    outcome = await remove.try_remove_members("b:9092", "g", ["a", "b", "c"], "scale down")
    assert outcome.removed == ("a",)
    assert outcome.failed == (("b", "UNKNOWN_MEMBER_ID"), ("c", "FENCED_INSTANCE_ID"))
    [leave] = [s.request.struct.to_object() for s in client.sent if s.api_key == ApiKey.LEAVE_GROUP]
    assert leave["group_id"] == "g"
    assert [(m["member_id"], m["group_instance_id"]) for m in leave["members"]] == [
        ("", "a"), ("", "b"), ("", "c")]  # fmt: skip
    assert client.closed


async def test_a_group_the_coordinator_does_not_know_fails_every_id(client: FakeClient) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [leave_group(ErrorCode.UNKNOWN_MEMBER_ID)]
    with pytest.raises(UnknownMemberError, match="a, b; none removed") as raised:
        await remove.remove_members("b:9092", "g", ["a", "b"])
    assert raised.value.instance_ids == ("a", "b")
    assert client.closed


async def test_all_removed_is_the_result(client: FakeClient) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [leave_group(a=0, b=0)]
    result = await remove.remove_members("b:9092", "g", ["a", "b"])
    assert result == remove.RemoveMembersResult("g", ("a", "b"))


async def test_an_answer_that_leaves_an_id_out_is_a_group_admin_error(client: FakeClient) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [leave_group(a=0)]
    with pytest.raises(GroupAdminError, match=r"did not answer for \['b'\]"):
        await remove.try_remove_members("b:9092", "g", ["a", "b"])
    assert client.closed


async def test_a_refused_batch_names_the_missing_acl(client: FakeClient) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [leave_group(ErrorCode.GROUP_AUTHORIZATION_FAILED)]
    with pytest.raises(GroupAdminAuthorizationError, match="LeaveGroup for group 'g'"):
        await remove.try_remove_members("b:9092", "g", ["a"])
    assert client.closed


async def test_a_failure_outside_a_request_is_a_group_admin_error(client: FakeClient) -> None:
    lost = Errors.KafkaConnectionError("metadata refresh failed")

    async def refresh() -> bool:
        raise lost

    client.answers[ApiKey.FIND_COORDINATOR] = [find_coordinator(9)]  # unknown: refresh
    client.force_metadata_update = refresh  # type: ignore[method-assign]
    with pytest.raises(GroupAdminError, match="LeaveGroup for group 'g' failed") as raised:
        await remove.try_remove_members("b:9092", "g", ["a"])
    assert raised.value.__cause__ is lost and client.closed


@pytest.mark.parametrize(
    ("code", "error_type", "words"),
    [
        (ErrorCode.INVALID_GROUP_ID, InvalidGroupIdError, "refuses the group id"),
        (ErrorCode.UNSUPPORTED_VERSION, GroupAdminUnsupportedVersionError, "LeaveGroup v3"),
    ],
)  # fmt: skip
async def test_a_per_member_invalid_group_id_or_unsupported_version_is_typed(
    client: FakeClient, code: ErrorCode, error_type: type[GroupAdminError], words: str
) -> None:
    """Reported per id by try_remove_members; remove_members raises the code's own class,
    naming the ids it failed for and the one it removed."""
    client.answers[ApiKey.LEAVE_GROUP] = [leave_group(a=0, b=code, c=code)]
    outcome = await remove.try_remove_members("b:9092", "g", ["a", "b", "c"])
    assert outcome.removed == ("a",) and outcome.failed == (("b", code.name), ("c", code.name))
    with pytest.raises(error_type) as raised:
        await remove.remove_members("b:9092", "g", ["a", "b", "c"])
    error = raised.value
    assert type(error) is error_type and getattr(error, "instance_ids", None) == ("b", "c")
    text = str(error)
    assert f"failed for b, c: {code.name} (error code {int(code)})" in text, text
    assert words in text and text.endswith("removed: a"), text
    assert client.closed


@pytest.mark.parametrize(
    ("code", "error_type"),
    [
        (ErrorCode.INVALID_GROUP_ID, InvalidGroupIdError),
        (ErrorCode.UNSUPPORTED_VERSION, GroupAdminUnsupportedVersionError),
    ],
)  # fmt: skip
async def test_the_same_codes_for_the_whole_request_are_typed_too(
    client: FakeClient, code: ErrorCode, error_type: type[GroupAdminError]
) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [leave_group(code)]
    with pytest.raises(error_type, match=f"LeaveGroup for group 'g' failed: {code.name}"):
        await remove.try_remove_members("b:9092", "g", ["a"])
    assert client.closed


async def test_mixed_per_member_errors_stay_one_group_admin_error_listing_each(
    client: FakeClient,
) -> None:
    client.answers[ApiKey.LEAVE_GROUP] = [
        leave_group(a=ErrorCode.INVALID_GROUP_ID, b=ErrorCode.UNSUPPORTED_VERSION)
    ]
    with pytest.raises(GroupAdminError) as raised:
        await remove.remove_members("b:9092", "g", ["a", "b"])
    assert type(raised.value) is GroupAdminError
    assert "a (INVALID_GROUP_ID), b (UNSUPPORTED_VERSION); none removed" in str(raised.value)
