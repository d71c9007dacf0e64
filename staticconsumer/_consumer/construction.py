"""What ``StaticConsumer.__init__`` decides before aiokafka's constructor runs: every option
checked (a :class:`~staticconsumer.ConfigurationError` names the field, the Java key and the
KIP), and the arguments aiokafka gets.

The consumer's signature lists every argument; :func:`check_construction` reads them all from
it (``dict(locals())``), so that the class keeps only the signature and the wiring.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._instance_id import InstanceId
from .._observability.emitter import EventOptions, event_options
from .._observability.health import HealthOptions, health_options
from ..errors import ConfigurationError
from ..roster import RosterReader, roster_reader
from .options import (
    GroupProtocolOptions,
    check_aiokafka_options,
    default_assignors,
    given_options,
    group_assignors,
    group_protocol_options,
    roster_barrier_option,
    roster_topic_option,
    security_options,
)


@dataclass(frozen=True)
class Construction:
    """One consumer's options, checked. ``kwargs``: aiokafka's arguments, as
    ``AIOKafkaConsumer.__init__`` takes them (never in the repr: security arguments)."""

    kwargs: dict[str, Any]
    group_protocol: GroupProtocolOptions
    roster: RosterReader | None
    roster_barrier: bool
    events: EventOptions
    health: HealthOptions | None

    def __repr__(self) -> str:
        return f"Construction(group_protocol={self.group_protocol!r}, roster={self.roster!r})"


def check_construction(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> Construction:
    """``values``: the constructor's arguments by name; ``defaults``: aiokafka's argument names
    with the consumer's defaults. Raises :class:`~staticconsumer.ConfigurationError`."""
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
    check_aiokafka_options(values, classic=not protocol.consumer)
    kwargs.update(security_options(values["security"], kwargs))
    roster = roster_reader(
        roster_topic_option(values["roster_topic"]), group_id,
        {"bootstrap_servers": values["bootstrap_servers"], **kwargs},
    )  # fmt: skip
    barrier = roster_barrier_option(values["roster_barrier"])
    if not protocol.consumer:
        strategies = kwargs.get("partition_assignment_strategy")
        kwargs["partition_assignment_strategy"] = group_assignors(
            default_assignors() if strategies is None else strategies
        )
    if kwargs.get("rebalance_timeout_ms") is None:
        # Java sends max.poll.interval.ms as JoinGroup's RebalanceTimeoutMs; aiokafka would
        # send session_timeout_ms, which static members set long (docs/scaling.md).
        kwargs["rebalance_timeout_ms"] = values["max_poll_interval_ms"]
    return Construction(kwargs, protocol, roster, barrier, events, health)
