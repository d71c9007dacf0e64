"""StaticConsumers and Java KafkaConsumers with CooperativeStickyAssignor in one group (KIP-429),
whichever side leads: every partition owned exactly once, never by two members in one generation,
and the plan sticky across a join and a leave."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import ConsumerRebalanceListener

from assignors import CooperativeStickyAssignor
from staticconsumer import StaticConsumer
from staticconsumer.admin import DEFAULT_ROSTER_TOPIC, register_members

from ._group import FAST, wait_until
from .test_java_interop import JavaPeers, interop_command, java_peers  # noqa: F401 (fixture)

TPS = frozenset[tuple[str, int]]
JAVA = ["coop-0", "coop-2"]
PYTHON = ["coop-1", "coop-3"]


class PythonSide:
    """StaticConsumers of one group; every (generation, whole assignment) they were handed."""

    def __init__(self, bootstrap: str, group: str, topic: str) -> None:
        self.bootstrap, self.group, self.topic = bootstrap, group, topic
        self.consumers: dict[str, StaticConsumer] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.assigned: list[tuple[str, int, TPS]] = []

    async def start(self, instance: str) -> None:
        side = self
        consumer = StaticConsumer(
            bootstrap_servers=self.bootstrap, group_id=self.group, group_instance_id=instance,
            partition_assignment_strategy=(CooperativeStickyAssignor(),), **FAST,
            roster_topic=DEFAULT_ROSTER_TOPIC,  # pre-registration is opt-in (issue 31)
            roster_barrier=False,  # the roster test starts Java's arrival after ours joined
        )  # fmt: skip

        class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
            def on_partitions_revoked(self, revoked: Any) -> None:
                pass

            def on_partitions_assigned(self, assigned: Any) -> None:
                whole = frozenset((tp.topic, tp.partition) for tp in consumer.assignment())
                side.assigned.append((instance, consumer.generation_id, whole))

        consumer.subscribe([self.topic], listener=Listener())
        await consumer.start()
        self.consumers[instance] = consumer
        self.tasks[instance] = asyncio.create_task(self._consume(consumer))

    async def _consume(self, consumer: StaticConsumer) -> None:
        while True:
            await consumer.getmany(timeout_ms=200)

    async def stop(self, instance: str, **kw: Any) -> None:
        self.tasks.pop(instance).cancel()
        await self.consumers.pop(instance).stop(**kw)

    async def stop_all(self) -> None:
        for instance in list(self.consumers):
            await self.stop(instance)


def current(java: JavaPeers, python: PythonSide, group: str) -> dict[str, tuple[int, TPS]]:
    state: dict[str, tuple[int, TPS]] = {}
    for instance in JAVA:
        event = java.assigned(group, instance)
        if event is not None:
            state[instance] = (event["generation"], frozenset(map(tuple, event["partitions"])))
    for instance, consumer in python.consumers.items():
        parts = frozenset((tp.topic, tp.partition) for tp in consumer.assignment())
        state[instance] = (consumer.generation_id, parts)
    return state


def per_generation(java: JavaPeers, python: PythonSide, group: str) -> dict[int, list[TPS]]:
    """Every assignment handed out, grouped by generation (Java's events and ours)."""
    out: dict[int, list[TPS]] = {}
    for e in java.events:
        if e["event"] == "assigned" and e["group"] == group:
            out.setdefault(e["generation"], []).append(frozenset(map(tuple, e["partitions"])))
    for _instance, generation, parts in python.assigned:
        out.setdefault(generation, []).append(parts)
    return out


async def settled(java: JavaPeers, python: PythonSide, group: str, members: list[str],
                  partitions: int) -> dict[str, TPS]:  # fmt: skip
    def done() -> bool:
        state = current(java, python, group)
        if set(state) < set(members):
            return False
        rows = [state[m] for m in members]
        owned = [tp for _g, parts in rows for tp in parts]
        return len({g for g, _p in rows}) == 1 and len(owned) == len(set(owned)) == partitions

    await wait_until(done, 90, f"{members} owning {partitions} partitions on one generation")
    await asyncio.sleep(1.5)  # no further rebalance due
    assert done(), current(java, python, group)
    return {m: current(java, python, group)[m][1] for m in members}


@pytest.mark.parametrize("leader", ["java", "python"])
async def test_cooperative_sticky_with_java_members(
    leader: str, interop_command: list[str], kafka_bootstrap: str,  # noqa: F811
    topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=8), unique_group_id(f"coop-{leader}")
    python = PythonSide(kafka_bootstrap, group, topic)
    async with java_peers(interop_command, kafka_bootstrap) as java:
        try:
            first = JAVA[0] if leader == "java" else PYTHON[0]
            if leader == "java":
                await java.start(group, first, [topic], cooperative=True)
            else:
                await python.start(first)
            await settled(java, python, group, [first], 8)
            for instance in JAVA + PYTHON:
                if instance == first:
                    continue
                if instance in JAVA:
                    await java.start(group, instance, [topic], cooperative=True)
                else:
                    await python.start(instance)
            four = await settled(java, python, group, JAVA + PYTHON, 8)
            assert all(len(p) == 2 for p in four.values()), four
            led = [e["instance"] for e in java.led(group)]
            assert (led != []) is (leader == "java"), f"leader {leader}, Java led {led}"

            # A fifth member joins (Python): the others only give partitions away.
            await python.start("coop-4")
            five = await settled(java, python, group, [*JAVA, *PYTHON, "coop-4"], 8)
            for instance, parts in four.items():
                assert five[instance] <= parts, f"{instance} gained on a join: {five}"
            # It leaves for good: the others only take partitions on.
            await python.stop("coop-4", leave_group=True, reason="scale down")
            after = await settled(java, python, group, JAVA + PYTHON, 8)
            for instance, parts in five.items():
                if instance != "coop-4":
                    assert parts <= after[instance], f"{instance} lost on a leave: {after}"

            for generation, handed in per_generation(java, python, group).items():
                owned = [tp for parts in handed for tp in parts]
                assert len(owned) == len(set(owned)), f"generation {generation}: {handed}"
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{java.diagnostics()}") from None
        finally:
            await python.stop_all()


async def test_a_python_leader_holds_a_java_members_partitions_under_the_roster(
    interop_command: list[str], kafka_bootstrap: str,  # noqa: F811
    topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """KIP-469 kept by the client, with Java in the group (issue 21): the Python leader plans
    under the roster; while a registered member is missing the Java member keeps its partitions
    and revokes nothing, the arrival gets nothing; when the last one (Java) joins, the old
    members only give partitions away and no partition is owned twice in a generation."""
    topic, group = topic_factory(partitions=8), unique_group_id("coop-roster")
    python = PythonSide(kafka_bootstrap, group, topic)
    async with java_peers(interop_command, kafka_bootstrap) as java:
        try:
            await python.start("coop-1")  # first: the leader (a Java leader reads no roster)
            await settled(java, python, group, ["coop-1"], 8)
            await java.start(group, "coop-0", [topic], cooperative=True)
            two = await settled(java, python, group, ["coop-0", "coop-1"], 8)
            await register_members(kafka_bootstrap, group, JAVA + PYTHON, wait_ms=120_000)
            revoked_before = len([e for e in java.events if e["event"] == "revoked"])

            await python.start("coop-3")
            held = await settled(java, python, group, ["coop-0", "coop-1", "coop-3"], 8)
            assert held == {**two, "coop-3": frozenset()}, held
            assert len([e for e in java.events if e["event"] == "revoked"]) == revoked_before

            await java.start(group, "coop-2", [topic], cooperative=True)
            four = await settled(java, python, group, JAVA + PYTHON, 8)
            assert all(len(p) == 2 for p in four.values()), four
            for instance in ("coop-0", "coop-1"):
                assert four[instance] <= two[instance], f"{instance} gained: {four}"
            assert java.led(group) == []
            for generation, handed in per_generation(java, python, group).items():
                owned = [tp for parts in handed for tp in parts]
                assert len(owned) == len(set(owned)), f"generation {generation}: {handed}"
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{java.diagnostics()}") from None
        finally:
            await python.stop_all()
