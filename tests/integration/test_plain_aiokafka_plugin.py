"""The plain-aiokafka plugin on the real broker, where a helper cannot look: a consumer whose
``group_instance_id`` is not its assignor's, or that has none, is refused by the leader with a
message saying why (``assignors.aiokafka_adapter``), and aiokafka raises it from ``start()``.
The happy path (three static members built with ``static_membership``) is
``examples/plain_aiokafka_plugin.py``, run by ``tests/examples``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.errors import KafkaError

from assignors import RangeAssignor, for_aiokafka


@pytest.mark.parametrize("consumer_id", ["svc-1", None], ids=["another-id", "no-id"])
async def test_a_consumer_whose_id_is_not_its_assignors_is_refused_by_the_leader(
    consumer_id: str | None, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=2), unique_group_id("plugin-mismatch")
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=kafka_bootstrap, group_id=group, group_instance_id=consumer_id,
        partition_assignment_strategy=(for_aiokafka(RangeAssignor.for_instance("svc-0")),),
        session_timeout_ms=10_000, heartbeat_interval_ms=300,
    )  # fmt: skip
    try:
        with pytest.raises(KafkaError) as refused:
            async with asyncio.timeout(30):
                # The only member leads, and its assign() refuses it: aiokafka's start() waits
                # for an assignment (topics given to the constructor) and raises it there.
                await consumer.start()
                while True:
                    await consumer.getmany(timeout_ms=200)
        text = str(refused.value)
        assert "group_instance_id differs from its assignor's, or the consumer has none" in text
        assert "sent 'svc-0'" in text and "static_membership" in text
        assert consumer.assignment() == set(), "no partition was handed out"
    finally:
        await consumer.stop()
