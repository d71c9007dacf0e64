"""Every FastStream name ``staticconsumer/faststream/_seam.py`` relies on, checked on the
installed FastStream: an upgrade that moves one fails here, by name, not in production."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging

import aiokafka
import pytest
from faststream import AckPolicy, FastStream
from faststream.kafka import KafkaBroker
from faststream.kafka.configs import KafkaBrokerConfig
from faststream.kafka.helpers import rebalance_listener
from faststream.kafka.subscriber import usecase

from staticconsumer.errors import ConfigurationError
from staticconsumer.faststream import _seam


def test_the_installed_faststream_is_a_supported_one() -> None:
    low, high = _seam.SUPPORTED
    assert low <= _seam.version() < high
    _seam.check_version()


def test_a_faststream_outside_the_pin_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_seam, "version", lambda: (0, 8, 0))
    with pytest.raises(ConfigurationError, match=r"faststream>=0\.7\.0,<0\.8\.0"):
        _seam.check_version()


def test_connect_is_the_private_coroutine_the_seam_overrides() -> None:
    assert inspect.iscoroutinefunction(KafkaBroker._connect)
    assert _seam.ConnectSeam._connect is not KafkaBroker._connect


def test_the_broker_config_holds_a_builder_field() -> None:
    assert "builder" in {f.name for f in dataclasses.fields(KafkaBrokerConfig)}


async def test_connect_leaves_a_partial_of_aiokafkas_consumer_with_the_client_options() -> None:
    broker = KafkaBroker("host-a:9092", consumer_only=True, client_id="svc", request_timeout_ms=123)
    await broker.config.broker_config.connect(**broker._connection_kwargs)
    builder = broker.config.broker_config.builder
    assert isinstance(builder, functools.partial)
    assert builder.func is aiokafka.AIOKafkaConsumer
    options = _seam.builder_options(broker)
    assert options["bootstrap_servers"] == ["host-a:9092"]
    assert options["request_timeout_ms"] == 123


def test_a_subscriber_reads_its_builder_from_the_broker_config_and_keeps_its_arguments() -> None:
    broker = KafkaBroker("host-a:9092")
    subscriber = broker.subscriber("orders", group_id="billing", group_instance_id="x")
    marker = functools.partial(dict)
    broker.config.broker_config.builder = marker
    assert subscriber.builder is marker
    args = _seam.connection_args(subscriber)
    assert args["group_instance_id"] == "x"
    assert _seam.group_id(subscriber) == "billing"
    assert _seam.topic_names(subscriber) == ["orders"]


def test_start_calls_the_builder_with_group_client_and_connection_args() -> None:
    source = inspect.getsource(usecase.LogicSubscriber.start)
    assert "self.builder(" in source
    assert "group_id=self.group_id" in source and "**self._connection_args" in source
    assert "await consumer.start()" in source
    assert "await self.consumer.stop()" in inspect.getsource(usecase.LogicSubscriber.stop)


def test_several_consumers_per_subscriber_are_told_apart() -> None:
    broker = KafkaBroker()
    shared = broker.subscriber("a", group_id="g", max_workers=2, ack_policy=AckPolicy.ACK)
    single = broker.subscriber("b", group_id="g")
    assert _seam.builds_several_consumers(shared)
    assert not _seam.builds_several_consumers(single)


def test_a_worker_subscriber_builds_its_consumers_from_one_set_of_arguments() -> None:
    broker = KafkaBroker()
    shared = broker.subscriber("a", group_id="g", max_workers=3, ack_policy=AckPolicy.ACK)
    assert _seam.consumer_count(shared) == 3
    assert _seam.consumer_count(broker.subscriber("b", group_id="g", max_workers=3)) == 1
    assert not _seam.has_handlers(shared)
    shared(lambda body: None)
    assert _seam.has_handlers(shared)
    start = inspect.getsource(usecase.ConcurrentBetweenPartitionsSubscriber.start)
    # all built (in worker order) before any starts; one for get_one() without handlers
    assert "for _ in range(self.max_workers)" in start and "if self.calls:" in start
    assert start.index("self.builder(") < start.index("tg.start_soon(c.start)")
    stop = inspect.getsource(usecase.ConcurrentBetweenPartitionsSubscriber.stop)
    # its consumers stop before FastStream's graceful wait (in the base class's stop)
    assert stop.index("consumer.stop") < stop.index("await super().stop()")
    get_msg = inspect.getsource(usecase.ConcurrentBetweenPartitionsSubscriber.get_msg)
    assert "message.consumer = consumer" in get_msg  # an ack commits on its own consumer


def test_the_graceful_timeout_is_read_from_the_broker_config() -> None:
    assert _seam.graceful_timeout(KafkaBroker(graceful_timeout=7)) == 7.0
    assert _seam.graceful_timeout(KafkaBroker(graceful_timeout=None)) is None


def test_the_logging_listener_is_taken_apart() -> None:
    user, logger, extra = object(), logging.getLogger("x"), {"topic": "t", "group_id": "g"}
    facade = rebalance_listener.make_logging_listener(
        consumer=None, logger=logger, log_extra=extra, listener=user,
    )  # fmt: skip
    alone = rebalance_listener.make_logging_listener(
        consumer=None, logger=logger, log_extra=extra, listener=None,
    )  # fmt: skip
    where = _seam.ListenerLog(logger, extra, 120.0)  # FastStream waits 2 minutes to warn again
    assert _seam.split_listener(facade) == (where, user)
    assert _seam.split_listener(alone) == (where, None)
    assert _seam.split_listener(user) == (None, user)
    # What it replaces reads aiokafka's private coordinator (a StaticConsumer has its own).
    source = inspect.getsource(rebalance_listener._LoggingListener)
    assert "_coordinator.member_id" in source and "_subscription.topics" in source
    # ... and warns, through the logger it was given, of a consumer with no partitions
    assert "has no partition assignments" in source and "self.logger.log(" in source


def test_the_application_is_found_in_the_broker_context() -> None:
    broker = KafkaBroker()
    assert _seam.application(broker) is None
    app = FastStream(broker)
    assert _seam.application(broker) is app


def test_fastapi_s_router_builds_its_broker_once_from_broker_class() -> None:
    """``use_broker_factory``: FastStream's FastAPI KafkaRouter calls ``self.broker_class``
    once in ``__init__`` with its connection arguments and the broker keywords it takes."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from faststream.kafka.fastapi import KafkaRouter

    calls: list[tuple[tuple[object, ...], dict[str, object]]] = []

    def factory(*args: object, **kwargs: object) -> KafkaBroker:
        calls.append((args, kwargs))
        return KafkaBroker(*args, **kwargs)  # type: ignore[arg-type]

    class Probe(KafkaRouter):  # type: ignore[misc]
        def __init__(self) -> None:
            _seam.use_broker_factory(self, factory)
            super().__init__("host-a:9092", client_id="svc", graceful_timeout=3.0)

    router = Probe()
    assert len(calls) == 1 and calls[0][1]["bootstrap_servers"] == "host-a:9092"
    assert calls[0][1]["client_id"] == "svc" and calls[0][1]["graceful_timeout"] == 3.0
    assert isinstance(router.broker, KafkaBroker)
    assert KafkaRouter.broker_class is not factory  # the class attribute is left as it was
    # In the broker's context FastStream's router is "app", and it has no exit(): the broker's
    # fatal path does not take it for a FastStream application.
    router.broker.context.set_global("app", router)
    assert _seam.application(router.broker) is None
    router.broker.context.set_global("app", FastStream(router.broker))
    assert _seam.application(router.broker) is not None
