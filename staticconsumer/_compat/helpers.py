"""Small aiokafka touch points: structs, cluster metadata the leader reads, the events producer."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import aiokafka.errors as Errors
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from .features import COORDINATORS_REGISTERED

TP = tuple[str, int]
#: A purpose of our own per registration (aiokafka drops a coordinator when another node is
#: registered for the same purpose; ours never collide, with its nor with each other).
_REGISTRATIONS = itertools.count()


def open_coordination_to(client: Any, node_id: int) -> None:
    """Before a request on ``node_id``'s coordination connection when aiokafka's own
    FindCoordinator did not name that node (the admin's FindCoordinator is ours, the roster read
    goes to a partition leader): aiokafka 0.12 and 0.13 open a coordination connection only to a
    coordinator they registered and fail an assertion otherwise, so the node is registered here
    from the client's metadata. A node the metadata does not know is not ready, as aiokafka 0.14
    says of it (``NodeNotReadyError``). Nothing to do on 0.14."""
    if not COORDINATORS_REGISTERED:
        return
    cluster = client.cluster
    if cluster.coordinator_metadata(node_id) is not None:
        return
    broker = cluster.broker_metadata(node_id)
    if broker is None:
        raise Errors.NodeNotReadyError(f"node {node_id} is not in the client's metadata")
    cluster.add_coordinator(node_id, broker.host, broker.port, broker.rack,
                            purpose=("staticconsumer", next(_REGISTRATIONS)))  # fmt: skip


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
