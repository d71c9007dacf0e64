"""A StaticConsumer as a member of a streams group (``group_protocol="streams"``, KIP-1071; static
members since Kafka 4.4) against the real Apache Kafka group coordinator, the oracle here. The
test broker runs streams groups with a 10 s session, a 500 ms heartbeat interval and no initial
assignment delay (``DEFAULT_TEST_BROKER_CONFIG``)."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition

from staticconsumer import StaticConsumer
from staticconsumer.protocol import StreamsTopology, Subtopology, TopicInfo

from .. import _processes
from ._group import wait_until

SESSION_S = 10.0  # group.streams.session.timeout.ms of the test broker
ROOT = Path(__file__).resolve().parents[2]


def topology(topic: str) -> StreamsTopology:
    """One subtopology reading ``topic`` and keeping a store whose changelog the broker makes."""
    changelog = TopicInfo(f"{topic}-counts-changelog")
    return StreamsTopology(0, (Subtopology("0", source_topics=(topic,),
                                           state_changelog_topics=(changelog,)),))  # fmt: skip


def thread(bootstrap: str, group: str, topic: str, instance: str | None, process: str,
           **more: Any) -> StaticConsumer:  # fmt: skip
    return StaticConsumer(bootstrap_servers=bootstrap, group_id=group, group_instance_id=instance,
                          group_protocol="streams", streams_topology=topology(topic),
                          streams_process_id=process, auto_offset_reset="earliest",
                          enable_auto_commit=False, **more)  # fmt: skip


async def holding(threads: list[StaticConsumer], tasks: int, timeout_s: float = 30) -> None:
    """Until every thread is stable, the tasks are split among them once each, and each
    thread's fetcher holds exactly its active tasks' partitions."""

    def done() -> bool:
        held = [t.streams.tasks.active for t in threads if t.streams is not None]
        every = [task for h in held for task in h]
        epochs = {t.generation_id for t in threads}
        return (len(every) == len(set(every)) == tasks and len(epochs) == 1
                and all(t.membership.state.value == "stable" for t in threads))  # fmt: skip

    await wait_until(done, timeout_s, f"{len(threads)} threads holding {tasks} tasks")


async def produce(bootstrap: str, topic: str, count: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for n in range(count):
            await producer.send(topic, f"r{n}".encode(), key=f"k{n}".encode())
        await producer.flush()
    finally:
        await producer.stop()


async def test_threads_split_the_tasks_and_read_only_their_partitions(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(4), unique_group_id("streams")
    threads = [thread(kafka_bootstrap, group, topic, f"app-{n}", "proc-a") for n in (1, 2)]
    try:
        for t in threads:
            await t.start()
        await holding(threads, 4)
        await produce(kafka_bootstrap, topic, 200)
        mine = {id(t): {TopicPartition(topic, p) for _, p in t.streams.tasks.active}
                for t in threads if t.streams is not None}  # fmt: skip
        for t in threads:
            assert t.assignment() == mine[id(t)], "the fetcher holds the active tasks' partitions"
        seen: list[bytes] = []
        async with asyncio.timeout(30):
            while len(seen) < 200:
                for t in threads:
                    for tp, batch in (await t.getmany(timeout_ms=100)).items():
                        assert tp in mine[id(t)], f"{tp} read outside the thread's tasks"
                        seen.extend(r.value for r in batch)
        assert sorted(seen) == sorted(f"r{n}".encode() for n in range(200)), "lost or twice"
    finally:
        for t in threads:
            await t.stop()


async def test_a_static_restart_moves_no_task_and_bumps_no_epoch(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(4), unique_group_id("streams")
    a = thread(kafka_bootstrap, group, topic, "app-1", "proc-a")
    b = thread(kafka_bootstrap, group, topic, "app-2", "proc-b")
    await a.start()
    await b.start()
    try:
        await holding([a, b], 4)
        assert a.streams is not None and b.streams is not None
        epoch, before = a.generation_id, (a.streams.tasks, b.streams.tasks)
        await b.stop()  # static: epoch -2, the coordinator keeps its tasks
        await asyncio.sleep(2)  # well within the session
        b = thread(kafka_bootstrap, group, topic, "app-2", "proc-b")
        await b.start()
        await holding([a, b], 4)
        assert b.streams is not None
        assert (a.streams.tasks, b.streams.tasks) == before, "a task moved"
        assert a.generation_id == b.generation_id == epoch, "the group epoch moved"
    finally:
        await a.stop()
        await b.stop()


async def test_a_frozen_thread_past_its_session_is_replaced_then_fenced_and_exits(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    tmp_path: Path,
) -> None:  # fmt: skip
    """A zombie: frozen (SIGSTOP) past its session, its tasks go to a new process with its
    instance id; once thawed it is answered FENCED_INSTANCE_ID, and exits non-zero while the
    new holder goes on."""
    topic, group = topic_factory(2), unique_group_id("streams")
    old = await _child(kafka_bootstrap, group, topic, "proc-old", tmp_path)
    await _line(old, "started")
    old.send_signal(signal.SIGSTOP)
    try:
        await asyncio.sleep(SESSION_S + 2)
        new = await _child(kafka_bootstrap, group, topic, "proc-new", tmp_path)
        started = await _line(new, "started")
        assert started["epoch"] > 0
    finally:
        old.send_signal(signal.SIGCONT)
    fatal = await _line(old, "fatal")
    assert fatal["error"] == "FencedInstanceIdError", fatal
    assert await asyncio.wait_for(old.wait(), 15) == 3
    await produce(kafka_bootstrap, topic, 20)
    assert (await _line(new, "read"))["n"] > 0, "the new holder goes on"
    assert new.returncode is None
    await _processes.stop(new, name="new", timeout_s=20, log=tmp_path / "proc-new.log")


async def _child(bootstrap: str, group: str, topic: str, process: str,
                 tmp_path: Path) -> asyncio.subprocess.Process:  # fmt: skip
    with (tmp_path / f"{process}.log").open("ab") as log:
        return await _processes.spawn(
            process, sys.executable, "-m", "tests.integration._streams_child", bootstrap, group,
            topic, "app-1", process, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log,
        )  # fmt: skip


async def _line(process: asyncio.subprocess.Process, ev: str, timeout_s: float = 40) -> Any:
    """The next JSON line the child prints whose ``ev`` is ``ev``."""
    assert process.stdout is not None
    async with asyncio.timeout(timeout_s):
        async for raw in process.stdout:
            line = json.loads(raw)
            if line["ev"] == ev:
                return line
    pytest.fail(f"the child ended without printing {ev!r}")
