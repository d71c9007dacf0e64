"""The rebalance report pipeline on Spark (``pip install 'staticconsumer[spark]'``).

Reads the membership events that :class:`staticconsumer.StaticConsumer` publishes
(``docs/membership-events.md``) with PySpark and answers, per consumer group, how many rebalances
happened and why, which partitions moved, how long partitions were paused, which restarts caused no
rebalance and who was fenced by whom; per static member, how often it restarted and how long it held
no partitions. See ``docs/analytics.md``.

Importing this package does not import pyspark; the names below load it on first use and raise
:class:`ImportError` naming the extra when it is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._deps import require_spark
from ._kafka_options import spark_options
from ._result import GroupFigures, ReportResult
from ._time import parse_time_ms

if TYPE_CHECKING:
    from .job import analyse, run_report, run_stream
    from .session import build_session
    from .tables import TABLE_NAMES, compute_tables

__all__ = [
    "TABLE_NAMES",
    "GroupFigures",
    "ReportResult",
    "analyse",
    "build_session",
    "compute_tables",
    "parse_time_ms",
    "require_spark",
    "run_report",
    "run_stream",
    "spark_options",
]

_LAZY = {
    "TABLE_NAMES": "tables",
    "analyse": "job",
    "build_session": "session",
    "compute_tables": "tables",
    "run_report": "job",
    "run_stream": "job",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_spark()
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
