"""Range assignment, as Java's ``RangeAssignor`` does it without racks.

Per topic, independently: the topic's subscribers in member order (static members by instance id,
then dynamic members by member id) each get a contiguous range of ``P // C`` partitions, and the
first ``P % C`` of them one more.

Example: members C0, C1 both subscribe to t0 and t1, three partitions each::

    C0: [t0p0, t0p1, t1p0, t1p1]
    C1: [t0p2, t1p2]

The imbalance grows with the number of topics (C0 gets the extra partition of every topic); that is
the price of keeping partition *n* of co-partitioned topics on one member. KIP-345's point about
range: sorted by instance id, the plan survives a restart that changes every member id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._member import Member, Plan, check_partition_counts, empty_plan, sorted_members


def assign_range(members: Iterable[Member], partitions_per_topic: Mapping[str, int]) -> Plan:
    """Java's range plan: ``member_id -> sorted [(topic, partition)]``, one entry per member.

    Topics without an entry in ``partitions_per_topic`` are skipped (Java skips topics without
    metadata). Raises ``ValueError`` on duplicate member ids or a negative partition count.
    """
    ordered = sorted_members(members)
    check_partition_counts(partitions_per_topic)
    plan = empty_plan(ordered)
    subscribers: dict[str, list[Member]] = {}
    for member in ordered:
        for topic in dict.fromkeys(member.topics):
            subscribers.setdefault(topic, []).append(member)
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
    for partitions in plan.values():
        partitions.sort()
    return plan
