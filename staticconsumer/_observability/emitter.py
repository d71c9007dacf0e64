"""Membership events, delivery side: the consumer's options for them and the one emitter.

The group coordinator is handed an :class:`EventEmitter` and calls :meth:`EventEmitter.emit` at
each membership step; the emitter stamps the event (id, sequence number, UTC time, host), hands it
to the publisher's buffer and to the user's ``on_event`` callback. Nothing here may raise into
the coordinator: a failing callback is logged and counted.
"""

from __future__ import annotations

import inspect
import itertools
import logging
import socket
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from aiokafka import AIOKafkaProducer

from .._instance_id import is_topic_name
from ..errors import ConfigurationError
from ..events import MembershipEvent
from ..membership import LOG_FIELDS
from ..membership import log_prefix as prefix

log = logging.getLogger(__name__)

EventCallback = Callable[[MembershipEvent], object]
E = TypeVar("E", bound=MembershipEvent)

#: Consumer arguments the events producer shares (same cluster, same security settings).
SHARED_CLIENT_KEYS = (
    "bootstrap_servers", "security_protocol", "ssl_context", "sasl_mechanism",
    "sasl_plain_username", "sasl_plain_password", "sasl_kerberos_service_name",
    "sasl_kerberos_domain_name", "sasl_oauth_token_provider", "api_version",
    "metadata_max_age_ms", "request_timeout_ms", "retry_backoff_ms", "connections_max_idle_ms",
)  # fmt: skip
_WHERE = "(staticconsumer option, no Java equivalent; schema: docs/membership-events.md)"


@dataclass(frozen=True)
class EventOptions:
    """The consumer's membership-event options, validated (see :func:`event_options`)."""

    on_event: EventCallback | None
    topic: str | None
    buffer_size: int  # the defaults: the constructor's (staticconsumer.options.OPTIONS)
    flush_timeout_ms: int
    producer_config: Mapping[str, Any]

    @property
    def enabled(self) -> bool:
        return self.on_event is not None or self.topic is not None


def event_options(
    *,
    on_event: EventCallback | None,
    events_topic: str | None,
    events_buffer_size: int,
    events_flush_timeout_ms: int,
    events_producer_config: Mapping[str, Any] | None,
    group_id: str | None,
) -> EventOptions:
    """Check the ``StaticConsumer`` event arguments (at run time: callers may be untyped); raise
    ConfigurationError naming the field."""
    if on_event is not None:
        if not callable(on_event):
            raise ConfigurationError(f"on_event {_WHERE} must be callable, got {on_event!r}")
        if inspect.iscoroutinefunction(on_event):
            raise ConfigurationError(
                f"on_event {_WHERE} must be a plain function: it is called on the event loop "
                "and must not block; schedule your own task from it for async work"
            )
    if events_topic is not None and not is_topic_name(events_topic):
        raise ConfigurationError(
            f"events_topic {_WHERE} must be a Kafka topic name (1 to 249 of [a-zA-Z0-9._-], not "
            f"'.' or '..'), got {events_topic!r}"
        )
    buffer_size = _check_int("events_buffer_size", events_buffer_size, 1)
    flush_timeout_ms = _check_int("events_flush_timeout_ms", events_flush_timeout_ms, 0)
    config = _producer_config(events_producer_config, events_topic)
    options = EventOptions(on_event, events_topic, buffer_size, flush_timeout_ms, config)
    if options.enabled and group_id is None:
        raise ConfigurationError(
            "on_event and events_topic report group membership and need group_id (Java: group.id)"
        )
    return options


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name} {_WHERE} must be an int >= {minimum}, got {value!r}")
    return value


def _producer_config(value: object, topic: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"events_producer_config {_WHERE} must be a mapping, got {value!r}"
        )
    if topic is None:
        raise ConfigurationError(f"events_producer_config {_WHERE} needs events_topic")
    accepted = set(inspect.signature(AIOKafkaProducer.__init__).parameters) - {"self", "loop"}
    unknown = sorted(str(k) for k in value if k not in accepted)
    if unknown:
        raise ConfigurationError(
            f"events_producer_config {_WHERE}: {unknown} are not AIOKafkaProducer arguments"
        )
    return dict(value)


def producer_kwargs(
    consumer_kwargs: Mapping[str, Any], overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """The events producer's arguments: the consumer's cluster and security settings, its client
    id with ``-events`` appended, ``acks="all"``, then ``events_producer_config``."""
    out = {k: consumer_kwargs[k] for k in SHARED_CLIENT_KEYS if k in consumer_kwargs}
    client_id = consumer_kwargs.get("client_id") or "staticconsumer"
    out.update(client_id=f"{client_id}-events", acks="all")
    out.update(overrides)
    return out


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class EventEmitter:
    """Stamps and delivers events: to ``sink`` (the publisher's buffer) and to ``on_event``.

    ``emit`` never raises: a callback error is logged and counted in :attr:`callback_errors`.
    """

    def __init__(
        self,
        on_event: EventCallback | None,
        sink: Callable[[MembershipEvent], None] | None,
        *,
        host: str | None = None,
        clock_ms: Callable[[], int] = _now_ms,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    ) -> None:
        self._on_event = on_event
        self._sink = sink
        self._host = host if host is not None else socket.gethostname()
        self._clock_ms = clock_ms
        self._new_id = new_id
        self._seq = itertools.count()
        self.callback_errors = 0

    def emit(self, cls: type[E], **fields: Any) -> E | None:
        """Build a ``cls`` event from ``fields`` plus id, seq, time and host, and deliver it."""
        try:
            event = cls(
                event_id=self._new_id(), seq=next(self._seq), ts_ms=self._clock_ms(),
                host=self._host, **fields,
            )  # fmt: skip
        except Exception:  # a bug here must not break the group protocol
            who = {k: fields.get(k) for k in LOG_FIELDS}
            log.exception("%s could not build a %s membership event", prefix(who), cls.type,
                          extra=who)  # fmt: skip
            return None
        if self._sink is not None:
            self._sink(event)
        if self._on_event is not None:
            try:
                result = self._on_event(event)
                if inspect.isawaitable(result):
                    if inspect.iscoroutine(result):
                        result.close()
                    raise TypeError("on_event returned an awaitable; it must be a plain function")
            except Exception:
                self.callback_errors += 1
                who = {k: fields.get(k) for k in LOG_FIELDS}
                log.exception("%s on_event callback failed on a %s event", prefix(who),
                              event.type, extra=who)  # fmt: skip
        return event
