"""Version negotiation: highest common version per API, never a silent downgrade."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from aiokafka.protocol.admin import ApiVersionResponse_v1

from staticconsumer.errors import ProtocolError, UnsupportedBrokerError
from staticconsumer.protocol import (
    CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT,
    ApiKey,
    ConsumerProtocolVersions,
    GroupApiVersions,
    api_versions_from_response,
    negotiate,
    negotiate_consumer_group_heartbeat,
    negotiate_metadata,
)
from tests._fake_client import KAFKA_2_2

# What Apache Kafka 4.x announces for these APIs.
KAFKA_4: dict[int, tuple[int, int]] = {
    ApiKey.OFFSET_COMMIT: (2, 10),
    ApiKey.OFFSET_FETCH: (1, 10),
    ApiKey.FIND_COORDINATOR: (0, 6),
    ApiKey.JOIN_GROUP: (0, 9),
    ApiKey.HEARTBEAT: (0, 4),
    ApiKey.LEAVE_GROUP: (0, 5),
    ApiKey.SYNC_GROUP: (0, 5),
    ApiKey.DESCRIBE_GROUPS: (0, 6),
    ApiKey.API_VERSIONS: (0, 4),
}

# The first version of each API that carries the instance id (KIP-345): Kafka 2.3 has the first
# four, 2.4 LeaveGroup v3 and DescribeGroups v4 (see KAFKA_2_3_1 below).
KAFKA_2_3: dict[int, tuple[int, int]] = {
    ApiKey.OFFSET_COMMIT: (0, 7),
    ApiKey.OFFSET_FETCH: (0, 6),
    ApiKey.FIND_COORDINATOR: (0, 2),
    ApiKey.JOIN_GROUP: (0, 5),
    ApiKey.HEARTBEAT: (0, 3),
    ApiKey.LEAVE_GROUP: (0, 3),
    ApiKey.SYNC_GROUP: (0, 3),
    ApiKey.DESCRIBE_GROUPS: (0, 4),
}


def test_kafka_4_gets_the_newest_versions() -> None:
    assert negotiate(KAFKA_4) == GroupApiVersions(
        join_group=9,
        sync_group=5,
        heartbeat=4,
        leave_group=5,
        offset_commit=9,  # v10 names topics by id only; a classic consumer stops at v9
        offset_fetch=9,  # likewise
        describe_groups=6,
        find_coordinator=4,
    )


def test_kafka_2_3_gets_the_first_static_membership_versions() -> None:
    assert negotiate(KAFKA_2_3) == GroupApiVersions(
        join_group=5,
        sync_group=3,
        heartbeat=3,
        leave_group=3,
        offset_commit=7,
        offset_fetch=6,
        describe_groups=4,
        find_coordinator=2,
    )


def test_broker_below_static_membership_is_refused_with_a_precise_message() -> None:
    kafka_2_2: dict[int, tuple[int, int]] = {
        **KAFKA_2_3,
        ApiKey.JOIN_GROUP: (0, 4),
        ApiKey.HEARTBEAT: (0, 2),
    }
    with pytest.raises(UnsupportedBrokerError) as info:
        negotiate(kafka_2_2)
    message = str(info.value)
    assert message == (
        "The broker cannot carry group.instance.id on every group API (KIP-345: Apache Kafka "
        "2.4 or newer): "
        "JoinGroup (api key 11): the broker supports v0-v4; static membership needs v5 or newer; "
        "Heartbeat (api key 12): the broker supports v0-v2; static membership needs v3 or newer. "
        "A member without group_instance_id works with this broker"
    )
    assert info.value.fatal


KAFKA_2_1 = {**KAFKA_2_2, ApiKey.JOIN_GROUP: (0, 3)}


@pytest.mark.parametrize(("broker", "join_group"), [(KAFKA_2_2, 4), (KAFKA_2_1, 3)])
def test_a_member_without_instance_id_downgrades_to_what_an_older_broker_has(
    broker: Mapping[int, tuple[int, int]], join_group: int
) -> None:
    """KIP-345's compatibility rule: a dynamic member works as before on a broker without
    JoinGroup v5, with that broker's newest versions; a static one is refused, saying so."""
    assert negotiate(broker, static_member=False) == GroupApiVersions(
        join_group=join_group, sync_group=2, heartbeat=2, leave_group=2, offset_commit=6,
        offset_fetch=5, describe_groups=2, find_coordinator=2,
    )  # fmt: skip
    with pytest.raises(UnsupportedBrokerError, match=r"cannot carry group\.instance\.id") as info:
        negotiate(broker)
    message = str(info.value)
    join = f"JoinGroup (api key 11): the broker supports v0-v{join_group}; static membership"
    assert f"{join} needs v5 or newer" in message
    commit = "OffsetCommit (api key 8): the broker supports v0-v6; static membership needs v7"
    assert commit in message
    assert message.endswith("A member without group_instance_id works with this broker")


#: Apache Kafka 2.3.1 (ApiKeys of its kafka-clients jar): the instance id on JoinGroup, SyncGroup,
#: Heartbeat and OffsetCommit, not yet on LeaveGroup (v3) and DescribeGroups (v4), both in 2.4.
KAFKA_2_3_1 = {**KAFKA_2_2, ApiKey.JOIN_GROUP: (0, 5), ApiKey.SYNC_GROUP: (0, 3),
               ApiKey.HEARTBEAT: (0, 3), ApiKey.OFFSET_COMMIT: (0, 7),
               ApiKey.DESCRIBE_GROUPS: (0, 3)}  # fmt: skip


def test_kafka_2_3_serves_a_dynamic_member_and_refuses_a_static_one_naming_what_lacks() -> None:
    assert negotiate(KAFKA_2_3_1, static_member=False) == GroupApiVersions(
        join_group=5, sync_group=3, heartbeat=3, leave_group=2, offset_commit=7,
        offset_fetch=5, describe_groups=3, find_coordinator=2,
    )  # fmt: skip
    with pytest.raises(UnsupportedBrokerError) as info:
        negotiate(KAFKA_2_3_1)
    assert str(info.value) == (
        "The broker cannot carry group.instance.id on every group API (KIP-345: Apache Kafka "
        "2.4 or newer): LeaveGroup (api key 13): the broker supports v0-v2; static membership "
        "needs v3 or newer; DescribeGroups (api key 15): the broker supports v0-v3; static "
        "membership needs v4 or newer. A member without group_instance_id works with this broker"
    )


def test_a_member_without_instance_id_still_gets_the_newest_versions() -> None:
    assert negotiate(KAFKA_4, static_member=False) == negotiate(KAFKA_4)
    assert negotiate(KAFKA_2_3, static_member=False) == negotiate(KAFKA_2_3)


def test_a_broker_older_than_kafka_2_1_is_refused_for_every_member() -> None:
    """Kafka 2.0: OffsetFetch v4 and OffsetCommit v4 (KIP-320's leader epochs came in 2.1)."""
    kafka_2_0 = {**KAFKA_2_1, ApiKey.OFFSET_FETCH: (0, 4), ApiKey.OFFSET_COMMIT: (0, 4)}
    with pytest.raises(UnsupportedBrokerError) as info:
        negotiate(kafka_2_0, static_member=False)
    assert str(info.value) == (
        "The broker is older than staticconsumer serves (Apache Kafka 2.1 or newer): "
        "OffsetCommit (api key 8): the broker supports v0-v4; staticconsumer implements v6-v9; "
        "OffsetFetch (api key 9): the broker supports v0-v4; staticconsumer implements v5-v9"
    )
    with pytest.raises(UnsupportedBrokerError) as static:
        negotiate(kafka_2_0)
    assert "A member without group_instance_id" not in str(static.value), "it would not work"


def test_missing_api_is_refused() -> None:
    without_describe = {k: v for k, v in KAFKA_4.items() if k != ApiKey.DESCRIBE_GROUPS}
    with pytest.raises(
        UnsupportedBrokerError,
        match=r"DescribeGroups \(api key 15\): the broker does not support it; v4\+ is needed",
    ):
        negotiate(without_describe)


def test_future_broker_that_dropped_our_versions_is_refused() -> None:
    future: dict[int, tuple[int, int]] = {**KAFKA_4, ApiKey.OFFSET_COMMIT: (10, 12)}
    with pytest.raises(
        UnsupportedBrokerError,
        match=r"OffsetCommit \(api key 8\): the broker supports v10-v12; "
        r"staticconsumer implements v7-v9",
    ):
        negotiate(future)


def test_negotiation_takes_plain_int_keys() -> None:
    assert negotiate({int(k): v for k, v in KAFKA_4.items()}).join_group == 9


def test_api_versions_from_aiokafka_response() -> None:
    rows = [(int(k), lo, hi) for k, (lo, hi) in KAFKA_4.items()]
    response = ApiVersionResponse_v1.decode(ApiVersionResponse_v1(0, rows, 0).encode())
    assert api_versions_from_response(response) == {int(k): v for k, v in KAFKA_4.items()}
    with pytest.raises(ProtocolError, match="error code 35"):
        api_versions_from_response(ApiVersionResponse_v1(35, [], 0))


def test_consumer_group_heartbeat_takes_the_highest_common_version() -> None:
    assert negotiate_consumer_group_heartbeat({ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 1)}) == 1
    # A newer broker: we send the newest we implement.
    assert negotiate_consumer_group_heartbeat({ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 7)}) == 1


def test_broker_without_consumer_group_heartbeat_is_refused_naming_the_way_out() -> None:
    with pytest.raises(UnsupportedBrokerError) as info:
        negotiate_consumer_group_heartbeat(KAFKA_4)  # KAFKA_4 above lists no api key 68
    message = str(info.value)
    assert "ConsumerGroupHeartbeat (api key 68)" in message
    assert "group.coordinator.rebalance.protocols" in message
    assert "group_protocol='classic'" in message


#: ApiVersions as measured on each broker line (the group APIs, Metadata, KIP-848's two).
MEASURED: dict[str, dict[int, tuple[int, int]]] = {
    "2.8.2": {**KAFKA_4, ApiKey.OFFSET_COMMIT: (0, 8), ApiKey.OFFSET_FETCH: (0, 7),
              ApiKey.FIND_COORDINATOR: (0, 3), ApiKey.JOIN_GROUP: (0, 7),
              ApiKey.LEAVE_GROUP: (0, 4), ApiKey.DESCRIBE_GROUPS: (0, 5),
              ApiKey.METADATA: (0, 11)},
    "3.5.2": {**KAFKA_4, ApiKey.OFFSET_COMMIT: (0, 8), ApiKey.OFFSET_FETCH: (0, 8),
              ApiKey.FIND_COORDINATOR: (0, 4), ApiKey.DESCRIBE_GROUPS: (0, 5),
              ApiKey.METADATA: (0, 12)},
    "3.7.2": {**KAFKA_4, ApiKey.OFFSET_COMMIT: (0, 9), ApiKey.OFFSET_FETCH: (0, 9),
              ApiKey.FIND_COORDINATOR: (0, 4), ApiKey.DESCRIBE_GROUPS: (0, 5),
              ApiKey.METADATA: (0, 12), ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 0)},
    "3.9.1": {**KAFKA_4, ApiKey.OFFSET_COMMIT: (0, 9), ApiKey.OFFSET_FETCH: (0, 9),
              ApiKey.FIND_COORDINATOR: (0, 4), ApiKey.DESCRIBE_GROUPS: (0, 5),
              ApiKey.METADATA: (0, 12), ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 0),
              ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 0)},
    "4.0.2": {**KAFKA_4, ApiKey.OFFSET_COMMIT: (2, 9), ApiKey.OFFSET_FETCH: (1, 9),
              ApiKey.METADATA: (0, 13), ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 1),
              ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 1)},
    # The default broker from issue 35: its group APIs are 4.3.1's; ApiVersions v5 (KIP-1242)
    # and DeleteGroups v3 are new, and this package sends neither.
    "4.4.0": {**KAFKA_4, ApiKey.API_VERSIONS: (0, 5), ApiKey.METADATA: (0, 13),
              ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 1), ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 1)},
}  # fmt: skip


@pytest.mark.parametrize("kafka", ["2.8.2", "3.5.2", "3.7.2", "3.9.1"])
def test_the_consumer_protocol_before_kafka_4_is_refused_in_one_sentence(kafka: str) -> None:
    """Before 4.0 the refusal names the version needed and what to use instead, whatever else
    the broker lacks (2.8 and 3.5 lack OffsetCommit v9 too; 3.7 and 3.9 list heartbeat v0)."""
    versions = negotiate(MEASURED[kafka])  # a classic member is served
    assert versions.consumer_group_heartbeat is None
    with pytest.raises(UnsupportedBrokerError) as info:
        versions.for_consumer_protocol()
    message = str(info.value)
    assert message.startswith("group_protocol='consumer' (KIP-848) needs Apache Kafka 4.0 or newer")
    assert message.endswith(": use group_protocol='classic' on this cluster")
    assert message.count(". ") == 0, "one sentence"
    assert ("v0-v0 only (the early access of Kafka 3.7 to 3.9)" in message) is (kafka >= "3.7")


def test_kafka_4_0_serves_the_consumer_protocol() -> None:
    assert negotiate(MEASURED["4.0.2"]).for_consumer_protocol().consumer_group_heartbeat == 1


def test_kafka_4_4_gets_the_versions_of_every_4_x_line() -> None:
    """Kafka 4.4.0 adds no group API version (its message specs are 4.3.1's for every API this
    package sends): the same versions are chosen, both protocols, as on 4.0.2."""
    chosen = negotiate(MEASURED["4.4.0"])
    assert (chosen.join_group, chosen.sync_group, chosen.heartbeat, chosen.leave_group,
            chosen.offset_commit, chosen.offset_fetch, chosen.describe_groups,
            chosen.find_coordinator) == (9, 5, 4, 5, 9, 9, 6, 4)  # fmt: skip
    assert chosen.for_consumer_protocol() == negotiate(MEASURED["4.0.2"]).for_consumer_protocol()
    assert chosen.for_consumer_protocol().consumer_group_describe == 1


def test_broker_with_only_newer_consumer_group_heartbeat_is_refused() -> None:
    with pytest.raises(UnsupportedBrokerError) as info:
        negotiate_consumer_group_heartbeat({ApiKey.CONSUMER_GROUP_HEARTBEAT: (2, 3)})
    assert str(info.value) == (
        "ConsumerGroupHeartbeat (api key 68): the broker supports v2-v3; "
        "staticconsumer implements v0-v1"
    )


def test_metadata_v12_is_needed_for_topic_ids() -> None:
    from staticconsumer.protocol import negotiate_metadata

    assert negotiate_metadata({ApiKey.METADATA: (0, 12)}) == 12
    # v13 where the broker has it (Kafka 4.0+): its top-level error says REBOOTSTRAP_REQUIRED
    assert negotiate_metadata({ApiKey.METADATA: (0, 13)}) == 13
    for broker in ({}, {ApiKey.METADATA: (0, 9)}):
        with pytest.raises(UnsupportedBrokerError, match="KIP-516"):
            negotiate_metadata(broker)


def test_consumer_group_describe_is_optional_but_never_downgraded() -> None:
    from staticconsumer.protocol import negotiate_consumer_group_describe

    assert negotiate_consumer_group_describe({ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 1)}) == 1
    assert negotiate_consumer_group_describe({ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 5)}) == 1
    assert negotiate_consumer_group_describe({}) is None  # no consumer groups on this broker
    with pytest.raises(UnsupportedBrokerError, match="ConsumerGroupDescribe"):
        negotiate_consumer_group_describe({ApiKey.CONSUMER_GROUP_DESCRIBE: (2, 3)})


# -- the consumer group protocol's versions (KIP-848), optional fields of GroupApiVersions -------

#: Apache Kafka 4.x with the consumer protocol on: ConsumerGroupHeartbeat, ConsumerGroupDescribe
#: and Metadata with topic ids.
KAFKA_4_CONSUMER: dict[int, tuple[int, int]] = {
    **KAFKA_4,
    ApiKey.CONSUMER_GROUP_HEARTBEAT: (0, 1),
    ApiKey.CONSUMER_GROUP_DESCRIBE: (0, 1),
    ApiKey.METADATA: (0, 13),
}


def test_a_broker_without_the_consumer_protocol_gets_none_for_its_apis() -> None:
    versions = negotiate(KAFKA_4)  # no api key 68, 69 or 3
    assert (versions.consumer_group_heartbeat, versions.consumer_group_describe,
            versions.metadata) == (None, None, None)  # fmt: skip
    assert versions.join_group == 9  # a classic member needs none of them


def test_a_broker_with_the_consumer_protocol_fills_its_fields() -> None:
    versions = negotiate(KAFKA_4_CONSUMER)
    assert (versions.consumer_group_heartbeat, versions.consumer_group_describe,
            versions.metadata) == (1, 1, 13)  # fmt: skip
    assert versions.for_consumer_protocol() == ConsumerProtocolVersions(
        consumer_group_heartbeat=1, metadata=13, offset_commit=9, offset_fetch=9,
        consumer_group_describe=1,
    )  # fmt: skip


def test_a_version_no_rule_accepts_is_none_never_a_refusal_of_the_classic_member() -> None:
    newer_only = {**KAFKA_4_CONSUMER, ApiKey.CONSUMER_GROUP_HEARTBEAT: (2, 3),
                  ApiKey.CONSUMER_GROUP_DESCRIBE: (2, 3), ApiKey.METADATA: (0, 9)}  # fmt: skip
    versions = negotiate(newer_only)
    assert (versions.consumer_group_heartbeat, versions.consumer_group_describe,
            versions.metadata) == (None, None, None)  # fmt: skip


def test_a_consumer_protocol_member_needs_offset_commit_v9() -> None:
    old_commit = {**KAFKA_4_CONSUMER, ApiKey.OFFSET_COMMIT: (0, 8)}
    assert negotiate(old_commit).consumer_group_heartbeat == 1  # checked first, all the same
    with pytest.raises(UnsupportedBrokerError) as info:
        negotiate(old_commit).for_consumer_protocol()
    assert str(info.value) == (
        "OffsetCommit v8 is the broker's newest: group_protocol='consumer' (KIP-848) needs v9"
    )
    assert CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT == 9


def test_a_consumer_protocol_member_is_told_what_the_broker_lacks() -> None:
    """The refusals are those of the negotiators, word for word."""
    for broker, rule in (
        (KAFKA_4, negotiate_consumer_group_heartbeat),
        ({**KAFKA_4_CONSUMER, ApiKey.CONSUMER_GROUP_HEARTBEAT: (2, 3)},
         negotiate_consumer_group_heartbeat),
        ({k: v for k, v in KAFKA_4_CONSUMER.items() if k != ApiKey.METADATA}, negotiate_metadata),
    ):  # fmt: skip
        with pytest.raises(UnsupportedBrokerError) as expected:
            rule(broker)
        with pytest.raises(UnsupportedBrokerError) as info:
            negotiate(broker).for_consumer_protocol()
        assert str(info.value) == str(expected.value)
    with pytest.raises(UnsupportedBrokerError, match="KIP-516"):
        negotiate({**KAFKA_4_CONSUMER, ApiKey.METADATA: (0, 9)}).for_consumer_protocol()


def test_consumer_group_describe_is_optional_for_a_consumer_protocol_member() -> None:
    without = {k: v for k, v in KAFKA_4_CONSUMER.items() if k != ApiKey.CONSUMER_GROUP_DESCRIBE}
    assert negotiate(without).for_consumer_protocol().consumer_group_describe is None
