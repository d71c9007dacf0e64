"""Small aiokafka touch points over aiokafka's real objects (no broker): replica racks from
real cluster metadata (KIP-881), the struct conversions, and a producer's held records failed
when the consumer abandons it."""

from __future__ import annotations

import aiokafka.errors as Errors
import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.cluster import ClusterMetadata
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer._compat import (
    abandon_producer,
    committed,
    kafka_tp,
    replica_racks,
    topic_partition,
)
from staticconsumer._compat.features import COORDINATORS_REGISTERED
from staticconsumer._compat.helpers import open_coordination_to
from tests._fake_client import FakeClient, metadata


def test_each_partition_gets_the_racks_of_all_its_replicas() -> None:
    cluster = ClusterMetadata()
    cluster.update_metadata(metadata(
        brokers=(1, 2, 3), racks={1: "az-a", 2: "az-b"},
        topics={"t": {0: [1, 2], 1: [3], 2: [2, 9]}, "u": {0: [1]}},
    ))  # fmt: skip
    assert replica_racks(cluster, ["t", "gone"]) == {
        ("t", 0): frozenset({"az-a", "az-b"}),
        ("t", 1): frozenset(),  # its broker has no broker.rack
        ("t", 2): frozenset({"az-b"}),  # broker 9 is unknown: it adds no rack
    }


def test_a_node_the_seam_found_itself_is_registered_for_a_coordination_connection() -> None:
    """aiokafka 0.12 and 0.13 open a coordination connection only to a coordinator their own
    FindCoordinator registered (an AssertionError otherwise, aiokafka issue #1151); 0.14 to any
    broker it knows, with nothing registered."""
    client = FakeClient(brokers=(1, 2))
    assert COORDINATORS_REGISTERED is hasattr(client.cluster, "coordinator_metadata")
    open_coordination_to(client, 2)
    open_coordination_to(client, 2)  # once is enough
    if not COORDINATORS_REGISTERED:
        return
    registered = client.cluster.coordinator_metadata(2)
    assert (registered.nodeId, registered.host, registered.port) == (2, "127.0.0.1", 9094)
    assert client.cluster.coordinator_metadata(1) is None
    # aiokafka's own lookup moving a coordinator of its purpose leaves ours alone
    client.cluster.add_coordinator(1, "127.0.0.1", 9093, purpose=("group", "g"))
    client.cluster.add_coordinator(2, "127.0.0.1", 9094, purpose=("group", "g"))
    client.cluster.add_coordinator(1, "127.0.0.1", 9093, purpose=("group", "g"))
    open_coordination_to(client, 2)  # dropped by aiokafka: registered again
    assert client.cluster.coordinator_metadata(2) is not None
    with pytest.raises(Errors.NodeNotReadyError, match="node 9 is not in the client's metadata"):
        open_coordination_to(client, 9)


def test_struct_conversions_round_trip() -> None:
    assert kafka_tp("t", 3) == TopicPartition("t", 3)
    assert topic_partition(kafka_tp("t", 3)) == ("t", 3)
    assert committed(42, "meta") == OffsetAndMetadata(42, "meta")


async def test_an_abandoned_producer_fails_the_records_it_holds() -> None:
    producer = AIOKafkaProducer(bootstrap_servers="127.0.0.1:1")
    held = await producer._message_accumulator.add_message(
        TopicPartition("events", 0), None, b"payload", timeout=1.0
    )
    abandon_producer(producer)
    with pytest.raises(Errors.KafkaTimeoutError, match="abandoned"):
        await held
    await producer.stop()
