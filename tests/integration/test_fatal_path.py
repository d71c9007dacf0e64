"""One fatal path: once fenced, every consumer call raises the same error and auto-commit never
commits again (STYLE rule 7), on the real group coordinator."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import TopicPartition

from assignors import RangeAssignor
from staticconsumer import FencedInstanceIdError, StaticConsumer, StaticConsumerError

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
