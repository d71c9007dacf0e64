"""Tests that read every captured log record do not see another test's garbage: a consumer an
earlier test left unclosed is reported by aiokafka (``Unclosed AIOKafkaConsumer`` on the asyncio
logger) whenever the garbage collector reaches it, which may be in the middle of a later test.
``tests/conftest.py`` collects garbage before each test that asks for ``caplog``. (The CI run on
Python 3.13 failed ``test_log_attribution`` this way.) The two tests run in file order."""

from __future__ import annotations

import gc
import logging

import pytest

from staticconsumer import StaticConsumer


async def test_an_earlier_test_leaves_an_unclosed_consumer_in_a_reference_cycle() -> None:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:9", group_id="g",
                              group_instance_id="leak-0")  # fmt: skip
    consumer.cycle = consumer  # type: ignore[attr-defined]  # only the collector frees it
    del consumer


def test_a_later_test_reading_every_record_does_not_see_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    gc.collect()  # the collector may run at any point of a test
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
