"""The versions a streams-group member (``group_protocol="streams"``, KIP-1071) sends, from the
broker's ApiVersions answer, or one :class:`~staticconsumer.errors.UnsupportedBrokerError` naming
the broker version or the feature to enable (never a bare UNSUPPORTED_VERSION later):

* StreamsGroupHeartbeat (key 88): announced by Kafka 4.2+ with streams groups enabled (a fresh
  4.4 cluster has them; an upgraded one needs ``kafka-features.sh upgrade --feature
  streams.version=1`` and ``streams`` in ``group.coordinator.rebalance.protocols``);
* v1 for a static member: Kafka 4.4 added static members to streams groups (KAFKA-20169) and
  v1 with them; an older broker refuses the instance id;
* OffsetCommit v9 (commits carry the member epoch), as for the consumer protocol;
* the cluster's ``streams.version`` finalized at 1 or more, where the broker says
  (:mod:`.features`): at 0 it announces the API and refuses every heartbeat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol._messages import IMPLEMENTED_VERSIONS, ApiKey
from staticconsumer.protocol.features import STREAMS_VERSION, require_feature
from staticconsumer.protocol.versions import CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT, GroupApiVersions

#: StreamsGroupHeartbeat v1: Kafka 4.4, the first with static members (KAFKA-20169).
STREAMS_STATIC_MIN_HEARTBEAT = 1
#: What a member needs of the broker, in the words every refusal uses.
_ENABLE = (
    "Apache Kafka 4.2 or newer with streams groups enabled (a fresh 4.4 cluster has them; an "
    "upgraded one needs 'kafka-features.sh upgrade --feature streams.version=1' and 'streams' "
    "in group.coordinator.rebalance.protocols)"
)


@dataclass(frozen=True)
class StreamsProtocolVersions:
    """The versions a streams-group member sends; StreamsGroupDescribe (used only to name who
    holds a fenced thread's instance id) may be missing."""

    streams_group_heartbeat: int
    offset_commit: int
    offset_fetch: int
    streams_group_describe: int | None


def for_streams_protocol(
    versions: GroupApiVersions, *, static_member: bool
) -> StreamsProtocolVersions:
    """The versions to send (module docstring), or the refusal naming what the broker lacks."""
    broker = versions.broker
    heartbeat = _highest(ApiKey.STREAMS_GROUP_HEARTBEAT, broker)
    if heartbeat is None:
        raise UnsupportedBrokerError(
            f"group_protocol='streams' (KIP-1071) needs {_ENABLE}; this broker does not "
            "announce StreamsGroupHeartbeat (api key 88)"
        )
    if static_member and heartbeat < STREAMS_STATIC_MIN_HEARTBEAT:
        raise UnsupportedBrokerError(
            "a static member of a streams group (group_instance_id, KIP-1071) needs Apache Kafka "
            f"4.4 or newer (StreamsGroupHeartbeat v{STREAMS_STATIC_MIN_HEARTBEAT}, KAFKA-20169); "
            f"this broker announces v{broker[ApiKey.STREAMS_GROUP_HEARTBEAT][1]} at most: "
            "upgrade it, or leave group_instance_id unset on this cluster"
        )
    if versions.offset_commit < CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT:
        raise UnsupportedBrokerError(
            f"OffsetCommit v{versions.offset_commit} is the broker's newest: group_protocol="
            f"'streams' (KIP-1071) needs v{CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT}"
        )
    require_feature(versions.features, STREAMS_VERSION, "group_protocol='streams' (KIP-1071)")
    return StreamsProtocolVersions(
        streams_group_heartbeat=heartbeat, offset_commit=versions.offset_commit,
        offset_fetch=versions.offset_fetch,
        streams_group_describe=_highest(ApiKey.STREAMS_GROUP_DESCRIBE, broker),
    )  # fmt: skip


def describe_version(versions: GroupApiVersions) -> int | None:
    """The StreamsGroupDescribe version to send, or None: the broker has no streams groups."""
    return _highest(ApiKey.STREAMS_GROUP_DESCRIBE, versions.broker)


def _highest(api_key: ApiKey, broker: Mapping[int, tuple[int, int]]) -> int | None:
    """The highest version both sides implement, or None."""
    ours_low, ours_high = IMPLEMENTED_VERSIONS[api_key]
    served = broker.get(api_key)
    if served is None:
        return None
    version = min(ours_high, served[1])
    return version if version >= max(ours_low, served[0]) else None
