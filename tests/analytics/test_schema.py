"""The report's event schema (``analytics/schema.py``) is the consumer's
(``staticconsumer.events``): every field the events module writes is in the Spark schema, under
its name, with a Spark type that holds the Python type the event classes declare, and nothing else
is; the type constants are the event classes' ``type`` values; and an event of each type read
through the schema comes back equal.

All but the last need no Spark session (``pyspark.sql.types`` is plain Python); the last one uses
the session the other analytics tests share.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

import pytest
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from staticconsumer import events
from staticconsumer.analytics import schema

#: The Spark types that hold each Python type an event field may have (ints: 32 or 64 bits).
SPARK_FOR: dict[object, tuple[DataType, ...]] = {
    str: (StringType(),),
    int: (IntegerType(), LongType()),
    bool: (BooleanType(),),
    events.Partitions: (
        ArrayType(
            StructType(
                [StructField("topic", StringType()), StructField("partition", IntegerType())]
            )
        ),
    ),
}


def _python_types() -> dict[str, set[object]]:
    """Field name -> the Python types the events module writes there (None stripped)."""
    found: dict[str, set[object]] = {
        "schema": {type(events.SCHEMA)},
        "version": {type(events.SCHEMA_VERSION)},
        "type": {type(cls.type) for cls in events.EVENT_TYPES.values()},
    }
    for cls in events.EVENT_TYPES.values():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            if isinstance(hint, types.UnionType):
                hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
            found.setdefault(f.name, set()).add(hint)
    return found


def test_the_schema_has_every_field_of_the_events_module_in_order_and_no_other() -> None:
    written = _python_types()
    assert set(written) == set(events.FIELDS)  # the events module agrees with itself
    assert [f.name for f in schema.EVENT_SCHEMA.fields] == list(events.FIELDS)
    assert set(schema.FIELD_TYPES) == set(events.FIELDS)


@pytest.mark.parametrize("name", events.FIELDS)
def test_each_fields_spark_type_holds_the_python_type_the_events_declare(name: str) -> None:
    (python_type,) = _python_types()[name]  # one Python type per field, across event types
    spark_type = schema.EVENT_SCHEMA[name].dataType
    assert spark_type in SPARK_FOR[python_type], (name, python_type, spark_type)


def test_the_64_bit_fields_are_long() -> None:
    # Milliseconds since the epoch and a publisher's sequence outgrow an int32.
    assert schema.EVENT_SCHEMA["ts_ms"].dataType == LongType()
    assert schema.EVENT_SCHEMA["seq"].dataType == LongType()


def test_the_type_constants_are_the_event_classes_types() -> None:
    constants = {
        schema.JOIN_REASON: events.JoinGroupReason,
        schema.JOINED: events.GroupJoined,
        schema.ASSIGNED: events.PartitionsAssigned,
        schema.REVOKED: events.PartitionsRevoked,
        schema.ENFORCE_REQUESTED: events.EnforceRebalanceRequested,
        schema.LEFT: events.GroupLeft,
        schema.FENCED: events.InstanceFenced,
        schema.SESSION_EXPIRED: events.SessionExpired,
    }
    assert constants == dict(events.EVENT_TYPES)
    assert (schema.SCHEMA_NAME, schema.SCHEMA_VERSION) == (events.SCHEMA, events.SCHEMA_VERSION)
    assert set(schema.RELEASING_TYPES) <= set(events.EVENT_TYPES)


COMMON: dict[str, Any] = dict(
    seq=2**40, ts_ms=1_767_225_600_123, group_id="g", client_id="c", host="h",
    group_instance_id="svc-0", member_id="svc-0-m", generation_id=2**31 - 1,
)  # fmt: skip
SAMPLES: list[events.MembershipEvent] = [
    events.JoinGroupReason(event_id="1" * 32, reason="rebalance needed", **COMMON),
    events.GroupJoined(event_id="2" * 32, leader=True, protocol="range", **COMMON),
    events.PartitionsAssigned(event_id="3" * 32, partitions=(("t", 0), ("u", 2)), **COMMON),
    events.PartitionsRevoked(event_id="4" * 32, partitions=(("t", 1),), reason="close", **COMMON),
    events.EnforceRebalanceRequested(event_id="5" * 32, reason="because", **COMMON),
    events.GroupLeft(event_id="6" * 32, reason="the consumer is being closed", **COMMON),
    events.InstanceFenced(event_id="7" * 32, api="Heartbeat", other_holder=None,
                          **{**COMMON, "group_instance_id": None}),
    events.SessionExpired(event_id="8" * 32, api="SyncGroup", **{**COMMON, "member_id": None}),
]  # fmt: skip


def test_samples_cover_every_event_type() -> None:
    assert {type(e) for e in SAMPLES} == set(events.EVENT_TYPES.values())


def test_each_event_type_read_through_the_schema_comes_back_equal(spark: Any) -> None:
    values = spark.createDataFrame([(e.to_json(),) for e in SAMPLES], "value string")
    rows = [r.asDict(recursive=True) for r in schema.parse_events(values).collect()]
    assert len(rows) == len(SAMPLES)
    read = [events.from_dict({"schema": events.SCHEMA, **row}) for row in rows]
    assert sorted(read, key=lambda e: e.event_id) == SAMPLES
