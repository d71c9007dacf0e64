"""The errors raised for bad arguments and for what the broker refuses: aiokafka's classes (and
its messages) on both consumers. StaticConsumer's own messages say more (the field, the Java key)
and end with aiokafka's words."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import InvalidSessionTimeoutError, KafkaError

from .conftest import Factory

BAD_ARGUMENTS: list[tuple[dict[str, Any], str]] = [
    ({"security_protocol": "SOME"}, "`security_protocol` should be SSL or PLAINTEXT"),
    ({"security_protocol": "SSL", "ssl_context": None},
     "`ssl_context` is mandatory if security_protocol=='SSL'"),
    ({"security_protocol": "SASL_PLAINTEXT"},
     "sasl_plain_username and sasl_plain_password required for PLAIN sasl"),
    ({"max_poll_records": 0}, "`max_poll_records` should be positive Integer"),
]  # fmt: skip


@pytest.mark.parametrize(("arguments", "aiokafka_says"), BAD_ARGUMENTS)
async def test_bad_arguments_raise_value_error_with_aiokafkas_words(
    consumer_class: type[AIOKafkaConsumer], kafka_bootstrap: str,
    arguments: dict[str, Any], aiokafka_says: str,
) -> None:  # fmt: skip
    with pytest.raises(ValueError, match=aiokafka_says.replace("`", ".").replace("'", ".")):
        consumer_class("t", bootstrap_servers=kafka_bootstrap, **arguments)


async def test_an_unknown_isolation_level_is_a_value_error_by_start_at_the_latest(
    consumer_class: type[AIOKafkaConsumer], kafka_bootstrap: str
) -> None:
    """aiokafka refuses it in ``start()``; StaticConsumer already at construction."""
    with pytest.raises(ValueError, match="Incorrect isolation level READ_CCC"):
        consumer = consumer_class("t", bootstrap_servers=kafka_bootstrap,
                                  isolation_level="READ_CCC")  # fmt: skip
        try:
            await consumer.start()
        finally:
            await consumer.stop()


async def test_seek_refuses_a_negative_offset_and_a_partition_that_is_not_one(
    make: Factory, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory()
    consumer = make()
    consumer.assign([TopicPartition(topic, 0)])
    await consumer.start()
    with pytest.raises(ValueError):
        consumer.seek(TopicPartition(topic, 0), -1)
    with pytest.raises(TypeError):
        await consumer.seek_to_beginning((topic, 0))


async def test_a_session_timeout_the_broker_refuses_is_invalid_session_timeout(
    make: Factory, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """Below the broker's group.min.session.timeout.ms: aiokafka's
    ``InvalidSessionTimeoutError`` (StaticConsumer's ``SessionTimeoutOutOfRangeError`` is one),
    a ``KafkaError``."""
    consumer = make(topic_factory(), group_id=unique_group_id(), session_timeout_ms=200,
                    heartbeat_interval_ms=100)  # fmt: skip
    with pytest.raises(InvalidSessionTimeoutError) as raised:
        await asyncio.wait_for(consumer.start(), 30)
    assert isinstance(raised.value, KafkaError)
