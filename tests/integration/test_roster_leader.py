"""The classic leader plans under the group's roster (issue 21 item 2) on the real broker: two
registered members join a running group of two one after the other; while one is missing the
running members keep every partition and never stop (cooperative), the arrival gets nothing; when
the last one joins each partition moves at most once. A registered member that never comes ends
the wait at its deadline with a rebalance whose KIP-800 reason the broker logs. A roster that
cannot be read is planned without, with a WARNING."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable

import pytest

from staticconsumer import StaticConsumer
from staticconsumer.admin import register_members
from staticconsumer.localkafka import KafkaCluster
from staticconsumer.roster import DEFAULT_ROSTER_TOPIC

from ._group import (
    FAST,
    Member,
    Revocations,
    owned,
    put_record,
    start_member,
    wait_stable,
    wait_until,
)

#: Pre-registration is opt-in (issue 31): every member here reads the CLI's default roster topic.
LONG_SESSION = {"session_timeout_ms": 60000, "roster_topic": DEFAULT_ROSTER_TOPIC}
COOPERATIVE = {**LONG_SESSION, "partition_assignment_strategy": "cooperative-sticky"}
#: The leader's hold plan alone: each arrival's start() returns once it joined (the barrier would
#: hold it until the next one starts, which these tests do only after start() returned).
NO_BARRIER = {"roster_barrier": False}


async def _stop(members: list[Member]) -> None:
    for member in members:
        await member.stop()


def _snapshot(members: dict[str, Member]) -> dict[int, str]:
    return {p: name for name, m in members.items() for p in owned(m)}


async def _together(members: list[Member]) -> None:
    """Until every member is stable on one generation (with an empty assignment allowed)."""

    def done() -> bool:
        states = {m.consumer.membership.state.value for m in members}
        return len({m.consumer.generation_id for m in members}) == 1 and states == {"stable"}

    await wait_until(done, 60, "every member stable on one generation")


async def test_cooperative_scale_up_holds_then_moves_each_partition_once(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=8), unique_group_id()
    ids = ["r-0", "r-1", "r-2", "r-3"]
    members: dict[str, Member] = {}
    try:
        for name in ids[:2]:
            members[name] = await start_member(topic, kafka_bootstrap, group, name, **COOPERATIVE)
        await wait_stable(list(members.values()), 8)
        await _together(list(members.values()))
        before = _snapshot(members)
        for m in members.values():  # what happened from here on
            m.listener.revoked.clear()
            m.listener.assigned.clear()
        await register_members(kafka_bootstrap, group, ids, wait_ms=120_000)

        members["r-2"] = await start_member(topic, kafka_bootstrap, group, "r-2",
                                            **COOPERATIVE, **NO_BARRIER)  # fmt: skip
        await _together(list(members.values()))
        await asyncio.sleep(1.0)  # a second (cooperative) rebalance would have begun by now
        assert _snapshot(members) == before, "nothing owned moves while r-3 is missing"
        assert owned(members["r-2"]) == set()
        assert all(m.listener.revoked == [] for m in members.values()), "nobody stopped"

        members["r-3"] = await start_member(topic, kafka_bootstrap, group, "r-3",
                                            **COOPERATIVE, **NO_BARRIER)  # fmt: skip
        await wait_until(
            lambda: all(len(owned(m)) == 2 for m in members.values()), 60, "two partitions each"
        )
        after = _snapshot(members)
        moved = {p for p in range(8) if after[p] != before[p]}
        assert len(moved) == 4 and {after[p] for p in moved} == {"r-2", "r-3"}
        # Each moved partition was handed out once, to its new owner, and to nobody before.
        handed = [
            (name, tp.partition)
            for name, m in members.items()
            for added in m.listener.assigned
            for tp in added
            if tp.partition in moved
        ]
        assert sorted(handed) == sorted((after[p], p) for p in moved), handed
        # The old members only gave up partitions (once each), they never lost the others.
        for name in ("r-0", "r-1"):
            gave = [tp.partition for revoked in members[name].listener.revoked for tp in revoked]
            assert sorted(gave) == sorted(p for p in moved if before[p] == name), (name, gave)
    finally:
        await _stop(list(members.values()))


async def test_eager_scale_up_moves_no_partition_twice(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=8), unique_group_id()
    ids = ["e-0", "e-1", "e-2", "e-3"]
    members: dict[str, Member] = {}
    eager = {**LONG_SESSION, "partition_assignment_strategy": "range", **NO_BARRIER}
    try:
        for name in ids[:2]:
            members[name] = await start_member(topic, kafka_bootstrap, group, name, **eager)
        await wait_stable(list(members.values()), 8)
        await _together(list(members.values()))
        snapshots = [_snapshot(members)]
        await register_members(kafka_bootstrap, group, ids, wait_ms=120_000)
        for name in ids[2:]:
            members[name] = await start_member(topic, kafka_bootstrap, group, name, **eager)
            await _together(list(members.values()))
            await wait_stable(list(members.values()), 8)
            snapshots.append(_snapshot(members))
        assert snapshots[1] == snapshots[0], "e-3 is missing: everything stays where it was"
        assert all(len(owned(members[n])) == 2 for n in ids), snapshots[-1]
        owners = {p: [s[p] for s in snapshots] for p in range(8)}
        for p, seen in owners.items():
            changes = sum(1 for a, b in itertools.pairwise(seen) if a != b)
            assert changes <= 1, (p, seen)
    finally:
        await _stop(list(members.values()))


async def test_a_member_that_never_comes_ends_the_wait_with_a_reason_the_broker_logs(
    kafka_cluster: KafkaCluster,
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    await register_members(kafka_bootstrap, group, ["w-0", "w-1", "ghost"], wait_ms=6_000)
    members: dict[str, Member] = {}
    try:
        for name in ("w-0", "w-1"):
            members[name] = await start_member(topic, kafka_bootstrap, group, name,
                                               **COOPERATIVE, **NO_BARRIER)  # fmt: skip
        await _together(list(members.values()))
        assert owned(members["w-0"]) == {0, 1, 2, 3} and owned(members["w-1"]) == set()
        await wait_until(lambda: len(owned(members["w-1"])) == 2, 30, "the wait to end")
        assert len(owned(members["w-0"])) == 2
        reason = "roster wait ended: ghost did not join within 6000 ms"
        # Kafka 4.3's GroupMetadataManager: "Preparing to rebalance group <g> in state ... with
        # old generation N (reason: <the JoinGroup reason>)".
        await wait_until(
            lambda: any(group in line and reason in line
                        for line in kafka_cluster.logs().splitlines()),
            10, "the broker to log the roster's reason",
        )  # fmt: skip
    finally:
        await _stop(list(members.values()))


async def test_an_unreadable_roster_is_planned_without_and_warned(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="staticconsumer")
    topic, group, rosters = topic_factory(partitions=4), unique_group_id(), topic_factory(1)
    await put_record(kafka_bootstrap, rosters, group.encode(), b"not a roster")
    settings = {**COOPERATIVE, "roster_topic": rosters}
    members = [await start_member(topic, kafka_bootstrap, group, f"u-{i}", **settings)
               for i in range(2)]  # fmt: skip
    try:
        await wait_until(lambda: all(len(owned(m)) == 2 for m in members), 60, "two each")
        warned = [r.getMessage() for r in caplog.records
                  if "planning without the group's roster" in r.getMessage()]  # fmt: skip
        assert warned and rosters in warned[0], warned
        assert all(r.levelno == logging.WARNING for r in caplog.records
                   if "planning without" in r.getMessage())  # fmt: skip
    finally:
        await _stop(members)


async def test_registered_arrivals_wait_at_the_barrier_then_join_in_one_rebalance(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=8), unique_group_id()
    members: dict[str, Member] = {}
    starting: list[asyncio.Task[Member]] = []
    waiting: StaticConsumer | None = None
    try:
        for name in ("b-0", "b-1"):
            members[name] = await start_member(topic, kafka_bootstrap, group, name, **COOPERATIVE)
        await wait_stable(list(members.values()), 8)
        await _together(list(members.values()))
        generation = members["b-0"].consumer.generation_id
        before = _snapshot(members)
        await register_members(kafka_bootstrap, group, ["b-0", "b-1", "b-2", "b-3"],
                               wait_ms=120_000)  # fmt: skip

        listener = Revocations()
        waiting = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group,
                                 group_instance_id="b-2", **{**FAST, **COOPERATIVE})  # fmt: skip
        waiting.subscribe([topic], listener=listener)
        starting.append(asyncio.create_task(waiting.start()))  # type: ignore[arg-type]
        b2 = waiting
        await wait_until(lambda: b2.membership.state.value == "waiting", 20, "b-2 to wait")
        assert b2.membership.ready, "a member waiting at the barrier is ready"
        await asyncio.sleep(1.5)
        assert members["b-0"].consumer.generation_id == generation, "nobody joined yet"
        assert _snapshot(members) == before

        starting.append(asyncio.create_task(
            start_member(topic, kafka_bootstrap, group, "b-3", **COOPERATIVE)))  # fmt: skip
        async with asyncio.timeout(30):
            _, last = await asyncio.gather(*starting)
        members["b-2"] = Member(waiting, listener)
        members["b-2"].task = asyncio.create_task(members["b-2"].run())
        members["b-3"] = last  # type: ignore[assignment]
        await wait_until(
            lambda: all(len(owned(m)) == 2 for m in members.values()), 60, "two partitions each"
        )
        await _together(list(members.values()))
        # One rebalance brought both in; the cooperative protocol adds the one that hands out
        # what the running members revoked. Without the barrier: one more (b-2 alone first).
        assert members["b-0"].consumer.generation_id - generation == 2
        after = _snapshot(members)
        moved = {p for p in range(8) if after[p] != before[p]}
        assert len(moved) == 4 and {after[p] for p in moved} == {"b-2", "b-3"}
    finally:
        for task in starting:
            task.cancel()
        await _stop(list(members.values()))
        if waiting is not None and "b-2" not in members:
            await waiting.stop()
