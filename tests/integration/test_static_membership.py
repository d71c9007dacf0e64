"""Static membership (KIP-345) against the real Apache Kafka group coordinator."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from staticconsumer import FencedInstanceIdError, SessionTimeoutOutOfRangeError, StaticConsumer
from staticconsumer.localkafka import KafkaCluster

from ._group import (
    FAST,
    Member,
    Producer,
    duplicates,
    owned,
    start_member,
    wait_stable,
    wait_until,
)


async def test_kip345_worked_example_restart_keeps_partitions_and_generation(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=9), unique_group_id()
    members = {n: await start_member(topic, kafka_bootstrap, group, f"inst-{n}") for n in "ABC"}
    await wait_stable(list(members.values()), 9)
    before = {
        n: (m.consumer.member_id, m.consumer.generation_id, owned(m)) for n, m in members.items()
    }
    revoked_before = {n: len(m.listener.revoked) for n, m in members.items()}
    await members["A"].stop()
    members["A"] = await start_member(topic, kafka_bootstrap, group, "inst-A")
    await wait_until(lambda: bool(owned(members["A"])), 30, "restarted A to get partitions")
    await asyncio.sleep(1.0)  # room for a (wrong) rebalance to show up
    after = {
        n: (m.consumer.member_id, m.consumer.generation_id, owned(m)) for n, m in members.items()
    }
    try:
        assert after["A"][0] != before["A"][0], "A is a new member"
        assert after["A"][0].startswith("inst-A-")
        for n in "ABC":
            assert after[n][1] == before[n][1], "generation unchanged: no rebalance"
            assert after[n][2] == before[n][2], f"{n} keeps its partitions"
        for n in "BC":
            assert len(members[n].listener.revoked) == revoked_before[n], "no revocation"
    finally:
        for m in members.values():
            await m.stop()


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
async def test_rolling_bounce(
    static: bool,
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=8), unique_group_id()
    ids = [f"bounce-{i}" if static else None for i in range(4)]
    members = [await start_member(topic, kafka_bootstrap, group, iid) for iid in ids]
    retired: list[Member] = []
    revocations_on_stayers = 0
    await wait_stable(members, 8)
    async with Producer(kafka_bootstrap, topic) as producer:
        for _round in range(3):
            for i in range(4):
                stayers = [m for j, m in enumerate(members) if j != i]
                counts = [len(m.listener.revoked) for m in stayers]
                await members[i].stop()
                retired.append(members[i])
                members[i] = await start_member(topic, kafka_bootstrap, group, ids[i])
                await wait_stable(members, 8)
                revocations_on_stayers += sum(
                    len(m.listener.revoked) - c for m, c in zip(stayers, counts, strict=True)
                )
    # Drain, then a clean shutdown of all.
    await wait_until(
        lambda: len({v for m in members + retired for v in m.seen}) >= len(producer.sent),
        60,
        "every produced record to be consumed",
    )
    for m in members:
        await m.stop()
    consumed = [v for m in members + retired for v in m.seen]
    assert set(consumed) == set(producer.sent)
    if not static:
        # Dynamic members rebalance on every bounce; records whose commit lost the race with a
        # rebalance are consumed again by the next owner, so no exactness claim is made here.
        assert revocations_on_stayers > 0, "dynamic members do rebalance on every bounce"
        return
    assert revocations_on_stayers == 0
    assert sum(m.commit_failures for m in members + retired) == 0
    assert duplicates(consumed) == [], "no record consumed twice"
    checker = AIOKafkaConsumer(
        bootstrap_servers=kafka_bootstrap, group_id=group, enable_auto_commit=False
    )
    await checker.start()
    try:
        committed = [await checker.committed(TopicPartition(topic, p)) or 0 for p in range(8)]
    finally:
        await checker.stop()
    assert sum(committed) == len(consumed), "committed position == records consumed"


async def test_same_instance_id_fences_the_older_member(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    fired: list[Exception] = []
    old = StaticConsumer(
        topic,
        bootstrap_servers=kafka_bootstrap,
        group_id=group,
        group_instance_id="twin",
        on_fatal=fired.append,
        **FAST,
    )
    await old.start()
    async with Producer(kafka_bootstrap, topic) as producer:
        await wait_until(lambda: len(producer.sent) > 20, 30, "some records")
    got = await old.getmany(timeout_ms=2000)
    assert got, "the old member consumed before the fence"
    await old.commit()
    checker = AIOKafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=group + "-x")
    await checker.start()

    new = StaticConsumer(
        topic,
        bootstrap_servers=kafka_bootstrap,
        group_id=group,
        group_instance_id="twin",
        client_id="the-new-twin",
        **FAST,
    )
    await new.start()
    fenced_at = time.monotonic()
    with pytest.raises(FencedInstanceIdError) as info:
        async with asyncio.timeout(10):
            while True:
                await old.getmany(timeout_ms=100)
    raised_after = time.monotonic() - fenced_at
    bound = FAST["heartbeat_interval_ms"] / 1000 + 1.0
    assert raised_after <= bound, f"fenced member raised after {raised_after:.2f}s (> {bound}s)"
    error = info.value
    assert error.fatal and error.group_id == group and error.group_instance_id == "twin"
    assert error.member_id == old.member_id and error.api in ("Heartbeat", "OffsetCommit")
    assert "same instance id" in str(error)
    # Fence diagnosis names the current holder as the coordinator reports it: its member id and
    # host. (Kafka's replacement of a static member keeps the replaced member's client id and
    # host in the group until the next rebalance, so the client id shown can be the old one.)
    assert error.holder is not None and new.member_id in error.holder, str(error)
    assert "127.0.0.1" in error.holder and "client id" in error.holder
    assert new.member_id in str(error)
    assert len(fired) == 1

    committed_before = {p: await new.committed(TopicPartition(topic, p)) for p in range(2)}
    for call in (old.getone(), old.getmany(), old.commit()):
        with pytest.raises(FencedInstanceIdError):
            await call
    with pytest.raises(FencedInstanceIdError):
        await anext(aiter(old))
    assert len(fired) == 1, "on_fatal runs once"
    await old.stop()
    committed_after = {p: await new.committed(TopicPartition(topic, p)) for p in range(2)}
    assert committed_after == committed_before, "the fenced member committed nothing"

    async with Producer(kafka_bootstrap, topic) as producer:
        await wait_until(lambda: len(producer.sent) > 10, 30, "more records")
    seen: list[Any] = []
    async with asyncio.timeout(30):
        while not seen:
            batch = await new.getmany(timeout_ms=500)
            seen.extend(r for rs in batch.values() for r in rs)
    assert new.fatal_error is None, "the newer member keeps consuming"
    await new.stop()
    await checker.stop()


async def test_session_timeout_removes_static_member_and_it_rejoins_as_new(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    short = {"session_timeout_ms": 3000}
    a = await start_member(topic, kafka_bootstrap, group, "sto-a", **short)
    b = await start_member(topic, kafka_bootstrap, group, "sto-b", **short)
    await wait_stable([a, b], 4)
    generation = b.consumer.generation_id
    old_member_id = a.consumer.member_id
    await a.stop()  # no LeaveGroup: the broker must expire the session
    await wait_until(lambda: len(owned(b)) == 4, 30, "b to own everything after a's session")
    assert b.consumer.generation_id > generation
    a2 = await start_member(topic, kafka_bootstrap, group, "sto-a", **short)
    try:
        await wait_stable([a2, b], 4)
        assert owned(a2), "a came back and got partitions"
        assert a2.consumer.member_id != old_member_id
        assert b.consumer.generation_id > generation + 1, "its return was a new join"
    finally:
        await a2.stop()
        await b.stop()


async def test_session_timeout_outside_broker_bounds_fails_at_start(
    kafka_cluster: KafkaCluster,
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    consumer = StaticConsumer(
        topic_factory(),
        bootstrap_servers=kafka_bootstrap,
        group_id=unique_group_id(),
        group_instance_id="too-short",
        session_timeout_ms=500,
        heartbeat_interval_ms=100,
    )
    with pytest.raises(SessionTimeoutOutOfRangeError) as info:
        async with asyncio.timeout(30):
            await consumer.start()
    assert "group.min.session.timeout.ms=1000" in str(info.value)
    assert "group.max.session.timeout.ms=" in str(info.value)
    await consumer.stop()


async def test_static_and_dynamic_members_share_a_group(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    static = await start_member(topic, kafka_bootstrap, group, "mixed-0")
    dynamic = await start_member(topic, kafka_bootstrap, group, None)
    try:
        await wait_stable([static, dynamic], 4)
        assert owned(static) and owned(dynamic)
        assert dynamic.consumer.group_instance_id is None
    finally:
        await static.stop()
        await dynamic.stop()
