"""Issue 41: a user's own aiokafka assignor (an ``AbstractPartitionAssignor`` subclass) runs under
StaticConsumer on the real broker, through the adapter: the leader's ``assign`` gets the members
in instance-id order with each member's ``metadata()`` user data, every member's
``on_assignment`` gets its own assignment user data (faust-style: it checks the user data names
it), a static restart replays it without a rebalance, and after a rebalance the restarted member
(a new member id) is planned where it was."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)

from ._group import Member, owned, start_member, wait_stable, wait_until

PARTITIONS = 6


class Blocks(AbstractPartitionAssignor):
    """A user's assignor, instance methods and state on the instance (as faust's): contiguous
    blocks of partitions in the order the members come; each member's assignment user data
    repeats the "url" it sent in its metadata, and its member side checks it is its own."""

    name = "blocks"

    def __init__(self, url: str) -> None:
        self.url = url
        self.orders: list[list[str]] = []  # leader: the member ids' order seen by each assign
        self.urls: list[list[str]] = []  # leader: the urls, in that order
        self.received: list[tuple[list[tuple[str, list[int]]], str]] = []
        self.errors: list[str] = []

    def metadata(self, topics: Iterable[str]) -> ConsumerProtocolMemberMetadata:
        return ConsumerProtocolMemberMetadata(0, sorted(topics), self.url.encode())

    def assign(
        self, cluster: Any, members: Mapping[str, ConsumerProtocolMemberMetadata]
    ) -> dict[str, ConsumerProtocolMemberAssignment]:
        order = list(members)
        self.orders.append(order)
        self.urls.append([bytes(members[m].user_data).decode() for m in order])
        topic = next(iter(members[order[0]].subscription))
        count = len(cluster.partitions_for_topic(topic) or ())
        size = -(-count // len(order))
        return {
            m: ConsumerProtocolMemberAssignment(
                0,
                [(topic, list(range(i * size, min(count, (i + 1) * size))))],
                members[m].user_data,
            )
            for i, m in enumerate(order)
        }

    def on_assignment(self, assignment: ConsumerProtocolMemberAssignment) -> None:
        url = bytes(assignment.user_data).decode()
        if url != self.url:
            self.errors.append(url)
        self.received.append((list(assignment.assignment), url))


async def _start(topic: str, bootstrap: str, group: str, instance_id: str) -> Member:
    assignor = Blocks(f"http://{instance_id}:6066")
    return await start_member(topic, bootstrap, group, instance_id,
                              partition_assignment_strategy=[assignor])  # fmt: skip


def _blocks(member: Member) -> Blocks:
    adapted: Any = member.consumer.options.partition_assignment_strategy[0]
    assert isinstance(adapted.assignor, Blocks)
    return adapted.assignor


async def test_a_users_aiokafka_assignor_plans_by_instance_id_on_the_real_broker(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=PARTITIONS), unique_group_id()
    ids = ["ak-2", "ak-0", "ak-1"]  # started in this order: not the instance-id order
    members = {i: await _start(topic, kafka_bootstrap, group, i) for i in ids}
    every = [_blocks(m) for m in members.values()]
    expected = {"ak-0": {0, 1}, "ak-1": {2, 3}, "ak-2": {4, 5}}

    async def settled() -> None:
        await wait_stable(list(members.values()), PARTITIONS)
        await wait_until(lambda: {i: owned(m) for i, m in members.items()} == expected, 30,
                         "blocks in instance-id order")  # fmt: skip

    try:
        await settled()
        last = max((b for b in every if b.orders), key=lambda b: len(b.orders))
        assert last.urls[-1] == [f"http://{i}:6066" for i in sorted(ids)], "instance-id order"
        assert [m.split("-")[0] + "-" + m.split("-")[1] for m in last.orders[-1]] == sorted(ids)
        for i, m in members.items():
            assignor = _blocks(m)
            assert assignor.received, i
            listed, url = assignor.received[-1]
            assert url == f"http://{i}:6066" and listed == [(topic, sorted(expected[i]))]
        assert not any(b.errors for b in every), "each member got its own user data"
        plans = sum(len(b.orders) for b in every)
        # A static restart: no rebalance, the stored assignment (user data too) replayed.
        generation = members["ak-1"].consumer.generation_id
        await members["ak-1"].stop()
        members["ak-1"] = await _start(topic, kafka_bootstrap, group, "ak-1")
        every.append(_blocks(members["ak-1"]))
        heard = every[-1].received
        await wait_until(lambda: bool(heard), 30, "the restarted member's on_assignment")
        await asyncio.sleep(1.0)  # room for a (wrong) rebalance to show up
        assert sum(len(b.orders) for b in every) == plans, "nobody planned: no rebalance"
        assert all(m.consumer.generation_id == generation for m in members.values())
        assert heard[-1] == ([(topic, [2, 3])], "http://ak-1:6066")
        # A rebalance now plans with ak-1's new member id: by instance id, it stays in place.
        await members["ak-0"].consumer.enforce_rebalance("issue 41: plan again")
        await wait_until(lambda: sum(len(b.orders) for b in every) > plans, 30, "a new plan")
        await settled()
        assert not any(b.errors for b in every)
        assert _blocks(members["ak-1"]).received[-1] == ([(topic, [2, 3])], "http://ak-1:6066")
    finally:
        for m in members.values():
            await m.stop()
