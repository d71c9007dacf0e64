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
from tests._fake_client import metadata


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
