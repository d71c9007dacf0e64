"""Static membership on the consumer group protocol (KIP-848, ``group_protocol="consumer"``)
against the real Apache Kafka group coordinator, which is the oracle for every rule here.

The test broker runs consumer groups with a 10 s session and a 500 ms heartbeat interval
(``DEFAULT_TEST_BROKER_CONFIG``)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import TopicPartition

from staticconsumer import FencedInstanceIdError, MembershipState, StaticConsumer
from staticconsumer._compat import coordinator_of

from ._group import Member, Producer, Revocations, duplicates, owned, wait_until

CONSUMER = {
    "group_protocol": "consumer",
    "auto_offset_reset": "earliest",
    "enable_auto_commit": False,
}
SESSION_S = 10.0  # group.consumer.session.timeout.ms of the test broker


async def start(topic: str, bootstrap: str, group: str, instance_id: str | None,
                wait: bool = True, **overrides: Any) -> Member:  # fmt: skip
    """A member consuming and committing; ``wait=False`` does not wait for ``start()`` (which
    waits for the first assignment) but starts and consumes in the member's task."""
    listener = Revocations()
    consumer = StaticConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        group_instance_id=instance_id,
        **{**CONSUMER, **overrides},
    )
    consumer.subscribe([topic], listener=listener)
    member = Member(consumer, listener)
    if wait:
        await consumer.start()
        member.task = asyncio.create_task(member.run())
    else:

        async def start_then_run() -> None:
            await consumer.start()
            await member.run()

        member.task = asyncio.create_task(start_then_run())
    return member


async def settled(members: list[Member], partitions: int, timeout_s: float = 60) -> None:
    """Until every member is stable at one epoch, and together they own every partition once,
    balanced (the broker's default ``uniform`` assignor): reconciliation is over."""

    def done() -> bool:
        states = {m.consumer.membership.state for m in members}
        owners = [p for m in members for p in owned(m)]
        sizes = [len(owned(m)) for m in members]
        return (
            states == {MembershipState.STABLE} and len(set(epochs(members))) == 1
            and sorted(owners) == list(range(partitions)) and max(sizes) - min(sizes) <= 1
        )  # fmt: skip

    await wait_until(done, timeout_s, "a stable consumer group owning every partition once")


def epochs(members: list[Member]) -> list[int]:
    return [m.consumer.generation_id for m in members]


async def crash(member: Member) -> None:
    """Stop without the leaving heartbeat: to the coordinator this is a process that died."""
    driver = coordinator_of(member.consumer)
    driver.engine.close = lambda *_: []
    await member.stop()


async def test_a_restarted_static_member_gets_its_partitions_back_and_nobody_else_notices(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=9), unique_group_id()
    members = [await start(topic, kafka_bootstrap, group, f"cg-{n}") for n in "ABC"]
    try:
        await settled(members, 9)
        before = [(m.consumer.member_id, m.consumer.generation_id, owned(m)) for m in members]
        revoked_before = [len(m.listener.revoked) for m in members[1:]]
        await members[0].stop()  # static: epoch -2, the coordinator keeps A's assignment
        await asyncio.sleep(1.0)  # heartbeats of B and C go on meanwhile
        assert [owned(m) for m in members[1:]] == [b[2] for b in before[1:]]
        members[0] = await start(topic, kafka_bootstrap, group, "cg-A")
        await wait_until(lambda: owned(members[0]) == before[0][2], 30, "A's partitions back")
        await asyncio.sleep(1.5)  # room for a (wrong) epoch bump to show up
        after = [(m.consumer.member_id, m.consumer.generation_id, owned(m)) for m in members]
        assert after[0][0] != before[0][0], "a new process makes a new member id (KIP-1082)"
        # The restarted member comes back at its old epoch: the report (which reads an epoch
        # change as the consumer protocol's rebalance) sees a restart with no rebalance.
        assert after[0][1] == before[0][1], "the restarted member's epoch is its old one"
        for b, a in zip(before[1:], after[1:], strict=True):
            assert a == b, "B and C: same member id, same epoch, same partitions"
        assert [len(m.listener.revoked) for m in members[1:]] == revoked_before
    finally:
        for m in members:
            await m.stop()


async def test_leaving_for_good_hands_the_partitions_to_the_others(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, b = [await start(topic, kafka_bootstrap, group, f"lv-{n}") for n in "ab"]
    try:
        await settled([a, b], 4)
        epoch = b.consumer.generation_id
        await a.stop(leave_group=True, reason="scale down")  # epoch -1
        await wait_until(lambda: owned(b) == {0, 1, 2, 3}, 30, "b to own every partition")
        assert b.consumer.generation_id > epoch
    finally:
        await b.stop()


async def test_a_crashed_static_member_is_refused_until_released_and_stays_alive(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, b = [await start(topic, kafka_bootstrap, group, f"cr-{n}") for n in "ab"]
    await settled([a, b], 4)
    a_partitions = owned(a)
    await crash(a)
    caplog.set_level(logging.WARNING, logger="staticconsumer")
    crashed_at = time.monotonic()
    a2 = await start(topic, kafka_bootstrap, group, "cr-a")
    try:
        # Once the old session expires its partitions go to b, then a2 joins and gets a share
        # (not necessarily the same partitions: they moved in between).
        await wait_until(lambda: len(owned(a2)) == len(a_partitions), 3 * SESSION_S,
                         "a2 to get its share")  # fmt: skip
        waited = time.monotonic() - crashed_at
        await settled([a2, b], 4)
        assert "still held by its previous member" in caplog.text  # it was refused, and said why
        assert "UNRELEASED_INSTANCE_ID" in caplog.text
        assert a2.consumer.fatal_error is None and a2.task is not None and not a2.task.done()
        assert waited > SESSION_S / 2, "released only when the old member's session ran out"
    finally:
        await a2.stop()
        await b.stop()


async def test_a_crash_restart_keeps_its_partitions_though_start_waited_past_max_poll_interval(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """Issue 29: the restarted member waits in ``start()`` for UNRELEASED_INSTANCE_ID (until the
    old session expires, longer than its max_poll_interval_ms); that wait is not "no poll": the
    poll timer starts when ``start()`` returns, as Java's does. Before, the member was handed
    its partitions, lost them at once ("no poll for max_poll_interval_ms"), and joined again."""
    max_poll_ms = 3000
    assert max_poll_ms / 1000 < SESSION_S
    topic, group = topic_factory(partitions=2), unique_group_id()
    a = await start(topic, kafka_bootstrap, group, "mp-a", max_poll_interval_ms=max_poll_ms)
    await settled([a], 2)
    await crash(a)
    caplog.set_level(logging.INFO, logger="staticconsumer")
    started = time.monotonic()
    a2 = await start(topic, kafka_bootstrap, group, "mp-a", max_poll_interval_ms=max_poll_ms)
    try:
        waited = time.monotonic() - started
        assert waited * 1000 > max_poll_ms, "start() waited for the old session to expire"
        assert "UNRELEASED_INSTANCE_ID" in caplog.text
        await settled([a2], 2)
        epoch = a2.consumer.generation_id
        await asyncio.sleep(2 * max_poll_ms / 1000)  # the member polls all along
        assert "no poll for max_poll_interval_ms" not in caplog.text
        assert owned(a2) == {0, 1} and a2.consumer.generation_id == epoch
        assert a2.listener.revoked == []
    finally:
        await a2.stop()


async def test_takeover_removes_the_crashed_member_at_once(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, b = [await start(topic, kafka_bootstrap, group, f"to-{n}") for n in "ab"]
    await settled([a, b], 4)
    a_partitions = owned(a)
    await crash(a)
    caplog.set_level(logging.WARNING, logger="staticconsumer")
    crashed_at = time.monotonic()
    a2 = await start(topic, kafka_bootstrap, group, "to-a", instance_takeover=True)
    try:
        await wait_until(lambda: bool(owned(a2)), SESSION_S, "a2 to get partitions")
        assert time.monotonic() - crashed_at < SESSION_S, "before the old session could expire"
        await settled([a2, b], 4)
        assert "takeover removed the previous holder" in caplog.text
        assert owned(a2) == a_partitions or len(owned(a2)) == 2
    finally:
        await a2.stop()
        await b.stop()


async def test_a_second_live_process_with_the_same_instance_id_waits_and_the_first_goes_on(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    first = await start(topic, kafka_bootstrap, group, "twin")
    await settled([first], 2)
    epoch = first.consumer.generation_id
    second = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                            group_instance_id="twin", **CONSUMER)  # fmt: skip
    start_task = asyncio.create_task(second.start())
    try:
        await asyncio.sleep(3.0)
        assert not start_task.done(), "the newcomer holds no partitions while the first is live"
        assert first.consumer.fatal_error is None and owned(first) == {0, 1}
        assert first.consumer.generation_id == epoch
    finally:
        start_task.cancel()
        await asyncio.gather(start_task, return_exceptions=True)
        await second.stop()
        await first.stop()


async def test_a_refused_newcomer_waits_in_start_and_says_why_once_the_wait_runs_out(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=2), unique_group_id()
    first = await start(topic, kafka_bootstrap, group, "twin2")
    await settled([first], 2)
    caplog.set_level(logging.WARNING, logger="staticconsumer")
    second = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                            group_instance_id="twin2", unreleased_instance_wait_ms=1000,
                            **CONSUMER)  # fmt: skip
    assert second.options.unreleased_instance_wait_ms == 1000
    starting = asyncio.create_task(second.start())
    try:
        await wait_until(lambda: "start() goes on waiting" in caplog.text, 20,
                         "the UnreleasedInstanceIdError to be raised and logged")  # fmt: skip
        assert "instance_takeover=True" in caplog.text
        assert not starting.done(), "start() stays alive: the coordinator will release the id"
        assert first.consumer.fatal_error is None and owned(first) == {0, 1}
    finally:
        starting.cancel()
        await asyncio.gather(starting, return_exceptions=True)
        await second.stop()
        await first.stop()


async def test_commits_carry_the_member_epoch_and_consumed_equals_committed(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = [await start(topic, kafka_bootstrap, group, f"cm-{n}") for n in range(2)]
    async with Producer(kafka_bootstrap, topic) as producer:
        await settled(members, 4)
        await wait_until(lambda: len(producer.sent) > 100, 30, "records")
    await wait_until(lambda: sum(len(m.seen) for m in members) >= len(producer.sent), 60,
                     "every record consumed")  # fmt: skip
    for m in members:
        await m.stop()
    consumed = [v for m in members for v in m.seen]
    assert sorted(set(consumed)) == sorted(set(producer.sent)) and duplicates(consumed) == []
    assert sum(m.commit_failures for m in members) == 0
    reader = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group, **CONSUMER)
    await reader.start()
    try:
        positions = [await reader.committed(TopicPartition(topic, p)) or 0 for p in range(4)]
    finally:
        await reader.stop()
    assert sum(positions) == len(consumed), "committed position == records consumed"


async def test_enforce_rebalance_is_refused_with_a_warning_as_java_does(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=2), unique_group_id()
    m = await start(topic, kafka_bootstrap, group, "enf")
    try:
        await settled([m], 2)
        epoch = m.consumer.generation_id
        caplog.set_level(logging.WARNING, logger="staticconsumer")
        await m.consumer.enforce_rebalance("new config")
        assert "not supported by group_protocol='consumer'" in caplog.text
        assert "new config" in caplog.text
        await asyncio.sleep(1.5)
        assert m.consumer.generation_id == epoch and owned(m) == {0, 1}
    finally:
        await m.stop()


async def test_no_poll_for_max_poll_interval_leaves_and_the_next_poll_gets_the_partitions_back(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    consumer = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                              group_instance_id="slow", max_poll_interval_ms=2000,
                              **CONSUMER)  # fmt: skip
    await consumer.start()
    try:
        assert {tp.partition for tp in consumer.assignment()} == {0, 1}
        await wait_until(lambda: consumer.membership.state is MembershipState.STABLE, 10,
                         "the member to be stable")  # fmt: skip
        await wait_until(
            lambda: consumer.assignment() == set(),
            10,
            "the member to give its partitions up after max_poll_interval_ms",
        )
        assert consumer.membership.state is MembershipState.JOINING
        async with asyncio.timeout(20):  # polling again: it joins at epoch 0
            while {tp.partition for tp in consumer.assignment()} != {0, 1}:
                await consumer.getmany(timeout_ms=100)  # the same partitions: kept for it
    finally:
        await consumer.stop()


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
async def test_rolling_bounce_with_a_live_producer(
    static: bool, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """Kafka's ``test_static_consumer_bounce`` for the consumer protocol: static members that stay
    up see no epoch bump and no revocation while each member in turn restarts; nothing is lost,
    nothing consumed twice, and the committed position equals the records consumed. Dynamic
    members do revoke."""
    topic, group = topic_factory(partitions=6), unique_group_id()
    ids = [f"rb-{i}" if static else None for i in range(3)]
    members = [await start(topic, kafka_bootstrap, group, iid) for iid in ids]
    retired: list[Member] = []
    bumps = revocations = 0
    await settled(members, 6)
    async with Producer(kafka_bootstrap, topic) as producer:
        for _round in range(2):
            for i in range(3):
                stayers = [m for j, m in enumerate(members) if j != i]
                epochs_before = epochs(stayers)
                revoked_before = [len(m.listener.revoked) for m in stayers]
                await members[i].stop()
                retired.append(members[i])
                await asyncio.sleep(1.5)  # a restart takes time: the others heartbeat meanwhile
                members[i] = await start(topic, kafka_bootstrap, group, ids[i])
                await settled(members, 6)
                bumps += sum(a != b for a, b in zip(epochs(stayers), epochs_before, strict=True))
                after = [len(m.listener.revoked) for m in stayers]
                revocations += sum(after) - sum(revoked_before)
    await wait_until(lambda: len({v for m in members + retired for v in m.seen})
                     >= len(producer.sent), 60, "every record consumed")  # fmt: skip
    for m in members:
        await m.stop()
    consumed = [v for m in members + retired for v in m.seen]
    assert set(consumed) == set(producer.sent), "nothing lost"
    if not static:
        assert bumps > 0 and revocations > 0, "dynamic members rebalance and give partitions up"
        return
    assert (bumps, revocations) == (0, 0), "stayers: no epoch bump, no revocation"
    assert sum(m.commit_failures for m in members + retired) == 0
    assert duplicates(consumed) == [], "no record consumed twice"
    reader = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group, **CONSUMER)
    await reader.start()
    try:
        positions = [await reader.committed(TopicPartition(topic, p)) or 0 for p in range(6)]
    finally:
        await reader.stop()
    assert sum(positions) == len(consumed), "committed position == records consumed"


async def test_a_live_member_whose_instance_id_is_taken_over_is_fenced_and_the_other_goes_on(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """Kafka's ``test_fencing_static_consumer`` at a stable group, consumer protocol: the
    coordinator answers FENCED_INSTANCE_ID to the member it replaced; the fenced one dies exactly
    as on the classic protocol, the rest keep going."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    fired: list[Exception] = []
    old = await start(topic, kafka_bootstrap, group, "fence", on_fatal=fired.append)
    await settled([old], 2)
    new = await start(topic, kafka_bootstrap, group, "fence", instance_takeover=True)
    try:
        await wait_until(lambda: old.consumer.fatal_error is not None, 20, "the old one fenced")
        error = old.consumer.fatal_error
        assert isinstance(error, FencedInstanceIdError) and error.fatal
        assert error.api == "ConsumerGroupHeartbeat" and error.group_instance_id == "fence"
        assert fired == [error], "on_fatal once"
        # Fence diagnosis (ConsumerGroupDescribe): the holder now is the new process's member.
        assert error.holder is not None and new.consumer.member_id in error.holder, str(error)
        for call in (old.consumer.getone(), old.consumer.getmany(), old.consumer.commit()):
            with pytest.raises(FencedInstanceIdError):
                await call
        assert old.consumer.membership.state is MembershipState.FENCED
        await settled([new], 2)
        assert new.consumer.fatal_error is None
    finally:
        await new.stop()
        if old.task is not None:
            old.task.cancel()
        await old.consumer.stop()


async def test_conflicting_instance_ids_started_together_own_every_partition_once(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """Kafka's ``test_fencing_static_consumer`` with every member started together: two
    processes per instance id; one of each pair holds the instance id, the other is refused
    (UNRELEASED_INSTANCE_ID) and waits, alive and holding nothing."""
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = [await start(topic, kafka_bootstrap, group, f"dup-{i % 2}", wait=False)
               for i in range(4)]  # fmt: skip
    try:
        await wait_until(lambda: sorted(len(owned(m)) for m in members) == [0, 0, 2, 2]
                         and sorted(p for m in members for p in owned(m)) == [0, 1, 2, 3],
                         60, "each partition owned once, one process per instance id")  # fmt: skip
        holders = [m for m in members if owned(m)]
        assert sorted(m.consumer.group_instance_id or "" for m in holders) == ["dup-0", "dup-1"]
        await asyncio.sleep(2.0)  # the refused ones keep asking, and stay refused
        assert sorted(len(owned(m)) for m in members) == [0, 0, 2, 2]
        assert all(m.consumer.fatal_error is None for m in members)
        assert all(m.task is not None and not m.task.done() for m in members)
    finally:
        for m in members:  # the refused ones are still in start(): cancel, then stop
            assert m.task is not None
            m.task.cancel()
            await asyncio.gather(m.task, return_exceptions=True)
            await m.consumer.stop()
