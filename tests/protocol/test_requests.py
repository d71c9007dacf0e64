"""Requests we build encode to the bytes Apache Kafka's own message classes write (golden.py).

The field values below are the ones GoldenGen.java sets; keep the two in step.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from io import BytesIO
from typing import Any

import pytest

from staticconsumer.protocol import (
    ApiKey,
    CommitOffset,
    CopartitionGroup,
    Endpoint,
    MemberIdentity,
    PinnedRequest,
    StreamsTopology,
    Subtopology,
    TaskIds,
    TaskOffset,
    TopicIdPartitions,
    TopicInfo,
    build_api_versions,
    build_consumer_group_describe,
    build_consumer_group_heartbeat,
    build_describe_groups,
    build_find_coordinator,
    build_heartbeat,
    build_join_group,
    build_leave_group,
    build_metadata,
    build_offset_commit,
    build_offset_fetch,
    build_streams_group_describe,
    build_streams_group_heartbeat,
    build_sync_group,
    request_class,
)

from . import golden


def join_group(version: int) -> PinnedRequest:
    return build_join_group(
        version,
        group_id="grp",
        session_timeout_ms=45000,
        rebalance_timeout_ms=300000,
        member_id="inst-a-1234",
        group_instance_id="inst-a",
        protocol_type="consumer",
        protocols=[("range", b"\x01\x02\x03"), ("roundrobin", b"")],
        reason="rebalance enforced by user",
    )


def join_group_dynamic(version: int) -> PinnedRequest:
    return build_join_group(
        version,
        group_id="grp",
        session_timeout_ms=45000,
        rebalance_timeout_ms=300000,
        member_id="",
        group_instance_id=None,
        protocol_type="consumer",
        protocols=[("range", b"\x01\x02\x03"), ("roundrobin", b"")],
        reason=None,
    )


def static_before(version: int, first: int) -> str | None:
    """GoldenGen's instance id: "inst-a" from the first version that carries it (KIP-345),
    None below (only a member without one is sent those versions)."""
    return "inst-a" if version >= first else None


def sync_group(version: int) -> PinnedRequest:
    return build_sync_group(
        version,
        group_id="grp",
        generation_id=3,
        member_id="inst-a-1234",
        group_instance_id=static_before(version, 3),
        protocol_type="consumer",
        protocol_name="range",
        assignments=[("inst-a-1234", b"\x00\x03\x09"), ("dyn-5678", b"")],
    )


def heartbeat(version: int) -> PinnedRequest:
    return build_heartbeat(
        version,
        group_id="grp",
        generation_id=3,
        member_id="inst-a-1234",
        group_instance_id=static_before(version, 3),
    )


def leave_group(version: int) -> PinnedRequest:
    if version < 3:  # one member, by member id
        only = MemberIdentity("dyn-5678", None)
        return build_leave_group(version, group_id="grp", members=[only])
    return build_leave_group(
        version,
        group_id="grp",
        members=[
            MemberIdentity("inst-a-1234", "inst-a", reason="the consumer is being closed"),
            MemberIdentity("", "inst-b"),
        ],
    )


def offset_commit(version: int) -> PinnedRequest:
    return build_offset_commit(
        version,
        group_id="grp",
        generation_id=3,
        member_id="inst-a-1234",
        group_instance_id=static_before(version, 7),
        # Out of order on purpose: the builder sorts topics and partitions.
        offsets=[
            CommitOffset("payments", 2, 1 << 40, metadata=""),
            CommitOffset("orders", 1, 200, metadata=None),
            CommitOffset("orders", 0, 100, leader_epoch=5, metadata="m"),
        ],
    )


def offset_fetch(version: int) -> PinnedRequest:
    return build_offset_fetch(
        version,
        group_id="grp",
        # Out of order and with a repeat on purpose: the builder sorts and deduplicates.
        partitions=[("payments", 2), ("orders", 1), ("orders", 0), ("orders", 1)],
        member_id="inst-a-1234" if version >= 9 else None,
        member_epoch=7 if version >= 9 else -1,
    )


TOPIC_A = uuid.UUID("01020304-0506-0708-090a-0b0c0d0e0f10")
TOPIC_B = uuid.UUID(int=5)


def consumer_group_heartbeat(version: int) -> PinnedRequest:
    return build_consumer_group_heartbeat(
        version, group_id="grp", member_id="m-uuid-1", member_epoch=0, instance_id="inst-a",
        rack_id="rack-1", rebalance_timeout_ms=300000,
        subscribed_topic_names=["orders", "payments"],
        subscribed_topic_regex="ord.*" if version >= 1 else None, server_assignor="uniform",
        # Out of order on purpose: the builder sorts topics by id and partitions.
        owned=[TopicIdPartitions(TOPIC_A, (1,)), TopicIdPartitions(TOPIC_B, (2, 0))],
    )  # fmt: skip


def consumer_group_heartbeat_minimal(version: int) -> PinnedRequest:
    return build_consumer_group_heartbeat(
        version, group_id="grp", member_id="m-uuid-1", member_epoch=7
    )


def consumer_group_describe(version: int) -> PinnedRequest:
    return build_consumer_group_describe(
        version, ["grp", "other"], include_authorized_operations=True
    )


def metadata(version: int) -> PinnedRequest:
    return build_metadata(version, ["orders", "gone"])


def describe_groups(version: int) -> PinnedRequest:
    return build_describe_groups(
        version, group_ids=["grp", "other"], include_authorized_operations=version >= 3
    )


def find_coordinator(version: int) -> PinnedRequest:
    keys = ["grp", "other"] if version >= 4 else ["grp"]
    return build_find_coordinator(version, keys=keys)


# -- streams groups (KIP-1071) ------------------------------------------------------------------

STREAMS_TOPOLOGY = StreamsTopology(1, (Subtopology(
    "0", source_topics=("orders",),
    state_changelog_topics=(TopicInfo("app-counts-changelog", 0, 3,
                                      (("cleanup.policy", "compact"),)),),
    repartition_sink_topics=("app-by-key-repartition",),
    repartition_source_topics=(TopicInfo("app-by-key-repartition", 6, 3,
                                         (("cleanup.policy", "compact"),)),),
    copartition_groups=(CopartitionGroup(source_topics=(0,), repartition_source_topics=(0,)),),
),))  # fmt: skip


def streams_group_heartbeat(version: int) -> PinnedRequest:
    """A static member (Kafka 4.4's ``<instance>-<thread>``) joining with everything set."""
    return build_streams_group_heartbeat(
        version, group_id="app", member_id="m-uuid-1", member_epoch=0,
        endpoint_information_epoch=0, instance_id="app-1-1", rack_id="rack-1",
        rebalance_timeout_ms=300_000, topology=STREAMS_TOPOLOGY,
        active_tasks=[TaskIds("0", (0, 2))], standby_tasks=[TaskIds("0", (1,))], warmup_tasks=[],
        process_id="0f9e8d7c-6b5a-4c3d-9e1f-a2b3c4d5e6f7",
        user_endpoint=Endpoint("10.0.0.7", 65000), client_tags={"zone": "a"},
        task_offsets=[TaskOffset("0", 1, 4_000_000_000)],
        task_end_offsets=[TaskOffset("0", 1, 4_000_000_123)],
    )  # fmt: skip


def streams_group_heartbeat_minimal(version: int) -> PinnedRequest:
    return build_streams_group_heartbeat(version, group_id="app", member_id="m-uuid-1",
                                         member_epoch=7, endpoint_information_epoch=3)  # fmt: skip


def streams_group_describe(version: int) -> PinnedRequest:
    return build_streams_group_describe(version, ["app", "other"],
                                        include_authorized_operations=True,
                                        include_topology_description=version >= 1)  # fmt: skip


CASES: list[tuple[str, Callable[[int], PinnedRequest], ApiKey, dict[int, bytes]]] = [
    ("join_group", join_group, ApiKey.JOIN_GROUP, golden.JOIN_GROUP_REQUEST),
    (
        "join_group_dynamic",
        join_group_dynamic,
        ApiKey.JOIN_GROUP,
        golden.JOIN_GROUP_REQUEST_DYNAMIC,
    ),
    ("sync_group", sync_group, ApiKey.SYNC_GROUP, golden.SYNC_GROUP_REQUEST),
    ("heartbeat", heartbeat, ApiKey.HEARTBEAT, golden.HEARTBEAT_REQUEST),
    ("leave_group", leave_group, ApiKey.LEAVE_GROUP, golden.LEAVE_GROUP_REQUEST),
    ("offset_commit", offset_commit, ApiKey.OFFSET_COMMIT, golden.OFFSET_COMMIT_REQUEST),
    ("offset_fetch", offset_fetch, ApiKey.OFFSET_FETCH, golden.OFFSET_FETCH_REQUEST),
    ("describe_groups", describe_groups, ApiKey.DESCRIBE_GROUPS, golden.DESCRIBE_GROUPS_REQUEST),
    ("metadata", metadata, ApiKey.METADATA, golden.METADATA_REQUEST),
    (
        "consumer_group_describe",
        consumer_group_describe,
        ApiKey.CONSUMER_GROUP_DESCRIBE,
        golden.CONSUMER_GROUP_DESCRIBE_REQUEST,
    ),
    (
        "consumer_group_heartbeat",
        consumer_group_heartbeat,
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        golden.CONSUMER_GROUP_HEARTBEAT_REQUEST,
    ),
    (
        "consumer_group_heartbeat_minimal",
        consumer_group_heartbeat_minimal,
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        golden.CONSUMER_GROUP_HEARTBEAT_REQUEST_MINIMAL,
    ),
    (
        "find_coordinator",
        find_coordinator,
        ApiKey.FIND_COORDINATOR,
        golden.FIND_COORDINATOR_REQUEST,
    ),
    (
        "streams_group_heartbeat",
        streams_group_heartbeat,
        ApiKey.STREAMS_GROUP_HEARTBEAT,
        golden.STREAMS_GROUP_HEARTBEAT_REQUEST,
    ),
    (
        "streams_group_heartbeat_minimal",
        streams_group_heartbeat_minimal,
        ApiKey.STREAMS_GROUP_HEARTBEAT,
        golden.STREAMS_GROUP_HEARTBEAT_REQUEST_MINIMAL,
    ),
    (
        "streams_group_describe",
        streams_group_describe,
        ApiKey.STREAMS_GROUP_DESCRIBE,
        golden.STREAMS_GROUP_DESCRIBE_REQUEST,
    ),
    (
        "api_versions",
        lambda v: build_api_versions("1.0"),
        ApiKey.API_VERSIONS,
        golden.API_VERSIONS_REQUEST,
    ),
]

PARAMS = [
    pytest.param(build, api_key, version, table[version], id=f"{name}-v{version}")
    for name, build, api_key, table in CASES
    for version in sorted(table)
]


@pytest.mark.parametrize(("build", "api_key", "version", "expected"), PARAMS)
def test_request_encodes_to_golden_bytes(
    build: Callable[[int], PinnedRequest], api_key: int, version: int, expected: bytes
) -> None:
    request = build(version)
    assert (request.api_key, request.api_version) == (api_key, version)
    assert request.encode() == expected


@pytest.mark.parametrize(("build", "api_key", "version", "expected"), PARAMS)
def test_request_golden_bytes_decode_and_reencode(
    build: Callable[[int], PinnedRequest], api_key: int, version: int, expected: bytes
) -> None:
    struct_class: Any = request_class(api_key, version)
    buffer = BytesIO(expected)
    decoded = struct_class.decode(buffer)
    assert buffer.tell() == len(expected), "schema left bytes unread"
    assert decoded.encode() == expected
    assert decoded == build(version).struct


def test_every_implemented_version_has_golden_bytes() -> None:
    from staticconsumer.protocol import IMPLEMENTED_VERSIONS

    covered = {(api_key, version) for _, _, api_key, t in CASES for version in t}
    implemented = {
        (api_key, version)
        for api_key, (low, high) in IMPLEMENTED_VERSIONS.items()
        for version in range(low, high + 1)
    }
    assert covered == implemented


def test_flexible_versions_match_kafka_specs() -> None:
    first_flexible = {
        ApiKey.JOIN_GROUP: 6,
        ApiKey.SYNC_GROUP: 4,
        ApiKey.HEARTBEAT: 4,
        ApiKey.LEAVE_GROUP: 4,
        ApiKey.OFFSET_COMMIT: 8,
        ApiKey.OFFSET_FETCH: 6,
        ApiKey.CONSUMER_GROUP_HEARTBEAT: 0,
        ApiKey.METADATA: 9,
        ApiKey.CONSUMER_GROUP_DESCRIBE: 0,
        ApiKey.DESCRIBE_GROUPS: 5,
        ApiKey.FIND_COORDINATOR: 3,
        ApiKey.STREAMS_GROUP_HEARTBEAT: 0,
        ApiKey.API_VERSIONS: 3,
        ApiKey.STREAMS_GROUP_DESCRIBE: 0,
    }
    for name, build, api_key, table in CASES:
        for version in table:
            assert build(version).flexible is (version >= first_flexible[api_key]), (name, version)


def test_join_group_reason_is_dropped_before_v8() -> None:
    assert b"rebalance enforced" not in join_group(7).encode()
    assert b"rebalance enforced" in join_group(8).encode()


def test_offset_commit_rejects_a_partition_given_twice() -> None:
    with pytest.raises(ValueError, match="orders-0 given more than once"):
        build_offset_commit(
            9,
            group_id="g",
            generation_id=1,
            member_id="m",
            group_instance_id=None,
            offsets=[CommitOffset("orders", 0, 1), CommitOffset("orders", 0, 2)],
        )


def test_find_coordinator_below_v4_takes_one_key() -> None:
    with pytest.raises(ValueError, match="one key"):
        build_find_coordinator(3, keys=["a", "b"])
    with pytest.raises(ValueError, match="at least one key"):
        build_find_coordinator(4, keys=[])


def test_leave_group_needs_a_member() -> None:
    with pytest.raises(ValueError, match="at least one member"):
        build_leave_group(5, group_id="g", members=[])


@pytest.mark.parametrize(("api_key", "version"), [(ApiKey.JOIN_GROUP, 2), (ApiKey.JOIN_GROUP, 10)])
def test_unimplemented_version_is_refused(api_key: int, version: int) -> None:
    with pytest.raises(ValueError, match=r"JoinGroup v\d+ is not implemented \(.*v3-v9\)"):
        request_class(api_key, version)


def test_consumer_group_heartbeat_refuses_a_regex_before_v1() -> None:
    with pytest.raises(ValueError, match="v1"):
        build_consumer_group_heartbeat(
            0, group_id="grp", member_id="m", member_epoch=0, subscribed_topic_regex="ord.*"
        )


def test_a_streams_endpoints_port_is_a_uint16_and_the_description_needs_v1() -> None:
    with pytest.raises(ValueError, match="uint16"):
        build_streams_group_heartbeat(0, group_id="app", member_id="m", member_epoch=0,
                                      endpoint_information_epoch=0,
                                      user_endpoint=Endpoint("h", 65536))  # fmt: skip
    with pytest.raises(ValueError, match="needs StreamsGroupDescribe v1"):
        build_streams_group_describe(0, ["app"], include_topology_description=True)
