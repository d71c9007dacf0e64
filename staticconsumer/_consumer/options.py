"""``group_protocol`` (Java ``group.protocol``) and the options that go with it, checked at
construction as Java's ``ConsumerConfig`` checks them: the classic protocol (JoinGroup/SyncGroup,
client-side assignors) or the consumer protocol (KIP-848: ConsumerGroupHeartbeat, the coordinator
assigns with ``group_remote_assignor``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError

CLASSIC = "classic"
CONSUMER = "consumer"

#: What Java's ConsumerConfig refuses under ``group.protocol=consumer``: the coordinator assigns
#: and owns the session timeout and heartbeat interval (group.consumer.session.timeout.ms,
#: group.consumer.heartbeat.interval.ms on the broker).
_CONSUMER_PROTOCOL_UNSUPPORTED = {
    "partition_assignment_strategy": (
        "partition.assignment.strategy",
        "the group coordinator assigns partitions (choose its assignor with "
        "group_remote_assignor)",
    ),
    "session_timeout_ms": (
        "session.timeout.ms",
        "the broker's group.consumer.session.timeout.ms applies",
    ),
    "heartbeat_interval_ms": (
        "heartbeat.interval.ms",
        "the coordinator sends the interval (the broker's group.consumer.heartbeat.interval.ms)",
    ),
}


@dataclass(frozen=True)
class GroupProtocolOptions:
    protocol: str = CLASSIC
    remote_assignor: str | None = None
    instance_takeover: bool = False

    @property
    def consumer(self) -> bool:
        return self.protocol == CONSUMER


def group_protocol_options(
    group_protocol: Any,
    group_remote_assignor: Any,
    instance_takeover: Any,
    *,
    group_instance_id: str | None,
    kwargs: Mapping[str, Any],
) -> GroupProtocolOptions:
    """The checked options; :class:`ConfigurationError` names the field, Java's key and the KIP."""
    if group_protocol not in (CLASSIC, CONSUMER):
        raise ConfigurationError(
            f"group_protocol (Java: group.protocol) must be 'classic' or 'consumer' (KIP-848), "
            f"got {group_protocol!r}"
        )
    if group_protocol == CLASSIC:
        if group_remote_assignor is not None:
            raise ConfigurationError(
                "group_remote_assignor (Java: group.remote.assignor) applies only to "
                "group_protocol='consumer' (KIP-848): the classic protocol assigns on the client "
                "(partition_assignment_strategy)"
            )
        if instance_takeover:
            raise ConfigurationError(
                "instance_takeover applies only to group_protocol='consumer' (KIP-848): under "
                "the classic protocol a newcomer with a held group_instance_id always takes it "
                "over (KIP-345)"
            )
        return GroupProtocolOptions()
    for field, (java_key, why) in _CONSUMER_PROTOCOL_UNSUPPORTED.items():
        if field in kwargs:
            raise ConfigurationError(
                f"{field} (Java: {java_key}) is not supported with group_protocol='consumer' "
                f"(KIP-848): {why}. Java's consumer refuses it too"
            )
    if group_remote_assignor is not None and (
        not isinstance(group_remote_assignor, str) or not group_remote_assignor.strip()
    ):
        raise ConfigurationError(
            "group_remote_assignor (Java: group.remote.assignor, KIP-848) must be the name of an "
            f"assignor of the broker's group.consumer.assignors (e.g. 'uniform', 'range'), got "
            f"{group_remote_assignor!r}"
        )
    if not isinstance(instance_takeover, bool):
        raise ConfigurationError(f"instance_takeover must be True or False, got "
                                 f"{instance_takeover!r}")  # fmt: skip
    if instance_takeover and group_instance_id is None:
        raise ConfigurationError(
            "instance_takeover needs group_instance_id (Java: group.instance.id, KIP-345): only "
            "a static member has an instance id to take over"
        )
    return GroupProtocolOptions(CONSUMER, group_remote_assignor, instance_takeover)
