"""A StaticConsumer as a member of a streams group (``group_protocol="streams"``, KIP-1071; static
members since Kafka 4.4) against the real Apache Kafka group coordinator, the oracle here. The
test broker runs streams groups with a 10 s session, a 500 ms heartbeat interval and no initial
assignment delay (``DEFAULT_TEST_BROKER_CONFIG``)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.errors import GroupIdNotFound

from staticconsumer import StaticConsumer
from staticconsumer.admin import describe_streams_group, format_tasks
from staticconsumer.protocol import StreamsTopology, Subtopology, TopicInfo

from .. import _processes
from .._kafka_tools import run_tool
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
    """Until every thread is stable and the tasks are split evenly among them once each (the
    broker may hand a newcomer nothing at first: an assignment it delays)."""

    def done() -> bool:
        held = [t.streams.tasks.active for t in threads if t.streams is not None]
        every = [task for h in held for task in h]
        epochs = {t.generation_id for t in threads}
        even = max(map(len, held)) - min(map(len, held)) <= 1
        return (len(every) == len(set(every)) == tasks and len(epochs) == 1 and even
                and all(t.membership.state.value == "stable" for t in threads))  # fmt: skip

    await wait_until(done, timeout_s, f"{len(threads)} threads holding {tasks} tasks")


async def two_threads(bootstrap: str, group: str, topic: str) -> list[StaticConsumer]:
    """``app-1`` (process ``proc-a``) and ``app-2`` (``proc-b``) started and holding the 4
    tasks of ``topic`` between them."""
    pair = [
        thread(bootstrap, group, topic, f"app-{n}", f"proc-{p}") for n, p in ((1, "a"), (2, "b"))
    ]
    for t in pair:
        await t.start()
    await holding(pair, 4)
    return pair


async def back(a: StaticConsumer, bootstrap: str, group: str, topic: str) -> StaticConsumer:
    """``app-2`` (``proc-b``) started again beside ``a``, the two holding the 4 tasks."""
    b = thread(bootstrap, group, topic, "app-2", "proc-b")
    await b.start()
    await holding([a, b], 4)
    return b


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
    a, b = await two_threads(kafka_bootstrap, group, topic)
    try:
        assert a.streams is not None and b.streams is not None
        epoch, before = a.generation_id, (a.streams.tasks, b.streams.tasks)
        await b.stop()  # static: epoch -2, the coordinator keeps its tasks
        await asyncio.sleep(2)  # well within the session
        b = await back(a, kafka_bootstrap, group, topic)
        assert b.streams is not None
        assert (a.streams.tasks, b.streams.tasks) == before, "a task moved"
        assert a.generation_id == b.generation_id == epoch, "the group epoch moved"
    finally:
        await a.stop()
        await b.stop()


async def test_a_thread_away_past_its_session_has_its_tasks_moved_and_gets_a_share_back(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """A static stop keeps the thread's tasks for the session only: past it the broker moves
    them to the thread that stayed (a new group epoch); the thread back under its instance id
    gets its share again. Which two tasks it gets is the sticky assignor's choice: once moved,
    every task is the staying thread's own, so the returning one need not get its old ones."""
    topic, group = topic_factory(4), unique_group_id("streams")
    a, b = await two_threads(kafka_bootstrap, group, topic)
    try:
        assert a.streams is not None and b.streams is not None
        epoch, kept, away = a.generation_id, a.streams.tasks.active, b.streams.tasks.active
        await b.stop()  # static: epoch -2, its tasks wait for it for the session
        await asyncio.sleep(SESSION_S / 2)
        assert a.streams.tasks.active == kept, "tasks moved within the session"
        await holding([a], 4, timeout_s=SESSION_S + 20)
        assert a.generation_id > epoch and a.streams.tasks.active == kept | away
        b = await back(a, kafka_bootstrap, group, topic)
        assert b.streams is not None
        assert len(a.streams.tasks.active) == len(b.streams.tasks.active) == 2
        assert a.generation_id == b.generation_id > epoch
    finally:
        await a.stop()
        await b.stop()


async def test_one_thread_asks_the_application_to_shut_down_and_every_thread_hears_it(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """KIP-1071's ShutdownApplication from one thread (another process): the coordinator
    answers every member with SHUTDOWN_APPLICATION, and each thread's ``shutdown_requested``
    turns True (Java: SHUTDOWN_APPLICATION from an uncaught exception handler)."""
    topic, group = topic_factory(4), unique_group_id("streams")
    a, b = await two_threads(kafka_bootstrap, group, topic)
    try:
        assert a.streams is not None and b.streams is not None
        assert not (a.streams.shutdown_requested or b.streams.shutdown_requested)
        b.streams.request_application_shutdown("test: a task failed")
        await wait_until(lambda: a.streams is not None and a.streams.shutdown_requested
                         and b.streams is not None and b.streams.shutdown_requested, 20,
                         "both threads to hear SHUTDOWN_APPLICATION")  # fmt: skip
    finally:
        await a.stop()
        await b.stop()


async def test_a_scale_up_moves_only_the_tasks_the_new_thread_takes(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """Two threads hold 6 tasks, 3 each; a third joins: the broker's sticky assignor hands it
    2 and moves nothing else (the fewest moves a balanced split allows), and the new thread's
    standbys do not count as moves."""
    topic, group = topic_factory(6), unique_group_id("streams")
    threads = [thread(kafka_bootstrap, group, topic, f"app-{n}", f"proc-{n}") for n in (1, 2)]
    try:
        for t in threads:
            await t.start()
        await holding(threads, 6)
        before = {t.group_instance_id: t.streams.tasks.active for t in threads
                  if t.streams is not None}  # fmt: skip
        threads.append(thread(kafka_bootstrap, group, topic, "app-3", "proc-3"))
        await threads[-1].start()
        await holding(threads, 6)
        after = {t.group_instance_id: t.streams.tasks.active for t in threads
                 if t.streams is not None}  # fmt: skip
        assert sorted(len(tasks) for tasks in after.values()) == [2, 2, 2], after
        for instance_id, tasks in before.items():
            assert after[instance_id] <= tasks, f"{instance_id} was given a task: {after}"
        moved = sum(len(before[i] - after[i]) for i in before)
        assert moved == len(after["app-3"]) == 2, (before, after)
    finally:
        for t in threads:
            await t.stop()


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


async def test_kafka_s_own_streams_group_tool_and_ours_show_the_threads_and_their_tasks(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """``kafka-streams-groups.sh --describe --members --verbose`` (Kafka 4.4.0's
    StreamsGroupCommand) lists our threads (by member id: it shows no instance id) with their
    process ids, epochs and tasks; our admin's describe_streams_group and CLI show them by
    instance id."""
    topic, group = topic_factory(4), unique_group_id("streams")
    threads = [thread(kafka_bootstrap, group, topic, f"app-{n}", f"proc-{n}") for n in (1, 2)]
    try:
        for t in threads:
            await t.start()
        await holding(threads, 4)
        held = {f"app-{n}": t.streams.tasks for n, t in zip((1, 2), threads, strict=True)
                if t.streams is not None}  # fmt: skip
        member_ids = {f"app-{n}": t.member_id for n, t in zip((1, 2), threads, strict=True)}
        ours = await describe_streams_group(kafka_bootstrap, group)
        for instance_id, tasks in held.items():
            member = ours.member(instance_id)
            assert member is not None and member.tasks.active == tuple(sorted(tasks.active))
            assert member.process_id == f"proc-{instance_id[-1]}"
        kafka_s = await asyncio.to_thread(_streams_group_command, kafka_bootstrap, group)
        cli = await asyncio.to_thread(_our_cli, kafka_bootstrap, group, "app-2")
    finally:
        for t in threads:
            await t.stop()
    for instance_id, tasks in held.items():
        member_id = member_ids[instance_id]
        row = next((line for line in kafka_s.splitlines() if member_id in line.split()), "")
        assert row, f"{instance_id} ({member_id}) missing from kafka-streams-groups.sh:\n{kafka_s}"
        assert f"proc-{instance_id[-1]}" in row.split() and "streams" in row.split()
        assert f"ACTIVE: {format_tasks(tuple(sorted(tasks.active)))};" in row, (row, tasks)
    assert "app-2" in cli and "app-1" not in cli.split() and "proc-2" in cli
    assert format_tasks(tuple(sorted(held["app-2"].active))) in cli


def _streams_group_command(bootstrap: str, group: str) -> str:
    """Kafka's own ``kafka-streams-groups.sh``."""
    return run_tool("org.apache.kafka.tools.streams.StreamsGroupCommand",
                    "--bootstrap-server", bootstrap, "--describe", "--group", group,
                    "--members", "--verbose")  # fmt: skip


def _our_cli(bootstrap: str, group: str, instance_id: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "staticconsumer", "describe-streams-group", "--bootstrap-servers",
         bootstrap, "--group", group, "--instance-id", instance_id],
        capture_output=True, text=True, timeout=60, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


async def _commit_ten_and_leave(bootstrap: str, group: str, topic: str, protocol: str) -> None:
    """A member of ``protocol`` reads 10 of the records, commits 10 and leaves the group."""
    old = StaticConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                         group_instance_id="app-1", group_protocol=protocol,
                         auto_offset_reset="earliest", enable_auto_commit=False)  # fmt: skip
    await old.start()
    tp = TopicPartition(topic, 0)
    try:
        read = 0
        async with asyncio.timeout(30):
            while read < 10:
                batch = await old.getmany(tp, timeout_ms=200, max_records=10 - read)
                read += len(batch.get(tp, []))
        await old.commit({tp: 10})
    finally:
        await old.stop(leave_group=True, reason="moving to a streams group")


async def _reads_on_from_ten(bootstrap: str, group: str, topic: str) -> None:
    """A stream thread joining ``group`` reads records 10 to 19, once each, nothing else."""
    new = thread(bootstrap, group, topic, "app-1", "proc-a")
    await new.start()
    try:
        got: list[bytes] = []
        async with asyncio.timeout(30):
            while len(got) < 10:
                for batch in (await new.getmany(timeout_ms=200)).values():
                    got.extend(r.value for r in batch)
        await asyncio.sleep(1)
        got.extend(r.value for b in (await new.getmany(timeout_ms=200)).values() for r in b)
        assert got == [f"r{n}".encode() for n in range(10, 20)]
    finally:
        await new.stop()


async def test_an_empty_classic_group_becomes_a_streams_group_keeping_its_offsets(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """The offline move (docs/streams-groups.md): every member of the classic group stops and
    leaves; the first stream thread joining the empty group converts it, and reads on from the
    offsets the old group committed: nothing read twice, nothing skipped."""
    topic, group = topic_factory(1), unique_group_id("move")
    await produce(kafka_bootstrap, topic, 20)
    await _commit_ten_and_leave(kafka_bootstrap, group, topic, "classic")
    await _reads_on_from_ten(kafka_bootstrap, group, topic)


async def test_an_empty_consumer_group_is_refused_in_words_and_moves_through_classic(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """Kafka 4.4.0 converts no consumer group (KIP-848) into a streams group, empty or not
    ("is not a streams group"): start() raises that once with the way out, instead of joining
    again and again. The way: one classic member joins and leaves (the empty group becomes
    classic, offsets kept), then the stream thread reads on from them."""
    topic, group = topic_factory(1), unique_group_id("move")
    await produce(kafka_bootstrap, topic, 20)
    await _commit_ten_and_leave(kafka_bootstrap, group, topic, "consumer")
    refused = thread(kafka_bootstrap, group, topic, "app-1", "proc-a")
    try:
        with pytest.raises(GroupIdNotFound, match="is not a streams group") as info:
            async with asyncio.timeout(20):
                await refused.start()
        assert "one classic member join and leave" in str(info.value)
    finally:
        await refused.stop()
    hop = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="app-1", auto_offset_reset="earliest")  # fmt: skip
    await hop.start()
    await hop.stop(leave_group=True, reason="the group becomes classic")
    await _reads_on_from_ten(kafka_bootstrap, group, topic)
