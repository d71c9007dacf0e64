"""Per-instance tables (restarts, time without partitions), fencing incidents and the timeline.

A static member is identified by ``(group_id, group_instance_id)``; its events are ordered by
``(ts_ms, seq, event_id)``. Like :mod:`.tables_group`, these functions are lazy DataFrame
operations on the de-duplicated events of the time range read.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F

from .schema import ASSIGNED, FENCED, JOINED, RELEASING_TYPES, owner, partition_count


def _instance_order() -> WindowSpec:
    return Window.partitionBy("group_id", "group_instance_id").orderBy("ts_ms", "seq", "event_id")


def _static(events: DataFrame) -> DataFrame:
    return events.where(F.col("group_instance_id").isNotNull())


def _before(column: Column) -> Column:
    """The last non-null value of ``column`` among the instance's earlier events."""
    earlier = _instance_order().rowsBetween(Window.unboundedPreceding, -1)
    return F.last(column, ignorenulls=True).over(earlier)


def restarts(events: DataFrame) -> DataFrame:
    """A ``joined`` of an instance id that earlier events showed with another member id.

    ``without_rebalance`` is true when its generation equals the generation the instance id last
    reported (its latest earlier event with ``generation_id >= 0``). Columns: group_id,
    group_instance_id, ts_ms, previous_member_id, member_id, previous_generation_id,
    generation_id, without_rebalance.
    """
    marked = _static(events).select(
        "group_id", "group_instance_id", "ts_ms", "type", "member_id", "generation_id",
        _before(F.col("member_id")).alias("previous_member_id"),
        _before(F.when(F.col("generation_id") >= 0, F.col("generation_id"))).alias(
            "previous_generation_id"
        ),
    )  # fmt: skip
    restarted = marked.where(
        (F.col("type") == JOINED)
        & F.col("previous_member_id").isNotNull()
        & (F.col("previous_member_id") != F.col("member_id"))
    )
    same_generation = F.col("previous_generation_id") == F.col("generation_id")
    return restarted.select(
        "group_id", "group_instance_id", "ts_ms", "previous_member_id", "member_id",
        "previous_generation_id", "generation_id",
        F.coalesce(same_generation, F.lit(False)).alias("without_rebalance"),
    )  # fmt: skip


def _holding() -> Column:
    """True/False when an event sets whether the member holds partitions, else null."""
    return F.when(F.col("type") == ASSIGNED, partition_count() > 0).when(
        F.col("type").isin(*RELEASING_TYPES), F.lit(False)
    )


def unassigned_periods(events: DataFrame, range_end_ms: int) -> DataFrame:
    """Stretches during which an instance id held no partitions.

    Holding starts at a non-empty ``assigned``; it ends at a ``revoked``, ``left``, ``fenced`` or
    ``session_expired`` or an empty ``assigned``. Before an instance's first ``assigned`` in the
    range it counts as holding nothing; its last stretch runs to ``range_end_ms``. Columns:
    group_id, group_instance_id, from_ms, to_ms, duration_ms.
    """
    order = _instance_order()
    running = order.rowsBetween(Window.unboundedPreceding, 0)
    state = F.coalesce(F.last(_holding(), ignorenulls=True).over(running), F.lit(False))
    stepped = _static(events).select(
        "group_id", "group_instance_id", "ts_ms", "seq", "event_id", state.alias("holding"),
        F.coalesce(F.lead("ts_ms").over(order), F.lit(range_end_ms)).alias("to_ms"),
    )  # fmt: skip
    # Consecutive idle steps form one stretch: they share the count of holding steps before them.
    stretch = F.sum(F.col("holding").cast("int")).over(running)
    idle = stepped.withColumn("stretch", stretch).where(~F.col("holding"))
    return (
        idle.groupBy("group_id", "group_instance_id", "stretch")
        .agg(F.min("ts_ms").alias("from_ms"), F.max("to_ms").alias("to_ms"))
        .select(
            "group_id", "group_instance_id", "from_ms", "to_ms",
            F.greatest(F.col("to_ms") - F.col("from_ms"), F.lit(0)).cast("long")
            .alias("duration_ms"),
        )
    )  # fmt: skip


def fencing_incidents(events: DataFrame) -> DataFrame:
    """One row per fenced member: who was fenced and who holds the instance id now.

    The holder is the fenced event's ``other_holder`` (``holder_source = "coordinator"``), else
    the member id of the instance's latest earlier ``joined`` under another member id
    (``"events"``). Client id and host of both come from their own events. Columns: group_id,
    group_instance_id, ts_ms, api, fenced_member_id, fenced_client_id, fenced_host,
    holder_member_id, holder_source, holder_client_id, holder_host.
    """
    last_joined = _before(F.when(F.col("type") == JOINED, F.col("member_id")))
    marked = _static(events).withColumn("last_joined_member_id", last_joined)
    fenced = marked.where(F.col("type") == FENCED)
    inferred = F.when(
        F.col("last_joined_member_id") != F.coalesce(F.col("member_id"), F.lit("")),
        F.col("last_joined_member_id"),
    )
    first = Window.partitionBy("group_id", "group_instance_id", "member_id").orderBy(
        "ts_ms", "event_id"
    )
    incidents = (
        fenced.withColumn("n", F.row_number().over(first))
        .where(F.col("n") == 1)
        .select(
            "group_id", "group_instance_id", "ts_ms", "api",
            F.col("member_id").alias("fenced_member_id"),
            F.col("client_id").alias("fenced_client_id"),
            F.col("host").alias("fenced_host"),
            F.coalesce(F.col("other_holder"), inferred).alias("holder_member_id"),
            F.when(F.col("other_holder").isNotNull(), F.lit("coordinator"))
            .when(inferred.isNotNull(), F.lit("events"))
            .alias("holder_source"),
        )
    )  # fmt: skip
    members = (
        events.where(F.col("member_id").isNotNull())
        .groupBy("group_id", F.col("member_id").alias("holder_member_id"))
        .agg(
            F.min_by("client_id", "ts_ms").alias("holder_client_id"),
            F.min_by("host", "ts_ms").alias("holder_host"),
        )
    )
    return incidents.join(members, ["group_id", "holder_member_id"], "left").select(
        "group_id", "group_instance_id", "ts_ms", "api", "fenced_member_id",
        "fenced_client_id", "fenced_host", "holder_member_id", "holder_source",
        "holder_client_id", "holder_host",
    )  # fmt: skip


def timeline(events: DataFrame) -> DataFrame:
    """How many partitions each owner (instance id, or member id if dynamic) holds, as steps.

    A row where the count changes: after an ``assigned`` (its size) or a releasing event (0).
    Columns: group_id, owner, ts_ms, partitions.
    """
    steps = events.where(F.col("type").isin(ASSIGNED, *RELEASING_TYPES)).select(
        "group_id", owner().alias("owner"), "ts_ms", "seq", "event_id",
        F.when(F.col("type") == ASSIGNED, partition_count()).otherwise(0).alias("partitions"),
    )  # fmt: skip
    order = Window.partitionBy("group_id", "owner").orderBy("ts_ms", "seq", "event_id")
    previous = F.lag("partitions").over(order)
    return (
        steps.withColumn("previous", previous)
        .where(F.col("previous").isNull() | (F.col("previous") != F.col("partitions")))
        .select("group_id", "owner", "ts_ms", "partitions")
    )


def instances(
    events: DataFrame, restarted: DataFrame, idle: DataFrame, fenced: DataFrame
) -> DataFrame:
    """One row per static member: group_id, group_instance_id, first_ms, last_ms, member_ids,
    restarts, restarts_without_rebalance, fenced, time_without_partitions_ms."""
    seen = (
        _static(events)
        .groupBy("group_id", "group_instance_id")
        .agg(
            F.min("ts_ms").alias("first_ms"),
            F.max("ts_ms").alias("last_ms"),
            F.countDistinct("member_id").alias("member_ids"),
        )
    )
    keys = ["group_id", "group_instance_id"]
    restart_counts = restarted.groupBy(*keys).agg(
        F.count(F.lit(1)).alias("restarts"),
        F.sum(F.col("without_rebalance").cast("long")).alias("restarts_without_rebalance"),
    )
    idle_ms = idle.groupBy(*keys).agg(F.sum("duration_ms").alias("time_without_partitions_ms"))
    fenced_counts = fenced.groupBy(*keys).agg(F.count(F.lit(1)).alias("fenced"))
    joined = (
        seen.join(restart_counts, keys, "left")
        .join(idle_ms, keys, "left")
        .join(fenced_counts, keys, "left")
    )
    zero = F.lit(0).cast("long")
    return joined.select(
        *keys, "first_ms", "last_ms", "member_ids",
        F.coalesce("restarts", zero).alias("restarts"),
        F.coalesce("restarts_without_rebalance", zero).alias("restarts_without_rebalance"),
        F.coalesce("fenced", zero).alias("fenced"),
        F.coalesce("time_without_partitions_ms", zero).alias("time_without_partitions_ms"),
    )  # fmt: skip
