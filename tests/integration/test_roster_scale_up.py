"""A pre-registered scale-up of a running static group of four by four (issue 21, "Done when"):
the four new instance ids are registered, then the new members start, all at once or one every
second (as an ``OrderedReady`` StatefulSet brings pods up: a member waiting at the roster's
barrier is ready). Classic protocol with ``cooperative-sticky``: the arrivals meet at the barrier
and reach the coordinator together, one rebalance takes them in (and the cooperative one after
it hands out what was revoked), each partition moves at most once and no running member gives up
a partition it keeps. The consumer protocol (KIP-848, the broker assigns): the barrier holds the
arrivals until the last one comes and nobody joins meanwhile; the coordinator then gives the first
arrival's join a target of its own, so what that arrival took may move once more (no documented
mechanism batches it, and no made-up topic name is sent: docs/scaling.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from staticconsumer.admin import describe_group, register_members
from staticconsumer.roster import DEFAULT_ROSTER_TOPIC

from ._group import Member, owned, start_member, wait_until
from .test_consumer_protocol import start as start_consumer_protocol_member

PARTITIONS = 16
RUNNING = [f"s-{i}" for i in range(4)]
ARRIVING = [f"s-{i}" for i in range(4, 8)]
#: Pre-registration is opt-in (issue 31): every member reads the CLI's default roster topic.
ROSTER = {"roster_topic": DEFAULT_ROSTER_TOPIC}
COOPERATIVE = {"session_timeout_ms": 60000, "partition_assignment_strategy": "cooperative-sticky",
               **ROSTER}  # fmt: skip
Starter = Callable[..., Coroutine[Any, Any, Member]]


async def _classic(topic: str, bootstrap: str, group: str, name: str) -> Member:
    return await start_member(topic, bootstrap, group, name, **COOPERATIVE)


async def _consumer_protocol(topic: str, bootstrap: str, group: str, name: str) -> Member:
    return await start_consumer_protocol_member(topic, bootstrap, group, name, **ROSTER)


def _snapshot(members: dict[str, Member]) -> dict[int, str]:
    return {p: name for name, m in members.items() for p in owned(m)}


async def _settled(members: dict[str, Member]) -> None:
    """Every member stable on one generation, owning two partitions each."""

    def done() -> bool:
        ms = list(members.values())
        return (
            {m.consumer.membership.state.value for m in ms} == {"stable"}
            and len({m.consumer.generation_id for m in ms}) == 1
            and sorted(len(owned(m)) for m in ms) == [PARTITIONS // len(ms)] * len(ms)
            and len(_snapshot(members)) == PARTITIONS
        )  # fmt: skip

    await wait_until(done, 90, f"{len(members)} members stable, owning the partitions evenly")


async def _arrive(
    topic: str, bootstrap: str, group: str, stagger_s: float, start: Starter
) -> dict[str, Member]:
    """Start the four registered arrivals ``stagger_s`` apart; each start() returns once the
    member joined (after the barrier)."""
    starting = []
    for name in ARRIVING:
        starting.append(asyncio.create_task(start(topic, bootstrap, group, name)))
        await asyncio.sleep(stagger_s)
    async with asyncio.timeout(90):
        joined = await asyncio.gather(*starting, return_exceptions=True)
    failed = [j for j in joined if isinstance(j, BaseException)]
    started = {n: j for n, j in zip(ARRIVING, joined, strict=True) if isinstance(j, Member)}
    if failed:
        for member in started.values():
            await member.stop()
        raise failed[0]
    return started


def _check_each_partition_moved_once(
    members: dict[str, Member], before: dict[int, str], after: dict[int, str],
    first_arrival_alone: bool = False,
) -> None:  # fmt: skip
    """``first_arrival_alone``: the consumer protocol gives the first arrival a target of its own
    (docs/scaling.md, "What the consumer protocol cannot batch"): what it took then may move on
    once more, to a later arrival; at most its share of one target (a fifth of the partitions)."""
    moved = {p for p in range(PARTITIONS) if after[p] != before[p]}
    assert {after[p] for p in moved} == set(ARRIVING), after
    assert len(moved) == PARTITIONS // 2, "a sticky plan moves what balance needs, no more"
    # Each moved partition was handed out once, to its new owner, and to nobody before it.
    handed = sorted(
        (name, tp.partition)
        for name, m in members.items()
        for added in m.listener.assigned
        for tp in added
        if tp.partition in moved
    )
    final = sorted((after[p], p) for p in moved)
    if first_arrival_alone:
        extra = [h for h in handed if h not in final]  # handed to the first arrival, then on
        assert len({name for name, _ in extra}) <= 1, ("one arrival alone", extra)
        assert len(extra) <= PARTITIONS // (len(RUNNING) + 1), extra
        assert sorted(h for h in handed if h in final) == final, handed
    else:
        assert handed == final, handed
    # The running members gave up only what moved, once each: they never stopped the rest.
    for name in RUNNING:
        gave = sorted(tp.partition for revoked in members[name].listener.revoked for tp in revoked)
        assert gave == sorted(p for p in moved if before[p] == name), (name, gave)


async def _running_group(
    topic: str, bootstrap: str, group: str, start: Starter
) -> dict[str, Member]:
    members: dict[str, Member] = {}
    for name in RUNNING:
        members[name] = await start(topic, bootstrap, group, name)
    await _settled(members)
    for m in members.values():  # what happens from here on
        m.listener.revoked.clear()
        m.listener.assigned.clear()
    return members


@pytest.mark.parametrize("stagger_s", [0.0, 1.0], ids=["together", "staggered"])
async def test_four_registered_arrivals_cost_one_rebalance_and_move_each_partition_once(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
    stagger_s: float,
) -> None:
    topic, group = topic_factory(partitions=PARTITIONS), unique_group_id()
    members = await _running_group(topic, kafka_bootstrap, group, _classic)
    try:
        generation = members[RUNNING[0]].consumer.generation_id
        before = _snapshot(members)
        await register_members(kafka_bootstrap, group, RUNNING + ARRIVING, wait_ms=120_000)
        members.update(await _arrive(topic, kafka_bootstrap, group, stagger_s, _classic))
        await _settled(members)
        _check_each_partition_moved_once(members, before, _snapshot(members))
        # One rebalance took the four in; the cooperative protocol's second hands out what the
        # running members revoked in the first. One arrival alone would add two more each.
        assert members[RUNNING[0]].consumer.generation_id - generation == 2
    finally:
        for member in members.values():
            await member.stop()


async def test_consumer_protocol_arrivals_wait_for_each_other_then_move_what_one_target_allows(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=PARTITIONS), unique_group_id()
    members = await _running_group(topic, kafka_bootstrap, group, _consumer_protocol)
    try:
        before = _snapshot(members)
        epoch = (await describe_group(kafka_bootstrap, group)).group_epoch
        await register_members(kafka_bootstrap, group, RUNNING + ARRIVING, wait_ms=120_000)
        arriving = asyncio.create_task(
            _arrive(topic, kafka_bootstrap, group, 1.5, _consumer_protocol)
        )
        await asyncio.sleep(3 * 1.5 + 0.3)  # three arrivals are waiting, the fourth starting
        described = await describe_group(kafka_bootstrap, group)
        assert {m.group_instance_id for m in described.members} == set(RUNNING)
        assert described.group_epoch == epoch, "nobody joined while an arrival was missing"
        assert _snapshot(members) == before
        members.update(await arriving)
        await _settled(members)
        _check_each_partition_moved_once(members, before, _snapshot(members),
                                         first_arrival_alone=True)  # fmt: skip
    finally:
        for member in members.values():
            await member.stop()
