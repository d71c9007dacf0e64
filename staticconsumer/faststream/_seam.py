"""Every FastStream name that is not FastStream's documented API, in one place.

``staticconsumer.faststream`` touches FastStream (``faststream[kafka]``) here and nowhere else,
and only on the versions in :data:`SUPPORTED` (the ``faststream`` extra pins the same range,
as ``staticconsumer._compat`` pins aiokafka). ``tests/faststream/test_seam.py`` checks each
fact below on the installed FastStream, so an upgrade that moves one fails loudly there
instead of quietly building plain aiokafka consumers:

* ``KafkaBroker._connect()`` connects the broker's clients and sets
  ``broker.config.broker_config.builder`` (a ``KafkaBrokerConfig`` field) to
  ``functools.partial(aiokafka.AIOKafkaConsumer, **client options)``. Every subscriber's
  ``start()`` calls ``builder(group_id=..., client_id=..., **connection_args)`` for its
  consumer, and ``stop()`` awaits that consumer's ``stop()``.
* A subscriber keeps its ``subscriber(...)`` aiokafka arguments in the dict
  ``_connection_args`` (``group_instance_id`` among them), its group in ``group_id`` and its
  topics (or pattern, or partitions) in ``topic_names``.
* Each subscriber subscribes its consumer with a rebalance listener from
  ``make_logging_listener``: FastStream's ``_LoggingListener`` alone, or a
  ``_LoggingListenerFacade`` whose ``logging_listener`` is FastStream's and ``listener`` the
  user's. The logging part reads aiokafka's private ``consumer._coordinator.member_id`` (a
  StaticConsumer's coordinator seam answers it too) and ``_subscription``, and logs without the
  instance id, so :func:`split_listener` takes the user's listener out, and where FastStream's
  logged (its ``logger``, ``log_extra`` and ``_log_unassigned_consumer_delay_seconds``), for the
  consumer to log the same lines itself, naming the subscriber's instance id.
* ``ConcurrentBetweenPartitionsSubscriber`` (``max_workers > 1`` without ``ACK_FIRST``) keeps
  ``max_workers`` and, when it has handlers (``calls``), builds that many consumers from the
  same arguments, in one list, before it starts any (without handlers: one, for
  ``get_one()``); its ``stop()`` stops them before FastStream's graceful wait for handlers in
  flight (``graceful_timeout``, a ``KafkaBroker`` argument, read from ``broker.config``).
  ``max_workers > 1`` with ``ACK_FIRST`` is one consumer whose records N tasks handle.
* FastStream's FastAPI ``KafkaRouter`` (``faststream.kafka.fastapi``) builds its broker in
  ``__init__`` from the class attribute ``broker_class`` (``StreamRouter``), passing the
  ``KafkaBroker`` arguments its own signature takes; its ``lifespan`` starts and stops that
  broker (:func:`use_broker_factory`).
* ``TestKafkaBroker`` replaces a broker's ``start``, ``_connect`` and ``stop``, and enters it
  (``connect()``, public): the broker's checks run in ``connect()`` (``tests/faststream/
  test_checks.py`` fails if a FastStream stops calling it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from faststream.kafka import KafkaBroker
from faststream.kafka.helpers.rebalance_listener import _LoggingListener, _LoggingListenerFacade
from faststream.kafka.subscriber.usecase import ConcurrentBetweenPartitionsSubscriber

from ..integrations import check_supported, installed_version

#: FastStream versions this seam was checked on (``>=`` first, ``<`` second); the
#: ``faststream`` extra in pyproject.toml says the same.
SUPPORTED = ((0, 7, 0), (0, 8, 0))

Builder = Callable[..., Any]


def version() -> tuple[int, ...]:
    """The installed FastStream's version as numbers (``0.7.8`` -> ``(0, 7, 8)``)."""
    return installed_version("faststream")


def check_version() -> None:
    """Refuse a FastStream outside :data:`SUPPORTED`: the seam may not hold there."""
    check_supported("faststream", SUPPORTED, version(), package="staticconsumer.faststream",
                    extra="faststream")  # fmt: skip


class ConnectSeam(KafkaBroker):
    """A ``KafkaBroker`` whose ``_connect`` hands FastStream's consumer options to
    :meth:`consumer_builder` and installs the builder that method returns."""

    async def _connect(self) -> Builder:
        await super()._connect()
        builder = self.consumer_builder(builder_options(self))
        self.config.broker_config.builder = builder
        return builder

    def consumer_builder(self, options: Mapping[str, Any]) -> Builder:
        raise NotImplementedError


def builder_options(broker: KafkaBroker) -> dict[str, Any]:
    """The client options FastStream's builder carries (bootstrap servers, security...)."""
    builder = broker.config.broker_config.builder
    if not isinstance(builder, functools.partial):
        raise TypeError(f"FastStream's consumer builder is not a functools.partial: {builder!r}")
    return dict(builder.keywords)


def connection_args(subscriber: Any) -> dict[str, Any]:
    """The subscriber's aiokafka arguments (the dict its ``start()`` passes to the builder)."""
    args = subscriber._connection_args
    if not isinstance(args, dict):
        raise TypeError(f"{subscriber!r}._connection_args is not a dict")
    return args


def group_id(subscriber: Any) -> str | None:
    value = subscriber.group_id
    return value if value is None else str(value)


def topic_names(subscriber: Any) -> list[str]:
    """Its topics; or its pattern; or ``topic-partition`` names for assigned partitions."""
    return [str(name) for name in subscriber.topic_names]


def builds_several_consumers(subscriber: Any) -> bool:
    """``max_workers > 1`` without ``ACK_FIRST``: one consumer per worker, same arguments."""
    return isinstance(subscriber, ConcurrentBetweenPartitionsSubscriber)


def consumer_count(subscriber: Any) -> int:
    """How many consumers the subscriber runs when it has handlers: ``max_workers`` for one
    that builds one per worker, else 1."""
    return int(subscriber.max_workers) if builds_several_consumers(subscriber) else 1


def has_handlers(subscriber: Any) -> bool:
    """Whether handlers are attached (``@broker.subscriber(...)`` applied to a function)."""
    return bool(subscriber.calls)


def graceful_timeout(broker: KafkaBroker) -> float | None:
    """``KafkaBroker(graceful_timeout=...)``: how long a stop waits for handlers in flight."""
    value = broker.config.graceful_timeout
    return None if value is None else float(value)


def use_broker_factory(router: Any, factory: Callable[..., KafkaBroker]) -> None:
    """Make FastStream's FastAPI ``KafkaRouter`` build its broker with ``factory``: its
    ``__init__`` (``StreamRouter``'s) calls ``self.broker_class(*connection args, **broker
    keywords)`` once; an instance attribute takes the class attribute's place for that call."""
    router.broker_class = factory


def application(broker: KafkaBroker) -> Any:
    """The ``FastStream`` application running ``broker``, or None (a broker run by hand, or by
    FastStream's FastAPI router, which puts itself in the context as ``app``: it has no
    ``exit()``)."""
    app = broker.context.get("app")
    return app if callable(getattr(app, "exit", None)) else None


@dataclass(frozen=True)
class ListenerLog:
    """Where FastStream's logging listener logs: its logger (``.log(level, msg, extra=)``), the
    subscriber's log context, and how long a consumer may hold no partition before the second
    warning."""

    logger: Any
    extra: dict[str, Any]
    unassigned_delay_s: float


def split_listener(listener: Any) -> tuple[ListenerLog | None, Any]:
    """``(where FastStream's logging listener logs, or None without one; the user's listener
    or None)``."""
    if isinstance(listener, _LoggingListenerFacade):
        return _where(listener.logging_listener), listener.listener
    if isinstance(listener, _LoggingListener):
        return _where(listener), None
    return None, listener


def _where(listener: _LoggingListener) -> ListenerLog:
    delay = listener._log_unassigned_consumer_delay_seconds
    return ListenerLog(listener.logger, dict(listener.log_extra), float(delay))
