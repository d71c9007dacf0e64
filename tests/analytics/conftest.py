"""One local SparkSession for the whole test run (Spark starts once; each test reuses it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

TEST_CONF = {
    "spark.sql.shuffle.partitions": "1",
    "spark.default.parallelism": "2",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.adaptive.enabled": "false",
}


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    try:
        from staticconsumer.analytics.session import build_session
    except ImportError as exc:  # the 'spark' extra is part of 'test': its absence is a failure
        pytest.fail(f"the analytics tests need the 'spark' extra: {exc}", pytrace=False)
    # Tiny inputs: one shuffle partition, no whole-stage code generation and no adaptive
    # re-planning make each query take a fraction of a second instead of seconds.
    session = build_session(conf=TEST_CONF)
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture
def events_frame(spark: Any) -> Any:
    """``events_frame(list_of_event_dicts)`` -> parsed, de-duplicated events DataFrame."""
    from staticconsumer.analytics.schema import deduplicate, parse_events

    from ._events import to_json

    def make(events: list[dict[str, Any]]) -> Any:
        values = spark.createDataFrame([(text,) for text in to_json(events)], "value string")
        return deduplicate(parse_events(values))

    return make
