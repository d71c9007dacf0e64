"""The membership-event record (``docs/membership-events.md``, schema v1) as Spark types.

:func:`parse_events` turns Kafka's ``value`` column (bytes or string JSON) into one typed column per
field. Records that are not schema v1 membership events (other schemas, other versions, JSON that
does not parse, events without ``event_id``/``type``/``ts_ms``/``group_id``) are dropped here and
counted by :func:`input_counts`.

The schema name, version, field names and type values are :mod:`staticconsumer.events`' own (its
public names), so the report reads what the consumer writes; only the Spark type of each field is
said here (``tests/analytics/test_schema.py`` ties the two).
"""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
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

from ..events import (
    FIELDS,
    SCHEMA,
    SCHEMA_VERSION,
    EnforceRebalanceRequested,
    GroupJoined,
    GroupLeft,
    InstanceFenced,
    JoinGroupReason,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)

# The names the event record uses, read from staticconsumer.events (the writer), not repeated;
# SCHEMA_VERSION too (imported above).
SCHEMA_NAME = SCHEMA

JOIN_REASON = JoinGroupReason.type
JOINED = GroupJoined.type
ASSIGNED = PartitionsAssigned.type
REVOKED = PartitionsRevoked.type
ENFORCE_REQUESTED = EnforceRebalanceRequested.type
LEFT = GroupLeft.type
FENCED = InstanceFenced.type
SESSION_EXPIRED = SessionExpired.type
#: Types after which a member holds no partitions (until its next non-empty ``assigned``).
RELEASING_TYPES = (REVOKED, LEFT, FENCED, SESSION_EXPIRED)

PARTITION = StructType(
    [StructField("topic", StringType()), StructField("partition", IntegerType())]
)

#: The Spark type of each field of :data:`staticconsumer.events.FIELDS` (what the JSON cannot
#: say: ``seq`` and ``ts_ms`` are 64-bit, ``generation_id`` and a partition Kafka's int32).
FIELD_TYPES: Mapping[str, DataType] = {
    "schema": StringType(), "version": IntegerType(), "event_id": StringType(),
    "seq": LongType(), "type": StringType(), "ts_ms": LongType(), "group_id": StringType(),
    "client_id": StringType(), "host": StringType(), "group_instance_id": StringType(),
    "member_id": StringType(), "generation_id": IntegerType(), "leader": BooleanType(),
    "protocol": StringType(), "partitions": ArrayType(PARTITION), "reason": StringType(),
    "api": StringType(), "other_holder": StringType(),
}  # fmt: skip

#: The JSON object of one record, field for field, in the order ``events.FIELDS`` writes them
#: (a field added there without a type here fails at import, naming it).
EVENT_SCHEMA = StructType([StructField(name, FIELD_TYPES[name]) for name in FIELDS])
EVENT_COLUMNS = tuple(field.name for field in EVENT_SCHEMA.fields if field.name != "schema")


def _valid(event: Column) -> Column:
    return (
        (event["schema"] == SCHEMA_NAME)
        & (event["version"] == SCHEMA_VERSION)
        & event["event_id"].isNotNull()
        & event["type"].isNotNull()
        & event["ts_ms"].isNotNull()
        & event["group_id"].isNotNull()
    )


def parse_records(values: DataFrame) -> DataFrame:
    """Every record, parsed: the columns :data:`EVENT_COLUMNS` and ``valid`` (a v1 event)."""
    event = F.from_json(F.col("value").cast("string"), EVENT_SCHEMA)
    parsed = values.select(event.alias("event"))
    return parsed.select(
        *[F.col("event")[name].alias(name) for name in EVENT_COLUMNS],
        F.coalesce(_valid(F.col("event")), F.lit(False)).alias("valid"),
    )


def valid_events(records: DataFrame) -> DataFrame:
    """The valid events of :func:`parse_records`, without the ``valid`` column."""
    return records.where(F.col("valid")).drop("valid")


def parse_events(values: DataFrame) -> DataFrame:
    """One row per valid v1 event, columns :data:`EVENT_COLUMNS` (``schema`` is dropped)."""
    return valid_events(parse_records(values))


def input_counts(records: DataFrame) -> DataFrame:
    """One row from :func:`parse_records`' output: ``records`` read, ``valid`` v1 events among
    them, ``distinct_events`` (by ``event_id``)."""
    valid_id = F.when(F.col("valid"), F.col("event_id"))
    return records.agg(
        F.count(F.lit(1)).alias("records"),
        F.count(valid_id).alias("valid"),
        F.countDistinct(valid_id).alias("distinct_events"),
    )


def in_range(events: DataFrame, since_ms: int | None, until_ms: int | None) -> DataFrame:
    """Events with ``since_ms <= ts_ms < until_ms`` (either bound may be open)."""
    condition = F.lit(True)
    if since_ms is not None:
        condition = condition & (F.col("ts_ms") >= F.lit(since_ms))
    if until_ms is not None:
        condition = condition & (F.col("ts_ms") < F.lit(until_ms))
    return events.where(condition)


def deduplicate(events: DataFrame) -> DataFrame:
    """One row per ``event_id`` (publishing is at-least-once; copies are identical)."""
    return events.dropDuplicates(["event_id"])


def owner() -> Column:
    """Who holds a partition: ``group_instance_id``, or ``member_id`` for a dynamic member."""
    return F.coalesce(F.col("group_instance_id"), F.col("member_id"))


def partition_count() -> Column:
    """How many partitions an event lists (0 when it lists none)."""
    return F.when(F.col("partitions").isNull(), F.lit(0)).otherwise(F.size("partitions"))
