"""What a streams-group member sends, from the broker's ApiVersions, and the one clear refusal
naming the broker version or the feature to enable (``protocol.streams_versions``)."""

from __future__ import annotations

import dataclasses

import pytest

from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol import ApiKey, FinalizedFeatures, for_streams_protocol, negotiate

#: A Kafka 4.4 broker's group APIs (ApiVersions, measured on 4.4.0), and what older lines lack.
BROKER_4_4 = {
    ApiKey.JOIN_GROUP: (0, 9), ApiKey.SYNC_GROUP: (0, 5), ApiKey.HEARTBEAT: (0, 4),
    ApiKey.LEAVE_GROUP: (0, 5), ApiKey.OFFSET_COMMIT: (2, 10), ApiKey.OFFSET_FETCH: (1, 10),
    ApiKey.DESCRIBE_GROUPS: (0, 6), ApiKey.FIND_COORDINATOR: (0, 6),
    ApiKey.STREAMS_GROUP_HEARTBEAT: (0, 1), ApiKey.STREAMS_GROUP_DESCRIBE: (0, 1),
}  # fmt: skip
BROKER_4_3 = {**BROKER_4_4, ApiKey.STREAMS_GROUP_HEARTBEAT: (0, 0),
              ApiKey.STREAMS_GROUP_DESCRIBE: (0, 0)}  # fmt: skip
STREAMS_APIS = (ApiKey.STREAMS_GROUP_HEARTBEAT, ApiKey.STREAMS_GROUP_DESCRIBE)
NO_STREAMS = {k: v for k, v in BROKER_4_4.items() if k not in STREAMS_APIS}


def test_a_4_4_broker_serves_a_static_thread_at_v1() -> None:
    chosen = for_streams_protocol(negotiate(BROKER_4_4), static_member=True)
    assert chosen.streams_group_heartbeat == 1 and chosen.streams_group_describe == 1
    assert chosen.offset_commit >= 9


def test_a_4_3_broker_serves_a_dynamic_thread_and_refuses_a_static_one_by_name() -> None:
    assert (
        for_streams_protocol(negotiate(BROKER_4_3), static_member=False).streams_group_heartbeat
        == 0
    )
    with pytest.raises(UnsupportedBrokerError, match=r"needs Apache Kafka 4\.4 or newer") as err:
        for_streams_protocol(negotiate(BROKER_4_3), static_member=True)
    assert "KAFKA-20169" in str(err.value) and "group_instance_id unset" in str(err.value)


def test_a_broker_without_streams_groups_is_told_what_to_enable() -> None:
    with pytest.raises(UnsupportedBrokerError) as err:
        for_streams_protocol(negotiate(NO_STREAMS), static_member=True)
    message = str(err.value)
    assert "Apache Kafka 4.2 or newer" in message and "streams.version=1" in message
    assert "group.coordinator.rebalance.protocols" in message and "api key 88" in message


def test_a_cluster_with_streams_version_0_is_told_to_upgrade_the_feature() -> None:
    """4.2+ announces StreamsGroupHeartbeat whatever its streams.version; at 0 the coordinator
    refuses every heartbeat: the finalized features say so at start."""
    versions = negotiate(BROKER_4_4)
    off = dataclasses.replace(versions, features=FinalizedFeatures(3, {"group.version": 1}))
    with pytest.raises(UnsupportedBrokerError) as info:
        for_streams_protocol(off, static_member=True)
    assert str(info.value) == (
        "group_protocol='streams' (KIP-1071) needs the cluster's streams.version feature at 1 or "
        "more, and it is finalized at 0 here (a cluster upgraded from an older Kafka keeps 0 "
        "until 'kafka-features.sh --bootstrap-server ... upgrade --feature streams.version=1'), "
        "so its group coordinator would refuse every heartbeat (UNSUPPORTED_VERSION)"
    )
    on = dataclasses.replace(off, features=FinalizedFeatures(3, {"streams.version": 1}))
    for ok in (on, dataclasses.replace(off, features=FinalizedFeatures()), versions):
        assert for_streams_protocol(ok, static_member=True).streams_group_heartbeat == 1
