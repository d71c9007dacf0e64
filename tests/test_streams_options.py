"""A streams-group member's options (``group_protocol="streams"``, KIP-1071), checked at
construction with messages naming the field, the Java key and the KIP."""

from __future__ import annotations

from typing import Any

import pytest

from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer.protocol import StreamsTopology, Subtopology, TopicInfo

TOPOLOGY = StreamsTopology(0, (Subtopology("0", source_topics=("words",)),))


def build(**options: Any) -> Any:
    return StaticConsumer.check_options(group_id="g", **options)


def test_a_streams_member_takes_its_topology_process_id_and_endpoint() -> None:
    options = build(group_protocol="streams", streams_topology=TOPOLOGY,
                    streams_process_id="p-1", streams_application_server="app-0:8080")  # fmt: skip
    assert options.streams_protocol and not options.consumer_protocol
    assert options.streams_topology == TOPOLOGY and options.streams_process_id == "p-1"


@pytest.mark.parametrize(("options", "words"), [
    ({}, "needs streams_topology (no Java key: Kafka Streams' Topology, KIP-1071)"),
    ({"streams_topology": "words"}, "must be a staticconsumer.protocol.StreamsTopology"),
    ({"streams_topology": StreamsTopology(0, ())}, "has no subtopology"),
    ({"streams_topology": StreamsTopology(0, (Subtopology("0", source_topic_regex=("w.*",)),))},
     "regular expression"),
    ({"streams_topology": StreamsTopology(0, (Subtopology("0"),))}, "has no source topic"),
    ({"streams_topology": StreamsTopology(0, (Subtopology(
        "0", source_topics=("w",), state_changelog_topics=(TopicInfo("c", partitions=3),)),))},
     "must leave its partition count to the broker"),
    ({"streams_topology": TOPOLOGY, "streams_process_id": " "}, "streams_process_id"),
    ({"streams_topology": TOPOLOGY, "streams_application_server": "nohost"},
     "streams_application_server (Java: application.server, KIP-1071) must be 'host:port'"),
    ({"streams_topology": TOPOLOGY, "streams_application_server": "h:70000"}, "0 to 65535"),
    ({"streams_topology": TOPOLOGY, "session_timeout_ms": 10_000},
     "is not supported with group_protocol='streams' (KIP-1071)"),
    ({"streams_topology": TOPOLOGY, "partition_assignment_strategy": ["range"]},
     "partition_assignment_strategy (Java: partition.assignment.strategy, KIP-429)"),
    ({"streams_topology": TOPOLOGY, "group_remote_assignor": "uniform"},
     "group.streams.assignor"),
    ({"streams_topology": TOPOLOGY, "group_instance_id": "app-1", "instance_takeover": True},
     "a streams group takes no LeaveGroup"),
])  # fmt: skip
def test_what_a_streams_member_refuses_is_named(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigurationError, match=None) as err:
        build(group_protocol="streams", **options)
    assert words in str(err.value)


def test_the_streams_options_need_group_protocol_streams() -> None:
    with pytest.raises(ConfigurationError) as err:
        build(group_protocol="consumer", streams_topology=TOPOLOGY)
    assert "streams_topology (no Java key: Kafka Streams' Topology, KIP-1071) applies only to " \
        "group_protocol='streams'" in str(err.value)  # fmt: skip
