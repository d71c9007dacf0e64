"""Choose the group API versions to use with a broker, from its ApiVersions answer.

For each API we take the highest version both the broker and this package implement. Static
membership needs ``group_instance_id`` on every one of them (KIP-345: Kafka 2.3+); a broker that
cannot reach those versions gets an :class:`~staticconsumer.errors.UnsupportedBrokerError`, never a
silent downgrade to a request that would leave the instance id out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from staticconsumer.errors import ProtocolError, UnsupportedBrokerError
from staticconsumer.protocol._messages import IMPLEMENTED_VERSIONS, ApiKey, api_name

#: The first version of each API that carries ``group_instance_id`` (KIP-345). FindCoordinator
#: carries none; v1 is the first that names the key type.
STATIC_MEMBERSHIP_MIN_VERSIONS: Mapping[int, int] = {
    ApiKey.JOIN_GROUP: 5,
    ApiKey.SYNC_GROUP: 3,
    ApiKey.HEARTBEAT: 3,
    ApiKey.LEAVE_GROUP: 3,
    ApiKey.OFFSET_COMMIT: 7,
    # OffsetFetch carries no instance id; v5 (Kafka 2.1) is the first with the top-level error
    # code, throttle time and committed leader epoch together, and older than any KIP-345 broker.
    ApiKey.OFFSET_FETCH: 5,
    ApiKey.DESCRIBE_GROUPS: 4,
    ApiKey.FIND_COORDINATOR: 1,
}


@dataclass(frozen=True)
class GroupApiVersions:
    """The version to send of each group API, as chosen by :func:`negotiate`."""

    join_group: int
    sync_group: int
    heartbeat: int
    leave_group: int
    offset_commit: int
    offset_fetch: int
    describe_groups: int
    find_coordinator: int
    #: The broker's whole ApiVersions answer, for the APIs negotiated elsewhere (KIP-848's).
    broker: Mapping[int, tuple[int, int]] = dataclasses.field(
        default_factory=lambda: MappingProxyType({}), compare=False, repr=False
    )


_FIELDS: tuple[tuple[str, ApiKey], ...] = (
    ("join_group", ApiKey.JOIN_GROUP),
    ("sync_group", ApiKey.SYNC_GROUP),
    ("heartbeat", ApiKey.HEARTBEAT),
    ("leave_group", ApiKey.LEAVE_GROUP),
    ("offset_commit", ApiKey.OFFSET_COMMIT),
    ("offset_fetch", ApiKey.OFFSET_FETCH),
    ("describe_groups", ApiKey.DESCRIBE_GROUPS),
    ("find_coordinator", ApiKey.FIND_COORDINATOR),
)


def negotiate(broker_versions: Mapping[int, tuple[int, int]]) -> GroupApiVersions:
    """The highest common version of each group API.

    ``broker_versions`` maps api key to the broker's ``(min_version, max_version)``, as in its
    ApiVersions response (see :func:`api_versions_from_response`). Raises
    :class:`~staticconsumer.errors.UnsupportedBrokerError` naming every API the broker cannot
    serve at a static-membership version, with the broker's range and the version needed.
    """
    chosen: dict[str, int] = {}
    problems: list[str] = []
    for field, api_key in _FIELDS:
        needed = STATIC_MEMBERSHIP_MIN_VERSIONS[api_key]
        ours_low, ours_high = IMPLEMENTED_VERSIONS[api_key]
        low = max(needed, ours_low)
        label = f"{api_name(api_key)} (api key {int(api_key)})"
        broker = broker_versions.get(api_key)
        if broker is None:
            problems.append(f"{label}: the broker does not support it; v{low}+ is needed")
            continue
        broker_low, broker_high = broker
        version = min(ours_high, broker_high)
        if version < max(low, broker_low):
            if broker_high < low:
                problems.append(
                    f"{label}: the broker supports v{broker_low}-v{broker_high}; "
                    f"static membership needs v{low} or newer"
                )
            else:
                problems.append(
                    f"{label}: the broker supports v{broker_low}-v{broker_high}; "
                    f"staticconsumer implements v{ours_low}-v{ours_high}"
                )
            continue
        chosen[field] = version
    if problems:
        raise UnsupportedBrokerError(
            "The broker cannot carry group.instance.id (KIP-345 needs Apache Kafka 2.3 or newer): "
            + "; ".join(problems)
        )
    return GroupApiVersions(**chosen, broker=MappingProxyType(dict(broker_versions)))


def api_versions_from_response(response: Any) -> dict[int, tuple[int, int]]:
    """``{api_key: (min_version, max_version)}`` from an aiokafka ``ApiVersionResponse_v*``.

    Get one with ``await client.send(node_id, aiokafka.protocol.admin.ApiVersionRequest())``.
    """
    error_code = getattr(response, "error_code", None)
    rows = getattr(response, "api_versions", None)
    if error_code != 0 or rows is None:
        raise ProtocolError(f"ApiVersions failed (error code {error_code}): {response!r}")
    return {int(key): (int(low), int(high)) for key, low, high in rows}


def negotiate_consumer_group_heartbeat(broker_versions: Mapping[int, tuple[int, int]]) -> int:
    """The ConsumerGroupHeartbeat (api key 68, KIP-848) version to send: the highest both sides
    implement. A broker that does not announce the API (before Apache Kafka 4.0, or with
    ``group.coordinator.rebalance.protocols`` lacking ``consumer``) gets an
    :class:`~staticconsumer.errors.UnsupportedBrokerError` that says so; the classic protocol
    (``group_protocol="classic"``) still works with it.
    """
    api_key = ApiKey.CONSUMER_GROUP_HEARTBEAT
    ours_low, ours_high = IMPLEMENTED_VERSIONS[api_key]
    broker = broker_versions.get(api_key)
    label = f"{api_name(api_key)} (api key {int(api_key)})"
    if broker is None:
        raise UnsupportedBrokerError(
            f"The broker does not announce {label}: group_protocol='consumer' (KIP-848) needs "
            "Apache Kafka 4.0 or newer with 'consumer' in group.coordinator.rebalance.protocols; "
            "use group_protocol='classic' with this broker"
        )
    broker_low, broker_high = broker
    version = min(ours_high, broker_high)
    if version < max(ours_low, broker_low):
        raise UnsupportedBrokerError(
            f"{label}: the broker supports v{broker_low}-v{broker_high}; "
            f"staticconsumer implements v{ours_low}-v{ours_high}"
        )
    return version
