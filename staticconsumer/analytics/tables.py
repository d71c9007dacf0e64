"""All report tables from the de-duplicated events of one time range, as lazy DataFrames."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .schema import owner
from .tables_group import generations, partition_moves, pauses, rebalances
from .tables_instance import (
    fencing_incidents,
    instances,
    restarts,
    timeline,
    unassigned_periods,
)

#: The tables, in the order they are written; ``docs/analytics.md`` describes each column.
TABLE_NAMES = (
    "groups",
    "generations",
    "rebalances",
    "partition_moves",
    "pauses",
    "restarts",
    "fencing",
    "instances",
    "unassigned",
    "timeline",
)


def group_summary(
    events: DataFrame,
    gens: DataFrame,
    rebalanced: DataFrame,
    paused: DataFrame,
    restarted: DataFrame,
    fenced: DataFrame,
) -> DataFrame:
    """One row per group with the headline figures (see ``docs/analytics.md``)."""
    base = events.groupBy("group_id").agg(
        F.count(F.lit(1)).alias("events"),
        F.min("ts_ms").alias("first_ms"),
        F.max("ts_ms").alias("last_ms"),
        F.countDistinct("group_instance_id").alias("instances"),
        F.countDistinct(owner()).alias("members"),
    )
    parts = [
        gens.groupBy("group_id").agg(F.count(F.lit(1)).alias("generations")),
        rebalanced.groupBy("group_id").agg(
            F.count(F.lit(1)).alias("rebalances"),
            F.sum("partitions_moved").alias("partitions_moved"),
            F.array_sort(F.array_distinct(F.flatten(F.collect_list("reasons")))).alias(
                "rebalance_reasons"
            ),
        ),
        paused.groupBy("group_id").agg(
            F.count(F.lit(1)).alias("revocations"),
            F.sum("paused_ms").alias("paused_ms"),
        ),
        restarted.groupBy("group_id").agg(
            F.count(F.lit(1)).alias("restarts"),
            F.sum(F.col("without_rebalance").cast("long")).alias("restarts_without_rebalance"),
        ),
        fenced.groupBy("group_id").agg(F.count(F.lit(1)).alias("fencing_incidents")),
    ]
    summary = base
    for part in parts:
        summary = summary.join(part, "group_id", "left")
    zero = F.lit(0).cast("long")
    counted = (
        "generations", "rebalances", "partitions_moved", "revocations", "restarts",
        "restarts_without_rebalance", "fencing_incidents",
    )  # fmt: skip
    return summary.select(
        "group_id", "events", "first_ms", "last_ms", "instances", "members",
        *[F.coalesce(F.col(name).cast("long"), zero).alias(name) for name in counted],
        (F.coalesce(F.col("paused_ms"), zero) / 1000.0).alias("paused_partition_seconds"),
        F.coalesce("rebalance_reasons", F.array().cast("array<string>")).alias(
            "rebalance_reasons"
        ),
    )  # fmt: skip


Materialize = Callable[[str, DataFrame], DataFrame]


def _lazy(name: str, frame: DataFrame) -> DataFrame:
    return frame


def compute_tables(
    events: DataFrame, range_end_ms: int, materialize: Materialize = _lazy
) -> dict[str, DataFrame]:
    """Every table of :data:`TABLE_NAMES`, keyed by name, computed in dependency order.

    ``events`` are parsed (:func:`.schema.parse_events`), limited to the time range and
    de-duplicated; persist them first, as each table reads them again. ``range_end_ms`` ends the
    pauses and idle stretches that are still open at the end of the range.

    ``materialize(name, frame)`` is called on each table as soon as it is defined, and what it
    returns is used by the tables that depend on it: the job writes the table to Parquet and
    returns it read back, so nothing is computed twice. The default keeps everything lazy.
    """
    gens = materialize("generations", generations(events))
    moves = materialize("partition_moves", partition_moves(events, gens))
    rebalanced = materialize("rebalances", rebalances(events, gens, moves))
    paused = materialize("pauses", pauses(events, range_end_ms))
    restarted = materialize("restarts", restarts(events))
    fenced = materialize("fencing", fencing_incidents(events))
    idle = materialize("unassigned", unassigned_periods(events, range_end_ms))
    tables = {
        "groups": materialize(
            "groups", group_summary(events, gens, rebalanced, paused, restarted, fenced)
        ),
        "generations": gens,
        "rebalances": rebalanced,
        "partition_moves": moves,
        "pauses": paused,
        "restarts": restarted,
        "fencing": fenced,
        "instances": materialize("instances", instances(events, restarted, idle, fenced)),
        "unassigned": idle,
        "timeline": materialize("timeline", timeline(events)),
    }
    assert tuple(tables) == TABLE_NAMES
    return tables
