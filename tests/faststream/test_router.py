"""``StaticKafkaRouter``: FastStream's FastAPI ``KafkaRouter`` with StaticKafkaBroker underneath,
taking the broker's keywords and making the same checks when a subscriber is declared and at
start (the FastAPI lifespan, here through FastAPI's TestClient with FastStream's
TestKafkaBroker: no Kafka). Under a real ASGI server against the broker:
``test_service_broker.py``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from faststream.kafka import TestKafkaBroker

from staticconsumer.errors import ConfigurationError
from staticconsumer.faststream import StaticKafkaBroker, StaticKafkaRouter, SubscriberKey, _seam

from .test_checks import CASES, IDS

with warnings.catch_warnings():  # FastStream 0.7 says its FastAPI integration will move
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi import FastAPI
    from faststream.kafka.fastapi import KafkaRouter


@pytest.fixture(autouse=True)
def _no_base_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)


def _router(**options: Any) -> StaticKafkaRouter:
    return StaticKafkaRouter("localhost:1", instance_id="svc-0", exit_status_on_fatal=None,
                             **options)  # fmt: skip


def _handler(body: Any) -> None:
    pass


def test_the_router_is_fastapi_s_kafka_router_over_a_static_broker() -> None:
    events: list[Any] = []
    router = _router(group_protocol="consumer", on_event=events.append, health_port=0,
                     consumer_options={"events_topic": "_events"},
                     graceful_timeout=7.0)  # fmt: skip
    assert isinstance(router, KafkaRouter) and isinstance(router.broker, StaticKafkaBroker)
    broker = router.broker
    assert broker._static["group_protocol"] == "consumer"
    assert broker._static["on_event"] == events.append
    assert broker._static["events_topic"] == "_events"
    assert broker.health_address is None  # made, not started: the lifespan starts it
    assert _seam.graceful_timeout(broker) == 7.0  # a KafkaRouter argument reaches the broker
    assert type(KafkaRouter("localhost:1").broker) is not StaticKafkaBroker  # theirs untouched


def test_the_broker_s_keywords_are_checked_when_the_router_is_made() -> None:
    with pytest.raises(ConfigurationError, match="consumer_options may not set group_protocol"):
        _router(consumer_options={"group_protocol": "classic"})
    with pytest.raises(ConfigurationError, match="instance_id"):
        StaticKafkaRouter("localhost:1", instance_id="not valid")


@pytest.mark.parametrize(("what", "options", "subscribers", "error", "words"), CASES, ids=IDS)
def test_a_declaration_on_the_router_is_refused_when_made(
    what: str, options: dict[str, Any], subscribers: list[tuple[str, Any]],
    error: type[Exception], words: str,
) -> None:  # fmt: skip
    """The broker's declaration checks, word for word, through the router's subscriber()."""
    router = _router(**options)
    *first, (topic, last) = subscribers
    for name, kwargs in first:
        router.subscriber(name, **kwargs)(_handler)
    with pytest.raises(error) as raised:
        router.subscriber(topic, **last)
    assert words in str(raised.value)


async def test_the_fastapi_lifespan_starts_the_broker_with_its_checks() -> None:
    """FastAPI's lifespan starts the router's broker (here FastStream's TestKafkaBroker, whose
    connect makes the broker's checks) and the handlers run."""
    router = _router()
    seen: list[Any] = []

    @router.subscriber("orders", group_id="bill", group_instance_id=SubscriberKey("billing"))
    async def bill(body: dict[str, int]) -> None:
        seen.append(body)

    app = FastAPI()
    app.include_router(router)
    async with TestKafkaBroker(router.broker) as broker, app.router.lifespan_context(app):
        await broker.publish({"id": 1}, "orders")
    assert seen == [{"id": 1}]


async def test_the_router_s_broker_is_tested_as_the_broker_is() -> None:
    router = _router()
    seen: list[Any] = []

    @router.subscriber("orders", group_id="bill")
    async def bill(body: dict[str, int]) -> None:
        seen.append(body)

    async with TestKafkaBroker(router.broker) as broker:
        await broker.publish({"id": 1}, "orders")
    assert seen == [{"id": 1}]


def test_a_fatal_subscriber_asks_the_server_to_stop_only_when_told_to() -> None:
    assert _router().broker.after_fatal is None
    assert "the server runs on" in _router().broker.fatal_ends
    served = StaticKafkaRouter("localhost:1", instance_id="svc-0")
    assert served.broker.after_fatal is not None
    assert served.broker.fatal_ends.endswith("the process then exits with status 3)")
