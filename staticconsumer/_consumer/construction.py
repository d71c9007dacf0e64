"""What ``StaticConsumer.__init__`` decides before aiokafka's constructor runs: every option
checked (a :class:`~staticconsumer.ConfigurationError` names the field, the Java key and the
KIP), aiokafka's keywords split from ours once, and our group options built into one frozen
:class:`~staticconsumer.options.ConsumerOptions`, which the driver and the engines are built
from (nothing reads our settings back out of aiokafka).

The consumer's signature lists every argument; :func:`check_construction` reads them all from
it (``dict(locals())``), so that the class keeps only the signature and the wiring. The fields of
:class:`ConsumerOptions` that are constructor arguments are read by their names: a new field is
a line in ``options.py`` and a keyword in the signature, not a line here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._instance_id import InstanceId
from .._observability.emitter import EventOptions, event_options
from .._observability.health import HealthOptions, health_options
from ..errors import ConfigurationError
from ..options import ConsumerOptions, default_session_timeout_ms
from ..roster import RosterReader, roster_reader
from .options import (
    SESSION_TIMEOUT_MS,
    check_aiokafka_options,
    check_lacking_arguments,
    given_options,
    group_protocol_options,
    roster_barrier_option,
    roster_topic_option,
    security_options,
)
from .strategy import default_assignors, group_assignors


@dataclass(frozen=True)
class Construction:
    """One consumer's options, checked: ``options`` (ours, and aiokafka's that the driver
    needs), ``aiokafka_kwargs`` (aiokafka's arguments as ``AIOKafkaConsumer.__init__`` takes
    them: those given), ``aiokafka_settings`` (every one of them, given or defaulted: what the
    seam starts the consumer with), neither in the repr (security arguments), and what the
    consumer owns besides."""

    options: ConsumerOptions
    aiokafka_kwargs: dict[str, Any]
    roster: RosterReader | None
    events: EventOptions
    health: HealthOptions | None
    aiokafka_settings: Mapping[str, Any]

    def __repr__(self) -> str:
        return f"Construction(options={self.options!r}, roster={self.roster!r})"


def check_construction(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> Construction:
    """``values``: the constructor's arguments by name; ``defaults``: aiokafka's argument names
    with the consumer's defaults. Raises :class:`~staticconsumer.ConfigurationError`."""
    check_lacking_arguments(values)
    kwargs = given_options(values, defaults)
    group_id = kwargs.get("group_id")
    group_instance_id = values["group_instance_id"]
    if group_instance_id is not None:
        InstanceId.validate(group_instance_id)
        if group_id is None:
            raise ConfigurationError(
                "group_instance_id (Java: group.instance.id, KIP-345) needs group_id "
                "(Java: group.id): static membership is membership of a consumer group"
            )
    on_fatal = values["on_fatal"]
    if on_fatal is not None and not callable(on_fatal):
        raise ConfigurationError(f"on_fatal must be callable, got {on_fatal!r}")
    events = event_options(
        on_event=values["on_event"], events_topic=values["events_topic"],
        events_buffer_size=values["events_buffer_size"],
        events_flush_timeout_ms=values["events_flush_timeout_ms"],
        events_producer_config=values["events_producer_config"], group_id=group_id,
    )  # fmt: skip
    health = health_options(values["health_port"], values["health_host"], group_id=group_id)
    protocol = group_protocol_options(
        values["group_protocol"], values["group_remote_assignor"], values["instance_takeover"],
        group_instance_id=group_instance_id, kwargs=kwargs,
    )  # fmt: skip
    session_timeout_ms, session_given = _session_timeout(values, group_instance_id)
    check_aiokafka_options({**values, "session_timeout_ms": session_timeout_ms},
                           classic=not protocol.consumer)  # fmt: skip
    kwargs.update(security_options(values["security"], kwargs))
    roster_topic = roster_topic_option(values["roster_topic"])
    roster = roster_reader(
        roster_topic, group_id, {"bootstrap_servers": values["bootstrap_servers"], **kwargs}
    )
    barrier = roster_barrier_option(values["roster_barrier"])
    if not (protocol.consumer or session_given or group_instance_id is None):
        # A static member's default is Java's 45 s (KIP-735), not aiokafka's 10 s: aiokafka
        # is told it too (a restart slower than 10 s would otherwise rebalance, KIP-345).
        kwargs["session_timeout_ms"] = session_timeout_ms
    strategies: tuple[Any, ...] = ()
    if not protocol.consumer:
        given = kwargs.get("partition_assignment_strategy")
        strategies = group_assignors(default_assignors() if given is None else given)
        kwargs["partition_assignment_strategy"] = strategies
    if kwargs.get("rebalance_timeout_ms") is None:
        # Java sends max.poll.interval.ms as JoinGroup's RebalanceTimeoutMs; aiokafka would
        # send session_timeout_ms, which static members set long (docs/scaling.md).
        kwargs["rebalance_timeout_ms"] = values["max_poll_interval_ms"]
    ours = {f.name: values[f.name] for f in dataclasses.fields(ConsumerOptions) if f.name in values}
    options = ConsumerOptions(**{
        **ours, **dataclasses.asdict(protocol), "client_id": str(values["client_id"]),
        "roster_topic": roster_topic, "roster_barrier": barrier, "group_id": group_id,
        "partition_assignment_strategy": strategies, "session_timeout_ms": session_timeout_ms,
        "session_timeout_given": session_given,
        "rebalance_timeout_ms": kwargs["rebalance_timeout_ms"],
    })  # fmt: skip
    settings = {**{name: values[name] for name in defaults}, **kwargs,
                "group_instance_id": group_instance_id}  # fmt: skip
    return Construction(options, kwargs, roster, events, health, settings)


def _session_timeout(values: Mapping[str, Any], group_instance_id: str | None) -> tuple[Any, bool]:
    """``session_timeout_ms`` as the member will have it (checked after this), and whether it was
    given: when not, Java's 45 s for a static member (KIP-735, KIP-345), aiokafka's 10 s for a
    dynamic one."""
    value = values["session_timeout_ms"]
    if value is not SESSION_TIMEOUT_MS:
        return value, True
    return default_session_timeout_ms(group_instance_id), False
