"""Choose the group API versions to use with a broker, from its ApiVersions answer: every version
rule of this package is here.

For each API we take the highest version both the broker and this package implement. Static
membership needs ``group_instance_id`` on every one of them (KIP-345: Kafka 2.4+, as 2.3 has it on
JoinGroup, SyncGroup, Heartbeat and OffsetCommit but not yet on LeaveGroup and DescribeGroups,
which the admin path and the fence diagnosis use); for a static
member a broker that cannot reach those versions gets an
:class:`~staticconsumer.errors.UnsupportedBrokerError`, never a silent downgrade to a request that
would leave the instance id out. A member *without* an instance id (``static_member=False``) is
served by older brokers too, as KIP-345 asks of clients ("downgrade to the versions the broker
has and work as before"): down to the newest versions of Apache Kafka 2.1 (the oldest broker the
Java client 4.x serves, KIP-896), which this package also implements; the membership logic never
knows which it got.

The consumer group protocol's APIs (KIP-848: ConsumerGroupHeartbeat, ConsumerGroupDescribe, and
Metadata v12 for topic ids) are optional fields of :class:`GroupApiVersions`, None when the broker
cannot serve them: a classic member needs none. A consumer-protocol member asks
:meth:`GroupApiVersions.for_consumer_protocol`, which applies its rules (those APIs, and
OffsetCommit v9 or newer) and says precisely what the broker lacks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from staticconsumer.errors import ProtocolError, UnsupportedBrokerError
from staticconsumer.protocol._messages import IMPLEMENTED_VERSIONS, ApiKey, api_name
from staticconsumer.protocol.features import GROUP_VERSION, FinalizedFeatures, require_feature

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


#: KIP-800 (Kafka 3.1): the first versions that carry a reason, JoinGroup v8 and LeaveGroup v5.
#: An older broker gets the request without it (Kafka marks the field ignorable).
JOIN_GROUP_REASON_MIN_VERSION = 8
LEAVE_GROUP_REASON_MIN_VERSION = 5

#: OffsetCommit v9 is the first a consumer-protocol member may send (the coordinator refuses
#: older ones from such members: the member epoch is checked from v9 on).
CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT = 9

#: ConsumerGroupHeartbeat v1 (KIP-1082: the client makes its member id, as this package does) is
#: what Apache Kafka 4.0 serves, the first line where the consumer protocol is generally
#: available. Kafka 3.7 to 3.9 list v0 alone, the early access that answers UNSUPPORTED_VERSION
#: unless ``group.coordinator.rebalance.protocols`` has ``consumer`` (measured on 3.7.2, 3.9.1).
CONSUMER_PROTOCOL_MIN_HEARTBEAT = 1
#: Where a broker refusing the consumer protocol leaves the user: the words every refusal ends on.
_USE_CLASSIC = "use group_protocol='classic' on this cluster"


@dataclass(frozen=True)
class ConsumerProtocolVersions:
    """The versions a consumer-protocol member (KIP-848) sends, from
    :meth:`GroupApiVersions.for_consumer_protocol`: none of them is missing, but
    ConsumerGroupDescribe (used only to name who holds our instance id) may be."""

    consumer_group_heartbeat: int
    metadata: int
    offset_commit: int
    offset_fetch: int
    consumer_group_describe: int | None


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
    #: ConsumerGroupHeartbeat (KIP-848); None when the broker does not announce it (before
    #: Kafka 4.0, or without ``consumer`` in group.coordinator.rebalance.protocols) or announces
    #: no version this package implements.
    consumer_group_heartbeat: int | None = None
    #: ConsumerGroupDescribe (KIP-848); None likewise: the broker has no consumer groups.
    consumer_group_describe: int | None = None
    #: Metadata v12+ (topic ids, KIP-516), which a consumer-protocol member needs; None below.
    metadata: int | None = None
    #: The broker's whole ApiVersions answer, for the precise refusals of
    #: :meth:`for_consumer_protocol`.
    broker: Mapping[int, tuple[int, int]] = dataclasses.field(
        default_factory=lambda: MappingProxyType({}), compare=False, repr=False
    )
    #: The cluster's finalized features (ApiVersions v3, asked for the consumer and streams
    #: protocols only); None: not asked, or the broker is older than Kafka 2.4.
    features: FinalizedFeatures | None = dataclasses.field(default=None, compare=False)

    @property
    def join_group_carries_reason(self) -> bool:
        """JoinGroup v8+ (KIP-800, Kafka 3.1): ``enforce_rebalance``'s reason reaches the
        coordinator's log; below, it is dropped."""
        return self.join_group >= JOIN_GROUP_REASON_MIN_VERSION

    @property
    def leave_group_carries_reason(self) -> bool:
        """LeaveGroup v5+ (KIP-800, Kafka 3.1): a leave's reason reaches the coordinator's log."""
        return self.leave_group >= LEAVE_GROUP_REASON_MIN_VERSION

    def for_consumer_protocol(self) -> ConsumerProtocolVersions:
        """The versions a consumer-protocol member (``group_protocol="consumer"``, KIP-848)
        sends; :class:`~staticconsumer.errors.UnsupportedBrokerError` naming what the broker
        lacks: ConsumerGroupHeartbeat v1 (checked first: before Kafka 4.0 it is the one to
        name), OffsetCommit v9, Metadata v12."""
        # A missing field: its negotiation says why (it raises), from the broker's answer.
        heartbeat = self.consumer_group_heartbeat
        if heartbeat is None:
            heartbeat = negotiate_consumer_group_heartbeat(self.broker)
        if self.offset_commit < CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT:
            raise UnsupportedBrokerError(
                f"OffsetCommit v{self.offset_commit} is the broker's newest: "
                f"group_protocol='consumer' (KIP-848) needs v{CONSUMER_PROTOCOL_MIN_OFFSET_COMMIT}"
            )
        require_feature(self.features, GROUP_VERSION, "group_protocol='consumer' (KIP-848)",
                        _USE_CLASSIC)  # fmt: skip
        metadata = self.metadata
        if metadata is None:
            metadata = negotiate_metadata(self.broker)
        return ConsumerProtocolVersions(
            consumer_group_heartbeat=heartbeat, metadata=metadata,
            offset_commit=self.offset_commit, offset_fetch=self.offset_fetch,
            consumer_group_describe=self.consumer_group_describe,
        )  # fmt: skip


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


def negotiate(
    broker_versions: Mapping[int, tuple[int, int]], *, static_member: bool = True
) -> GroupApiVersions:
    """The highest common version of each group API.

    ``broker_versions`` maps api key to the broker's ``(min_version, max_version)``, as in its
    ApiVersions response (see :func:`api_versions_from_response`). ``static_member``: whether
    the member sends a ``group_instance_id`` (the admin calls, which name members by it, are
    static too). Raises :class:`~staticconsumer.errors.UnsupportedBrokerError` naming every API
    the broker cannot serve at a version the member needs, with the broker's range and that
    version: static membership's (KIP-345), or else this package's oldest (Kafka 2.1's).
    """
    chosen: dict[str, Any] = {}  # field -> version (Any: the dataclass has other fields)
    problems: list[str] = []
    for field, api_key in _FIELDS:
        version, problem = _choose(api_key, broker_versions.get(api_key), static_member)
        if problem:
            problems.append(problem)
        else:
            chosen[field] = version
    if problems and static_member:
        dynamic = all(not _choose(k, broker_versions.get(k), False)[1] for _, k in _FIELDS)
        raise UnsupportedBrokerError(
            "The broker cannot carry group.instance.id on every group API (KIP-345: Apache Kafka "
            "2.4 or newer): "
            + "; ".join(problems)
            + (". A member without group_instance_id works with this broker" if dynamic else "")
        )
    if problems:
        raise UnsupportedBrokerError(
            f"The broker is older than staticconsumer serves ({_OLDEST_BROKER} or newer): "
            + "; ".join(problems)
        )
    return GroupApiVersions(
        **chosen,
        consumer_group_heartbeat=_optional(negotiate_consumer_group_heartbeat, broker_versions),
        consumer_group_describe=_optional(negotiate_consumer_group_describe, broker_versions),
        metadata=_optional(negotiate_metadata, broker_versions),
        broker=MappingProxyType(dict(broker_versions)),
    )


#: The oldest broker whose newest versions this package implements for a dynamic member.
_OLDEST_BROKER = "Apache Kafka 2.1"


def _choose(
    api_key: ApiKey, broker: tuple[int, int] | None, static_member: bool
) -> tuple[int, str]:
    """The version of ``api_key`` to send, or ``(-1, why not)``: the highest both sides have,
    at least static membership's first version for a static member (KIP-345)."""
    ours_low, ours_high = IMPLEMENTED_VERSIONS[api_key]
    low = max(STATIC_MEMBERSHIP_MIN_VERSIONS[api_key], ours_low) if static_member else ours_low
    label = f"{api_name(api_key)} (api key {int(api_key)})"
    if broker is None:
        return -1, f"{label}: the broker does not support it; v{low}+ is needed"
    broker_low, broker_high = broker
    version = min(ours_high, broker_high)
    if version >= max(low, broker_low):
        return version, ""
    served = f"{label}: the broker supports v{broker_low}-v{broker_high}"
    if broker_high < low and static_member:
        return -1, f"{served}; static membership needs v{low} or newer"
    return -1, f"{served}; staticconsumer implements v{low}-v{ours_high}"


def _optional(
    rule: Callable[[Mapping[int, tuple[int, int]]], int | None],
    broker_versions: Mapping[int, tuple[int, int]],
) -> int | None:
    """A KIP-848 API's version, or None where its rule refuses the broker: a classic member
    needs none of them, and :meth:`GroupApiVersions.for_consumer_protocol` raises the refusal."""
    try:
        return rule(broker_versions)
    except UnsupportedBrokerError:
        return None


def api_versions_from_response(response: Any) -> dict[int, tuple[int, int]]:
    """``{api_key: (min_version, max_version)}`` from an ApiVersions response: any object
    with ``error_code`` and ``api_versions`` rows ``(api key, min, max)`` (the seam sends
    aiokafka's ApiVersions request: ``staticconsumer._compat.negotiate_versions``)."""
    error_code = getattr(response, "error_code", None)
    rows = getattr(response, "api_versions", None)
    if error_code != 0 or rows is None:
        raise ProtocolError(f"ApiVersions failed (error code {error_code}): {response!r}")
    return {int(key): (int(low), int(high)) for key, low, high in rows}


def negotiate_consumer_group_heartbeat(broker_versions: Mapping[int, tuple[int, int]]) -> int:
    """The ConsumerGroupHeartbeat (api key 68, KIP-848) version to send: the highest both sides
    implement, v1 at least. A broker that does not announce the API (before Apache Kafka 3.7, or
    with ``group.coordinator.rebalance.protocols`` lacking ``consumer``) or announces v0 alone
    (3.7 to 3.9, :data:`CONSUMER_PROTOCOL_MIN_HEARTBEAT`) gets an
    :class:`~staticconsumer.errors.UnsupportedBrokerError` in one sentence: the consumer protocol
    needs Kafka 4.0, and the classic protocol (``group_protocol="classic"``) works here.
    """
    api_key = ApiKey.CONSUMER_GROUP_HEARTBEAT
    ours_low, ours_high = IMPLEMENTED_VERSIONS[api_key]
    broker = broker_versions.get(api_key)
    label = f"{api_name(api_key)} (api key {int(api_key)})"
    if broker is None:
        raise UnsupportedBrokerError(
            "group_protocol='consumer' (KIP-848) needs Apache Kafka 4.0 or newer with 'consumer' "
            f"in group.coordinator.rebalance.protocols, and this broker does not announce {label}: "
            f"{_USE_CLASSIC}"
        )
    broker_low, broker_high = broker
    if broker_high < CONSUMER_PROTOCOL_MIN_HEARTBEAT:
        raise UnsupportedBrokerError(
            "group_protocol='consumer' (KIP-848) needs Apache Kafka 4.0 or newer, and this broker "
            f"announces {label} v{broker_low}-v{broker_high} only (the early access of Kafka 3.7 "
            f"to 3.9): {_USE_CLASSIC}"
        )
    version = min(ours_high, broker_high)
    if version < max(ours_low, broker_low):
        raise UnsupportedBrokerError(
            f"{label}: the broker supports v{broker_low}-v{broker_high}; "
            f"staticconsumer implements v{ours_low}-v{ours_high}"
        )
    return version


def negotiate_metadata(broker_versions: Mapping[int, tuple[int, int]]) -> int:
    """The Metadata version to send: v13 where the broker has it (its top-level error carries
    REBOOTSTRAP_REQUIRED, KIP-1102), else v12; a broker without v12 (Kafka 3.1+) is refused."""
    ours_low, ours_high = IMPLEMENTED_VERSIONS[ApiKey.METADATA]
    broker = broker_versions.get(ApiKey.METADATA)
    if broker is None or min(ours_high, broker[1]) < max(ours_low, broker[0]):
        served = "no version" if broker is None else f"v{broker[0]}-v{broker[1]}"
        raise UnsupportedBrokerError(
            f"Metadata (api key 3): the broker supports {served}; "
            f"topic ids (KIP-516) for group_protocol='consumer' need v{ours_low}"
        )
    return min(ours_high, broker[1])


def negotiate_consumer_group_describe(broker_versions: Mapping[int, tuple[int, int]]) -> int | None:
    """The ConsumerGroupDescribe version to send, or None when the broker has no consumer
    groups to describe (before Kafka 4.0, or the consumer protocol switched off)."""
    ours_low, ours_high = IMPLEMENTED_VERSIONS[ApiKey.CONSUMER_GROUP_DESCRIBE]
    broker = broker_versions.get(ApiKey.CONSUMER_GROUP_DESCRIBE)
    if broker is None:
        return None
    version = min(ours_high, broker[1])
    if version < max(ours_low, broker[0]):
        raise UnsupportedBrokerError(
            f"ConsumerGroupDescribe (api key 69): the broker supports v{broker[0]}-v{broker[1]}; "
            f"staticconsumer implements v{ours_low}-v{ours_high}"
        )
    return version
