"""One fatal path: once fenced, every consumer call raises the same error and auto-commit never
commits again (STYLE rule 7), on the real group coordinator."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import TopicPartition

from assignors import RangeAssignor
from staticconsumer import FencedInstanceIdError, StaticConsumer, StaticConsumerError
from staticconsumer.protocol import ApiKey

from ._group import FAST, Producer, wait_until


async def test_every_call_raises_once_fenced_and_auto_commit_commits_nothing_after(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    tps = [TopicPartition(topic, p) for p in range(2)]
    async with Producer(kafka_bootstrap, topic) as producer:
        await wait_until(lambda: len(producer.sent) > 60, 30, "records to consume")
    settings = {**FAST, "enable_auto_commit": True, "auto_commit_interval_ms": 600_000}
    old = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", **settings)  # fmt: skip
    await old.start()
    consumed = 0
    async with asyncio.timeout(20):
        while consumed < 10:
            consumed += sum(map(len, (await old.getmany(timeout_ms=500, max_records=5)).values()))
    await old.commit()
    committed_then = {tp: await old.committed(tp) for tp in tps}
    async with asyncio.timeout(20):  # consume past the commit: a later commit would show
        while {tp: await old.position(tp) for tp in tps} == committed_then:
            await old.getmany(timeout_ms=500, max_records=5)

    new = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", **FAST)  # fmt: skip
    await new.start()
    await wait_until(lambda: old.fatal_error is not None, 10, "the old member to be fenced")
    error = old.fatal_error
    assert isinstance(error, FencedInstanceIdError)

    tp = tps[0]
    calls = {
        "getone": lambda: old.getone(), "getmany": lambda: old.getmany(),
        "async for": lambda: anext(aiter(old)), "commit": lambda: old.commit(),
        "committed": lambda: old.committed(tp), "position": lambda: old.position(tp),
        "seek_to_beginning": lambda: old.seek_to_beginning(tp),
        "seek_to_end": lambda: old.seek_to_end(tp),
        "seek_to_committed": lambda: old.seek_to_committed(tp),
        "enforce_rebalance": lambda: old.enforce_rebalance("after the fence"),
    }  # fmt: skip
    for name, call in calls.items():
        with pytest.raises(FencedInstanceIdError) as info:
            await call()
        assert info.value is error, f"{name} raised another error object"
    for name, sync_call in {"seek": lambda: old.seek(tp, 0),
                            "subscribe": lambda: old.subscribe([topic])}.items():  # fmt: skip
        with pytest.raises(FencedInstanceIdError):
            sync_call()
        assert name

    await old.stop()  # auto-commit's last commit on close must not happen after the fence
    assert {tp: await new.committed(tp) for tp in tps} == committed_then
    await new.stop()


class _BrokenAssignor(RangeAssignor):
    def plan(self, *args: object, **kwargs: object) -> dict[str, list[tuple[str, int]]]:
        raise RuntimeError("bug in a custom assignor")


async def test_an_assignor_that_raises_fails_start_instead_of_hanging(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    consumer = StaticConsumer(
        topic_factory(), bootstrap_servers=kafka_bootstrap, group_id=unique_group_id(),
        group_instance_id="broken", partition_assignment_strategy=(_BrokenAssignor(),), **FAST,
    )  # fmt: skip
    with pytest.raises(StaticConsumerError, match="bug in a custom assignor") as info:
        async with asyncio.timeout(30):
            await consumer.start()
    assert isinstance(info.value.__cause__, RuntimeError)


async def test_calls_waiting_when_the_fence_lands_end_with_the_fatal_error(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """Issue 52 on a bare StaticConsumer: a commit whose OffsetCommit has no answer yet (held
    here, as a slow coordinator would), a second commit queued behind it, a committed() and a
    getmany() are all waiting when the fence lands (through a heartbeat): each ends within a
    second or two with the one fatal error, not when the held answer would come (60 s)."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    tp = TopicPartition(topic, 0)
    async with Producer(kafka_bootstrap, topic) as producer:
        await wait_until(lambda: len(producer.sent) > 20, 30, "records to consume")
    old = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", **FAST)  # fmt: skip
    await old.start()
    async with asyncio.timeout(20):
        while not await old.getmany(timeout_ms=500):
            pass
    driver = old._driver  # the hook: OffsetCommit and OffsetFetch answers held for 60 s
    assert driver is not None
    send = driver.to_coordinator
    held = {ApiKey.OFFSET_COMMIT, ApiKey.OFFSET_FETCH}

    async def slow_answers(request: Any, **kwargs: Any) -> Any:
        if request.api_key in held:
            await asyncio.sleep(60)
        return await send(request, **kwargs)

    driver.to_coordinator = slow_answers  # type: ignore[method-assign]
    waiting = {
        "commit in flight": asyncio.create_task(old.commit()),
        "commit behind it": asyncio.create_task(old.commit()),
        "committed": asyncio.create_task(old.committed(tp)),
        "getmany": asyncio.create_task(old.getmany(timeout_ms=60_000)),
    }
    await asyncio.sleep(0.5)
    assert not any(task.done() for task in waiting.values()), waiting

    new = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", **FAST)  # fmt: skip
    await new.start()
    try:
        await wait_until(lambda: old.fatal_error is not None, 10, "the old member to be fenced")
        fenced_at = time.monotonic()
        _, pending = await asyncio.wait(waiting.values(), timeout=5)
        ended_after = time.monotonic() - fenced_at
        assert not pending, f"still waiting 5 s after the fence: {pending}"
        for name, task in waiting.items():
            assert task.exception() is old.fatal_error, (name, task.exception())
        assert ended_after < 5
    finally:
        for task in waiting.values():
            task.cancel()
        await old.stop()
        await new.stop()
