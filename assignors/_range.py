"""Range assignment, as Java's ``RangeAssignor`` does it, rack-aware (KIP-881) when it can be.

Per topic, independently: the topic's subscribers in member order (static members by instance id,
then dynamic members by member id) each get a contiguous range of ``P // C`` partitions, and the
first ``P % C`` of them one more.

Example: members C0, C1 both subscribe to t0 and t1, three partitions each::

    C0: [t0p0, t0p1, t1p0, t1p1]
    C1: [t0p2, t1p2]

The imbalance grows with the number of topics (C0 gets the extra partition of every topic); that is
the price of keeping partition *n* of co-partitioned topics on one member. KIP-345's point about
range: sorted by instance id, the plan survives a restart that changes every member id.

**Racks (KIP-881).** Given ``partition_racks`` (the racks of each partition's replicas) and members
with a ``rack``, a topic is assigned rack-aware when some of its subscribers' racks hold replicas
and not every partition has replicas on the same set of racks. Then, as Java does, the per-member
counts stay exactly those of the plain range plan (balance first), but each member first takes, in
member order and partition order, the partitions that have a replica on its rack; what is left is
dealt as above. Topics with the same subscribers and the same partition count keep partition *n*
together on one member (co-partitioning first), choosing for each *n* the first member whose rack
holds partition *n* of every such topic. A member without a rack matches every rack. Example: C0 on
rack a, C1 on rack b, t0 with two partitions, p0 only on rack b and p1 only on rack a::

    C0: [t0p1]
    C1: [t0p0]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import islice

from ._member import (
    Member,
    Plan,
    TopicPartition,
    check_partition_counts,
    empty_plan,
    sorted_members,
)

PartitionRacks = Mapping[TopicPartition, Collection[str]]


def assign_range(
    members: Iterable[Member],
    partitions_per_topic: Mapping[str, int],
    *,
    partition_racks: PartitionRacks | None = None,
) -> Plan:
    """Java's range plan: ``member_id -> sorted [(topic, partition)]``, one entry per member.

    ``partition_racks`` maps ``(topic, partition)`` to the racks of that partition's replicas (a
    partition left out has none); with it, members' ``rack`` values make the plan rack-aware
    exactly as Java's ``RangeAssignor`` (see the module docstring). An empty ``rack`` counts as no
    rack, as in Java. Topics without an entry in ``partitions_per_topic`` are skipped (Java skips
    topics without metadata). Raises ``ValueError`` on duplicate member ids, a negative partition
    count or a rack collection given as a bare string.
    """
    ordered = sorted_members(members)
    check_partition_counts(partitions_per_topic)
    racks = _check_racks(partition_racks)
    plan = empty_plan(ordered)
    subscribers: dict[str, list[Member]] = {}
    for member in ordered:
        for topic in dict.fromkeys(member.topics):
            subscribers.setdefault(topic, []).append(member)
    if racks and any(member.rack for member in ordered):
        states = [
            _TopicState(topic, partitions_per_topic[topic], consumers, racks)
            for topic, consumers in subscribers.items()
            if partitions_per_topic.get(topic)
        ]
        if any(state.needs_rack_matching for state in states):
            _assign_with_rack_matching(states, plan)
            for state in states:
                state.assign_ranges(plan)
            return _sorted(plan)
    # Without rack matching, Java's TopicAssignmentState walk comes down to contiguous ranges.
    for topic, consumers in subscribers.items():
        count = partitions_per_topic.get(topic)
        if not count:
            continue
        quota, extra = divmod(count, len(consumers))
        start = 0
        for index, member in enumerate(consumers):
            length = quota + (1 if index < extra else 0)
            plan[member.member_id].extend((topic, p) for p in range(start, start + length))
            start += length
    return _sorted(plan)


def _sorted(plan: Plan) -> Plan:
    for partitions in plan.values():
        partitions.sort()
    return plan


def _check_racks(partition_racks: PartitionRacks | None) -> dict[TopicPartition, frozenset[str]]:
    if partition_racks is None:
        return {}
    checked: dict[TopicPartition, frozenset[str]] = {}
    for (topic, partition), racks in partition_racks.items():
        if isinstance(racks, str):
            raise ValueError(
                f"partition_racks[{(topic, partition)!r}] must be a collection of rack names, "
                f"not the single string {racks!r}"
            )
        checked[(topic, partition)] = frozenset(racks)
    return checked


class _TopicState:
    """One topic's progress, as Java's ``RangeAssignor.TopicAssignmentState`` keeps it."""

    def __init__(
        self,
        topic: str,
        count: int,
        consumers: Sequence[Member],
        racks: Mapping[TopicPartition, frozenset[str]],
    ) -> None:
        self.topic = topic
        self.consumers = tuple(member.member_id for member in consumers)
        self.rack_of = {member.member_id: member.rack or None for member in consumers}
        self.unassigned = dict.fromkeys(range(count))
        self.assigned = dict.fromkeys(self.consumers, 0)
        self.quota, self.extra = divmod(count, len(self.consumers))
        consumer_racks = {rack for rack in self.rack_of.values() if rack is not None}
        self.partition_racks: list[frozenset[str]] = []
        if consumer_racks:  # Java looks at replica racks only when some subscriber has a rack
            empty: frozenset[str] = frozenset()
            self.partition_racks = [racks.get((topic, p), empty) for p in range(count)]
        every_rack = frozenset().union(*self.partition_racks)
        self.needs_rack_matching = not consumer_racks.isdisjoint(every_rack) and any(
            r != every_rack for r in self.partition_racks
        )

    def group_key(self) -> tuple[tuple[str, ...], int]:
        """Java groups topics by (subscribers, number of partitions with known replica racks)."""
        return self.consumers, len(self.partition_racks)

    def racks_match(self, member_id: str, partition: int) -> bool:
        rack = self.rack_of[member_id]
        return rack is None or rack in self.partition_racks[partition]

    def max_assignable(self, member_id: str) -> int:
        most = self.quota + (1 if self.extra > 0 else 0)
        return max(0, most - self.assigned[member_id])

    def take(self, member_id: str, partitions: Sequence[int], plan: Plan) -> None:
        plan[member_id].extend((self.topic, p) for p in partitions)
        self.assigned[member_id] += len(partitions)
        if self.assigned[member_id] > self.quota:
            self.extra -= 1
        for p in partitions:
            del self.unassigned[p]

    def assign_ranges(self, plan: Plan, may: Callable[[str, int], bool] | None = None) -> None:
        """Each member in order takes its due from the lowest unassigned partitions it may take."""
        pending = list(self.unassigned)  # ascending: partitions are only ever removed
        start = 0  # without `may`, members take a prefix of what is pending
        for member_id in self.consumers:
            if not self.unassigned:
                break
            wanted = self.max_assignable(member_id)
            if wanted == 0:
                continue
            if may is None:
                picked = pending[start : start + wanted]
                start += len(picked)
            else:
                picked = list(islice((p for p in pending if may(member_id, p)), wanted))
                if picked:
                    taken = set(picked)
                    pending = [p for p in pending if p not in taken]
            if picked:
                self.take(member_id, picked, plan)


def _assign_with_rack_matching(states: Sequence[_TopicState], plan: Plan) -> None:
    groups: dict[tuple[tuple[str, ...], int], list[_TopicState]] = {}
    for state in states:
        groups.setdefault(state.group_key(), []).append(state)
    for (consumers, count), group in groups.items():
        if len(group) > 1:
            _assign_co_partitioned(consumers, count, group, plan)
        elif group[0].needs_rack_matching:
            group[0].assign_ranges(plan, group[0].racks_match)


def _assign_co_partitioned(
    consumers: Sequence[str], count: int, group: Sequence[_TopicState], plan: Plan
) -> None:
    """Partition *n* of every topic in ``group`` goes to one member whose rack holds all of them."""
    remaining = list(consumers)
    for p in range(count):
        match = next(
            (
                c
                for c in remaining
                if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in group)
            ),
            None,
        )
        if match is None:
            continue
        for state in group:
            state.take(match, [p], plan)
        if not any(state.max_assignable(match) > 0 for state in group):
            remaining.remove(match)
            if not remaining:
                break
