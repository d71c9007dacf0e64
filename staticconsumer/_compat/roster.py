"""The roster's touch points with aiokafka's client internals (``staticconsumer.roster``): a
topic's Metadata without creating it, CreateTopics for the compacted roster topic, the broker
count, and :func:`read_partition_log`, the read a member does with its *own* client.

The admin writes records through aiokafka's public ``AIOKafkaProducer``; a member reads them
here, on the connection it already has (:meth:`ClientSeam.read_partition_log
<staticconsumer._compat.ClientSeam.read_partition_log>`), so that reading a roster costs no second
client, no second login and no second metadata bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiokafka.errors as Errors
from aiokafka.client import ConnectionGroup
from aiokafka.record.memory_records import MemoryRecords

from .helpers import open_coordination_to
from .log_redaction import redact_sasl_logs
from .requests import create_topics_request, fetch_request, list_offsets_request, metadata_request

#: Kafka's NOT_CONTROLLER: CreateTopics went to a broker that no longer is the controller.
_NOT_CONTROLLER = 41
_UNKNOWN_TOPIC_OR_PARTITION = 3
_LEADER_NOT_AVAILABLE = 5
#: ListOffsets' special timestamps: the log start offset and the high watermark.
_EARLIEST, _LATEST = -2, -1
#: One Fetch's byte bound (a roster record is a few hundred bytes; KIP-74: a bigger first batch
#: still comes whole).
_FETCH_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class PartitionLog:
    """What :func:`read_partition_log` found: Kafka's error code (0: read; 3
    UNKNOWN_TOPIC_OR_PARTITION: no such topic; 29 TOPIC_AUTHORIZATION_FAILED; ...) and, when 0,
    every ``(key, value)`` from the log start up to the high watermark, in offset order."""

    error_code: int
    records: tuple[tuple[bytes | None, bytes | None], ...] = ()


def prepare_security_logs(security: dict[str, Any]) -> None:
    """Before a consumer or producer connects: keep SASL secrets out of aiokafka's log lines."""
    redact_sasl_logs(security.get("security_protocol", "PLAINTEXT"))


async def topic_error_code(client: Any, topic: str) -> int:
    """Kafka's error code for ``topic`` in a Metadata answer that never creates it: 0 (it
    exists and we may describe it), UNKNOWN_TOPIC_OR_PARTITION (3), TOPIC_AUTHORIZATION_FAILED
    (29), ..."""
    row = await _topic_metadata(client, topic, coordination=False)
    # Not in the answer at all: as good as unknown.
    return int(row["error_code"]) if row is not None else _UNKNOWN_TOPIC_OR_PARTITION


async def _topic_metadata(client: Any, topic: str, *, coordination: bool) -> Any:
    """``topic``'s row of a Metadata answer that never creates it (None: not in the answer);
    ``coordination``: on the client's coordination connections (:func:`read_partition_log`)."""
    request = metadata_request([topic])
    node_id = client.get_random_node()
    answer = await (_send(client, node_id, request) if coordination
                    else client.send(node_id, request))  # fmt: skip
    return next((row for row in answer.to_object()["topics"] if row["topic"] == topic), None)


def broker_count(client: Any) -> int:
    return max(1, len(client.cluster.brokers()))


async def create_topic(
    client: Any, topic: str, *, partitions: int, replication_factor: int,
    configs: dict[str, str], timeout_ms: int,
) -> tuple[int, str | None]:  # fmt: skip
    """CreateTopics for one topic, sent to the controller (any broker forwards it on KRaft);
    ``(error code, error message)`` for the topic; NOT_CONTROLLER is retried once."""
    request = create_topics_request(
        topic, partitions=partitions, replication_factor=replication_factor, configs=configs,
        timeout_ms=timeout_ms,
    )  # fmt: skip
    for attempt in range(2):
        controller = client.cluster.controller
        node_id = controller.nodeId if controller is not None else client.get_random_node()
        response = await client.send(node_id, request)
        rows = [r for r in response.to_object()["topic_errors"] if r["topic"] == topic]
        code = int(rows[0]["error_code"]) if rows else -1
        message = rows[0].get("error_message") if rows else "no answer for the topic"
        if code != _NOT_CONTROLLER or attempt:
            return code, message
        await client.force_metadata_update()
    raise AssertionError("unreachable")  # pragma: no cover


async def read_partition_log(client: Any, topic: str, partition: int = 0) -> PartitionLog:
    """Every record of ``topic``-``partition`` from its log start to the high watermark read
    first, with ``client`` (the consumer's own ``AIOKafkaClient``, on its coordination
    connections: the read never queues behind a long-polling Fetch). Metadata (never creating the
    topic) finds the leader, ListOffsets its log start and high watermark, Fetch reads up to it;
    aiokafka's record readers decode the batches, control batches are skipped.

    Not bounded here (the caller bounds it); a request with no answer raises aiokafka's
    ``KafkaError``."""
    code, leader = await _leader(client, topic, partition)
    if code:
        return PartitionLog(code)
    code, start = await _list_offset(client, leader, topic, partition, _EARLIEST)
    if not code:
        code, end = await _list_offset(client, leader, topic, partition, _LATEST)
    if code:
        return PartitionLog(code)
    records: list[tuple[bytes | None, bytes | None]] = []
    while start < end:
        code, batch_records, start = await _fetch(client, leader, topic, partition, start, end)
        if code:
            return PartitionLog(code)
        records += batch_records
    return PartitionLog(0, tuple(records))


async def _send(client: Any, node_id: int, request: Any) -> Any:
    open_coordination_to(client, node_id)
    return await client.send(node_id, request, group=ConnectionGroup.COORDINATION)


async def _leader(client: Any, topic: str, partition: int) -> tuple[int, int]:
    """``(error code, leader node id)`` of the partition, from a Metadata that never creates."""
    row = await _topic_metadata(client, topic, coordination=True)
    if row is None:
        return _UNKNOWN_TOPIC_OR_PARTITION, -1
    if row["error_code"]:
        return int(row["error_code"]), -1
    for part in row["partitions"]:
        if part["partition"] == partition:
            leader = int(part["leader"])
            return (0, leader) if leader >= 0 else (_LEADER_NOT_AVAILABLE, -1)
    return _UNKNOWN_TOPIC_OR_PARTITION, -1


async def _list_offset(
    client: Any, node_id: int, topic: str, partition: int, timestamp: int
) -> tuple[int, int]:
    """``(error code, offset)`` of ListOffsets at ``timestamp`` (:data:`_EARLIEST`, ...)."""
    request = list_offsets_request(topic, partition, timestamp)
    answer = (await _send(client, node_id, request)).to_object()
    for row in answer["topics"]:
        for part in row["partitions"]:
            if row["topic"] == topic and part["partition"] == partition:
                return int(part["error_code"]), int(part["offset"])
    return _UNKNOWN_TOPIC_OR_PARTITION, -1


async def _fetch(
    client: Any, node_id: int, topic: str, partition: int, offset: int, end: int
) -> tuple[int, list[tuple[bytes | None, bytes | None]], int]:
    """One Fetch from ``offset``: ``(error code, records below end, next offset)``."""
    request = fetch_request(topic, partition, offset, max_bytes=_FETCH_MAX_BYTES)
    answer = await _send(client, node_id, request)
    for name, partitions in answer.topics:
        for index, error_code, _highwater, *rest in partitions:
            if name != topic or index != partition:
                continue
            if error_code:
                return int(error_code), [], offset
            found, next_offset = decode_records(rest[-1], offset, end)
            if next_offset <= offset:
                why = f"Fetch of {topic}-{partition} made no progress at offset {offset}"
                raise Errors.KafkaError(why)
            return 0, found, next_offset
    return _UNKNOWN_TOPIC_OR_PARTITION, [], offset


def decode_records(
    data: bytes | None, offset: int, end: int
) -> tuple[list[tuple[bytes | None, bytes | None]], int]:
    """The ``(key, value)`` of every data record in ``data`` (a Fetch's record set) from
    ``offset`` up to ``end``, and the offset to fetch next."""
    found: list[tuple[bytes | None, bytes | None]] = []
    records = MemoryRecords(bytes(data or b""))
    next_offset = offset
    while records.has_next():
        batch: Any = records.next_batch()
        if batch is None:  # a partial batch at the end of the answer: the next Fetch has it
            break
        if not batch.is_control_batch:
            found += [(r.key, r.value) for r in batch if offset <= r.offset < end]
        next_offset = max(next_offset, batch.next_offset)
    return found, next_offset
