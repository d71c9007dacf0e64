"""Reconciling a group's static members with the desired ids, without a broker: what counts as
desired (per-thread ids too), the dry run, one removal batch when applied, and the arguments
refused before any I/O."""

from __future__ import annotations

from typing import Any

import pytest

from staticconsumer._admin import reconcile as rec
from staticconsumer._admin import remove
from staticconsumer._admin.describe import GroupDescription, GroupMemberDescription
from staticconsumer.errors import ConfigurationError, InvalidInstanceIdError
from staticconsumer.protocol import ApiKey, ErrorCode
from tests._fake_client import FakeClient, find_coordinator, response

NOWHERE = "127.0.0.1:1"


def group(*instance_ids: str | None) -> GroupDescription:
    members = tuple(GroupMemberDescription(f"m-{n}", i, "svc", "/10.0.0.1", ())
                    for n, i in enumerate(instance_ids))  # fmt: skip
    return GroupDescription("orders", "Stable", "consumer", "range", members)


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> list[GroupDescription]:
    """The group ``reconcile`` describes (the test sets it), and a scripted client for the
    removal, whose LeaveGroup answers every id with NONE except ``orders-9``."""
    current = [group()]

    async def describe_group(*_: Any, **__: Any) -> GroupDescription:
        return current[0]

    def leave(node_id: int, request: Any) -> Any:
        members = [{"member_id": "", "group_instance_id": m["group_instance_id"],
                    "error_code": ErrorCode.UNKNOWN_MEMBER_ID
                    if m["group_instance_id"] == "orders-9" else 0}
                   for m in request.struct.to_object()["members"]]  # fmt: skip
        return response(ApiKey.LEAVE_GROUP, 5,
                        {"throttle_time_ms": 0, "error_code": 0, "members": members})  # fmt: skip

    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [find_coordinator(1, key="orders")],
                                 ApiKey.LEAVE_GROUP: [leave]})  # fmt: skip

    async def open_client(*_: Any) -> FakeClient:
        return client

    monkeypatch.setattr(rec, "describe_group", describe_group)
    monkeypatch.setattr(remove, "open_client", open_client)
    return current


def test_desired_count_ids_are_a_stateful_sets_pod_names() -> None:
    assert rec.desired_count_ids("orders-", 3) == ("orders-0", "orders-1", "orders-2")
    assert rec.desired_count_ids("orders-", 0) == ()


@pytest.mark.parametrize(("prefix", "count", "match"), [
    ("orders-", -1, "desired count"), ("orders-", True, "desired count"),
    ("", 2, "prefix must be"), ("bad prefix ", 1, "may only contain"),
])  # fmt: skip
def test_desired_count_ids_refuse_bad_arguments(prefix: Any, count: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rec.desired_count_ids(prefix, count)


async def test_a_dry_run_reports_and_removes_nothing(described: list[GroupDescription]) -> None:
    described[0] = group("orders-0", "orders-0-thread-1", "orders-2", "old-1", None)
    plan = await rec.reconcile(NOWHERE, "orders", ["orders-0", "orders-1"])
    assert plan.keep == ("orders-0", "orders-0-thread-1"), "a per-thread id of a desired id"
    assert plan.remove == ("orders-2", "old-1"), "dynamic members are never touched"
    assert plan.missing == ("orders-1",)
    assert not plan.applied and plan.removed == ()
    assert plan.to_dict()["remove"] == ["orders-2", "old-1"]


async def test_apply_removes_the_undesired_in_one_batch(described: list[GroupDescription]) -> None:
    described[0] = group("orders-0", "orders-2", "orders-9")
    plan = await rec.reconcile(NOWHERE, "orders", ["orders-0"], "scale down", apply=True)
    assert plan.applied and plan.removed == ("orders-2",)
    assert plan.failed == (("orders-9", "UNKNOWN_MEMBER_ID"),)
    assert plan.to_dict()["failed"] == [{"group_instance_id": "orders-9",
                                         "error": "UNKNOWN_MEMBER_ID"}]  # fmt: skip


async def test_apply_with_nothing_to_remove_sends_nothing(
    described: list[GroupDescription], monkeypatch: pytest.MonkeyPatch
) -> None:
    described[0] = group("orders-0")

    async def no_removal(*_: Any, **__: Any) -> Any:
        raise AssertionError("nothing to remove, nothing sent")

    monkeypatch.setattr(rec, "try_remove_members", no_removal)
    plan = await rec.reconcile(NOWHERE, "orders", ["orders-0"], apply=True)
    assert plan.applied and plan.remove == ()


async def test_an_empty_desired_list_removes_every_static_member_only_when_asked(
    described: list[GroupDescription],
) -> None:
    described[0] = group("orders-0", "orders-1")
    with pytest.raises(ConfigurationError, match="allow_empty=True"):
        await rec.reconcile(NOWHERE, "orders", [], apply=True)
    plan = await rec.reconcile(NOWHERE, "orders", [], apply=True, allow_empty=True)
    assert plan.removed == ("orders-0", "orders-1")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"desired_instance_ids": ["a"], "apply": "yes"}, ConfigurationError, "apply must be"),
    ({"desired_instance_ids": ["a"], "allow_empty": 1}, ConfigurationError, "allow_empty must"),
    ({"desired_instance_ids": "orders-0"}, ConfigurationError, "not a str"),
    ({"desired_instance_ids": ["bad id"]}, InvalidInstanceIdError, "may only contain"),
    ({"desired_instance_ids": ["a"], "reason": " "}, ConfigurationError, "reason"),
])  # fmt: skip
async def test_bad_arguments_are_refused_before_any_io(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        await rec.reconcile(NOWHERE, "orders", **kwargs)
