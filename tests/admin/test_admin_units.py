"""Group admin without a broker: validation, error mapping, retries, rendering, CLI usage."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiokafka.errors import KafkaError

from staticconsumer._admin import coordinator as coord
from staticconsumer._admin.remove import _raise_for_failures
from staticconsumer.admin import (
    GroupDescription,
    GroupMemberDescription,
    RemovalOutcome,
    describe_group,
    removal_reason,
    remove_members,
)
from staticconsumer.cli import EXIT_USAGE, main
from staticconsumer.cli.render import (
    format_assignment,
    format_json,
    format_removal,
    format_table,
    removal_document,
)
from staticconsumer.errors import (
    ConfigurationError,
    GroupAdminError,
    InvalidInstanceIdError,
    UnknownMemberError,
)
from staticconsumer.protocol import ErrorCode, GroupApiVersions

# Nothing listens here: validation must fail before any connection is tried.
NOWHERE = "127.0.0.1:1"


@pytest.mark.parametrize(
    ("instance_ids", "error", "match"),
    [
        ([], ConfigurationError, "at least one"),
        ("inst-a", ConfigurationError, "must be a list"),
        (None, ConfigurationError, "must be a list"),
        (["ok", ""], InvalidInstanceIdError, "must not be empty"),
        (["ok", "bad id"], InvalidInstanceIdError, "may only contain"),
        (["..", "ok"], InvalidInstanceIdError, r"'\.' or '\.\.'"),
        (["x" * 250], InvalidInstanceIdError, "at most 249"),
        (["a", "b", "a"], ConfigurationError, "lists a more than once"),
    ],
)
async def test_remove_members_validates_instance_ids_before_io(
    instance_ids: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match) as caught:
        await remove_members(NOWHERE, "g", instance_ids)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("bootstrap", "group", "timeout_s", "match"),
    [
        ("", "g", 1.0, "bootstrap_servers"),
        (NOWHERE, "", 1.0, "group_id"),
        (NOWHERE, "g", 0, "timeout_s"),
        (NOWHERE, "g", True, "timeout_s"),
    ],
)
async def test_describe_and_remove_validate_arguments(
    bootstrap: str, group: str, timeout_s: float, match: str
) -> None:
    with pytest.raises(ConfigurationError, match=match):
        await describe_group(bootstrap, group, timeout_s=timeout_s)
    with pytest.raises(ConfigurationError, match=match):
        await remove_members(bootstrap, group, ["a"], timeout_s=timeout_s)


async def test_remove_members_rejects_a_non_str_reason() -> None:
    with pytest.raises(ConfigurationError, match="reason"):
        await remove_members(NOWHERE, "g", ["a"], reason=42)  # type: ignore[arg-type]


async def test_unreachable_broker_is_a_group_admin_error() -> None:
    with pytest.raises(GroupAdminError, match="could not reach Kafka"):
        await describe_group(NOWHERE, "g", timeout_s=5)


def test_unknown_ids_raise_unknown_member_error_naming_them_and_the_removed() -> None:
    outcome = RemovalOutcome("g", ("a",), (("nope", "UNKNOWN_MEMBER_ID"),))
    with pytest.raises(UnknownMemberError, match=r"nope.*removed: a") as caught:
        _raise_for_failures(outcome)
    assert caught.value.instance_ids == ("nope",)


def test_other_per_member_errors_raise_group_admin_error() -> None:
    outcome = RemovalOutcome("g", (), (("x", "UNKNOWN_MEMBER_ID"), ("y", "FENCED_INSTANCE_ID")))
    with pytest.raises(GroupAdminError, match=r"y \(FENCED_INSTANCE_ID\)") as caught:
        _raise_for_failures(outcome)
    assert not isinstance(caught.value, UnknownMemberError)
    _raise_for_failures(RemovalOutcome("g", ("a", "b"), ()))  # all removed: no error


def test_check_code_maps_codes() -> None:
    coord.check_code("g", "DescribeGroups", ErrorCode.NONE)
    for code in coord.RETRIABLE:
        with pytest.raises(coord.CoordinatorRetry):
            coord.check_code("g", "DescribeGroups", code)
    with pytest.raises(GroupAdminError) as caught:
        coord.check_code("grp", "DescribeGroups", ErrorCode.GROUP_AUTHORIZATION_FAILED)
    text = str(caught.value)
    assert "'grp'" in text and "DescribeGroups" in text and "GROUP_AUTHORIZATION_FAILED" in text


VERSIONS = GroupApiVersions(
    join_group=9, sync_group=5, heartbeat=4, leave_group=5, offset_commit=9, offset_fetch=9,
    describe_groups=6, find_coordinator=6,
)  # fmt: skip


async def test_with_coordinator_retries_retriable_codes_with_fresh_lookups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lookups: list[str] = []

    async def fake_find(client: Any, group_id: str, versions: Any, timeout_s: float) -> int:
        lookups.append(group_id)
        return len(lookups)

    answers = [ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NONE]

    async def fn(node_id: int, versions: GroupApiVersions) -> int:
        coord.check_code("g", "LeaveGroup", answers.pop(0))
        return node_id

    monkeypatch.setattr(coord, "find_coordinator", fake_find)
    node = await coord.with_coordinator(object(), "g", fn, timeout_s=1, versions=VERSIONS)
    assert node == 3 and lookups == ["g", "g", "g"]


async def test_with_coordinator_gives_up_after_bounded_attempts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = 0

    async def fake_find(client: Any, group_id: str, versions: Any, timeout_s: float) -> int:
        return 1

    async def fn(node_id: int, versions: GroupApiVersions) -> int:
        nonlocal calls
        calls += 1
        coord.check_code("g", "DescribeGroups", ErrorCode.COORDINATOR_NOT_AVAILABLE)
        return 0

    monkeypatch.setattr(coord, "find_coordinator", fake_find)
    monkeypatch.setattr(coord, "MAX_ATTEMPTS", 3)
    with pytest.raises(GroupAdminError, match="COORDINATOR_NOT_AVAILABLE") as caught:
        await coord.with_coordinator(object(), "g", fn, timeout_s=1, versions=VERSIONS)
    assert calls == 3
    assert "'g'" in str(caught.value) and "DescribeGroups" in str(caught.value)


async def test_with_coordinator_does_not_retry_other_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0

    async def fake_find(client: Any, group_id: str, versions: Any, timeout_s: float) -> int:
        return 1

    async def fn(node_id: int, versions: GroupApiVersions) -> int:
        nonlocal calls
        calls += 1
        coord.check_code("g", "LeaveGroup", ErrorCode.GROUP_AUTHORIZATION_FAILED)
        return 0

    monkeypatch.setattr(coord, "find_coordinator", fake_find)
    with pytest.raises(GroupAdminError, match="GROUP_AUTHORIZATION_FAILED"):
        await coord.with_coordinator(object(), "g", fn, timeout_s=1, versions=VERSIONS)
    assert calls == 1


DESCRIPTION = GroupDescription(
    group_id="orders",
    state="Stable",
    protocol_type="consumer",
    protocol="range",
    members=(
        GroupMemberDescription(
            "orders-0-5f1c", "orders-0", "svc", "/10.0.0.1", (("t0", 0), ("t0", 1))
        ),
        GroupMemberDescription("consumer-1-9a", None, "other", "/10.0.0.2", ()),
    ),
)


def test_table_rendering() -> None:
    table = format_table(DESCRIPTION)
    lines = table.splitlines()
    assert lines[:4] == ["GROUP     orders", "STATE     Stable", "PROTOCOL  range", "MEMBERS   2"]
    assert lines[5].split() == [
        "INSTANCE",
        "ID",
        "MEMBER",
        "ID",
        "CLIENT",
        "ID",
        "HOST",
        "ASSIGNMENT",
    ]
    assert lines[6].split() == ["orders-0", "orders-0-5f1c", "svc", "/10.0.0.1", "t0-0,t0-1"]
    assert lines[7].split() == ["-", "consumer-1-9a", "other", "/10.0.0.2", "-"]
    # columns line up
    assert lines[6].index("orders-0-5f1c") == lines[5].index("MEMBER ID")


def test_table_of_a_dead_group_has_no_member_rows() -> None:
    table = format_table(GroupDescription("gone", "Dead", "", "", ()))
    assert table.splitlines() == [
        "GROUP     gone", "STATE     Dead", "PROTOCOL  -", "MEMBERS   0",
    ]  # fmt: skip


def test_json_rendering_round_trips() -> None:
    document = json.loads(format_json(DESCRIPTION.to_dict()))
    assert document == {
        "group_id": "orders",
        "state": "Stable",
        "protocol_type": "consumer",
        "protocol": "range",
        "members": [
            {
                "member_id": "orders-0-5f1c",
                "group_instance_id": "orders-0",
                "client_id": "svc",
                "client_host": "/10.0.0.1",
                "assignment": [{"topic": "t0", "partition": 0}, {"topic": "t0", "partition": 1}],
            },
            {
                "member_id": "consumer-1-9a",
                "group_instance_id": None,
                "client_id": "other",
                "client_host": "/10.0.0.2",
                "assignment": [],
            },
        ],
    }


def test_removal_rendering() -> None:
    assert format_assignment([]) == "-"
    failed = [("b", "UNKNOWN_MEMBER_ID")]
    assert json.loads(format_json(removal_document("g", ["a"], failed))) == {
        "group_id": "g",
        "removed": ["a"],
        "failed": [{"group_instance_id": "b", "error": "UNKNOWN_MEMBER_ID"}],
    }
    assert format_removal("g", ["a"], failed) == (
        "removed from group g: a\nNOT removed from group g: b (UNKNOWN_MEMBER_ID)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["describe-group", "--group", "g"],
        ["describe-group", "--bootstrap-server", NOWHERE],
        ["remove-members", "--bootstrap-server", NOWHERE, "--group", "g"],
        ["describe-group", "--bootstrap-server", NOWHERE, "--group", "g", "--timeout", "x"],
    ],
)
def test_cli_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == EXIT_USAGE


@pytest.mark.parametrize(
    "ids",
    [["bad id"], ["a", "a"], [".."]],
)
def test_cli_invalid_instance_ids_exit_2(
    ids: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["remove-members", "--bootstrap-server", NOWHERE, "--group", "g"]
    for i in ids:
        argv += ["--instance-id", i]
    assert main(argv) == EXIT_USAGE
    assert "instance" in capsys.readouterr().err


def test_table_of_a_consumer_group_shows_epochs_and_targets() -> None:
    member = GroupMemberDescription("m-1", "svc-0", "cid", "/10.0.0.1", (("t", 0), ("t", 1)),
                                    member_epoch=7, target_assignment=(("t", 1),))  # fmt: skip
    settled = GroupMemberDescription("m-2", "svc-1", "cid", "/10.0.0.2", (("t", 2),),
                                     member_epoch=8, target_assignment=(("t", 2),))  # fmt: skip
    group = GroupDescription("g", "Reconciling", "consumer", "uniform", (member, settled),
                             "consumer", 8)  # fmt: skip
    table = format_table(group).splitlines()
    assert table[2] == "PROTOCOL  uniform (consumer group protocol, KIP-848)"
    assert table[4] == "EPOCH     8"
    assert table[6].split()[-1] == "EPOCH"
    assert table[7].split()[-4:] == ["t-0,t-1", "(target", "t-1)", "7"]
    assert table[8].split()[-2:] == ["t-2", "8"]


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        (None, "member was removed by an admin"),
        ("scale-down", "member was removed by an admin: scale-down"),
    ],
)
async def test_a_removal_sends_kip_800s_reason(
    given: str | None, sent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KIP-800: "member was removed by an admin" by default, else the given reason prefixed by
    it (Java's admin client sends a given reason as is; the KIP's text prefixes it)."""
    from staticconsumer._admin import remove

    reasons: list[str] = []

    class Stop(KafkaError):
        pass

    async def fake_send(client: Any, node_id: int, request: Any, **kw: Any) -> Any:
        reasons.extend(m["reason"] for m in request.struct.to_object()["members"])
        raise Stop()

    async def fake_with_coordinator(client: Any, group_id: str, fn: Any, **kw: Any) -> Any:
        return await fn(1, VERSIONS)

    async def nothing(*args: Any, **kw: Any) -> Any:
        return object()

    monkeypatch.setattr(remove, "open_client", nothing)
    monkeypatch.setattr(remove, "close_client", nothing)
    monkeypatch.setattr(remove, "with_coordinator", fake_with_coordinator)
    monkeypatch.setattr(remove, "send", fake_send)
    with pytest.raises(GroupAdminError):
        await remove_members(NOWHERE, "g", ["a", "b"], reason=given)
    assert reasons == [sent, sent]
    assert removal_reason(given) == sent
