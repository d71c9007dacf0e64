"""enforce_rebalance(reason) and stop(leave_group=True, reason) on the real broker (KIP-800)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import aiokafka
import pytest

from staticconsumer import ConfigurationError, MembershipState, StaticConsumer
from staticconsumer.localkafka import KafkaCluster

from ._group import Member, owned, start_member, wait_stable, wait_until


async def _group_of(n: int, topic: str, bootstrap: str, group: str, **kw: object) -> list[Member]:
    members = [await start_member(topic, bootstrap, group, f"{group}-m{i}", **kw) for i in range(n)]
    await wait_stable(members, 4)
    return members


@pytest.mark.parametrize("who", ["follower", "leader"])
async def test_enforce_rebalance_bumps_generation_and_logs_the_reason(
    who: str,
    kafka_cluster: KafkaCluster,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = await _group_of(2, topic, kafka_cluster.bootstrap_servers, group)
    try:
        generation = members[0].consumer.generation_id
        chosen = members[0] if who == "follower" else members[1]
        if _is_leader(chosen) != (who == "leader"):
            chosen = members[1] if chosen is members[0] else members[0]
        assert _is_leader(chosen) == (who == "leader")
        reason = f"test {who} {time.time_ns()}"
        await chosen.consumer.enforce_rebalance(reason)
        await wait_until(
            lambda: (
                all(m.consumer.generation_id == generation + 1 for m in members)
                and sum(len(owned(m)) for m in members) == 4
            ),
            30,
            "generation + 1 on every member",
        )
        await asyncio.sleep(0.5)
        assert all(m.consumer.generation_id == generation + 1 for m in members), "exactly one"
        assert f"rebalance enforced by user: {reason}" in kafka_cluster.logs()
    finally:
        for m in members:
            await m.stop()


def _is_leader(member: Member) -> bool:
    return member.consumer.is_leader  # who led the last join


async def test_enforce_rebalance_rejects_empty_reason(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    consumer = StaticConsumer(
        topic_factory(),
        bootstrap_servers=kafka_bootstrap,
        group_id=unique_group_id(),
        group_instance_id="x",
    )
    with pytest.raises(ConfigurationError):
        await consumer.enforce_rebalance("")
    with pytest.raises(ValueError):
        await consumer.enforce_rebalance("   ")


async def test_enforce_calls_before_the_join_coalesce(
    kafka_cluster: KafkaCluster,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = await _group_of(2, topic, kafka_cluster.bootstrap_servers, group)
    try:
        generation = members[0].consumer.generation_id
        tag = str(time.time_ns())
        follower = next(m for m in members if not _is_leader(m))
        await follower.consumer.enforce_rebalance(f"first {tag}")
        await follower.consumer.enforce_rebalance(f"second {tag}")
        await wait_until(
            lambda: all(m.consumer.generation_id > generation for m in members),
            30,
            "the enforced rebalance",
        )
        await asyncio.sleep(1.0)
        assert all(m.consumer.generation_id == generation + 1 for m in members), "one rebalance"
        assert f"rebalance enforced by user: first {tag}; second {tag}" in kafka_cluster.logs()
    finally:
        for m in members:
            await m.stop()


async def test_leave_with_reason_rebalances_at_once(
    kafka_cluster: KafkaCluster,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = await _group_of(
        2, topic, kafka_cluster.bootstrap_servers, group, session_timeout_ms=60000
    )
    generation = members[1].consumer.generation_id
    reason = f"scale down {time.time_ns()}"
    started = time.monotonic()
    await members[0].stop(leave_group=True, reason=reason)
    try:
        await wait_until(lambda: len(owned(members[1])) == 4, 20, "the survivor to own all")
        assert time.monotonic() - started < 20, "well before the 60 s session timeout"
        assert members[1].consumer.generation_id == generation + 1, "one rebalance"
        assert f"the consumer is being closed: {reason}" in kafka_cluster.logs()
    finally:
        await members[1].stop()


async def test_enforce_rebalance_from_a_rebalance_listener(
    kafka_cluster: KafkaCluster,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    from aiokafka import ConsumerRebalanceListener

    topic, group = topic_factory(partitions=4), unique_group_id()
    members = await _group_of(2, topic, kafka_cluster.bootstrap_servers, group)
    reason = f"from listener {time.time_ns()}"
    follower = next(m for m in members if not _is_leader(m))
    calls: list[int] = []

    class EnforceOnce(ConsumerRebalanceListener):  # type: ignore[misc]
        async def on_partitions_revoked(self, revoked: object) -> None:
            return None

        async def on_partitions_assigned(self, assigned: object) -> None:
            if not calls:
                calls.append(follower.consumer.generation_id)
                await follower.consumer.enforce_rebalance(reason)

    try:
        generation = follower.consumer.generation_id
        follower.consumer.subscribe([topic], listener=EnforceOnce())  # re-join: listener runs
        await wait_until(lambda: bool(calls), 30, "the listener to run")
        await wait_until(
            lambda: (
                all(m.consumer.generation_id >= calls[0] + 1 for m in members)
                and sum(len(owned(m)) for m in members) == 4
            ),
            30,
            "the rebalance enforced from the listener",
        )
        assert calls[0] >= generation
        assert f"rebalance enforced by user: {reason}" in kafka_cluster.logs()
    finally:
        for m in members:
            await m.stop()


async def test_a_followers_enforce_during_a_rebalance_yields_a_further_generation(
    kafka_cluster: KafkaCluster,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    """Issue 29: the leader enforces; the follower enforces while that rebalance is in flight
    (from its revocation listener, which runs as it re-joins: state ``rebalancing``). The rebalance
    completes, then the follower's request is performed: one more generation, with its reason.
    Before, the follower's call returned and nothing followed (Java: "a no-op")."""
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = await _group_of(2, topic, kafka_cluster.bootstrap_servers, group)
    leader = next(m for m in members if _is_leader(m))
    follower = next(m for m in members if not _is_leader(m))
    tag = time.time_ns()
    seen: list[tuple[MembershipState, int]] = []

    class EnforceWhileRebalancing(aiokafka.ConsumerRebalanceListener):  # type: ignore[misc]
        armed = False

        async def on_partitions_revoked(self, revoked: object) -> None:
            if self.armed and not seen:
                seen.append((follower.consumer.membership.state, follower.consumer.generation_id))
                await follower.consumer.enforce_rebalance(f"follower {tag}")

        async def on_partitions_assigned(self, assigned: object) -> None:
            return None

    listener = EnforceWhileRebalancing()
    try:
        before = follower.consumer.generation_id
        follower.consumer.subscribe([topic], listener=listener)  # a re-join (not armed yet)
        await wait_until(lambda: all(m.consumer.generation_id > before for m in members), 30,
                         "the re-join of the new subscription")  # fmt: skip
        await wait_stable(members, 4)
        await asyncio.sleep(0.5)
        generation = follower.consumer.generation_id
        listener.armed = True
        await leader.consumer.enforce_rebalance(f"leader {tag}")
        await wait_until(lambda: bool(seen), 30, "the follower's enforce during the rebalance")
        assert seen[0] == (MembershipState.REBALANCING, generation)
        await wait_until(
            lambda: (
                all(m.consumer.generation_id >= generation + 2 for m in members)
                and sum(len(owned(m)) for m in members) == 4
            ),
            30,
            "the follower's enforced rebalance after the leader's",
        )
        await asyncio.sleep(1.0)
        assert all(m.consumer.generation_id == generation + 2 for m in members), "exactly one more"
        logs = kafka_cluster.logs()
        assert f"rebalance enforced by user: leader {tag}" in logs
        assert f"rebalance enforced by user: follower {tag}" in logs
    finally:
        for m in members:
            await m.stop()
