"""StaticKafkaBroker's identity and option checks run when subscribers are declared, and again
when the broker connects, which FastStream's ``TestKafkaBroker`` does too: a user's unit test
meets the error a real start would raise, with the same words, no broker needed."""

from __future__ import annotations

from typing import Any

import pytest
from faststream import AckPolicy
from faststream.kafka import KafkaRouter, TestKafkaBroker

from staticconsumer.errors import ConfigurationError, InvalidInstanceIdError
from staticconsumer.faststream import StaticKafkaBroker, SubscriberKey, _seam


@pytest.fixture(autouse=True)
def _no_base_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a laptop or a CI runner: nothing says which pod this is."""
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)


def _handler(body: Any) -> None:
    pass


#: (what is wrong, broker options, the subscribers: (topic, subscriber options), error, words)
CASES = [
    ("two subscribers share an id", {},
     [("a", {"group_id": "g", "group_instance_id": SubscriberKey("k")}),
      ("b", {"group_id": "g", "group_instance_id": SubscriberKey("k")})],
     ConfigurationError, "g/a and g/b would share group.instance.id 'svc-0-k'"),
    ("two subscribers share a whole id", {},
     [("a", {"group_id": "g", "group_instance_id": "billing-0"}),
      ("b", {"group_id": "h", "group_instance_id": "billing-0"})],
     ConfigurationError, "g/a and h/b would share group.instance.id 'billing-0'"),
    ("a worker's id is another subscriber's", {},
     [("t", {"group_id": "g", "max_workers": 2, "ack_policy": AckPolicy.ACK}),
      ("t-1", {"group_id": "g"})],
     ConfigurationError, "g/t worker 1/2 and g/t-1 would share group.instance.id 'svc-0-g-t-1'"),
    ("workers without a group", {},
     [("t", {"max_workers": 3, "ack_policy": AckPolicy.MANUAL})],
     ConfigurationError, "max_workers=3 without AckPolicy.ACK_FIRST"),
    ("an id without a group", {},
     [("t", {"group_instance_id": "x"})],
     ConfigurationError, "group_instance_id (Java: group.instance.id, KIP-345) needs group_id"),
    ("an invalid whole id", {},
     [("t", {"group_id": "g", "group_instance_id": "not valid"})],
     InvalidInstanceIdError, "subscriber g/t: group_instance_id"),
    ("an option the consumer protocol refuses", {"group_protocol": "consumer"},
     [("t", {"group_id": "g", "session_timeout_ms": 60000})],
     ConfigurationError, "session_timeout_ms (Java: session.timeout.ms) is not supported"),
    ("an option StaticConsumer refuses", {},
     [("t", {"group_id": "g", "auto_offset_reset": "sometimes"})],
     ConfigurationError, "auto_offset_reset"),
]  # fmt: skip
IDS = [case[0] for case in CASES]


def _broker(options: dict[str, Any]) -> StaticKafkaBroker:
    return StaticKafkaBroker("localhost:1", instance_id="svc-0", **options)


def _through_a_router(broker: StaticKafkaBroker, subscribers: list[tuple[str, Any]]) -> None:
    """Declared on a router after it was included: no declaration hook sees them, only the
    connect (and the start) that come later."""
    router = KafkaRouter()
    broker.include_router(router)
    for topic, options in subscribers:
        router.subscriber(topic, **options)(_handler)


@pytest.mark.parametrize(("what", "options", "subscribers", "error", "words"), CASES, ids=IDS)
def test_a_declaration_is_refused_when_made(
    what: str, options: dict[str, Any], subscribers: list[tuple[str, Any]],
    error: type[Exception], words: str,
) -> None:  # fmt: skip
    broker = _broker(options)
    *first, (topic, last) = subscribers
    for name, kwargs in first:
        broker.subscriber(name, **kwargs)(_handler)
    with pytest.raises(error) as raised:
        broker.subscriber(topic, **last)
    assert words in str(raised.value)


@pytest.mark.parametrize(("what", "options", "subscribers", "error", "words"), CASES, ids=IDS)
async def test_test_kafka_broker_meets_the_error_a_real_start_raises(
    what: str, options: dict[str, Any], subscribers: list[tuple[str, Any]],
    error: type[Exception], words: str,
) -> None:  # fmt: skip
    under_test = _broker(options)
    _through_a_router(under_test, subscribers)
    with pytest.raises(error) as in_unit_test:
        async with TestKafkaBroker(under_test):
            pass
    real = _broker(options)
    _through_a_router(real, subscribers)
    with pytest.raises(error) as at_start:
        await real.start()  # refused before anything connects (localhost:1 has no broker)
    assert str(in_unit_test.value) == str(at_start.value)
    assert words in str(at_start.value)


async def test_without_a_base_id_a_unit_test_still_meets_a_shared_key() -> None:
    broker = StaticKafkaBroker("localhost:1")  # the base comes from the pod, at start
    key = {"group_id": "g", "group_instance_id": SubscriberKey("k")}
    _through_a_router(broker, [("a", key), ("b", key)])
    with pytest.raises(ConfigurationError, match=r"would share group\.instance\.id '<base>-k'"):
        async with TestKafkaBroker(broker):
            pass


async def test_a_well_declared_service_runs_its_unit_tests_without_a_base_id() -> None:
    broker = StaticKafkaBroker("localhost:1")
    seen: list[Any] = []

    @broker.subscriber("orders", group_id="ship", max_workers=3, ack_policy=AckPolicy.ACK)
    async def ship(body: dict[str, int]) -> None:
        seen.append(body)

    @broker.subscriber("orders", group_id="bill", group_instance_id=SubscriberKey("billing"))
    async def bill(body: dict[str, int]) -> None:
        seen.append(body)

    async with TestKafkaBroker(broker) as test_broker:
        await test_broker.publish({"id": 1}, "orders")
    assert seen == [{"id": 1}, {"id": 1}]


def test_a_subscriber_declared_on_a_running_broker_gets_its_planned_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    broker = _broker({"consumer_only": True})
    broker.subscriber("a", group_id="g")(_handler)
    broker._plan(fresh=True)
    monkeypatch.setattr(broker, "running", True)
    dynamic = broker.subscriber("b", group_id="g", group_instance_id=SubscriberKey("late"))
    assert _seam.connection_args(dynamic)["group_instance_id"] == "svc-0-late"
    assert broker.static_members == {"svc-0-g-a": "g/a", "svc-0-late": "g/b"}
