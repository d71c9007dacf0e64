"""Java ``KafkaConsumer``s and ``StaticConsumer``s in one static "range" group (issue 5, item 7).

Java peers are kafka-clients 4.4.0 consumers (classic group protocol, ``group.instance.id`` set,
Java's own RangeAssignor) run by ``tests/java/InteropConsumer.java`` in one JVM; the Python peers
are StaticConsumers with ``assignors.RangeAssignor``. The leader is made deterministic by starting
it alone and waiting until it owns every partition; both sides report when they plan, so the test
checks who led instead of assuming it. Whichever side leads, every member must end with the plan
``assign_range`` computes from the members' instance ids.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from assignors import Member, RangeAssignor, assign_range
from staticconsumer import StaticConsumer
from tests.java import assignor_harness
from tests.java.interop_peers import JavaPeers, java_peers

from ._group import FAST, Revocations, wait_until
from ._group import Member as PyMember

pytestmark = pytest.mark.java

TopicPartitions = list[tuple[str, int]]
JAVA_IDS = ["interop-0", "interop-2"]
PYTHON_IDS = ["interop-1", "interop-3"]


@pytest.fixture(scope="module")
def interop_command() -> list[str]:
    try:
        return assignor_harness.build("InteropConsumer")
    except assignor_harness.JavaToolMissing as exc:
        pytest.fail(f"Java interop test needs a JDK and Maven: {exc}")


class RecordingRange(RangeAssignor):
    """Our RangeAssignor, remembering the instance ids of every group it planned as leader."""

    def __init__(self) -> None:
        super().__init__()
        self.planned: list[list[str | None]] = []

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: Any = None,
    ) -> dict[str, TopicPartitions]:
        self.planned.append(sorted(m.group_instance_id or "" for m in members))
        return super().plan(members, partitions_per_topic, partition_racks=partition_racks)


async def start_python(
    bootstrap: str, group: str, instance: str, topics: Sequence[str]
) -> tuple[PyMember, RecordingRange]:
    recorder = RecordingRange()
    listener = Revocations()
    consumer = StaticConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        group_instance_id=instance,
        partition_assignment_strategy=(recorder,),
        **FAST,
    )
    consumer.subscribe(list(topics), listener=listener)
    await consumer.start()
    member = PyMember(consumer, listener)
    member.task = asyncio.create_task(member.run())
    return member, recorder


async def run_group(
    leader: str,
    java: JavaPeers,
    bootstrap: str,
    group: str,
    counts: dict[str, int],
) -> dict[str, TopicPartitions]:
    """Start the leader alone, wait until it owns everything, start the rest; return the plan
    (instance id -> partitions) once all four members agree on one generation."""
    topics = sorted(counts)
    total = sum(counts.values())
    python: dict[str, tuple[PyMember, RecordingRange]] = {}

    def state(instance: str) -> tuple[int, TopicPartitions] | None:
        if instance in python:
            consumer = python[instance][0].consumer
            parts = sorted((tp.topic, tp.partition) for tp in consumer.assignment())
            return (consumer.generation_id, parts) if parts or consumer.generation_id > 0 else None
        event = java.assigned(group, instance)
        if event is None:
            return None
        return event["generation"], sorted((t, p) for t, p in event["partitions"])

    def owns_everything(instance: str) -> bool:
        got = state(instance)
        return got is not None and len(got[1]) == total

    def agreed() -> bool:
        states = [state(i) for i in JAVA_IDS + PYTHON_IDS]
        if any(s is None for s in states):
            return False
        generations = {s[0] for s in states if s is not None}
        owned = [tp for s in states if s is not None for tp in s[1]]
        return len(generations) == 1 and len(owned) == len(set(owned)) == total

    first = JAVA_IDS[0] if leader == "java" else PYTHON_IDS[0]
    try:
        if leader == "java":
            await java.start(group, first, topics)
        else:
            python[first] = await start_python(bootstrap, group, first, topics)
        await wait_until(lambda: owns_everything(first), 60, f"{first} ({leader}) alone owning all")
        for instance in JAVA_IDS:
            if instance != first:
                await java.start(group, instance, topics)
        for instance in PYTHON_IDS:
            if instance != first:
                python[instance] = await start_python(bootstrap, group, instance, topics)
        await wait_until(agreed, 90, f"four members of {group} agreeing on one generation")
        plan = {i: s[1] for i in JAVA_IDS + PYTHON_IDS if (s := state(i)) is not None}

        everyone = sorted(JAVA_IDS + PYTHON_IDS)
        java_led = [sorted(e["members"].values()) for e in java.led(group)]
        python_led = {i: rec.planned for i, (_, rec) in python.items()}
        if leader == "java":
            assert java_led and java_led[-1] == everyone, java_led
            assert all(e["instance"] == first for e in java.led(group))
            assert not any(python_led.values()), f"a StaticConsumer led: {python_led}"
        else:
            assert python_led[first] and python_led[first][-1] == everyone, python_led
            assert not any(p for i, p in python_led.items() if i != first), python_led
            assert not java_led, f"a Java consumer led: {java.led(group)}"
        return plan
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{java.diagnostics()}") from None
    finally:
        for member, _ in python.values():
            await member.stop()


async def test_range_plan_is_the_same_whichever_side_leads(
    interop_command: list[str],
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    # Two topics of different sizes: range plans each topic on its own, and 7 and 5 partitions
    # over four members give the first members in instance-id order one extra partition each.
    counts = {topic_factory(partitions=7): 7, topic_factory(partitions=5): 5}
    async with java_peers(interop_command, kafka_bootstrap) as java:
        # Both orders at once, one group each (a failure in one cancels the other).
        async with asyncio.TaskGroup() as orders:
            java_led = orders.create_task(
                run_group("java", java, kafka_bootstrap, unique_group_id("interop-java"), counts)
            )
            python_led = orders.create_task(
                run_group("python", java, kafka_bootstrap, unique_group_id("interop-py"), counts)
            )
        java_first, python_first = java_led.result(), python_led.result()
    everyone = [Member(i, i, sorted(counts)) for i in JAVA_IDS + PYTHON_IDS]
    expected = assign_range(everyone, counts)
    assert java_first == expected, java.diagnostics()
    assert python_first == expected, java.diagnostics()
    # Members interleave by instance id (Java, Python, Java, Python): each side gets partitions
    # from both ends of the order, so a leader that sorted differently would show here.
    assert [len(expected[i]) for i in sorted(expected)] == [4, 3, 3, 2]
