"""Describing a group over a scripted client (no broker): the classic answer (DescribeGroups)
and the KIP-848 one (ConsumerGroupDescribe), members in their documented order, what a group the
coordinator does not know looks like, and how failures are worded."""

from __future__ import annotations

import json
import logging
from typing import Any

import aiokafka.errors as Errors
import pytest

from staticconsumer._admin import describe
from staticconsumer.errors import ConfigurationError, GroupAdminAuthorizationError, GroupAdminError
from staticconsumer.protocol import (
    ApiKey,
    Assignment,
    ErrorCode,
    encode_assignment,
    group_partitions,
    response_class,
)
from tests._fake_client import FakeClient, find_coordinator, response
from tests.protocol import golden

V = 6  # the DescribeGroups version the fake's ApiVersions leads to


def member(member_id: str, instance_id: str | None, assignment: bytes = b"") -> dict[str, Any]:
    return {"member_id": member_id, "group_instance_id": instance_id, "client_id": "svc",
            "client_host": "/10.0.0.1", "member_metadata": b"",
            "member_assignment": assignment}  # fmt: skip


def describe_groups(*members: dict[str, Any], group_id: str = "g", code: int = 0,
                    state: str = "Stable") -> Any:  # fmt: skip
    group = {"error_code": code, "error_message": None, "group_id": group_id,
             "group_state": state, "protocol_type": "consumer", "protocol_data": "range",
             "members": list(members), "authorized_operations": -(2**31)}  # fmt: skip
    return response(ApiKey.DESCRIBE_GROUPS, V, {"throttle_time_ms": 0, "groups": [group]})


def not_a_consumer_group(group_id: str = "g") -> Any:
    group = {"error_code": ErrorCode.GROUP_ID_NOT_FOUND, "error_message": None,
             "group_id": group_id, "group_state": "", "group_epoch": 0, "assignment_epoch": 0,
             "assignor_name": "", "members": [], "authorized_operations": -(2**31)}  # fmt: skip
    return response(ApiKey.CONSUMER_GROUP_DESCRIBE, 1, {"throttle_time_ms": 0, "groups": [group]})


def classic_client(*answers: Any, group_id: str = "g") -> FakeClient:
    return FakeClient(answers={
        ApiKey.FIND_COORDINATOR: [find_coordinator(1, key=group_id)],
        ApiKey.CONSUMER_GROUP_DESCRIBE: [not_a_consumer_group(group_id)],
        ApiKey.DESCRIBE_GROUPS: list(answers),
    })  # fmt: skip


def owned(*partitions: int) -> bytes:
    return encode_assignment(Assignment(partitions=group_partitions(("t", p) for p in partitions)))


async def test_a_classic_group_lists_static_members_first_with_decoded_assignments() -> None:
    client = classic_client(describe_groups(
        member("z-dynamic", None), member("b-1", "svc-b", owned(2)),
        member("a-1", "svc-a", owned(1, 0)),
    ))  # fmt: skip
    group = await describe.describe_group_with_client(client, "g", timeout_s=5)
    assert [(m.group_instance_id, m.member_id) for m in group.members] == [
        ("svc-a", "a-1"), ("svc-b", "b-1"), (None, "z-dynamic")]  # fmt: skip
    assert group.members[0].assignment == (("t", 0), ("t", 1)), "sorted"
    assert (group.state, group.protocol, group.group_protocol) == ("Stable", "range", "classic")
    assert client.apis() == ["API_VERSIONS", "FIND_COORDINATOR", "CONSUMER_GROUP_DESCRIBE",
                             "DESCRIBE_GROUPS"]  # fmt: skip
    document = group.to_dict()
    assert "group_epoch" not in document and "member_epoch" not in document["members"][0]
    assert not client.closed, "the caller's client is left open"


async def test_an_assignment_from_another_client_that_does_not_decode_is_left_empty(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = classic_client(describe_groups(member("m-1", "svc-0", b"\xff\xfe not ours")))
    with caplog.at_level(logging.WARNING, logger=describe.__name__):
        group = await describe.describe_group_with_client(client, "g", timeout_s=5)
    assert group.members[0].assignment == ()
    assert "could not decode the assignment of member m-1" in caplog.text


async def test_a_group_the_coordinator_does_not_know_is_dead_with_no_members() -> None:
    client = classic_client(describe_groups(code=ErrorCode.GROUP_ID_NOT_FOUND, state=""))
    group = await describe.describe_group_with_client(client, "g", timeout_s=5)
    assert (group.state, group.members, group.protocol_type) == (describe.DEAD, (), "")


async def test_an_answer_that_leaves_the_group_out_is_a_group_admin_error() -> None:
    client = classic_client(describe_groups(group_id="other"))
    with pytest.raises(GroupAdminError, match="DescribeGroups for group 'g': no answer for it"):
        await describe.describe_group_with_client(client, "g", timeout_s=5)


async def test_a_coordinator_that_moved_is_looked_up_again() -> None:
    moved = describe_groups(code=ErrorCode.NOT_COORDINATOR)
    client = classic_client(moved, describe_groups(member("m-1", "svc-0")))
    group = await describe.describe_group_with_client(client, "g", timeout_s=5)
    assert [m.group_instance_id for m in group.members] == ["svc-0"]
    assert client.apis().count("FIND_COORDINATOR") == 2


async def test_a_refused_describe_names_the_missing_acl() -> None:
    client = classic_client(describe_groups(code=ErrorCode.GROUP_AUTHORIZATION_FAILED))
    with pytest.raises(GroupAdminAuthorizationError, match="GROUP_AUTHORIZATION_FAILED"):
        await describe.describe_group_with_client(client, "g", timeout_s=5)


async def test_a_metadata_refresh_failing_under_the_call_is_a_group_admin_error() -> None:
    client = FakeClient(answers={ApiKey.FIND_COORDINATOR: [find_coordinator(9)]})
    lost = Errors.KafkaConnectionError("metadata refresh failed")

    async def refresh() -> bool:
        raise lost

    client.force_metadata_update = refresh  # type: ignore[method-assign]
    with pytest.raises(GroupAdminError, match="DescribeGroups for group 'g' failed") as raised:
        await describe.describe_group_with_client(client, "g", timeout_s=5)
    assert raised.value.__cause__ is lost


async def test_a_consumer_group_is_described_by_consumer_group_describe_alone() -> None:
    """Apache Kafka's own bytes (tests/protocol/golden.py): group ``grp``, epoch 9, member
    ``inst-a`` at epoch 8 owning orders-0 and orders-1 on its way to orders-1 alone."""
    answer = response_class(ApiKey.CONSUMER_GROUP_DESCRIBE, 1).decode(
        golden.CONSUMER_GROUP_DESCRIBE_RESPONSE[1]
    )
    client = FakeClient(answers={
        ApiKey.FIND_COORDINATOR: [find_coordinator(1, key="grp")],
        ApiKey.CONSUMER_GROUP_DESCRIBE: [answer],
    })  # fmt: skip
    group = await describe.describe_group_with_client(client, "grp", timeout_s=5)
    assert "DESCRIBE_GROUPS" not in client.apis()
    assert (group.group_protocol, group.group_epoch, group.protocol) == ("consumer", 9, "uniform")
    document = json.loads(json.dumps(group.to_dict()))
    assert document["group_protocol"] == "consumer" and document["group_epoch"] == 9
    [m] = document["members"]
    assert m["group_instance_id"] == "inst-a" and m["member_epoch"] == 8
    assert m["assignment"] == [{"topic": "orders", "partition": 0},
                               {"topic": "orders", "partition": 1}]  # fmt: skip
    assert m["target_assignment"] == [{"topic": "orders", "partition": 1}]


async def test_describe_group_opens_its_own_client_and_closes_it_on_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = classic_client(describe_groups(code=ErrorCode.GROUP_AUTHORIZATION_FAILED))
    opened: list[Any] = []

    async def open_client(
        bootstrap: Any, timeout_s: float, settings: Any, recovery: Any = None
    ) -> FakeClient:
        opened.append((bootstrap, timeout_s, settings.sasl_plain_username))
        return client

    monkeypatch.setattr(describe, "open_client", open_client)
    with pytest.raises(GroupAdminAuthorizationError):
        await describe.describe_group("b:9092", "g", timeout_s=5,
                                      security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                                      sasl_plain_username="app",
                                      sasl_plain_password="s3cret")  # fmt: skip
    assert opened == [("b:9092", 5, "app")] and client.closed


async def test_describe_group_opens_its_client_with_the_metadata_recovery_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 51: the admin calls take metadata_recovery_strategy and its trigger (KIP-899,
    KIP-1102) as the consumer does; the default is Java's."""
    from staticconsumer._compat import RecoverySettings

    asked: list[Any] = []

    async def open_client(bootstrap: Any, timeout_s: float, settings: Any,
                          recovery: Any = None) -> FakeClient:  # fmt: skip
        asked.append(recovery)
        return classic_client(describe_groups())

    monkeypatch.setattr(describe, "open_client", open_client)
    await describe.describe_group("b:9092", "g", metadata_recovery_strategy="none",
                                  metadata_recovery_rebootstrap_trigger_ms=1_000)  # fmt: skip
    await describe.describe_group("b:9092", "g")
    assert asked == [RecoverySettings("none", 1_000), RecoverySettings()]
    with pytest.raises(ConfigurationError, match=r"Java: metadata\.recovery\.strategy"):
        await describe.describe_group("b:9092", "g", metadata_recovery_strategy="maybe")
