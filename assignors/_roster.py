"""Roster assignment: a client-side answer to KIP-469 (pre-registration), which Kafka never adopted.

You give the leader the full list of ``group.instance.id`` values the group should have (the
roster). Every partition gets a *home* member in the roster, computed from the roster alone:
per topic, the sorted roster splits the partitions into ranges as Java's range assignor does
(``P // R`` each, the first ``P % R`` one more), so partition *n* of co-partitioned topics shares a
home.

Example: roster [a, b, c], topic t0 with six partitions; ``a`` and ``b`` are up, ``c`` is not yet::

    homes: a: [t0p0, t0p1]  b: [t0p2, t0p3]  c: [t0p4, t0p5]
    a: [t0p0, t0p1, t0p4]
    b: [t0p2, t0p3, t0p5]

When ``c`` joins, exactly t0p4 and t0p5 move (to ``c``); nothing else changes.

Rules:

* A present member whose instance id is in the roster and who subscribes to the topic gets its home
  partitions.
* *Orphans* (home absent, or home not subscribed to the topic) stay with their previous owner if
  that owner is present and subscribed (claims are resolved as in sticky: higher generation, then
  member order); the others go one by one, in partition order, to the least-loaded present
  subscriber (ties in member order). Without previous owners, orphans are spread evenly.
* Members not in the roster, and dynamic members, receive only orphans. That makes them hot
  standbys (KIP-345 "future work" item 2): with an empty load they are first in line when a roster
  member is missing.

Compared with KIP-469: the broker still knows nothing about the roster, so it still starts a
rebalance on every join and every expired session, and it cannot wait for four new instances to
arrive before the first rebalance. What the roster does is make each of those rebalances move only
what must move: a joining roster member takes exactly its home partitions, a leaving member hands
out exactly what it held, and a restart with a new member id moves nothing. Adding or removing a
roster entry changes the homes (like resizing a range assignment), so change the roster with a
rolling restart.

``Member.rack`` is ignored: a partition's home comes from the roster alone.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Mapping, Sequence

from ._member import (
    Member,
    Plan,
    TopicPartition,
    check_partition_counts,
    empty_plan,
    java_key,
    sorted_members,
    subscribed_topics,
)
from ._sticky import resolve_claims

_INSTANCE_ID = re.compile(r"[a-zA-Z0-9._-]+")
_MAX_INSTANCE_ID = 249


def check_roster(roster: Sequence[str]) -> list[str]:
    """The roster in Java string order; ``ValueError`` names an invalid or duplicate id.

    Ids follow Java's ``group.instance.id`` rules: non-empty, not "." or "..", at most 249
    characters of ``[a-zA-Z0-9._-]``.
    """
    if isinstance(roster, str):
        raise ValueError(f"roster must be a sequence of instance ids, not the string {roster!r}")
    seen: set[str] = set()
    for entry in roster:
        if not isinstance(entry, str):
            raise ValueError(f"roster entry {entry!r} is not a str")
        if entry in ("", ".", ".."):
            raise ValueError(f"roster entry {entry!r} is not a valid group.instance.id")
        if len(entry) > _MAX_INSTANCE_ID:
            raise ValueError(
                f"roster entry {entry[:40]!r}... is {len(entry)} characters; "
                f"a group.instance.id has at most {_MAX_INSTANCE_ID}"
            )
        if not _INSTANCE_ID.fullmatch(entry):
            raise ValueError(
                f"roster entry {entry!r} may only contain ASCII letters, digits, '.', '_' and '-'"
            )
        if entry in seen:
            raise ValueError(f"duplicate roster entry {entry!r}")
        seen.add(entry)
    return sorted(roster, key=java_key)


def home_members(
    roster: Sequence[str], topics: Iterable[str], partitions_per_topic: Mapping[str, int]
) -> dict[TopicPartition, str]:
    """Home instance id of every partition of ``topics`` (``roster`` already sorted)."""
    homes: dict[TopicPartition, str] = {}
    if not roster:
        return homes
    for topic in topics:
        quota, extra = divmod(partitions_per_topic[topic], len(roster))
        start = 0
        for index, instance_id in enumerate(roster):
            length = quota + (1 if index < extra else 0)
            for partition in range(start, start + length):
                homes[(topic, partition)] = instance_id
            start += length
    return homes


def assign_roster(
    members: Iterable[Member], partitions_per_topic: Mapping[str, int], roster: Sequence[str]
) -> Plan:
    """Roster plan: ``member_id -> sorted [(topic, partition)]``, one entry per member.

    Raises ``ValueError`` on duplicate member ids, a negative partition count, or a roster entry
    that is duplicated or not a valid ``group.instance.id``.
    """
    ordered = sorted_members(members)
    check_partition_counts(partitions_per_topic)
    sorted_roster = check_roster(roster)
    plan = empty_plan(ordered)
    if not ordered:
        return plan
    subscriptions = [
        frozenset(t for t in member.topics if t in partitions_per_topic) for member in ordered
    ]
    present: dict[str, int] = {}
    for index, member in enumerate(ordered):
        if member.group_instance_id is not None:
            present.setdefault(member.group_instance_id, index)  # first in member order wins
    topics = subscribed_topics(ordered, partitions_per_topic)
    homes = home_members(sorted_roster, topics, partitions_per_topic)

    held: list[list[TopicPartition]] = [[] for _ in ordered]
    orphans: list[TopicPartition] = []
    for topic in topics:
        for partition in range(partitions_per_topic[topic]):
            tp = (topic, partition)
            home = present.get(homes[tp]) if tp in homes else None
            if home is not None and topic in subscriptions[home]:
                held[home].append(tp)
            else:
                orphans.append(tp)

    owner = resolve_claims(ordered, subscriptions, partitions_per_topic)
    unowned: list[TopicPartition] = []
    for tp in orphans:
        claimed_by = owner.get(tp)
        if claimed_by is None:
            unowned.append(tp)
        else:
            held[claimed_by].append(tp)
    _spread(unowned, held, subscriptions)
    for index, member in enumerate(ordered):
        plan[member.member_id] = sorted(held[index])
    return plan


def _spread(
    orphans: Sequence[TopicPartition],
    held: list[list[TopicPartition]],
    subscriptions: Sequence[frozenset[str]],
) -> None:
    """Give each orphan to its least-loaded subscriber (ties in member order)."""
    heaps: dict[str, list[tuple[int, int]]] = {}
    for index, topics in enumerate(subscriptions):
        for topic in topics:
            heaps.setdefault(topic, []).append((len(held[index]), index))
    for heap in heaps.values():
        heapq.heapify(heap)
    for topic, partition in orphans:
        heap = heaps[topic]
        # Loads only grow here, so a stale (smaller) entry is refreshed when it surfaces.
        while heap[0][0] != len(held[heap[0][1]]):
            index = heap[0][1]
            heapq.heapreplace(heap, (len(held[index]), index))
        index = heap[0][1]
        held[index].append((topic, partition))
        heapq.heapreplace(heap, (len(held[index]), index))
