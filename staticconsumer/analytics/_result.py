"""What :func:`staticconsumer.analytics.run_report` returns: paths and the per-group figures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GroupFigures:
    """The headline figures of one consumer group over the time range read."""

    group_id: str
    events: int
    first_ms: int
    last_ms: int
    instances: int
    members: int
    generations: int
    rebalances: int
    partitions_moved: int
    revocations: int
    restarts: int
    restarts_without_rebalance: int
    fencing_incidents: int
    paused_partition_seconds: float
    rebalance_reasons: tuple[str, ...]


@dataclass(frozen=True)
class ReportResult:
    """Where the job wrote its outputs, and what it found."""

    out: Path
    report_html: Path
    timeline_png: Path
    #: table name -> where its Parquet files are (a path or URI)
    tables: Mapping[str, str]
    groups: Mapping[str, GroupFigures]
    records_read: int
    valid_events: int
    duplicates: int
    events_in_range: int
    since_ms: int | None
    until_ms: int | None
    #: where open pauses and idle stretches were closed: ``until_ms`` or the newest event's time
    range_end_ms: int

    def group(self, group_id: str) -> GroupFigures:
        """The figures of ``group_id``; ``KeyError`` naming the groups that were found."""
        try:
            return self.groups[group_id]
        except KeyError:
            raise KeyError(
                f"no events of group {group_id!r} in the range read; groups: "
                f"{sorted(self.groups) or 'none'}"
            ) from None
