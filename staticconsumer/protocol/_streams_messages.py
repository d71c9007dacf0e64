"""Wire layouts of the streams group APIs (KIP-1071), one schema function per message, per
version, following Apache Kafka's message specs
(``clients/src/main/resources/common/message/StreamsGroup*.json``, kafka-clients 4.4.0); a
field's ``"versions": "N+"`` appears as ``since(version, N, ...)``, ``"versions": "0"`` as
``until``.

==================  ===  ========  ========  ==============================================
API                 key  versions  flexible  notes
==================  ===  ========  ========  ==============================================
StreamsGroup-       88   0-1       0+        join at epoch 0 with the topology; tasks
Heartbeat                                    assigned by the broker; static members (4.4):
                                             InstanceId, epoch -2 on a static stop; v1: the
                                             acceptable recovery lag as int64, whether the
                                             broker needs the topology description
StreamsGroup-       89   0-1       0+        a streams group's topology, members, tasks and
Describe                                     task offsets; v1: the topology description, its
                                             status and the assignor's name
==================  ===  ========  ========  ==============================================
"""

from __future__ import annotations

from staticconsumer.protocol._types import (
    Boolean,
    Field,
    FixedInt,
    Int8,
    Int16,
    Int32,
    Int64,
    NullableStruct,
    Schema,
    WireType,
)
from staticconsumer.protocol._wire import Wire, since

#: ``uint16`` (an endpoint's port).
UInt16 = FixedInt("uint16", ">H")


def until(version: int, last: int, *fields: Field) -> tuple[Field, ...]:
    """``fields`` when ``version <= last`` (a JSON spec's ``"versions": "0-<last>"``)."""
    return fields if version <= last else ()


def _common(w: Wire) -> dict[str, WireType]:
    """The spec's ``commonStructs`` shared by both APIs, and the arrays of them they use (a
    struct array is ``array_of`` its struct: each element ends with its tagged fields)."""
    key_value = w.schema(("key", w.string), ("value", w.string))
    topic_info = w.schema(
        ("name", w.string),
        ("partitions", Int32),
        ("replication_factor", Int16),
        ("topic_configs", w.array_of(key_value)),
    )
    return {
        "key_values": w.array_of(key_value),
        "tasks": w.array_of(
            w.schema(("subtopology_id", w.string), ("partitions", w.array_of(Int32)))
        ),
        "offsets": w.array_of(
            w.schema(("subtopology_id", w.string), ("partition", Int32), ("offset", Int64))
        ),
        "topic_infos": w.array_of(topic_info),
    }


def _endpoint(w: Wire) -> Schema:
    """The spec's ``Endpoint``: a host and its uint16 port."""
    return w.schema(("host", w.string), ("port", UInt16))


def _heartbeat_topology(w: Wire, c: dict[str, WireType]) -> NullableStruct:
    """The topology a member sends when it joins (null otherwise)."""
    subtopology = w.array(
        ("subtopology_id", w.string),
        ("source_topics", w.array_of(w.string)),
        ("source_topic_regex", w.array_of(w.string)),
        ("state_changelog_topics", c["topic_infos"]),
        ("repartition_sink_topics", w.array_of(w.string)),
        ("repartition_source_topics", c["topic_infos"]),
        (
            "copartition_groups",
            w.array(
                ("source_topics", w.array_of(Int16)),
                ("source_topic_regex", w.array_of(Int16)),
                ("repartition_source_topics", w.array_of(Int16)),
            ),
        ),
    )
    return NullableStruct(w.schema(("epoch", Int32), ("subtopologies", subtopology)))


def streams_group_heartbeat(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=True)
    c = _common(w)
    tasks, offsets = c["tasks"], c["offsets"]
    request = w.schema(
        ("group_id", w.string),
        ("member_id", w.string),
        ("member_epoch", Int32),
        ("endpoint_information_epoch", Int32),
        ("instance_id", w.string),
        ("rack_id", w.string),
        ("rebalance_timeout_ms", Int32),
        ("topology", _heartbeat_topology(w, c)),
        ("active_tasks", tasks),
        ("standby_tasks", tasks),
        ("warmup_tasks", tasks),
        ("process_id", w.string),
        ("user_endpoint", NullableStruct(_endpoint(w))),
        ("client_tags", c["key_values"]),
        ("task_offsets", offsets),
        ("task_end_offsets", offsets),
        ("shutdown_application", Boolean),
    )
    topic_partitions = w.array(("topic", w.string), ("partitions", w.array_of(Int32)))
    response = w.schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("error_message", w.string),
        ("member_id", w.string),
        ("member_epoch", Int32),
        ("heartbeat_interval_ms", Int32),
        *until(v, 0, ("acceptable_recovery_lag_legacy", Int32)),
        ("task_offset_interval_ms", Int32),
        *since(v, 1, ("acceptable_recovery_lag", Int64)),
        ("status", w.array(("status_code", Int8), ("status_detail", w.string))),
        ("active_tasks", tasks),
        ("standby_tasks", tasks),
        ("warmup_tasks", tasks),
        *since(v, 1, ("topology_description_required", Boolean)),
        ("endpoint_information_epoch", Int32),
        (
            "partitions_by_user_endpoint",
            w.array(
                ("user_endpoint", _endpoint(w)),
                ("active_partitions", topic_partitions),
                ("standby_partitions", topic_partitions),
            ),
        ),
    )
    return request, response


def _topology_description(w: Wire) -> NullableStruct:
    node = w.schema(
        ("name", w.string),
        ("node_type", Int8),
        ("source_topics", w.array_of(w.string)),
        ("sink_topic", w.string),
        ("stores", w.array_of(w.string)),
        ("successors", w.array_of(w.string)),
    )
    return NullableStruct(
        w.schema(
            (
                "subtopologies",
                w.array(("subtopology_id", w.string), ("nodes", w.array_of(node))),
            ),
            ("global_stores", w.array(("source", node), ("processor", node))),
        )
    )


def streams_group_describe(v: int) -> tuple[Schema, Schema]:
    w = Wire(flexible=True)
    c = _common(w)
    request = w.schema(
        ("group_ids", w.array_of(w.string)),
        ("include_authorized_operations", Boolean),
        *since(v, 1, ("include_topology_description", Boolean)),
    )
    tasks, offsets, topic_infos = c["tasks"], c["offsets"], c["topic_infos"]
    assignment = w.schema(
        ("active_tasks", tasks), ("standby_tasks", tasks), ("warmup_tasks", tasks)
    )
    subtopology = w.array(
        ("subtopology_id", w.string),
        ("source_topics", w.array_of(w.string)),
        ("repartition_sink_topics", w.array_of(w.string)),
        ("state_changelog_topics", topic_infos),
        ("repartition_source_topics", topic_infos),
    )
    member = w.array(
        ("member_id", w.string),
        ("member_epoch", Int32),
        ("instance_id", w.string),
        ("rack_id", w.string),
        ("client_id", w.string),
        ("client_host", w.string),
        ("topology_epoch", Int32),
        ("process_id", w.string),
        ("user_endpoint", NullableStruct(_endpoint(w))),
        ("client_tags", c["key_values"]),
        ("task_offsets", offsets),
        ("task_end_offsets", offsets),
        ("assignment", assignment),
        ("target_assignment", assignment),
        ("is_classic", Boolean),
    )
    group = w.array(
        ("error_code", Int16),
        ("error_message", w.string),
        ("group_id", w.string),
        ("group_state", w.string),
        ("group_epoch", Int32),
        ("assignment_epoch", Int32),
        ("topology", NullableStruct(w.schema(("epoch", Int32), ("subtopologies", subtopology)))),
        ("members", member),
        ("authorized_operations", Int32),
        *since(v, 1, ("topology_description", _topology_description(w))),
        *since(v, 1, ("topology_description_status", Int8)),
        *since(v, 1, ("assignor_name", w.string)),
    )
    response = w.schema(("throttle_time_ms", Int32), ("groups", group))
    return request, response
