"""Error code names, reason truncation and the public surface of staticconsumer.protocol."""

from __future__ import annotations

import staticconsumer.protocol as protocol
from staticconsumer.protocol import (
    MAX_REASON_LENGTH,
    ErrorCode,
    MemberIdentity,
    build_join_group,
    build_leave_group,
    error_name,
    truncate_reason,
)

from . import golden


def test_error_codes_match_kafka() -> None:
    for code in ErrorCode:
        assert golden.KAFKA_ERRORS[code.value] == code.name


def test_group_error_codes_are_present() -> None:
    for name in [
        "COORDINATOR_LOAD_IN_PROGRESS",
        "COORDINATOR_NOT_AVAILABLE",
        "NOT_COORDINATOR",
        "ILLEGAL_GENERATION",
        "INCONSISTENT_GROUP_PROTOCOL",
        "INVALID_GROUP_ID",
        "UNKNOWN_MEMBER_ID",
        "INVALID_SESSION_TIMEOUT",
        "REBALANCE_IN_PROGRESS",
        "GROUP_AUTHORIZATION_FAILED",
        "GROUP_ID_NOT_FOUND",
        "MEMBER_ID_REQUIRED",
        "GROUP_MAX_SIZE_REACHED",
        "FENCED_INSTANCE_ID",
        "UNRELEASED_INSTANCE_ID",
    ]:
        assert ErrorCode[name].name == name
    assert int(ErrorCode.FENCED_INSTANCE_ID) == 82


def test_error_name() -> None:
    assert error_name(82) == "FENCED_INSTANCE_ID"
    assert error_name(9999) == "UNKNOWN_CODE_9999"


def test_reason_truncation_matches_java() -> None:
    assert MAX_REASON_LENGTH == golden.TRUNCATED_REASON_LENGTH == 255
    assert truncate_reason("r" * 300) == "r" * 255
    assert truncate_reason("short") == "short"
    assert truncate_reason(None) is None


def test_builders_truncate_reasons() -> None:
    long_reason = "x" * 300
    join = build_join_group(
        9,
        group_id="g",
        session_timeout_ms=10000,
        rebalance_timeout_ms=10000,
        member_id="",
        group_instance_id="i",
        protocol_type="consumer",
        protocols=[("range", b"")],
        reason=long_reason,
    )
    assert join.struct.reason == "x" * 255
    leave = build_leave_group(5, group_id="g", members=[MemberIdentity("m", "i", long_reason)])
    assert leave.struct.members[0][2] == "x" * 255


def test_offset_commit_cap_matches_java() -> None:
    assert protocol.IMPLEMENTED_VERSIONS[protocol.ApiKey.OFFSET_COMMIT][1] == (
        golden.OFFSET_COMMIT_MAX_BY_TOPIC_NAME
    )


def test_all_is_sorted_and_complete() -> None:
    assert protocol.__all__ == sorted(protocol.__all__, key=lambda n: (not n.isupper(), n))
    # "@py_..." names come from pytest rewriting asserts in an installed plugin package.
    public = {n for n in vars(protocol) if not n.startswith(("_", "@"))}
    modules = {
        "admin",
        "commit",
        "consumer_group",
        "consumer_group_describe",
        "consumer_protocol",
        "error_codes",
        "features",
        "fetch",
        "group",
        "metadata",
        "offset_fetch",
        "streams_group",
        "streams_group_describe",
        "streams_versions",
        "versions",
    }
    assert set(protocol.__all__) == public - modules
