"""Wire layouts of the group APIs, one schema function per message, per version.

Each function follows the field list of Apache Kafka's message spec
(``clients/src/main/resources/common/message/<Name>.json``); a field's ``"versions": "N+"`` appears
here as ``since(version, N, ...)``. The versions that can carry ``group_instance_id`` (KIP-345) are
declared, and below them the newest versions of Apache Kafka 2.1 and 2.2 (the oldest brokers the
Java client 4.x still serves, KIP-896), which a member *without* an instance id falls back to
(KIP-345's compatibility rule; :func:`~staticconsumer.protocol.negotiate`). Older ones are not.

==============  ===  ==========  ========  =================================================
API             key  versions    flexible  notes
==============  ===  ==========  ========  =================================================
Metadata        3    12          9+        topic ids (KIP-516) for the consumer protocol,
                                           which names topics by id; v12: nullable names
FindCoordinator 10   1-4         3+        v4 batches keys (KIP-699)
JoinGroup       11   3-9         6+        v4: MEMBER_ID_REQUIRED (KIP-394); v5:
                                           group_instance_id (KIP-345); v7 response:
                                           protocol_type; v8: reason (KIP-800); v9 response:
                                           skip_assignment
Heartbeat       12   2-4         4+        v3: group_instance_id
LeaveGroup      13   2-5         4+        v2: one member_id; v3: members[] (KIP-345); v5:
                                           per-member reason
SyncGroup       14   2-5         4+        v3: group_instance_id; v5: protocol_type /
                                           protocol_name (KIP-559)
DescribeGroups  15   2-6         5+        v3: authorized operations (KIP-430); v4: member
                                           group_instance_id; v6: error_message
OffsetCommit    8    6-9         8+        v7: group_instance_id; v10 names topics by id only
                                           (KIP-848): a classic consumer stops at v9, as Java's
OffsetFetch     9    5-9         6+        v5: committed_leader_epoch (KIP-320); v7:
                                           require_stable (KIP-447); v8: groups[] (KIP-709);
                                           v9: member id and epoch (KIP-848); v10 is by id
ConsumerGroup-  68   0-1         0+        the consumer group protocol (KIP-848): topics by
Heartbeat                                  id; v1: subscribed_topic_regex, member ids made by
                                           the client (KIP-1082)
ConsumerGroup-  69   0-1         0+        a consumer group's members, epochs, assignments
Describe                                   and target assignments; v1: member_type
StreamsGroup-   88,  0-1         0+        streams groups (KIP-1071): _streams_messages.py
Heartbeat,      89
Describe
==============  ===  ==========  ========  =================================================
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol._api_versions import api_versions
from staticconsumer.protocol._streams_messages import (
    streams_group_describe,
    streams_group_heartbeat,
)
from staticconsumer.protocol._types import (
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    NullableStruct,
    Schema,
    Uuid,
)
from staticconsumer.protocol._wire import PinnedRequest, Struct, Wire, define, since, to_values


class ApiKey(enum.IntEnum):
    """Kafka API keys of the requests this package builds (names as in Kafka's ``ApiKeys``)."""

    METADATA = 3
    OFFSET_COMMIT = 8
    OFFSET_FETCH = 9
    FIND_COORDINATOR = 10
    JOIN_GROUP = 11
    HEARTBEAT = 12
    LEAVE_GROUP = 13
    SYNC_GROUP = 14
    DESCRIBE_GROUPS = 15
    API_VERSIONS = 18
    CONSUMER_GROUP_HEARTBEAT = 68
    CONSUMER_GROUP_DESCRIBE = 69
    STREAMS_GROUP_HEARTBEAT = 88
    STREAMS_GROUP_DESCRIBE = 89


def _join_group(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 6)
    request = w.schema(
        ("group_id", w.string),
        ("session_timeout_ms", Int32),
        ("rebalance_timeout_ms", Int32),
        ("member_id", w.string),
        *since(v, 5, ("group_instance_id", w.string)),
        ("protocol_type", w.string),
        ("protocols", w.array(("name", w.string), ("metadata", w.bytes))),
        *since(v, 8, ("reason", w.string)),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("generation_id", Int32),
        *since(v, 7, ("protocol_type", w.string)),
        ("protocol_name", w.string),
        ("leader", w.string),
        *since(v, 9, ("skip_assignment", Boolean)),
        ("member_id", w.string),
        (
            "members",
            w.array(
                ("member_id", w.string),
                *since(v, 5, ("group_instance_id", w.string)),
                ("metadata", w.bytes),
            ),
        ),
    )
    return request, response


def _sync_group(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 4)
    request = w.schema(
        ("group_id", w.string),
        ("generation_id", Int32),
        ("member_id", w.string),
        *since(v, 3, ("group_instance_id", w.string)),
        *since(v, 5, ("protocol_type", w.string), ("protocol_name", w.string)),
        ("assignments", w.array(("member_id", w.string), ("assignment", w.bytes))),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        *since(v, 5, ("protocol_type", w.string), ("protocol_name", w.string)),
        ("assignment", w.bytes),
    )
    return request, response


def _heartbeat(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 4)
    request = w.schema(
        ("group_id", w.string),
        ("generation_id", Int32),
        ("member_id", w.string),
        *since(v, 3, ("group_instance_id", w.string)),
    )
    response = w.schema(("throttle_time_ms", Int32), ("error_code", Int16))
    return request, response


def _leave_group(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 4)
    if v < 3:  # one member, by member id
        request = w.schema(("group_id", w.string), ("member_id", w.string))
        return request, w.schema(("throttle_time_ms", Int32), ("error_code", Int16))
    request = w.schema(
        ("group_id", w.string),
        (
            "members",
            w.array(
                ("member_id", w.string),
                ("group_instance_id", w.string),
                *since(v, 5, ("reason", w.string)),
            ),
        ),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        (
            "members",
            w.array(
                ("member_id", w.string),
                ("group_instance_id", w.string),
                ("error_code", Int16),
            ),
        ),
    )
    return request, response


def _offset_commit(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 8)
    request = w.schema(
        ("group_id", w.string),
        ("generation_id", Int32),  # GenerationIdOrMemberEpoch in the spec
        ("member_id", w.string),
        *since(v, 7, ("group_instance_id", w.string)),
        (
            "topics",
            w.array(
                ("name", w.string),
                (
                    "partitions",
                    w.array(
                        ("partition_index", Int32),
                        ("committed_offset", Int64),
                        ("committed_leader_epoch", Int32),
                        ("committed_metadata", w.string),
                    ),
                ),
            ),
        ),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        (
            "topics",
            w.array(
                ("name", w.string),
                ("partitions", w.array(("partition_index", Int32), ("error_code", Int16))),
            ),
        ),
    )
    return request, response


def _offset_fetch(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 6)
    wanted = (("name", w.string), ("partition_indexes", w.array_of(Int32)))
    fetched = w.array(
        ("partition_index", Int32),
        ("committed_offset", Int64),
        ("committed_leader_epoch", Int32),
        ("metadata", w.string),
        ("error_code", Int16),
    )
    if v < 8:
        request = w.schema(
            ("group_id", w.string),
            ("topics", w.array(*wanted)),
            *since(v, 7, ("require_stable", Boolean)),
        )
        response = w.schema(
            ("throttle_time_ms", Int32),
            ("topics", w.array(("name", w.string), ("partitions", fetched))),
            ("error_code", Int16),
        )
        return request, response
    group = (
        ("group_id", w.string),
        *since(v, 9, ("member_id", w.string), ("member_epoch", Int32)),
        ("topics", w.array(*wanted)),
    )
    request = w.schema(("groups", w.array(*group)), ("require_stable", Boolean))
    response = w.schema(
        ("throttle_time_ms", Int32),
        (
            "groups",
            w.array(
                ("group_id", w.string),
                ("topics", w.array(("name", w.string), ("partitions", fetched))),
                ("error_code", Int16),
            ),
        ),
    )
    return request, response


def _consumer_group_heartbeat(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=True)
    topic_partitions = w.array(("topic_id", Uuid), ("partitions", w.array_of(Int32)))
    request = w.schema(
        ("group_id", w.string),
        ("member_id", w.string),
        ("member_epoch", Int32),
        ("instance_id", w.string),
        ("rack_id", w.string),
        ("rebalance_timeout_ms", Int32),
        ("subscribed_topic_names", w.array_of(w.string)),
        *since(v, 1, ("subscribed_topic_regex", w.string)),
        ("server_assignor", w.string),
        ("topic_partitions", topic_partitions),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("error_message", w.string),
        ("member_id", w.string),
        ("member_epoch", Int32),
        ("heartbeat_interval_ms", Int32),
        ("assignment", NullableStruct(w.schema(("topic_partitions", topic_partitions)))),
    )
    return request, response


def _metadata(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=True)
    request = w.schema(
        ("topics", w.array(("topic_id", Uuid), ("name", w.string))),
        ("allow_auto_topic_creation", Boolean),
        ("include_topic_authorized_operations", Boolean),
    )
    partitions = w.array(
        ("error_code", Int16),
        ("partition_index", Int32),
        ("leader_id", Int32),
        ("leader_epoch", Int32),
        ("replica_nodes", w.array_of(Int32)),
        ("isr_nodes", w.array_of(Int32)),
        ("offline_replicas", w.array_of(Int32)),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        (
            "brokers",
            w.array(("node_id", Int32), ("host", w.string), ("port", Int32), ("rack", w.string)),
        ),
        ("cluster_id", w.string),
        ("controller_id", Int32),
        (
            "topics",
            w.array(
                ("error_code", Int16),
                ("name", w.string),
                ("topic_id", Uuid),
                ("is_internal", Boolean),
                ("partitions", partitions),
                ("topic_authorized_operations", Int32),
            ),
        ),
        # KIP-1102: the top-level error, REBOOTSTRAP_REQUIRED (129) when the client must go
        # back to its bootstrap servers
        *since(v, 13, ("error_code", Int16)),
    )
    return request, response


def _consumer_group_describe(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=True)
    request = w.schema(
        ("group_ids", w.array_of(w.string)),
        ("include_authorized_operations", Boolean),
    )
    topic = (("topic_id", Uuid), ("topic_name", w.string), ("partitions", w.array_of(Int32)))
    assignment = w.schema(("topic_partitions", w.array(*topic)))
    member = w.array(
        ("member_id", w.string),
        ("instance_id", w.string),
        ("rack_id", w.string),
        ("member_epoch", Int32),
        ("client_id", w.string),
        ("client_host", w.string),
        ("subscribed_topic_names", w.array_of(w.string)),
        ("subscribed_topic_regex", w.string),
        ("assignment", assignment),
        ("target_assignment", assignment),
        *since(v, 1, ("member_type", Int8)),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        (
            "groups",
            w.array(
                ("error_code", Int16),
                ("error_message", w.string),
                ("group_id", w.string),
                ("group_state", w.string),
                ("group_epoch", Int32),
                ("assignment_epoch", Int32),
                ("assignor_name", w.string),
                ("members", member),
                ("authorized_operations", Int32),
            ),
        ),
    )
    return request, response


def _describe_groups(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 5)
    request = w.schema(
        ("groups", w.array_of(w.string)),
        *since(v, 3, ("include_authorized_operations", Boolean)),
    )
    member = w.array(
        ("member_id", w.string),
        *since(v, 4, ("group_instance_id", w.string)),
        ("client_id", w.string),
        ("client_host", w.string),
        ("member_metadata", w.bytes),
        ("member_assignment", w.bytes),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        (
            "groups",
            w.array(
                ("error_code", Int16),
                *since(v, 6, ("error_message", w.string)),
                ("group_id", w.string),
                ("group_state", w.string),
                ("protocol_type", w.string),
                ("protocol_data", w.string),
                ("members", member),
                *since(v, 3, ("authorized_operations", Int32)),
            ),
        ),
    )
    return request, response


def _find_coordinator(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=v >= 3)
    if v >= 4:
        request = w.schema(("key_type", Int8), ("coordinator_keys", w.array_of(w.string)))
        response = w.schema(
            ("throttle_time_ms", Int32),
            (
                "coordinators",
                w.array(
                    ("key", w.string),
                    ("node_id", Int32),
                    ("host", w.string),
                    ("port", Int32),
                    ("error_code", Int16),
                    ("error_message", w.string),
                ),
            ),
        )
        return request, response
    request = w.schema(("key", w.string), ("key_type", Int8))
    response = w.schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("error_message", w.string),
        ("node_id", Int32),
        ("host", w.string),
        ("port", Int32),
    )
    return request, response


_Layout = Callable[[int], tuple[Schema, Schema]]

# api key -> (name, implemented versions, first flexible version, schema function)
_APIS: dict[int, tuple[str, range, int, _Layout]] = {
    ApiKey.METADATA: ("Metadata", range(12, 14), 9, _metadata),
    ApiKey.OFFSET_COMMIT: ("OffsetCommit", range(6, 10), 8, _offset_commit),
    ApiKey.OFFSET_FETCH: ("OffsetFetch", range(5, 10), 6, _offset_fetch),
    ApiKey.FIND_COORDINATOR: ("FindCoordinator", range(1, 5), 3, _find_coordinator),
    ApiKey.JOIN_GROUP: ("JoinGroup", range(3, 10), 6, _join_group),
    ApiKey.HEARTBEAT: ("Heartbeat", range(2, 5), 4, _heartbeat),
    ApiKey.LEAVE_GROUP: ("LeaveGroup", range(2, 6), 4, _leave_group),
    ApiKey.SYNC_GROUP: ("SyncGroup", range(2, 6), 4, _sync_group),
    ApiKey.DESCRIBE_GROUPS: ("DescribeGroups", range(2, 7), 5, _describe_groups),
    ApiKey.CONSUMER_GROUP_HEARTBEAT: (
        "ConsumerGroupHeartbeat",
        range(0, 2),
        0,
        _consumer_group_heartbeat,
    ),
    ApiKey.CONSUMER_GROUP_DESCRIBE: (
        "ConsumerGroupDescribe",
        range(0, 2),
        0,
        _consumer_group_describe,
    ),
    # KIP-1071 (_streams_messages.py)
    ApiKey.STREAMS_GROUP_HEARTBEAT: (
        "StreamsGroupHeartbeat",
        range(0, 2),
        0,
        streams_group_heartbeat,
    ),
    ApiKey.STREAMS_GROUP_DESCRIBE: ("StreamsGroupDescribe", range(0, 2), 0, streams_group_describe),
    # KIP-584's finalized features (_api_versions.py, features.py)
    ApiKey.API_VERSIONS: ("ApiVersions", range(3, 4), 3, api_versions),
}


def _declare() -> dict[tuple[int, int], tuple[type[Struct], type[Struct]]]:
    declared: dict[tuple[int, int], tuple[type[Struct], type[Struct]]] = {}
    for api_key, (name, versions, first_flexible, layout) in _APIS.items():
        for version in versions:
            request, response = layout(version)
            declared[api_key, version] = define(
                name,
                api_key,
                version,
                flexible=version >= first_flexible,
                request=request,
                response=response,
            )
    return declared


_DECLARED = _declare()

#: The versions this package implements per API: ``{api_key: (lowest, highest)}``.
IMPLEMENTED_VERSIONS: Mapping[int, tuple[int, int]] = MappingProxyType(
    {key: (versions[0], versions[-1]) for key, (_, versions, _, _) in _APIS.items()}
)


def api_name(api_key: int) -> str:
    """Kafka's message name for an API key, e.g. ``JoinGroup`` for 11."""
    known = _APIS.get(api_key)
    return known[0] if known else f"api key {api_key}"


def request_class(api_key: int, version: int) -> type[Any]:
    """The request struct (:class:`~._wire.Struct`) of one API version."""
    try:
        return _DECLARED[api_key, version][0]
    except KeyError:
        raise ValueError(_unsupported(api_key, version)) from None


def response_class(api_key: int, version: int) -> type[Any]:
    """The response struct of one API version (decode with ``.decode(bytes)``)."""
    try:
        return _DECLARED[api_key, version][1]
    except KeyError:
        raise ValueError(_unsupported(api_key, version)) from None


def _unsupported(api_key: int, version: int) -> str:
    implemented = IMPLEMENTED_VERSIONS.get(api_key)
    if implemented is None:
        return f"staticconsumer does not implement {api_name(api_key)}"
    low, high = implemented
    return f"{api_name(api_key)} v{version} is not implemented (staticconsumer has v{low}-v{high})"


def build_request(api_key: int, version: int, fields: Mapping[str, Any]) -> PinnedRequest:
    """A :class:`PinnedRequest` of ``version`` from field values (names as in the schemas above).

    Fields the version lacks are left out (:func:`~._wire.to_values`), except a
    ``group_instance_id``: a version before KIP-345's would send the request as a dynamic
    member's, so that raises :class:`~staticconsumer.errors.UnsupportedBrokerError` instead."""
    struct_class = request_class(api_key, version)
    instance_id = fields.get("group_instance_id")
    if instance_id is not None and "group_instance_id" not in struct_class.SCHEMA.names:
        raise UnsupportedBrokerError(
            f"{api_name(api_key)} v{version} cannot carry group_instance_id {instance_id!r} "
            "(KIP-345): a static member never falls back to it"
        )
    return PinnedRequest(struct_class(*to_values(struct_class.SCHEMA, fields)))
