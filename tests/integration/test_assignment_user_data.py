"""Issue 41: assignment user data reaches the member it was planned for, on the real broker.

A leader's assignor plans distinct user data for each member; every member, leader and
followers, receives exactly its own through ``on_assignment`` (``assignors.AssignmentReceiver``),
with its partitions and generation. A static member restarted with nothing else changed causes
no rebalance (the leader plans nothing): the coordinator answers the new process's SyncGroup
with the assignment it stored, user data included, and its assignor hears of it (KIP-345; a
restarted leader is told to skip the assignment, KIP-814, and gets its stored one too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from assignors import Member, MemberAssignment, RangeAssignor
from staticconsumer.membership import MembershipState

from ._group import Member as GroupMember
from ._group import start_member, wait_stable, wait_until

PARTITIONS = 6


class TaggingRange(RangeAssignor):
    """Range's partitions; each member's user data names it: ``for <instance id>``. Records
    every plan it made and every assignment its member received."""

    name = "tagging-range"  # ClassVar in the base: the protocol name every member offers

    def __init__(self, *, group_instance_id: str | None = None) -> None:
        super().__init__(group_instance_id=group_instance_id)
        self.plans: list[dict[str, MemberAssignment]] = []
        self.received: list[tuple[MemberAssignment, int]] = []

    def assign_group(
        self, members: Sequence[Member], partitions_per_topic: Mapping[str, int], *,
        partition_racks: object = None,
    ) -> dict[str, MemberAssignment]:  # fmt: skip
        plan = super().assign_group(members, partitions_per_topic)
        ids = {m.member_id: m.group_instance_id for m in members}
        tagged = {
            member_id: MemberAssignment(a.partitions, f"for {ids[member_id]}".encode())
            for member_id, a in plan.items()
        }
        self.plans.append(tagged)
        return tagged

    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        self.received.append((assignment, generation))


async def _start(topic: str, bootstrap: str, group: str, instance_id: str) -> GroupMember:
    assignor = TaggingRange.for_instance(instance_id)
    return await start_member(topic, bootstrap, group, instance_id,
                              partition_assignment_strategy=(assignor,))  # fmt: skip


def _assignor(member: GroupMember) -> TaggingRange:
    assignor = member.consumer.options.partition_assignment_strategy[0]
    assert isinstance(assignor, TaggingRange)
    return assignor


def _check_own(instance_id: str, member: GroupMember) -> None:
    """The last assignment this member's assignor received is its own: its user data, the
    partitions it holds, the generation it is in, the version a StaticConsumer leader writes."""
    received, generation = _assignor(member).received[-1]
    assert received.user_data == f"for {instance_id}".encode(), instance_id
    held = {(tp.topic, tp.partition) for tp in member.consumer.assignment()}
    assert set(received.partitions) == held and held, instance_id
    assert generation == member.consumer.generation_id
    assert received.version == 3


async def test_each_member_receives_its_own_user_data_also_after_static_restarts(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=PARTITIONS), unique_group_id()
    ids = ["ud-0", "ud-1", "ud-2"]
    members = {i: await _start(topic, kafka_bootstrap, group, i) for i in ids}
    try:
        await wait_stable(list(members.values()), PARTITIONS)
        await wait_until(
            lambda: all(
                _assignor(m).received
                and _assignor(m).received[-1][1] == m.consumer.generation_id
                for m in members.values()
            ),
            30, "every member's assignor to hear of the last generation",
        )  # fmt: skip
        leaders = [i for i, m in members.items() if m.consumer.is_leader]
        assert len(leaders) == 1, leaders
        for instance_id, member in members.items():
            _check_own(instance_id, member)
        every = [_assignor(m) for m in members.values()]  # the stopped ones' too
        plans = sum(len(a.plans) for a in every)
        generation = members[ids[0]].consumer.generation_id
        # Restart a follower, then the leader: each comes back with nothing changed.
        follower = next(i for i in ids if i not in leaders)
        for instance_id in (follower, leaders[0]):
            await members[instance_id].stop()
            members[instance_id] = await _start(topic, kafka_bootstrap, group, instance_id)
            restarted = members[instance_id]
            every.append(_assignor(restarted))
            heard = every[-1].received
            await wait_until(lambda: bool(heard), 30, f"restarted {instance_id} to hear")  # noqa: B023
            await asyncio.sleep(1.0)  # room for a (wrong) rebalance to show up
            assert restarted.consumer.membership.state is MembershipState.STABLE
            for i, m in members.items():
                assert m.consumer.generation_id == generation, f"{i}: no rebalance"
            assert sum(len(a.plans) for a in every) == plans, (
                "no leader planned again: the coordinator replayed the stored assignment"
            )
            _check_own(instance_id, restarted)
            assert len(_assignor(restarted).received) == 1
    finally:
        for m in members.values():
            await m.stop()
