"""A JoinGroup the coordinator holds longer than ``request_timeout_ms`` is waited for (Java's
``max(request.timeout.ms, rebalance timeout + 5 s)``), not timed out and read as a dead
coordinator (issue 42). The real coordinator holds the join: a stopped static member keeps the
group until its session expires, and a new member's join completes only then."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import pytest

from ._group import start_member, wait_until

SESSION_TIMEOUT_MS = 10_000  # how long the stopped member holds the group (the join waits it)
REQUEST_TIMEOUT_MS = 3_000  # the newcomer's: far shorter than that wait


async def test_a_join_held_past_the_request_timeout_completes_without_a_retry(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    caplog.set_level(logging.INFO, logger="staticconsumer")
    topic, group = topic_factory(partitions=2), unique_group_id()
    holder = await start_member(topic, kafka_bootstrap, group, "jt-holder",
                                session_timeout_ms=SESSION_TIMEOUT_MS)  # fmt: skip
    await wait_until(lambda: len(holder.consumer.assignment()) == 2, 30, "the holder's partitions")
    holder_generation = holder.consumer.generation_id
    await holder.stop()  # static: no LeaveGroup, the group waits for it
    caplog.clear()
    started = time.monotonic()
    newcomer = await start_member(topic, kafka_bootstrap, group, "jt-newcomer",
                                  request_timeout_ms=REQUEST_TIMEOUT_MS)  # fmt: skip
    try:
        await wait_until(lambda: len(newcomer.consumer.assignment()) == 2, 60,
                         "the newcomer's partitions")  # fmt: skip
        joined_after_s = time.monotonic() - started
        lines = [r.getMessage() for r in caplog.records]
        generation = newcomer.consumer.generation_id
    finally:
        await newcomer.stop()
    # The scenario happened: the coordinator held the join past the request timeout.
    assert joined_after_s > 2 * REQUEST_TIMEOUT_MS / 1000, joined_after_s
    failed = [line for line in lines if "to the coordinator failed" in line]
    assert failed == [], failed
    assert not [line for line in lines if "Discovered coordinator" in line][1:], (
        "the coordinator was looked up again: the join was read as a dead coordinator"
    )
    assert generation == holder_generation + 1, "one rebalance"
