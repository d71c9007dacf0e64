"""Round-robin assignment, as Java's ``RoundRobinAssignor`` does it.

All partitions of all subscribed topics are laid out (topics in Java string order, partitions
ascending) and dealt to the members in member order, round and round; a member that does not
subscribe to a partition's topic is skipped (and the deal goes on from the next member).

Example: members C0, C1 subscribe to t0 and t1, three partitions each::

    C0: [t0p0, t0p2, t1p1]
    C1: [t0p1, t1p0, t1p2]

With identical subscriptions the counts differ by at most one; with different subscriptions they
may not (Java's documented behaviour, kept for wire compatibility). ``Member.rack`` is ignored, as
Java's ``RoundRobinAssignor`` ignores racks (KIP-881 left it alone).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._member import (
    Member,
    Plan,
    all_partitions,
    check_partition_counts,
    empty_plan,
    sorted_members,
    subscribed_topics,
)


def assign_roundrobin(members: Iterable[Member], partitions_per_topic: Mapping[str, int]) -> Plan:
    """Java's round-robin plan: ``member_id -> sorted [(topic, partition)]``, one entry per member.

    Raises ``ValueError`` on duplicate member ids or a negative partition count.
    """
    ordered = sorted_members(members)
    check_partition_counts(partitions_per_topic)
    plan = empty_plan(ordered)
    if not ordered:
        return plan
    subscriptions = [frozenset(member.topics) for member in ordered]
    topics = subscribed_topics(ordered, partitions_per_topic)
    cursor = 0
    size = len(ordered)
    for topic, partition in all_partitions(topics, partitions_per_topic):
        # Some member subscribes to every topic in `topics`, so this loop ends.
        while topic not in subscriptions[cursor]:
            cursor = (cursor + 1) % size
        plan[ordered[cursor].member_id].append((topic, partition))
        cursor = (cursor + 1) % size
    for partitions in plan.values():
        partitions.sort()
    return plan
