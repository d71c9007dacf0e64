"""What ``StaticConsumer.__init__`` decides before aiokafka's constructor runs: every option
checked (the rows of :data:`staticconsumer.options.OPTIONS`, then the values made of several
keywords: a :class:`~staticconsumer.ConfigurationError` names the field, the Java key and the
KIP), aiokafka's keywords split from ours once, and the options the driver and the engines read
built into one frozen :class:`~staticconsumer.options.ConsumerOptions` (nothing reads our
settings back out of aiokafka).

The constructor takes its keywords as one mapping (``**options``), so what the caller gave is
what is in it: a keyword given is passed on to aiokafka, a keyword not given takes its row's
default. A keyword given as None where its default is None counts as not given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import _compat
from .._instance_id import InstanceId
from .._observability.emitter import EventOptions, event_options
from .._observability.health import HealthOptions, health_options
from .._streams_options import streams_options
from ..errors import ConfigurationError
from ..options import AUTO, BY_NAME, ConsumerOptions, check_values, decide
from ..roster import RosterReader, roster_reader
from .auto_protocol import AutoProtocol
from .checks import (
    check_lacking_arguments,
    group_protocol_options,
    roster_topic_option,
    security_options,
)
from .keywords import defaults
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
    #: ``group_protocol="auto"``: the two values it chooses between at start (else None).
    auto: AutoProtocol | None = None
    #: Metadata recovery (KIP-899, KIP-1102): the client's seam runs it.
    recovery: _compat.RecoverySettings = dataclasses.field(default_factory=_compat.RecoverySettings)

    def __repr__(self) -> str:
        return f"Construction(options={self.options!r}, roster={self.roster!r})"


def check_construction(
    keywords: Mapping[str, Any], *, who: str = "StaticConsumer()"
) -> Construction:
    """``keywords``: the constructor's, as given. Raises :class:`TypeError` for a keyword no
    row has (as Python does for a missing parameter), else
    :class:`~staticconsumer.ConfigurationError`."""
    unknown = sorted(set(keywords) - set(BY_NAME))
    if unknown:
        raise TypeError(f"{who} got unexpected keyword arguments: {', '.join(unknown)}")
    given = {name: value for name, value in keywords.items()
             if value is not None or BY_NAME[name].default is not None}  # fmt: skip
    values = {**defaults(), **given}
    check_lacking_arguments(values)
    group_id, group_instance_id = values["group_id"], values["group_instance_id"]
    if group_instance_id is not None:
        InstanceId.validate(group_instance_id)
        if group_id is None:
            raise ConfigurationError(
                "group_instance_id (Java: group.instance.id, KIP-345) needs group_id "
                "(Java: group.id): static membership is membership of a consumer group"
            )
    told = decide(values, given)
    check_values(values)
    events = event_options(
        on_event=values["on_event"], events_topic=values["events_topic"],
        events_buffer_size=values["events_buffer_size"],
        events_flush_timeout_ms=values["events_flush_timeout_ms"],
        events_producer_config=values["events_producer_config"], group_id=group_id,
    )  # fmt: skip
    health = health_options(values["health_port"], values["health_host"], group_id=group_id)
    streams_options(values)
    protocol = group_protocol_options(
        values["group_protocol"], values["group_remote_assignor"], values["instance_takeover"],
        group_instance_id=group_instance_id, kwargs=given,
    )  # fmt: skip
    kwargs = {name: value for name, value in given.items() if BY_NAME[name].aiokafka}
    kwargs.update(security_options(values["security"], kwargs))
    values["roster_topic"] = roster_topic_option(values["roster_topic"])
    client = {"bootstrap_servers": values["bootstrap_servers"], **kwargs}
    roster = roster_reader(values["roster_topic"], group_id, client)
    kwargs.update(told)
    if (
        not protocol.coordinator_assigns
    ):  # ours by default (instance id first), made from what was given
        given_strategy = kwargs.get("partition_assignment_strategy")
        kwargs["partition_assignment_strategy"] = group_assignors(
            default_assignors() if given_strategy is None else given_strategy)  # fmt: skip
    values.update(
        dataclasses.asdict(protocol),
        client_id=str(values["client_id"]),
        partition_assignment_strategy=kwargs.get("partition_assignment_strategy", ()),
    )
    options = ConsumerOptions.of(values)
    aiokafkas = _compat.aiokafka_consumer_parameters()
    settings = {**{name: values[name] for name in BY_NAME if name in aiokafkas}, **kwargs,
                "group_instance_id": group_instance_id}  # fmt: skip
    auto = AutoProtocol.of(options, given) if options.group_protocol == AUTO else None
    recovery = _compat.RecoverySettings(
        values["metadata_recovery_strategy"], values["metadata_recovery_rebootstrap_trigger_ms"]
    )
    return Construction(options, kwargs, roster, events, health, settings, auto, recovery)
