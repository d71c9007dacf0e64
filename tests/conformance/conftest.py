"""The conformance suite: what ``AIOKafkaConsumer`` promises, checked on ``StaticConsumer`` and on
plain ``AIOKafkaConsumer`` side by side, against the real broker.

Each test takes ``consumer_class`` (both classes, ids ``aiokafka`` and ``static``) and builds its
consumers with :func:`make` so that both get exactly the same arguments. aiokafka 0.14's own tests
(``tests/test_consumer.py``, ``test_pep492.py``, ``test_transactional_consumer.py`` in
aio-libs/aiokafka) are the reference for what is covered; these tests are written here. Where
``StaticConsumer`` must differ, the test says so in its name (``..._static_differs_...``) and
docstring, and ``docs/aiokafka-differences.md`` lists the difference.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from staticconsumer import StaticConsumer

CLASSES = {"aiokafka": AIOKafkaConsumer, "static": StaticConsumer}


@pytest.fixture(params=sorted(CLASSES))
def consumer_class(request: pytest.FixtureRequest) -> type[AIOKafkaConsumer]:
    cls: type[AIOKafkaConsumer] = CLASSES[request.param]
    return cls


def is_static(cls: type[AIOKafkaConsumer]) -> bool:
    return issubclass(cls, StaticConsumer)


Factory = Callable[..., AIOKafkaConsumer]


@pytest.fixture
async def make(
    consumer_class: type[AIOKafkaConsumer], kafka_bootstrap: str
) -> AsyncIterator[Factory]:
    """Build a consumer of the class under test on the session broker; every one built is
    stopped at the end (``stop()`` twice is part of the contract)."""
    made: list[AIOKafkaConsumer] = []

    def build(*topics: str, **kwargs: Any) -> AIOKafkaConsumer:
        kwargs.setdefault("bootstrap_servers", kafka_bootstrap)
        kwargs.setdefault("auto_offset_reset", "earliest")
        consumer = consumer_class(*topics, **kwargs)
        made.append(consumer)
        return consumer

    yield build
    for consumer in made:
        await consumer.stop()


async def produce(bootstrap: str, topic: str, partition: int, values: range) -> list[bytes]:
    """Send ``values`` (as ASCII bytes) to one partition; returns what was sent."""
    sent = [str(v).encode() for v in values]
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for value in sent:
            await producer.send_and_wait(topic, value, partition=partition)
    finally:
        await producer.stop()
    return sent
