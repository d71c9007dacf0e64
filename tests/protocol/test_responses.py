"""Responses decode from the bytes Apache Kafka's own message classes write (golden.py) into the
values GoldenGen.java set, and re-encode to the same bytes."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from io import BytesIO
from typing import Any

import pytest

from staticconsumer.errors import ProtocolError
from staticconsumer.protocol import (
    AUTHORIZED_OPERATIONS_OMITTED,
    ApiKey,
    CommitPartitionResult,
    ConsumerGroupHeartbeatResult,
    Coordinator,
    DescribedConsumerGroup,
    DescribedConsumerGroupMember,
    DescribedGroup,
    DescribedMember,
    DescribedStreamsGroup,
    DescribedStreamsGroupMember,
    DescribedTopicPartitions,
    DescribeGroupsResult,
    Endpoint,
    EndpointPartitions,
    FetchedOffset,
    FinalizedFeatures,
    FindCoordinatorResult,
    HeartbeatResult,
    JoinGroupMember,
    JoinGroupResult,
    LeaveGroupMemberResult,
    LeaveGroupResult,
    MetadataResult,
    MetadataTopic,
    OffsetCommitResult,
    OffsetFetchResult,
    StreamsGroupHeartbeatResult,
    StreamsGroupStatus,
    StreamsTasks,
    StreamsTopology,
    Subtopology,
    SyncGroupResult,
    TaskIds,
    TaskOffset,
    TopicIdPartitions,
    TopicInfo,
    parse_consumer_group_describe,
    parse_consumer_group_heartbeat,
    parse_describe_groups,
    parse_finalized_features,
    parse_find_coordinator,
    parse_heartbeat,
    parse_join_group,
    parse_leave_group,
    parse_metadata,
    parse_offset_commit,
    parse_offset_fetch,
    parse_streams_group_describe,
    parse_streams_group_heartbeat,
    parse_sync_group,
    response_class,
)

from . import golden


def join_group(version: int) -> JoinGroupResult:
    return JoinGroupResult(
        error_code=0,
        generation_id=3,
        protocol_type="consumer" if version >= 7 else None,
        protocol_name="range",
        leader="inst-a-1234",
        skip_assignment=version >= 9,
        member_id="inst-a-1234",
        members=(
            # Before v5 (KIP-345) the coordinator reports no instance id.
            JoinGroupMember("inst-a-1234", "inst-a" if version >= 5 else None, b"\x00\x01"),
            JoinGroupMember("dyn-5678", None, b""),
        ),
        throttle_time_ms=7,
    )


def sync_group(version: int) -> SyncGroupResult:
    return SyncGroupResult(
        error_code=82,
        protocol_type="consumer" if version >= 5 else None,
        protocol_name="range" if version >= 5 else None,
        assignment=b"\x0a\x0b",
        throttle_time_ms=7,
    )


def heartbeat(version: int) -> HeartbeatResult:
    return HeartbeatResult(error_code=27, throttle_time_ms=7)


def leave_group(version: int) -> LeaveGroupResult:
    if version < 3:  # one member, no per-member answers: the top-level code is its
        return LeaveGroupResult(error_code=25, members=(), throttle_time_ms=7)
    return LeaveGroupResult(
        error_code=0,
        members=(
            LeaveGroupMemberResult("inst-a-1234", "inst-a", 0),
            LeaveGroupMemberResult("", "inst-b", 25),
        ),
        throttle_time_ms=7,
    )


def offset_commit(version: int) -> OffsetCommitResult:
    return OffsetCommitResult(
        partitions=(
            CommitPartitionResult("orders", 0, 0),
            CommitPartitionResult("orders", 1, 22),
            CommitPartitionResult("payments", 2, 82),
        ),
        throttle_time_ms=7,
    )


def offset_fetch(version: int) -> OffsetFetchResult:
    return OffsetFetchResult(
        error_code=0,
        partitions=(
            FetchedOffset("orders", 0, 100, 5, "m", 0),
            FetchedOffset("orders", 1, -1, -1, "", 0),
            FetchedOffset("payments", 2, -1, -1, "", 88),
        ),
        throttle_time_ms=7,
    )


def offset_fetch_group_error(version: int) -> OffsetFetchResult:
    # COORDINATOR_LOAD_IN_PROGRESS for the whole group, and no partitions at all.
    return OffsetFetchResult(error_code=14, partitions=(), throttle_time_ms=7)


TOPIC_A = uuid.UUID("01020304-0506-0708-090a-0b0c0d0e0f10")
TOPIC_B = uuid.UUID(int=5)


def consumer_group_heartbeat(version: int) -> ConsumerGroupHeartbeatResult:
    return ConsumerGroupHeartbeatResult(
        error_code=0, error_message=None, member_id="m-uuid-1", member_epoch=8,
        heartbeat_interval_ms=5000,
        assignment=(TopicIdPartitions(TOPIC_B, (0, 2)), TopicIdPartitions(TOPIC_A, (1,))),
        throttle_time_ms=7,
    )  # fmt: skip


def consumer_group_heartbeat_error(version: int) -> ConsumerGroupHeartbeatResult:
    # UNRELEASED_INSTANCE_ID, and no assignment at all (a null struct).
    return ConsumerGroupHeartbeatResult(
        error_code=111, error_message="unreleased", member_id="m-uuid-1", member_epoch=8,
        heartbeat_interval_ms=5000, assignment=None, throttle_time_ms=7,
    )  # fmt: skip


def consumer_group_describe(version: int) -> tuple[DescribedConsumerGroup, ...]:
    orders = DescribedTopicPartitions(TOPIC_A, "orders", (0, 1))
    member = DescribedConsumerGroupMember(
        "m-uuid-1", "inst-a", None, 8, "cid", "/127.0.0.1", ("orders",), None, (orders,),
        (DescribedTopicPartitions(TOPIC_A, "orders", (1,)),), 1 if version >= 1 else -1,
    )  # fmt: skip
    return (
        DescribedConsumerGroup(0, None, "grp", "Stable", 9, 9, "uniform", (member,), 0x0F),
        DescribedConsumerGroup(69, "not a consumer group", "other", "", 0, 0, "", (),
                               AUTHORIZED_OPERATIONS_OMITTED),
    )  # fmt: skip


def metadata(version: int) -> MetadataResult:
    # Partitions come sorted; a topic that does not exist has the zero id and no partitions.
    # v13's golden answer carries the top-level REBOOTSTRAP_REQUIRED (KIP-1102).
    return MetadataResult((MetadataTopic("orders", TOPIC_A, 0, False, (0, 1)),
                           MetadataTopic("gone", uuid.UUID(int=0), 3, False, ())),
                          129 if version >= 13 else 0)  # fmt: skip


def describe_groups(version: int) -> DescribeGroupsResult:
    return DescribeGroupsResult(
        groups=(
            DescribedGroup(
                error_code=0,
                error_message=None,
                group_id="grp",
                group_state="Stable",
                protocol_type="consumer",
                protocol_data="range",
                members=(
                    DescribedMember(
                        "inst-a-1234",
                        "inst-a" if version >= 4 else None,
                        "cid",
                        "/127.0.0.1",
                        b"\x00\x01",
                        b"\x00\x02",
                    ),
                    DescribedMember("dyn-5678", None, "cid2", "/10.0.0.2", b"", b""),
                ),
                authorized_operations=0x0F if version >= 3 else AUTHORIZED_OPERATIONS_OMITTED,
            ),
            DescribedGroup(
                error_code=16,
                error_message="not the coordinator" if version >= 6 else None,
                group_id="other",
                group_state="",
                protocol_type="",
                protocol_data="",
                members=(),
                authorized_operations=AUTHORIZED_OPERATIONS_OMITTED,
            ),
        ),
        throttle_time_ms=7,
    )


def find_coordinator(version: int) -> FindCoordinatorResult:
    if version < 4:
        return FindCoordinatorResult((Coordinator(None, 1, "localhost", 9092, 0, None),), 7)
    return FindCoordinatorResult(
        (
            Coordinator("grp", 1, "localhost", 9092, 0, None),
            Coordinator("other", -1, "", -1, 15, "not available"),
        ),
        7,
    )


# -- streams groups (KIP-1071) ------------------------------------------------------------------

ENDPOINT = Endpoint("10.0.0.7", 65000)  # a port past int16's range: uint16 on the wire


def streams_group_heartbeat(version: int) -> StreamsGroupHeartbeatResult:
    return StreamsGroupHeartbeatResult(
        error_code=0, error_message=None, member_id="m-uuid-1", member_epoch=8,
        heartbeat_interval_ms=5000,
        acceptable_recovery_lag=10_000 if version == 0 else 10_000_000_000,
        task_offset_interval_ms=60_000,
        statuses=((StreamsGroupStatus.ASSIGNMENT_DELAYED, "assignment delayed"),),
        active_tasks=(TaskIds("0", (0, 2)),), standby_tasks=(TaskIds("0", (1,)),),
        warmup_tasks=(), endpoint_information_epoch=4,
        partitions_by_user_endpoint=(EndpointPartitions(ENDPOINT, {"orders": (0, 2)},
                                                        {"orders": (1,)}),),
        topology_description_required=version >= 1, throttle_time_ms=7,
    )  # fmt: skip


def streams_group_heartbeat_error(version: int) -> StreamsGroupHeartbeatResult:
    # FENCED_INSTANCE_ID with a status, and no task list and no endpoints at all (nulls).
    return StreamsGroupHeartbeatResult(
        error_code=82, error_message="fenced", member_id="m-uuid-1", member_epoch=8,
        heartbeat_interval_ms=5000,
        acceptable_recovery_lag=10_000 if version == 0 else 10_000_000_000,
        task_offset_interval_ms=60_000,
        statuses=((StreamsGroupStatus.MISSING_SOURCE_TOPICS, "missing orders"),),
        active_tasks=None, standby_tasks=None, warmup_tasks=None, endpoint_information_epoch=4,
        partitions_by_user_endpoint=None, throttle_time_ms=7,
    )  # fmt: skip


def streams_group_describe(version: int) -> tuple[DescribedStreamsGroup, ...]:
    def tasks(*active: int) -> StreamsTasks:
        return StreamsTasks((TaskIds("0", active),), (), ())

    member = DescribedStreamsGroupMember(
        "m-uuid-1", 8, "app-1-1", None, "cid", "/127.0.0.1", 1,
        "0f9e8d7c-6b5a-4c3d-9e1f-a2b3c4d5e6f7", ENDPOINT, {"zone": "a"},
        (TaskOffset("0", 1, 42),), (), tasks(0, 2), tasks(0, 1, 2), False,
    )  # fmt: skip
    topology = StreamsTopology(1, (Subtopology(
        "0", source_topics=("orders",),
        state_changelog_topics=(TopicInfo("app-counts-changelog", 6, 3),)),))  # fmt: skip
    described: dict[str, Any] = {}
    if version >= 1:
        source = {
            "name": "KSTREAM-SOURCE-0",
            "node_type": 0,
            "source_topics": ["orders"],
            "sink_topic": None,
            "stores": [],
            "successors": ["KSTREAM-AGGREGATE-1"],
        }
        aggregate = {
            "name": "KSTREAM-AGGREGATE-1",
            "node_type": 1,
            "source_topics": [],
            "sink_topic": None,
            "stores": ["counts"],
            "successors": [],
        }
        described = {
            "topology_description": {
                "subtopologies": [{"subtopology_id": "0", "nodes": [source, aggregate]}],
                "global_stores": [{"source": source, "processor": aggregate}],
            },
            "topology_description_status": 1, "assignor_name": "sticky",
        }  # fmt: skip
    return (
        DescribedStreamsGroup(0, None, "app", "Stable", 9, 9, topology, (member,), 0x0F,
                              **described),
        DescribedStreamsGroup(69, "not a streams group", "other", "", 0, 0, None, (),
                              -2147483648),
    )  # fmt: skip


def api_versions(v: int) -> FinalizedFeatures:
    """Two finalized features at epoch 42 (a feature at level 0 is not listed)."""
    return FinalizedFeatures(42, {"group.version": 1, "metadata.version": 29})


CASES: list[tuple[str, Callable[[Any], Any], Callable[[int], Any], ApiKey, dict[int, bytes]]] = [
    ("join_group", parse_join_group, join_group, ApiKey.JOIN_GROUP, golden.JOIN_GROUP_RESPONSE),
    ("sync_group", parse_sync_group, sync_group, ApiKey.SYNC_GROUP, golden.SYNC_GROUP_RESPONSE),
    ("heartbeat", parse_heartbeat, heartbeat, ApiKey.HEARTBEAT, golden.HEARTBEAT_RESPONSE),
    (
        "leave_group",
        parse_leave_group,
        leave_group,
        ApiKey.LEAVE_GROUP,
        golden.LEAVE_GROUP_RESPONSE,
    ),
    (
        "offset_commit",
        parse_offset_commit,
        offset_commit,
        ApiKey.OFFSET_COMMIT,
        golden.OFFSET_COMMIT_RESPONSE,
    ),
    (
        "offset_fetch",
        parse_offset_fetch,
        offset_fetch,
        ApiKey.OFFSET_FETCH,
        golden.OFFSET_FETCH_RESPONSE,
    ),
    (
        "offset_fetch_group_error",
        parse_offset_fetch,
        offset_fetch_group_error,
        ApiKey.OFFSET_FETCH,
        golden.OFFSET_FETCH_RESPONSE_GROUP_ERROR,
    ),
    (
        "consumer_group_heartbeat",
        parse_consumer_group_heartbeat,
        consumer_group_heartbeat,
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        golden.CONSUMER_GROUP_HEARTBEAT_RESPONSE,
    ),
    (
        "consumer_group_heartbeat_error",
        parse_consumer_group_heartbeat,
        consumer_group_heartbeat_error,
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        golden.CONSUMER_GROUP_HEARTBEAT_RESPONSE_ERROR,
    ),
    ("metadata", parse_metadata, metadata, ApiKey.METADATA, golden.METADATA_RESPONSE),
    (
        "consumer_group_describe",
        parse_consumer_group_describe,
        consumer_group_describe,
        ApiKey.CONSUMER_GROUP_DESCRIBE,
        golden.CONSUMER_GROUP_DESCRIBE_RESPONSE,
    ),
    (
        "describe_groups",
        parse_describe_groups,
        describe_groups,
        ApiKey.DESCRIBE_GROUPS,
        golden.DESCRIBE_GROUPS_RESPONSE,
    ),
    (
        "find_coordinator",
        parse_find_coordinator,
        find_coordinator,
        ApiKey.FIND_COORDINATOR,
        golden.FIND_COORDINATOR_RESPONSE,
    ),
    (
        "streams_group_heartbeat",
        parse_streams_group_heartbeat,
        streams_group_heartbeat,
        ApiKey.STREAMS_GROUP_HEARTBEAT,
        golden.STREAMS_GROUP_HEARTBEAT_RESPONSE,
    ),
    (
        "streams_group_heartbeat_error",
        parse_streams_group_heartbeat,
        streams_group_heartbeat_error,
        ApiKey.STREAMS_GROUP_HEARTBEAT,
        golden.STREAMS_GROUP_HEARTBEAT_RESPONSE_ERROR,
    ),
    (
        "streams_group_describe",
        parse_streams_group_describe,
        streams_group_describe,
        ApiKey.STREAMS_GROUP_DESCRIBE,
        golden.STREAMS_GROUP_DESCRIBE_RESPONSE,
    ),
    (
        "api_versions",
        parse_finalized_features,
        api_versions,
        ApiKey.API_VERSIONS,
        golden.API_VERSIONS_RESPONSE,
    ),
    (
        "api_versions_no_features",
        parse_finalized_features,
        lambda v: FinalizedFeatures(),
        ApiKey.API_VERSIONS,
        golden.API_VERSIONS_RESPONSE_NO_FEATURES,
    ),
]

PARAMS = [
    pytest.param(parse, expected, api_key, version, table[version], id=f"{name}-v{version}")
    for name, parse, expected, api_key, table in CASES
    for version in sorted(table)
]


@pytest.mark.parametrize(("parse", "expected", "api_key", "version", "data"), PARAMS)
def test_response_decodes_from_golden_bytes(
    parse: Callable[[Any], Any],
    expected: Callable[[int], Any],
    api_key: int,
    version: int,
    data: bytes,
) -> None:
    buffer = BytesIO(data)
    response = response_class(api_key, version).decode(buffer)
    assert buffer.tell() == len(data), "schema left bytes unread"
    assert parse(response) == expected(version)


@pytest.mark.parametrize(("parse", "expected", "api_key", "version", "data"), PARAMS)
def test_response_round_trips(
    parse: Callable[[Any], Any],
    expected: Callable[[int], Any],
    api_key: int,
    version: int,
    data: bytes,
) -> None:
    response = response_class(api_key, version).decode(data)
    assert response.encode() == data
    assert response.API_KEY == api_key and response.API_VERSION == version


def test_every_response_version_is_covered() -> None:
    from staticconsumer.protocol import IMPLEMENTED_VERSIONS

    covered = {(api_key, version) for *_, api_key, table in CASES for version in table}
    assert covered == {
        (api_key, v)
        for api_key, (lo, hi) in IMPLEMENTED_VERSIONS.items()
        for v in range(lo, hi + 1)
    }


def test_unknown_tagged_fields_from_a_newer_broker_are_skipped() -> None:
    # Heartbeat v4 body: throttle 7, error 0, then one tagged field (tag 5, 2 bytes).
    data = bytes.fromhex("000000070000010502abcd")
    response = response_class(ApiKey.HEARTBEAT, 4).decode(data)
    assert parse_heartbeat(response) == HeartbeatResult(error_code=0, throttle_time_ms=7)


def test_is_leader() -> None:
    assert join_group(9).is_leader
    parsed = parse_join_group(
        response_class(ApiKey.JOIN_GROUP, 9).decode(golden.JOIN_GROUP_RESPONSE[9])
    )
    assert parsed.is_leader
    assert not JoinGroupResult(0, 1, None, "range", "other", False, "me", ()).is_leader


def test_parser_refuses_a_response_of_another_api() -> None:
    heartbeat_response = response_class(ApiKey.HEARTBEAT, 4).decode(golden.HEARTBEAT_RESPONSE[4])
    with pytest.raises(ProtocolError, match="expected a JoinGroup response"):
        parse_join_group(heartbeat_response)
    with pytest.raises(ProtocolError):
        parse_sync_group(object())


def test_offset_commit_result_lists_failed_partitions() -> None:
    result = offset_commit(9)
    assert [(p.topic, p.partition) for p in result.failed] == [("orders", 1), ("payments", 2)]
