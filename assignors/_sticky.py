"""Sticky assignment: balanced first, then move as little as possible.

Compatible with Java's eager ``StickyAssignor`` (protocol "sticky"): owned partitions come from
``Member.owned_partitions`` or, when that is empty, from Java StickyAssignor user data, so Java and
Python members of one group keep their partitions.

Example: C0, C1, C2 subscribe to t0 (four partitions); C0 owned [t0p0, t0p1, t0p2, t0p3] and C1,
C2 are new. Java's round-robin would deal everything anew; sticky moves only two partitions::

    C0: [t0p0, t0p1]
    C1: [t0p2]
    C2: [t0p3]

Rules, in order:

1. *Claims.* A member's previous partitions count only if the partition still exists and the member
   still subscribes to its topic. When two members claim a partition, the higher generation wins;
   on equal generations the one first in member order (instance id, then member id) wins, so a
   restart that changes member ids changes nothing.
2. *Identical subscriptions* (Java's "constrained" case): every member ends with ``P // M`` or
   ``P // M + 1`` partitions. Members that own more than ``P // M`` get the ``P % M`` larger quotas
   first (in member order), each keeps its lowest-numbered owned partitions up to its quota, and
   the rest are dealt in partition order to members below quota, in member order. This moves the
   theoretical minimum number of partitions.
3. *Different subscriptions*: keep valid claims, give each unowned partition (fewest possible
   consumers first) to its least-loaded subscriber, then move partitions one at a time from the
   most- to the least-loaded subscriber of a topic while that difference is two or more. It ends
   in the state Java's StickyAssignor documents: no member with two fewer partitions than another
   can take one of that member's partitions.

Cost: O(P log M) with heaps; no step compares all pairs of members.

Racks: ``Member.rack`` is ignored. Java's sticky assignors became rack-aware in Kafka 3.5
(KIP-881); this one does not follow them there, so in a group whose members and replicas have
racks, a Java sticky leader may place partitions differently than ours (both stay balanced and
sticky).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence

from ._member import (
    Member,
    Plan,
    TopicPartition,
    all_partitions,
    check_partition_counts,
    empty_plan,
    sorted_members,
)
from ._userdata import NO_GENERATION, decode_sticky_user_data


def previous_assignment(member: Member) -> tuple[tuple[TopicPartition, ...], int]:
    """(owned partitions, generation) from the subscription fields, else Java user data."""
    owned = tuple(member.owned_partitions)
    generation = member.generation
    if not owned or generation < 0:
        decoded = decode_sticky_user_data(member.user_data)
        if not owned:
            owned = decoded.owned_partitions
        if generation < 0:
            generation = decoded.generation
    return owned, max(generation, NO_GENERATION)


def resolve_claims(
    ordered: Sequence[Member],
    subscriptions: Sequence[frozenset[str]],
    partitions_per_topic: Mapping[str, int],
) -> dict[TopicPartition, int]:
    """Valid previous owner (index into ``ordered``) of each claimed partition.

    Higher generation wins; on a tie the member earlier in ``ordered`` keeps it.
    """
    owner: dict[TopicPartition, int] = {}
    owner_generation: dict[TopicPartition, int] = {}
    for index, member in enumerate(ordered):
        owned, generation = previous_assignment(member)
        for topic, partition in owned:
            if topic not in subscriptions[index]:
                continue
            if not 0 <= partition < partitions_per_topic.get(topic, 0):
                continue
            tp = (topic, partition)
            if tp not in owner or generation > owner_generation[tp]:
                owner[tp] = index
                owner_generation[tp] = generation
    return owner


def assign_sticky(members: Iterable[Member], partitions_per_topic: Mapping[str, int]) -> Plan:
    """Sticky plan: ``member_id -> sorted [(topic, partition)]``, one entry per member.

    Raises ``ValueError`` on duplicate member ids or a negative partition count.
    """
    ordered = sorted_members(members)
    check_partition_counts(partitions_per_topic)
    plan = empty_plan(ordered)
    if not ordered:
        return plan
    subscriptions = [
        frozenset(t for t in member.topics if t in partitions_per_topic) for member in ordered
    ]
    owner = resolve_claims(ordered, subscriptions, partitions_per_topic)
    if all(s == subscriptions[0] for s in subscriptions):
        held = _assign_identical(len(ordered), subscriptions[0], partitions_per_topic, owner)
    else:
        held = _assign_general(subscriptions, partitions_per_topic, owner)
    for index, partitions in enumerate(held):
        plan[ordered[index].member_id] = sorted(partitions)
    return plan


def _owned_by_member(count: int, owner: Mapping[TopicPartition, int]) -> list[list[TopicPartition]]:
    owned: list[list[TopicPartition]] = [[] for _ in range(count)]
    for tp, index in owner.items():
        owned[index].append(tp)
    for partitions in owned:
        partitions.sort()
    return owned


def _assign_identical(
    count: int,
    topics: frozenset[str],
    partitions_per_topic: Mapping[str, int],
    owner: Mapping[TopicPartition, int],
) -> list[list[TopicPartition]]:
    partitions = all_partitions(sorted(topics), partitions_per_topic)
    quota, extra = divmod(len(partitions), count)
    owned = _owned_by_member(count, owner)
    # The P % M larger quotas go first to members that can fill them from what they own.
    by_preference = sorted(range(count), key=lambda i: (len(owned[i]) <= quota, i))
    big = set(by_preference[:extra])
    held = [owned[i][: quota + (1 if i in big else 0)] for i in range(count)]
    kept = {tp for partitions_held in held for tp in partitions_held}
    free = iter([tp for tp in partitions if tp not in kept])
    for index in range(count):
        target = quota + (1 if index in big else 0)
        while len(held[index]) < target:
            held[index].append(next(free))
    return held


class _Loads:
    """Partition counts per member with lazy heaps per topic.

    ``low[t]`` holds (count, index) for subscribers of t, ``high[t]`` holds (-count, -index) for
    members holding a partition of t. An entry is current only if its count is the member's count
    now; stale entries are dropped when they reach the top.
    """

    def __init__(self, subscriptions: Sequence[frozenset[str]]) -> None:
        self.subscriptions = subscriptions
        self.count = [0] * len(subscriptions)
        self.holding: list[dict[str, list[int]]] = [{} for _ in subscriptions]
        self.low: dict[str, list[tuple[int, int]]] = {}
        self.high: dict[str, list[tuple[int, int]]] = {}
        for index, topics in enumerate(subscriptions):
            for topic in topics:
                self.low.setdefault(topic, []).append((0, index))
        for heap in self.low.values():
            heapq.heapify(heap)

    def add(self, index: int, topic: str, partition: int) -> None:
        self.holding[index].setdefault(topic, []).append(partition)
        self.count[index] += 1

    def refresh(self, index: int) -> None:
        """Push current entries for ``index`` after its count changed."""
        count = self.count[index]
        for topic in self.subscriptions[index]:
            heapq.heappush(self.low[topic], (count, index))
        for topic, held in self.holding[index].items():
            if held:
                heapq.heappush(self.high.setdefault(topic, []), (-count, -index))

    def least(self, topic: str) -> int:
        heap = self.low[topic]
        while True:
            count, index = heap[0]
            if count == self.count[index]:
                return index
            heapq.heapreplace(heap, (self.count[index], index))

    def most(self, topic: str) -> int | None:
        heap = self.high.get(topic, [])
        while heap:
            count, index = -heap[0][0], -heap[0][1]
            if count == self.count[index] and self.holding[index].get(topic):
                return index
            heapq.heappop(heap)
        return None


def _assign_general(
    subscriptions: Sequence[frozenset[str]],
    partitions_per_topic: Mapping[str, int],
    owner: Mapping[TopicPartition, int],
) -> list[list[TopicPartition]]:
    loads = _Loads(subscriptions)
    for (topic, partition), index in sorted(owner.items()):
        loads.add(index, topic, partition)
    subscriber_count: dict[str, int] = {}
    for subscription in subscriptions:
        for topic in subscription:
            subscriber_count[topic] = subscriber_count.get(topic, 0) + 1
    topics = sorted(subscriber_count)
    unowned = [tp for tp in all_partitions(topics, partitions_per_topic) if tp not in owner]
    unowned.sort(key=lambda tp: (subscriber_count[tp[0]], tp))
    # Counts only grow while filling, so `least` can refresh stale entries lazily.
    for topic, partition in unowned:
        index = loads.least(topic)
        loads.add(index, topic, partition)
    for index in range(len(subscriptions)):
        for held in loads.holding[index].values():
            held.sort()
        loads.refresh(index)
    _balance(loads, topics)
    return [
        [(topic, p) for topic, held in loads.holding[index].items() for p in held]
        for index in range(len(subscriptions))
    ]


def _balance(loads: _Loads, topics: Sequence[str]) -> None:
    """Move single partitions from most- to least-loaded subscribers until no move helps.

    Every move lowers the sum of squared counts by at least two, so the loop ends.
    """
    moved = True
    while moved:
        moved = False
        for topic in topics:
            while True:
                high = loads.most(topic)
                if high is None:
                    break
                low = loads.least(topic)
                if loads.count[high] < loads.count[low] + 2:
                    break
                partition = loads.holding[high][topic].pop()  # highest-numbered
                loads.count[high] -= 1
                held = loads.holding[low].setdefault(topic, [])
                held.append(partition)
                held.sort()
                loads.count[low] += 1
                loads.refresh(high)
                loads.refresh(low)
                moved = True
