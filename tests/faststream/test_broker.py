"""StaticKafkaBroker without a broker: users' TestKafkaBroker tests run unchanged, the consumers
it builds, its options, and the fatal path (one line, the app told to exit, stop raising)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from unittest import mock

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.errors import ConsumerStoppedError
from faststream import AckPolicy, BaseMiddleware, FastStream
from faststream.kafka import KafkaBroker, KafkaRouter, TestKafkaBroker

from staticconsumer import StaticConsumer
from staticconsumer.errors import (
    ClusterUnavailableError,
    ConfigurationError,
    FencedInstanceIdError,
    InvalidInstanceIdError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
)
from staticconsumer.faststream import ServiceConsumer, StaticKafkaBroker, SubscriberKey, _seam
from staticconsumer.faststream._consumer import WorkerStop


def _service(broker: KafkaBroker) -> tuple[list[Any], list[str]]:
    """A user's service: a router, a middleware, a batch subscriber with manual acks."""
    seen: list[Any] = []
    calls: list[str] = []

    class Tag(BaseMiddleware):
        async def on_receive(self) -> None:
            calls.append("middleware")

    router = KafkaRouter(middlewares=[Tag])

    @router.subscriber("orders", group_id="billing")
    @router.publisher("billed")
    async def bill(order: dict[str, int]) -> dict[str, int]:
        seen.append(order)
        return {"billed": order["id"]}

    @broker.subscriber("billed", group_id="mail", batch=True, ack_policy=AckPolicy.MANUAL,
                       group_instance_id=SubscriberKey("mailer"))  # fmt: skip
    async def mail(batch: list[dict[str, int]]) -> None:
        seen.append(batch)

    broker.include_router(router)
    return seen, calls


@pytest.mark.parametrize("broker_class", [KafkaBroker, StaticKafkaBroker])
async def test_test_kafka_broker_runs_the_users_handler_tests_unchanged(
    broker_class: type[KafkaBroker],
) -> None:
    broker = broker_class("localhost:9092")
    seen, calls = _service(broker)
    async with TestKafkaBroker(broker) as test_broker:
        await test_broker.publish({"id": 7}, "orders")
    assert seen == [{"id": 7}, [{"billed": 7}]]
    assert calls == ["middleware"]


def test_our_options_are_checked_at_construction() -> None:
    with pytest.raises(InvalidInstanceIdError, match="instance_id"):
        StaticKafkaBroker(instance_id="not valid")
    with pytest.raises(ConfigurationError, match="consumer_options may not set health_port"):
        StaticKafkaBroker(consumer_options={"health_port": 1})
    with pytest.raises(ConfigurationError, match="unreleased_wait_ms"):
        StaticKafkaBroker(unreleased_wait_ms=0)


async def test_ids_are_validated_at_start_before_any_connection() -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0")
    router = KafkaRouter()
    broker.include_router(router)  # its subscribers come later: only the start sees them
    router.subscriber("a", group_id="g", group_instance_id=SubscriberKey("k"))
    router.subscriber("b", group_id="g", group_instance_id=SubscriberKey("k"))
    with pytest.raises(ConfigurationError, match=r"would share group\.instance\.id 'svc-0-k'"):
        await broker.start()


async def test_the_base_id_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)
    broker = StaticKafkaBroker("localhost:1")
    broker.subscriber("a", group_id="g")
    with pytest.raises(InvalidInstanceIdError, match="no group instance id in the environment"):
        await broker.start()
    monkeypatch.setenv("POD_NAME", "orders-2")
    broker._plan(fresh=True)
    assert broker.static_members == {"orders-2-g-a": "g/a"}


def _no_base_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)


async def test_whole_ids_need_no_base_id(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _no_base_in_the_environment(monkeypatch)  # a laptop: no pod name anywhere
    broker = StaticKafkaBroker("localhost:1", consumer_only=True)
    broker.subscriber("orders", group_id="billing", group_instance_id="billing-a")(_handler)
    broker.subscriber("raw", partitions=[])(_handler)  # no group: no id, no base needed
    with caplog.at_level(logging.INFO):
        consumers = await _built(broker)
    assert sorted(str(c.group_instance_id) for c in consumers) == ["None", "billing-a"]
    assert "static members of base id (none): billing-a <- billing/orders (given)" in caplog.text
    for consumer in consumers:
        await consumer.stop()
    with pytest.raises(StaticConsumerError) as raised:  # past the ids, on to the connection
        await broker.start()
    assert not isinstance(raised.value, InvalidInstanceIdError), raised.value


async def test_a_derived_id_still_needs_the_base_and_the_error_names_its_subscriber(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    _no_base_in_the_environment(monkeypatch)
    broker = StaticKafkaBroker("localhost:1")
    broker.subscriber("orders", group_id="billing", group_instance_id="billing-a")
    broker.subscriber("orders", group_id="mail")
    with pytest.raises(InvalidInstanceIdError) as raised:
        await broker.start()
    assert "no group instance id in the environment" in str(raised.value)
    assert "subscribers mail/orders are built on the base id" in str(raised.value)


@pytest.mark.parametrize(
    ("pod", "given", "takeover"),
    [
        ("orders-0", None, True),  # <pod>-<key>: this pod's own
        ("orders-0", "orders-0", True),  # the pod name itself, given whole
        ("orders-0", "billing-consumer", False),  # a whole id any pod could give
        (None, "billing-consumer", False),
    ],
)  # fmt: skip
async def test_takeover_is_on_by_default_for_an_id_that_is_this_pods_own(
    monkeypatch: pytest.MonkeyPatch, pod: str | None, given: str | None, takeover: bool,
) -> None:  # fmt: skip
    _no_base_in_the_environment(monkeypatch)
    if pod is not None:
        monkeypatch.setenv("POD_NAME", pod)
    broker = StaticKafkaBroker("localhost:1", consumer_only=True, group_protocol="consumer")
    broker.subscriber("orders", group_id="billing", group_instance_id=given)(_handler)
    (consumer,) = await _built(broker)
    assert consumer.options.instance_takeover is takeover
    await consumer.stop()


async def _built(broker: StaticKafkaBroker) -> list[ServiceConsumer]:
    """What each subscriber's start() would build (no I/O: consumer_only, nothing started):
    one consumer, or one per worker for a subscriber that runs several (FastStream builds
    them in one list, from the same arguments)."""
    broker._plan(fresh=True)
    await broker.connect()
    consumers = []
    for subscriber in broker.subscribers:
        for _ in range(_seam.consumer_count(subscriber)):
            consumer = subscriber.builder(group_id=subscriber.group_id, client_id="c",
                                          **_seam.connection_args(subscriber))  # fmt: skip
            consumers.append(consumer)
    return consumers


def _handler(body: Any) -> None:
    pass


@pytest.mark.parametrize(
    "policy", [AckPolicy.ACK, AckPolicy.REJECT_ON_ERROR, AckPolicy.NACK_ON_ERROR, AckPolicy.MANUAL]
)
async def test_each_worker_of_a_subscriber_is_a_static_member_of_its_own(
    policy: AckPolicy,
) -> None:  # fmt: skip
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True)
    broker.subscriber("orders", group_id="ship", max_workers=3, ack_policy=policy)(_handler)
    broker.subscriber("orders", group_id="bill")(_handler)
    consumers = await _built(broker)
    ids = [c.group_instance_id for c in consumers]
    workers = [f"svc-0-ship-orders-{n}" for n in (1, 2, 3)]  # in the order FastStream builds
    assert ids == [*workers, "svc-0-bill-orders"] or ids == ["svc-0-bill-orders", *workers]
    assert broker.static_members == {
        **{w: f"ship/orders worker {n}/3" for n, w in enumerate(workers, 1)},
        "svc-0-bill-orders": "bill/orders",
    }  # fmt: skip
    ship = next(s for s in broker.subscribers if s.group_id == "ship")
    assert _seam.connection_args(ship)["enable_auto_commit"] is False  # commits after handling
    second = next(c for c in consumers if c.group_instance_id == workers[1])
    await second.stop()  # worker 2's consumer stops: the next one built takes its id back
    (again,) = [ship.builder(group_id="ship", client_id="c", **_seam.connection_args(ship))]
    assert again.group_instance_id == workers[1]
    with pytest.raises(StaticConsumerError, match="more consumers than its max_workers"):
        ship.builder(group_id="ship", client_id="c", **_seam.connection_args(ship))
    for consumer in [*consumers, again]:
        await consumer.stop()


async def test_workers_get_the_same_ids_in_every_start() -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True)
    subscriber = broker.subscriber("orders", group_id="ship", max_workers=2,
                                   ack_policy=AckPolicy.ACK)  # fmt: skip
    subscriber(_handler)
    for _ in range(2):
        consumers = await _built(broker)
        assert [c.group_instance_id for c in consumers] == [
            "svc-0-ship-orders-1", "svc-0-ship-orders-2"]  # fmt: skip
        for consumer in consumers:
            await consumer.stop()


async def test_ack_first_workers_share_one_consumer_and_its_one_id() -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True)
    broker.subscriber("orders", group_id="ship", max_workers=3)(_handler)  # ACK_FIRST default
    (consumer,) = await _built(broker)
    assert consumer.group_instance_id == "svc-0-ship-orders"
    await consumer.stop()


async def test_a_worker_subscriber_without_handlers_is_worker_one_alone_on_the_endpoint() -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True,
                               health_port=0)  # fmt: skip
    broker.subscriber("orders", group_id="ship", max_workers=3, ack_policy=AckPolicy.ACK)
    with pytest.raises(ExceptionGroup) as raised:  # get_one() mode: FastStream builds one
        await broker.start()  # consumer (which finds no broker at localhost:1)
    assert raised.group_contains(ClusterUnavailableError)
    assert broker._health_server is not None
    registered = [c.membership.group_instance_id for c in broker._health_server.consumers]
    assert registered == ["svc-0-ship-orders-1"]


async def test_a_workers_consumer_stops_once_its_record_in_hand_is_done_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    stopped: list[str] = []
    consumer = ServiceConsumer("t", group_id="g", group_instance_id="svc-0-g-t-1",
                               report=lambda error: None, start_wait_s=None,
                               worker=WorkerStop(5, lambda: stopped.append("w1")))  # fmt: skip

    async def getone(self: Any, *partitions: Any) -> Any:
        return "record"

    monkeypatch.setattr(StaticConsumer, "getone", getone)
    assert await consumer.getone() == "record"  # FastStream's loop: handler, ack, next getone
    stopping = asyncio.ensure_future(consumer.stop())
    await asyncio.sleep(0.05)
    assert not stopping.done() and stopped == []  # waits for the handler of the record in hand
    with pytest.raises(ConsumerStoppedError):  # the loop asks for more: done, and no new one
        await consumer.getone()
    await asyncio.wait_for(stopping, 5)
    assert stopped == ["w1"]


async def test_a_record_arriving_for_a_poll_made_before_the_stop_is_not_handed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    consumer = ServiceConsumer("t", group_id="g", group_instance_id="svc-0-g-t-1",
                               report=lambda error: None, start_wait_s=None,
                               worker=WorkerStop(5, lambda: None))  # fmt: skip
    arrives = asyncio.Event()

    async def getone(self: Any, *partitions: Any) -> Any:
        await arrives.wait()
        return "record"

    monkeypatch.setattr(StaticConsumer, "getone", getone)
    polling = asyncio.ensure_future(consumer.getone())  # FastStream's loop, waiting for records
    await asyncio.sleep(0)
    stopping = asyncio.ensure_future(consumer.stop())
    await asyncio.sleep(0)
    arrives.set()  # fetched before the consumer closed: its handler would ack a closing member
    with pytest.raises(ConsumerStoppedError):
        await polling
    await asyncio.wait_for(stopping, 5)


async def test_a_workers_stop_waits_no_longer_than_the_graceful_timeout(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    consumer = ServiceConsumer("t", group_id="g", group_instance_id="svc-0-g-t-1",
                               report=lambda error: None, start_wait_s=None,
                               worker=WorkerStop(0.1, lambda: None))  # fmt: skip

    async def getone(self: Any, *partitions: Any) -> Any:
        return "record"

    monkeypatch.setattr(StaticConsumer, "getone", getone)
    await consumer.getone()
    with caplog.at_level(logging.WARNING):
        await asyncio.wait_for(consumer.stop(), 5)  # the handler never finished
    assert "still in its handler after 0.1 s" in caplog.text


@pytest.mark.parametrize("protocol", ["classic", "consumer", "auto"])
async def test_each_subscriber_gets_a_static_consumer_with_its_id(protocol: str) -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True,
                               group_protocol=protocol)  # fmt: skip
    broker.subscriber("orders", group_id="billing")  # FastStream's defaults: aiokafka's
    broker.subscriber("orders", group_id="mail", batch=True)  # round robin, 10 s session
    broker.subscriber("raw", partitions=[])
    consumers = await _built(broker)
    assert all(isinstance(c, StaticConsumer) and isinstance(c, AIOKafkaConsumer)
               for c in consumers)  # fmt: skip
    ids = {c.group_instance_id for c in consumers}
    assert ids == {"svc-0-billing-orders", "svc-0-mail-orders", None}
    labels = {c.metrics().labels.instance_id for c in consumers}
    assert labels == {"svc-0-billing-orders", "svc-0-mail-orders", ""}
    assert {c.group_protocol for c in consumers} == {protocol}  # auto: until start() decides
    for consumer in consumers:
        await consumer.stop()


async def test_an_option_the_consumer_protocol_refuses_is_still_refused() -> None:
    def broker_() -> StaticKafkaBroker:
        return StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True,
                                 group_protocol="consumer")  # fmt: skip

    refused = r"session_timeout_ms .* group_protocol='consumer'"
    with pytest.raises(ConfigurationError, match=refused):  # when declared
        broker_().subscriber("orders", group_id="billing", session_timeout_ms=60000)
    broker, router = broker_(), KafkaRouter()
    broker.include_router(router)
    router.subscriber("orders", group_id="mail", session_timeout_ms=60000)
    with pytest.raises(ConfigurationError, match=refused):  # a router's, at start
        await broker.start()


async def test_a_fatal_subscriber_logs_one_line_exits_the_app_and_stop_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True)
    broker.subscriber("orders", group_id="billing")
    app = FastStream(broker)
    (consumer,) = await _built(broker)
    fenced = FencedInstanceIdError("fenced", group_id="billing",
                                   group_instance_id="svc-0-billing-orders")  # fmt: skip
    with mock.patch.object(app, "exit") as app_exit, caplog.at_level(logging.INFO):
        consumer._report(fenced)
        consumer._report(fenced)  # a second report (the poll, after on_fatal): no second line
    app_exit.assert_called_once_with()
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(lines) == 1, lines
    assert "svc-0-billing-orders" in lines[0] and "base id svc-0" in lines[0]
    assert broker.fatal_error is fenced
    with pytest.raises(FencedInstanceIdError):
        await broker.stop()
    await consumer.stop()


async def test_without_an_app_a_fatal_subscriber_stops_every_subscriber() -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True)
    broker.subscriber("orders", group_id="billing")
    (consumer,) = await _built(broker)
    with mock.patch.object(type(broker.subscribers[0]), "stop") as stop:
        consumer._report(FencedInstanceIdError("fenced"))
        await asyncio.sleep(0)
    stop.assert_awaited_once()
    await consumer.stop()


async def test_a_poll_that_meets_a_fatal_error_waits_instead_of_feeding_the_retry_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    reports: list[StaticConsumerError] = []
    consumer = ServiceConsumer("t", group_id="g", group_instance_id="i",
                               report=reports.append, start_wait_s=None)  # fmt: skip
    raised: list[StaticConsumerError] = [FencedInstanceIdError("fenced")]

    async def getmany(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise raised[0]

    monkeypatch.setattr(StaticConsumer, "getmany", getmany)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(consumer.getmany(timeout_ms=1), 0.2)
    assert reports == raised
    raised[0] = StaticConsumerError("not fatal")  # goes to FastStream, as before
    with pytest.raises(StaticConsumerError, match="not fatal"):
        await consumer.getmany()
    assert len(reports) == 1
    await consumer.stop()


async def test_no_assignment_within_the_unreleased_wait_is_fatal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    reports: list[StaticConsumerError] = []
    consumer = ServiceConsumer("t", group_id="g", group_instance_id="svc-0-g-t",
                               group_protocol="consumer", report=reports.append,
                               start_wait_s=0.1)  # fmt: skip

    async def start(self: Any) -> None:
        await asyncio.Event().wait()  # the coordinator keeps refusing the id

    monkeypatch.setattr(StaticConsumer, "start", start)
    with pytest.raises(UnreleasedInstanceIdError, match="svc-0-g-t"):
        await consumer.start()
    assert [type(r) for r in reports] == [UnreleasedInstanceIdError]

    async def getone(self: Any, *partitions: Any) -> Any:
        raise UnreleasedInstanceIdError("still held", group_id="g")

    monkeypatch.setattr(StaticConsumer, "getone", getone)  # raised once past its wait
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(consumer.getone(), 0.2)
    assert len(reports) == 2
    await consumer.stop()


async def test_a_broker_wide_strategy_is_refused_with_the_consumer_protocol() -> None:
    broker = StaticKafkaBroker("localhost:1", instance_id="svc-0", consumer_only=True,
                               group_protocol="consumer",
                               partition_assignment_strategy="cooperative-sticky")  # fmt: skip
    with pytest.raises(ConfigurationError, match="partition_assignment_strategy"):
        broker.subscriber("orders", group_id="billing")
