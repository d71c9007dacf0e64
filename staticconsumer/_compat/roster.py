"""The roster store's touch points with aiokafka's client internals: a topic's Metadata without
creating it, CreateTopics for the compacted roster topic, and the broker count.

The records themselves move through aiokafka's public ``AIOKafkaConsumer`` and
``AIOKafkaProducer`` (``staticconsumer._admin.roster_store``); only these requests need the
client underneath (:func:`~staticconsumer._compat.client_of`).
"""

from __future__ import annotations

from typing import Any

from aiokafka.protocol.admin import CreateTopicsRequest
from aiokafka.protocol.metadata import MetadataRequest

from .log_redaction import redact_sasl_logs

#: Kafka's NOT_CONTROLLER: CreateTopics went to a broker that no longer is the controller.
_NOT_CONTROLLER = 41


def prepare_security_logs(security: dict[str, Any]) -> None:
    """Before a consumer or producer connects: keep SASL secrets out of aiokafka's log lines."""
    redact_sasl_logs(security.get("security_protocol", "PLAINTEXT"))


async def topic_error_code(client: Any, topic: str) -> int:
    """Kafka's error code for ``topic`` in a Metadata answer that never creates it: 0 (it
    exists and we may describe it), UNKNOWN_TOPIC_OR_PARTITION (3), TOPIC_AUTHORIZATION_FAILED
    (29), ..."""
    request = MetadataRequest([topic], allow_auto_topic_creation=False)
    response = await client.send(client.get_random_node(), request)
    for row in response.to_object()["topics"]:
        if row["topic"] == topic:
            return int(row["error_code"])
    return 3  # not in the answer at all: as good as unknown


def broker_count(client: Any) -> int:
    return max(1, len(client.cluster.brokers()))


async def create_topic(
    client: Any, topic: str, *, partitions: int, replication_factor: int,
    configs: dict[str, str], timeout_ms: int,
) -> tuple[int, str | None]:  # fmt: skip
    """CreateTopics for one topic, sent to the controller (any broker forwards it on KRaft);
    ``(error code, error message)`` for the topic; NOT_CONTROLLER is retried once."""
    request = CreateTopicsRequest(
        create_topic_requests=[(topic, partitions, replication_factor, [], list(configs.items()))],
        timeout=timeout_ms, validate_only=False,
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
