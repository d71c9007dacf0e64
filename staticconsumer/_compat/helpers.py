"""Small aiokafka touch points: structs, cluster metadata the leader reads, the events producer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import aiokafka.errors as Errors
from aiokafka.structs import OffsetAndMetadata, TopicPartition

TP = tuple[str, int]


def committed(offset: int, metadata: str) -> Any:
    return OffsetAndMetadata(offset, metadata)


def kafka_tp(topic: str, partition: int) -> Any:
    return TopicPartition(topic, partition)


def topic_partition(tp: Any) -> TP:
    return (tp.topic, tp.partition)


def replica_racks(cluster: Any, topics: Iterable[str]) -> dict[tuple[str, int], frozenset[str]]:
    """KIP-881: ``{(topic, partition): racks of the partition's replicas}`` from aiokafka's
    ``ClusterMetadata``. aiokafka 0.14 has no public accessor for replicas: they sit in
    ``cluster._partitions[topic][partition].replicas``; broker racks come from
    ``broker_metadata(node_id).rack``. As in Java, every replica counts, in sync or not, and a
    replica whose broker is unknown or has no ``broker.rack`` adds no rack."""
    racks: dict[tuple[str, int], frozenset[str]] = {}
    for topic in topics:
        for partition, metadata in cluster._partitions.get(topic, {}).items():
            brokers = (cluster.broker_metadata(node_id) for node_id in metadata.replicas)
            racks[(topic, partition)] = frozenset(
                b.rack for b in brokers if b is not None and b.rack is not None
            )
    return racks


def abandon_producer(producer: Any) -> None:
    """Fail every record an ``AIOKafkaProducer`` still holds (aiokafka 0.14 accumulator), so that
    its ``stop()`` does not wait for a cluster that does not answer."""
    producer._message_accumulator.fail_all(
        Errors.KafkaTimeoutError("abandoned: not delivered before the consumer stopped")
    )
