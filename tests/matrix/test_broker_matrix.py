"""The broker matrix (issue 30): every feature on the broker line the session runs, working or
refused at once with a typed error. ``scripts/broker_matrix.sh`` runs this module on Kafka 2.8.2
(ZooKeeper), 3.5.2, 3.9.1, 4.0.2 and 4.3.1 (``STATICCONSUMER_KAFKA_VERSION``); the main test run
covers 4.4.0. ``docs/compatibility.md`` names these tests cell by cell.

What differs per line, and is asserted here rather than read anywhere:

- KIP-800 reasons reach the coordinator's log from 3.1 (JoinGroup v8, LeaveGroup v5); before, the
  consumer logs one WARNING;
- KIP-814 (3.2): before it a restarted static leader is not told it leads; the consumer watches
  its topics anyway, so partitions added afterwards are assigned;
- the consumer protocol (KIP-848, with ``instance_takeover``) from 4.0; before, ``start()`` raises
  UnsupportedBrokerError in one sentence;
- ConsumerGroupDescribe refused by 3.9 (its consumer protocol off): describe and the roster's
  barrier use DescribeGroups.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions

from staticconsumer import FencedInstanceIdError, StaticConsumer, UnsupportedBrokerError
from staticconsumer.admin import (
    DEFAULT_ROSTER_TOPIC,
    describe_group,
    register_members,
    remove_members,
)
from staticconsumer.localkafka import KafkaCluster
from staticconsumer.localkafka._java import parse_kafka_version
from staticconsumer.protocol import StreamsTopology, Subtopology

from ..integration._group import FAST, Member, owned, start_member, wait_stable, wait_until
from ..integration.test_consumer_protocol import crash, settled
from ..integration.test_consumer_protocol import start as start_consumer_protocol

pytestmark = pytest.mark.broker_matrix

COOPERATIVE = {"partition_assignment_strategy": "cooperative-sticky"}


@pytest.fixture(scope="session")
def kafka_line(kafka_cluster: KafkaCluster) -> tuple[int, int]:
    """The session broker's ``(major, minor)``: the matrix needs a broker it knows the version
    of (one the launcher starts; KAFKA_BOOTSTRAP_SERVERS says nothing about it)."""
    version = kafka_cluster.kafka_version
    if version == "unknown":
        pytest.fail("the broker matrix needs a launched broker: unset KAFKA_BOOTSTRAP_SERVERS")
    return parse_kafka_version(version)[:2]


async def stop_all(members: list[Member]) -> None:
    for member in members:
        await member.stop()


async def test_static_restart_keeps_partitions_and_generation(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = {n: await start_member(topic, kafka_bootstrap, group, f"s-{n}") for n in "ab"}
    try:
        await wait_stable(list(members.values()), 4)
        before = {n: (m.consumer.generation_id, owned(m)) for n, m in members.items()}
        await members["a"].stop()
        members["a"] = await start_member(topic, kafka_bootstrap, group, "s-a")
        await wait_until(lambda: bool(owned(members["a"])), 30, "restarted s-a's partitions")
        await asyncio.sleep(1.0)  # room for a (wrong) rebalance to show up
        after = {n: (m.consumer.generation_id, owned(m)) for n, m in members.items()}
        assert after == before, "same generation, same partitions: no rebalance"
    finally:
        await stop_all(list(members.values()))


async def test_same_instance_id_fences_the_older_member(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    old = await start_member(topic, kafka_bootstrap, group, "twin")
    new: Member | None = None
    try:
        new = await start_member(topic, kafka_bootstrap, group, "twin")
        assert old.task is not None
        with pytest.raises(FencedInstanceIdError):
            async with asyncio.timeout(10):
                await old.task  # its getmany raises the fence
        await wait_until(lambda: owned(new) == {0, 1}, 15, "the newer member to own both")
        assert new.consumer.fatal_error is None
    finally:
        old.running = False
        await old.consumer.stop()
        if new is not None:
            await new.stop()


async def test_enforce_and_leave_with_a_reason(
    kafka_cluster: KafkaCluster, kafka_line: tuple[int, int], topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str], caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """From 3.1 the coordinator logs both reasons; before, the group rebalances all the same and
    the consumer says once, as a WARNING, that its reasons do not reach the broker."""
    caplog.set_level(logging.WARNING, logger="staticconsumer")
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = [await start_member(topic, kafka_cluster.bootstrap_servers, group, f"r-{n}")
               for n in "ab"]  # fmt: skip
    try:
        await wait_stable(members, 4)
        generation = members[0].consumer.generation_id
        enforced = f"matrix enforce {time.time_ns()}"
        await members[0].consumer.enforce_rebalance(enforced)
        await wait_until(lambda: all(m.consumer.generation_id > generation for m in members),
                         30, "a rebalance")  # fmt: skip
        left = f"matrix leave {time.time_ns()}"
        await members[0].stop(leave_group=True, reason=left)
        await wait_until(lambda: owned(members[1]) == {0, 1, 2, 3}, 15, "r-b to own every one")
    finally:
        await stop_all(members)
    dropped = [r for r in caplog.records if "KIP-800" in r.getMessage()]
    logs = kafka_cluster.logs()
    if kafka_line >= (3, 1):
        assert f"rebalance enforced by user: {enforced}" in logs
        assert left in logs
        assert dropped == []
    else:
        assert enforced not in logs and left not in logs
        assert len(dropped) == 1 and dropped[0].levelno == logging.WARNING, "once per consumer"
        assert "JoinGroup v7" in dropped[0].getMessage()


async def test_describe_and_remove_by_instance_id(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a = await start_member(topic, kafka_bootstrap, group, "adm-a", session_timeout_ms=60_000)
    b = await start_member(topic, kafka_bootstrap, group, "adm-b", session_timeout_ms=60_000)
    try:
        await wait_stable([a, b], 4)
        described = await describe_group(kafka_bootstrap, group)
        assert described.state == "Stable" and described.group_protocol == "classic"
        assert [m.group_instance_id for m in described.members] == ["adm-a", "adm-b"]
        assert {p for m in described.members for _t, p in m.assignment} == {0, 1, 2, 3}
        await b.stop()  # a static member stays: its partitions wait for the session timeout
        result = await remove_members(kafka_bootstrap, group, ["adm-b"], reason="matrix")
        assert result.removed == ("adm-b",)
        await wait_until(lambda: owned(a) == {0, 1, 2, 3}, 15, "adm-a to own every partition")
        described = await describe_group(kafka_bootstrap, group)
        assert [m.group_instance_id for m in described.members] == ["adm-a"]
    finally:
        await stop_all([a])


async def test_the_roster_barrier_holds_a_registered_member_until_the_others_come(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """The barrier reads the group (describe: DescribeGroups on 3.9, whose ConsumerGroupDescribe
    is refused) and holds the first registered member until the second starts."""
    topic, group = topic_factory(partitions=4), unique_group_id()
    await register_members(kafka_bootstrap, group, ["b-0", "b-1"], wait_ms=60_000)
    first = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                           group_instance_id="b-0", roster_topic=DEFAULT_ROSTER_TOPIC,
                           **FAST)  # fmt: skip
    starting = asyncio.create_task(first.start())
    second: Member | None = None
    try:
        await wait_until(lambda: first.membership.state.value == "waiting", 20, "b-0 to wait")
        await asyncio.sleep(1.0)
        assert first.membership.state.value == "waiting", "still held: b-1 has not come"
        second = await start_member(topic, kafka_bootstrap, group, "b-1",
                                    roster_topic=DEFAULT_ROSTER_TOPIC)  # fmt: skip
        async with asyncio.timeout(30):
            await starting
        await wait_until(lambda: len(owned(second)) == 2 and len(first.assignment()) == 2,
                         30, "two partitions each")  # fmt: skip
    finally:
        starting.cancel()
        if second is not None:
            await second.stop()
        await first.stop()


async def test_commit_and_fetch_resume_after_a_restart(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=1), unique_group_id()
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, acks="all")
    await producer.start()
    try:
        for n in range(10):
            await producer.send_and_wait(topic, f"v{n}".encode(), partition=0)
    finally:
        await producer.stop()
    tp = TopicPartition(topic, 0)
    for incarnation in range(2):
        consumer = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                                  group_instance_id="c-0", **FAST)  # fmt: skip
        await consumer.start()
        try:
            if incarnation == 0:
                seen: list[bytes] = []
                async with asyncio.timeout(20):
                    while len(seen) < 5:
                        batch = await consumer.getmany(tp, timeout_ms=500,
                                                       max_records=5 - len(seen))  # fmt: skip
                        seen += [r.value for r in batch.get(tp, [])]
                await consumer.commit()
                assert seen == [f"v{n}".encode() for n in range(5)]
            else:
                assert await consumer.committed(tp) == 5
                record = await asyncio.wait_for(consumer.getone(), 20)
                assert (record.offset, record.value) == (5, b"v5"), "resumes where it committed"
        finally:
            await consumer.stop()


async def test_cooperative_join_revokes_only_what_moves(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = [await start_member(topic, kafka_bootstrap, group, f"co-{n}", **COOPERATIVE)
               for n in "ab"]  # fmt: skip
    try:
        await wait_stable(members, 4)
        before = [(owned(m), len(m.listener.revoked)) for m in members]
        members.append(await start_member(topic, kafka_bootstrap, group, "co-c", **COOPERATIVE))

        def three_owners() -> bool:
            return all(owned(m) for m in members) and sum(len(owned(m)) for m in members) == 4

        await wait_until(three_owners, 30, "three owners")
        for member, (had, revocations) in zip(members, before, strict=False):
            revoked = {tp.partition for r in member.listener.revoked[revocations:] for tp in r}
            assert revoked == had - owned(member), "only what moved is revoked"
    finally:
        await stop_all(members)


async def test_a_restarted_static_leader_still_picks_up_added_partitions(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """KIP-814: before 3.2 the coordinator does not tell the restarted leader that it leads;
    the consumer watches its topics as a leader would, so added partitions get assigned."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    quick = {"metadata_max_age_ms": 1000}
    members = {n: await start_member(topic, kafka_bootstrap, group, n, **quick)
               for n in ("l-a", "l-b")}  # fmt: skip
    try:
        await wait_stable(list(members.values()), 2)
        leader = next(n for n, m in members.items() if m.consumer.is_leader)
        generation = members[leader].consumer.generation_id
        await members[leader].stop()
        members[leader] = await start_member(topic, kafka_bootstrap, group, leader, **quick)
        await wait_until(lambda: bool(owned(members[leader])), 30, "the leader's partitions back")
        assert members[leader].consumer.generation_id == generation, "no rebalance"
        assert members[leader].consumer.is_leader is (kafka_line >= (3, 2))  # told, from KIP-814
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            await admin.create_partitions({topic: NewPartitions(total_count=4)})
        finally:
            await admin.close()
        await wait_until(lambda: sum(len(owned(m)) for m in members.values()) == 4, 20,
                         "the added partitions assigned")  # fmt: skip
    finally:
        await stop_all(list(members.values()))


async def test_the_consumer_protocol_with_takeover_from_4_0_refused_before(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=4), unique_group_id()
    if kafka_line < (4, 0):
        consumer = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                                  group_instance_id="k-a", group_protocol="consumer")  # fmt: skip
        started = time.monotonic()
        try:
            with pytest.raises(UnsupportedBrokerError) as info:
                await consumer.start()
        finally:
            await consumer.stop()
        assert time.monotonic() - started < 10, "refused at once"
        assert str(info.value).startswith(
            "group_protocol='consumer' (KIP-848) needs Apache Kafka 4.0 or newer"
        )
        assert str(info.value).endswith("use group_protocol='classic' on this cluster")
        return
    a, b = [await start_consumer_protocol(topic, kafka_bootstrap, group, f"k-{n}") for n in "ab"]
    a2: Member | None = None
    try:
        await settled([a, b], 4)
        await crash(a)
        crashed_at = time.monotonic()
        a2 = await start_consumer_protocol(topic, kafka_bootstrap, group, "k-a",
                                           instance_takeover=True)  # fmt: skip
        await settled([a2, b], 4)
        assert time.monotonic() - crashed_at < 10, "taken over before the session (10 s) ran out"
    finally:
        for member in (a2, b):
            if member is not None:
                await member.stop()


async def test_auto_takes_the_consumer_protocol_from_4_0_and_the_classic_one_before(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str], caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """Issue 51: ``group_protocol="auto"`` decides at start from the broker's ApiVersions, says
    why once in the log and on the consumer, and the member gets its partitions either way."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    caplog.set_level(logging.INFO, "staticconsumer._consumer.static_consumer")
    consumer = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                              group_instance_id="auto-a", group_protocol="auto")  # fmt: skip
    assert consumer.group_protocol == "auto"
    try:
        async with asyncio.timeout(60):
            await consumer.start()
        expected = "consumer" if kafka_line >= (4, 0) else "classic"
        assert consumer.group_protocol == expected
        reason = consumer.group_protocol_reason
        assert reason is not None and reason.startswith(expected + ": ")
        if expected == "classic":
            assert "needs Apache Kafka 4.0 or newer" in reason
        assert len(consumer.assignment()) == 2
        said = [r.getMessage() for r in caplog.records if "group_protocol='auto' chose" in
                r.getMessage()]  # fmt: skip
        assert len(said) == 1 and said[0].endswith(f"group_protocol='auto' chose {reason}")
    finally:
        await consumer.stop()


async def test_a_static_streams_thread_from_4_4_refused_before_in_one_sentence(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """Issue 50: a static member of a streams group (KIP-1071) needs Kafka 4.4 (KAFKA-20169);
    an older broker refuses it at start with the broker version or feature to enable, not a
    bare UNSUPPORTED_VERSION."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    topology = StreamsTopology(0, (Subtopology("0", source_topics=(topic,)),))
    consumer = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group,
                              group_instance_id="s-1", group_protocol="streams",
                              streams_topology=topology)  # fmt: skip
    try:
        if kafka_line < (4, 4):
            started = time.monotonic()
            with pytest.raises(UnsupportedBrokerError) as info:
                await consumer.start()
            assert time.monotonic() - started < 10, "refused at once"
            message = str(info.value)
            assert "KIP-1071" in message and (
                "Apache Kafka 4.4" in message or "Apache Kafka 4.2" in message
            ), message
            return
        async with asyncio.timeout(60):
            await consumer.start()
        assert consumer.streams is not None
        async with asyncio.timeout(30):
            while len(consumer.streams.tasks.active) < 2:
                await consumer.getmany(timeout_ms=200)
        assert len(consumer.assignment()) == 2
    finally:
        await consumer.stop()
