"""Per-group tables: generations, rebalances and their reasons, partitions moved, paused partitions.

Definitions follow ``docs/membership-events.md`` ("Reading the events"); ``docs/analytics.md`` lists
the columns. Every function takes the de-duplicated events of the time range read and returns a
lazy DataFrame; nothing is collected.

Windows that look forward ("the next assign", "the next generation") are written as running windows
over the reverse order, so Spark evaluates them in one pass per partition of the window.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .schema import ASSIGNED, JOIN_REASON, JOINED, REVOKED, owner

_RUNNING = (Window.unboundedPreceding, Window.currentRow)


def generations(events: DataFrame) -> DataFrame:
    """One row per (group, generation) that some member reported ``joined``.

    Columns: group_id, generation_id, first_joined_ms, members, leader, protocol,
    previous_generation_id (the group's previous generation in the range, by generation id).
    """
    joined = events.where((F.col("type") == JOINED) & (F.col("generation_id") >= 0))
    per_generation = joined.groupBy("group_id", "generation_id").agg(
        F.min("ts_ms").alias("first_joined_ms"),
        F.countDistinct(owner()).alias("members"),
        F.max(F.when(F.col("leader"), owner())).alias("leader"),
        F.max("protocol").alias("protocol"),
    )
    by_generation = Window.partitionBy("group_id").orderBy("generation_id")
    return per_generation.withColumn(
        "previous_generation_id", F.lag("generation_id").over(by_generation)
    )


def _reasons(events: DataFrame, gens: DataFrame) -> DataFrame:
    """Join reasons per generation: those sent after the previous generation's first ``joined``
    and at or before this generation's first ``joined``.

    Each reason goes to the first generation whose first ``joined`` is at or after it; that is the
    documented interval as long as first-joined times grow with the generation id.
    """
    markers = gens.select(
        "group_id",
        F.col("first_joined_ms").alias("ts_ms"),
        F.lit(1).alias("kind"),
        "generation_id",
        F.lit(None).cast("string").alias("reason"),
    )
    reasons = events.where(F.col("type") == JOIN_REASON).select(
        "group_id",
        "ts_ms",
        F.lit(0).alias("kind"),
        F.lit(None).cast("int").alias("generation_id"),
        "reason",
    )
    newest_first = (
        Window.partitionBy("group_id")
        .orderBy(F.desc("ts_ms"), F.desc("kind"), F.desc("generation_id"))
        .rowsBetween(*_RUNNING)
    )
    assigned = markers.unionByName(reasons).withColumn(
        "target", F.last("generation_id", ignorenulls=True).over(newest_first)
    )
    return (
        assigned.where((F.col("kind") == 0) & F.col("target").isNotNull())
        .groupBy("group_id", F.col("target").alias("generation_id"))
        .agg(
            F.sort_array(F.collect_set("reason")).alias("reasons"),
            F.count(F.lit(1)).alias("join_reasons"),
            F.min("ts_ms").alias("first_join_reason_ms"),
        )
    )


def ownership(events: DataFrame) -> DataFrame:
    """Who owns each partition in each generation, from ``assigned`` events.

    Columns: group_id, generation_id, topic, partition, owner. Should two members claim one
    partition in a generation (a broken assignor), the smaller owner is kept.
    """
    assigned = events.where((F.col("type") == ASSIGNED) & (F.col("generation_id") >= 0))
    exploded = assigned.select(
        "group_id", "generation_id", owner().alias("owner"), F.explode("partitions").alias("tp")
    )
    return exploded.groupBy(
        "group_id", "generation_id", F.col("tp.topic").alias("topic"),
        F.col("tp.partition").alias("partition"),
    ).agg(F.min("owner").alias("owner"))  # fmt: skip


def partition_moves(events: DataFrame, gens: DataFrame) -> DataFrame:
    """Partitions whose owner in a rebalance generation differs from the previous generation's.

    A partition assigned in generation ``g`` and in no ``assigned`` event of the previous
    generation counts as moved (``from_owner`` null). Columns: group_id, generation_id, topic,
    partition, from_owner, to_owner.
    """
    owned = ownership(events)
    current = owned.join(
        gens.where(F.col("previous_generation_id").isNotNull()).select(
            "group_id", "generation_id", "previous_generation_id"
        ),
        ["group_id", "generation_id"],
    )
    previous = owned.select(
        "group_id",
        F.col("generation_id").alias("previous_generation_id"),
        "topic",
        "partition",
        F.col("owner").alias("from_owner"),
    )
    joined = current.join(
        previous, ["group_id", "previous_generation_id", "topic", "partition"], "left"
    )
    return joined.where(
        F.col("from_owner").isNull() | (F.col("from_owner") != F.col("owner"))
    ).select(
        "group_id", "generation_id", "topic", "partition", "from_owner",
        F.col("owner").alias("to_owner"),
    )  # fmt: skip


def rebalances(events: DataFrame, gens: DataFrame, moves: DataFrame) -> DataFrame:
    """One row per rebalance (a generation with an earlier generation in the range).

    Columns: group_id, generation_id, previous_generation_id, ts_ms (first ``joined``),
    first_join_reason_ms, members, leader, protocol, reasons (sorted, distinct), join_reasons,
    partitions_moved.
    """
    moved = moves.groupBy("group_id", "generation_id").agg(
        F.count(F.lit(1)).alias("partitions_moved")
    )
    return (
        gens.where(F.col("previous_generation_id").isNotNull())
        .join(_reasons(events, gens), ["group_id", "generation_id"], "left")
        .join(moved, ["group_id", "generation_id"], "left")
        .select(
            "group_id",
            "generation_id",
            "previous_generation_id",
            F.col("first_joined_ms").alias("ts_ms"),
            "first_join_reason_ms",
            "members",
            "leader",
            "protocol",
            F.coalesce("reasons", F.array().cast("array<string>")).alias("reasons"),
            F.coalesce("join_reasons", F.lit(0)).alias("join_reasons"),
            F.coalesce("partitions_moved", F.lit(0)).alias("partitions_moved"),
        )
    )


def pauses(events: DataFrame, range_end_ms: int) -> DataFrame:
    """Each revoke of each partition, paired with the next assign of it by any member.

    ``paused_ms`` is ``assigned_ms - revoked_ms``, or ``range_end_ms - revoked_ms`` when no later
    assign was read. At equal timestamps an assign counts as after the revoke (a pause of 0).
    Columns: group_id, topic, partition, revoked_ms, revoked_by, reason, assigned_ms, paused_ms.
    """
    moves = events.where(F.col("type").isin(REVOKED, ASSIGNED)).select(
        "group_id",
        "ts_ms",
        F.when(F.col("type") == REVOKED, 0).otherwise(1).alias("kind"),
        owner().alias("by"),
        "reason",
        F.explode("partitions").alias("tp"),
    )
    flat = moves.select(
        "group_id", "ts_ms", "kind", "by", "reason",
        F.col("tp.topic").alias("topic"), F.col("tp.partition").alias("partition"),
    )  # fmt: skip
    newest_first = (
        Window.partitionBy("group_id", "topic", "partition")
        .orderBy(F.desc("ts_ms"), F.desc("kind"))
        .rowsBetween(*_RUNNING)
    )
    paired = flat.withColumn(
        "assigned_ms", F.min(F.when(F.col("kind") == 1, F.col("ts_ms"))).over(newest_first)
    )
    end = F.coalesce(F.col("assigned_ms"), F.lit(range_end_ms))
    return paired.where(F.col("kind") == 0).select(
        "group_id",
        "topic",
        "partition",
        F.col("ts_ms").alias("revoked_ms"),
        F.col("by").alias("revoked_by"),
        "reason",
        "assigned_ms",
        F.greatest(end - F.col("ts_ms"), F.lit(0)).cast("long").alias("paused_ms"),
    )
