"""The membership-event record (``docs/membership-events.md``, schema v1) as Spark types.

:func:`parse_events` turns Kafka's ``value`` column (bytes or string JSON) into one typed column per
field. Records that are not schema v1 membership events (other schemas, other versions, JSON that
does not parse, events without ``event_id``/``type``/``ts_ms``/``group_id``) are dropped here and
counted by :func:`input_counts`.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

SCHEMA_NAME = "staticconsumer.membership-event"
SCHEMA_VERSION = 1

JOIN_REASON = "join_reason"
JOINED = "joined"
ASSIGNED = "assigned"
REVOKED = "revoked"
ENFORCE_REQUESTED = "enforce_requested"
LEFT = "left"
FENCED = "fenced"
SESSION_EXPIRED = "session_expired"
#: Types after which a member holds no partitions (until its next non-empty ``assigned``).
RELEASING_TYPES = (REVOKED, LEFT, FENCED, SESSION_EXPIRED)

PARTITION = StructType(
    [StructField("topic", StringType()), StructField("partition", IntegerType())]
)

#: The JSON object of one record, field for field.
EVENT_SCHEMA = StructType(
    [
        StructField("schema", StringType()),
        StructField("version", IntegerType()),
        StructField("event_id", StringType()),
        StructField("seq", LongType()),
        StructField("type", StringType()),
        StructField("ts_ms", LongType()),
        StructField("group_id", StringType()),
        StructField("client_id", StringType()),
        StructField("host", StringType()),
        StructField("group_instance_id", StringType()),
        StructField("member_id", StringType()),
        StructField("generation_id", IntegerType()),
        StructField("leader", BooleanType()),
        StructField("protocol", StringType()),
        StructField("partitions", ArrayType(PARTITION)),
        StructField("reason", StringType()),
        StructField("api", StringType()),
        StructField("other_holder", StringType()),
    ]
)
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
