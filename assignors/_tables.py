"""Table-aware plan: actives, standbys and copartitioned topics, planned by instance id.

What a faust-style app needs from its assignor (``staticconsumer.faust`` speaks faust's bytes
around this pure plan): every topic partition *active* on one member; for a table's changelog,
``standby_replicas`` more members holding a *standby* copy (never the active's member); and
copartitioned topics, those read by the same members with the same partition count, planned
together, so partition *n* of each lands on one member (a stream and its table's changelog).

Stickiness is by instance id and does not trust what a member says it held: a member restarted
past its session says nothing. The plan is a deterministic function of

* the group's **roster**: the instance ids the group has seen, in the order it first saw them.
  The roster travels with the assignment (every member gets it, the broker keeps each static
  member's last assignment, members send it back in their next subscription), so it survives
  restarts, a new leader, and a member's absence; :func:`roster_of` appends new ids, sorted
  naturally (``w-2`` before ``w-10``) when several arrive at once;
* which members are here, and the partition counts.

**Homes.** For each copartitioned group of P partitions, members of the roster are inserted one
by one in roster order: the first owns every partition, each next one takes
``P // (members so far)`` partitions, one by one from the member with the most (the earlier in
the roster on a tie), taking its highest partition. Every member then homes
``P // N`` or ``P // N + 1`` partitions, and appending an id to the roster moves exactly
``P // (N + 1)`` homes: the fewest a balanced plan allows.

**Actives.** A member that is here is active on its homes. The homes of a roster member that is
away are *guests*: each goes to the member here with the fewest actives of the group, preferring
the partition's standby (it holds the table already), then roster order. So an unchanged roster
gives the same plan, a member away moves only its own partitions, and when it is back it gets
exactly its own actives and standbys again.

**Standbys.** For partition p, the first ``min(standby_replicas, members here - 1)`` members
here after p's home in roster order (cyclically), skipping p's active.

Example: roster [w-0, w-1, w-2], one topic of 6 partitions, one standby replica::

    actives:  w-0: [0, 1]  w-1: [3, 4]  w-2: [2, 5]
    standbys: w-0: [2, 5]  w-1: [0, 1]  w-2: [3, 4]
    w-1 away: w-0: [0, 1, 4]  w-2: [2, 3, 5]   (3, 4 to their standby w-2, then by load)

Limits: an id that is gone for good stays in the roster (its homes are served as guests,
balanced, and the roster keeps at most :data:`MAX_ROSTER` ids, forgetting the oldest absent
ones first); several copartitioned groups are each balanced, not their sum; dynamic members
(no instance id) are planned by member id after the roster and are not remembered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ._member import Member, check_partition_counts, java_key

#: How many ids the roster remembers at most (the oldest absent ones are forgotten first).
MAX_ROSTER = 256

Partitions = dict[str, tuple[int, ...]]
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class TablePlan:
    """The plan: per member id, ``{topic: partitions}`` active and standby; the copartitioned
    group index of each topic; the roster to remember."""

    actives: dict[str, Partitions]
    standbys: dict[str, Partitions]
    topic_groups: dict[str, int]
    roster: tuple[str, ...]
    guests: dict[str, Partitions] = field(default_factory=dict)


def natural_key(text: str) -> tuple[tuple[int, int | bytes], ...]:
    """``w-2`` before ``w-10``: digit runs compare as numbers, the rest as Java strings."""
    return tuple((0, int(part)) if part.isdigit() else (1, java_key(part))
                 for part in _DIGITS.split(text) if part)  # fmt: skip


def roster_of(remembered: Sequence[str], present: Iterable[str]) -> tuple[str, ...]:
    """The roster: ``remembered`` in its order, then present ids it lacks in natural order;
    past :data:`MAX_ROSTER` ids the oldest absent ones are forgotten."""
    here = set(present)
    roster = list(dict.fromkeys(str(i) for i in remembered))
    roster += sorted(here.difference(roster), key=natural_key)
    while len(roster) > MAX_ROSTER:
        absent = next((i for i in roster if i not in here), None)
        if absent is None:
            break
        roster.remove(absent)
    return tuple(roster)


def copartitioned_groups(
    members: Sequence[Member], partitions_per_topic: Mapping[str, int]
) -> list[tuple[tuple[str, ...], int]]:
    """Topics read by the same members with the same partition count, as ``(topics, count)``,
    sorted by count then topics (a topic without partitions is left out)."""
    readers: dict[str, frozenset[str]] = {}
    for topic in {t for m in members for t in m.topics}:
        if partitions_per_topic.get(topic, 0) > 0:
            readers[topic] = frozenset(m.member_id for m in members if topic in m.topics)
    grouped: dict[tuple[int, frozenset[str]], list[str]] = {}
    for topic, who in readers.items():
        grouped.setdefault((partitions_per_topic[topic], who), []).append(topic)
    groups = [(tuple(sorted(ts, key=java_key)), count) for (count, _), ts in grouped.items()]
    return sorted(groups, key=lambda g: (g[1], [java_key(t) for t in g[0]]))


def homes(roster: Sequence[str], partitions: int) -> dict[str, list[int]]:
    """Each roster key's home partitions (module docstring): balanced, insertion-stable."""
    owned: dict[str, list[int]] = {}
    for index, key in enumerate(roster):
        if index == 0:
            owned[key] = list(range(partitions))
            continue
        taken: list[int] = []
        for _ in range(partitions // (index + 1)):
            donor = max(owned, key=lambda k: len(owned[k]))  # first max: earlier in roster
            taken.append(owned[donor].pop(owned[donor].index(max(owned[donor]))))
        owned[key] = sorted(taken)
    return owned


def _member_key(member: Member) -> str:
    return member.group_instance_id if member.group_instance_id is not None else member.member_id


def assign_tables(
    members: Iterable[Member],
    partitions_per_topic: Mapping[str, int],
    *,
    standby_replicas: int = 0,
    remembered: Sequence[str] = (),
) -> TablePlan:
    """The plan for ``members`` (module docstring). ``remembered``: the roster the group
    carried so far (empty for a new group). Raises ``ValueError`` on a negative count or
    replica number, duplicate member ids or two members sharing one instance id."""
    check_partition_counts(partitions_per_topic)
    if isinstance(standby_replicas, bool) or not isinstance(standby_replicas, int) or (
            standby_replicas < 0):  # fmt: skip
        raise ValueError(f"standby_replicas must be an int >= 0, got {standby_replicas!r}")
    listed = list(members)
    by_key: dict[str, Member] = {}
    for member in listed:
        other = by_key.setdefault(_member_key(member), member)
        if other is not member:
            raise ValueError(
                f"members {other.member_id!r} and {member.member_id!r} share the key "
                f"{_member_key(member)!r} (an instance id is held by one member at a time)"
            )
    static = [m.group_instance_id for m in listed if m.group_instance_id is not None]
    roster = roster_of(remembered, static)
    dynamic = sorted((m.member_id for m in listed if m.group_instance_id is None), key=java_key)
    order = [*roster, *dynamic]
    actives: dict[str, Partitions] = {m.member_id: {} for m in listed}
    standbys: dict[str, Partitions] = {m.member_id: {} for m in listed}
    guests: dict[str, Partitions] = {m.member_id: {} for m in listed}
    topic_groups: dict[str, int] = {}
    for index, (topics, count) in enumerate(copartitioned_groups(listed, partitions_per_topic)):
        readers = {k for k, m in by_key.items() if set(topics) <= set(m.topics)}
        keys = [k for k in order if k in readers or (k in roster and k not in by_key)]
        plan = _plan_group(keys, readers, count, standby_replicas)
        for topic in topics:
            topic_groups[topic] = index
            for key, (active, standby, guest) in plan.items():
                member_id = by_key[key].member_id
                actives[member_id][topic] = active
                standbys[member_id][topic] = standby
                if guest:
                    guests[member_id][topic] = guest
    return TablePlan(actives, standbys, topic_groups, roster, guests)


def _plan_group(
    keys: Sequence[str], here: set[str], partitions: int, replicas: int
) -> dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """``key -> (actives, standbys, guests)`` for one copartitioned group, for keys here."""
    home = homes(keys, partitions)
    home_of = {p: k for k, ps in home.items() for p in ps}
    present = [k for k in keys if k in here]
    replicas = max(0, min(replicas, len(present) - 1))
    position = {k: i for i, k in enumerate(keys)}
    active: dict[str, set[int]] = {k: set(home[k]) for k in present}
    guest: dict[str, set[int]] = {k: set() for k in present}
    away = [p for k in keys if k not in here for p in sorted(home[k])]
    for p in away:
        preferred = set(_successors(keys, here, home_of[p], replicas, skip=None))
        chosen = min(present, key=lambda k: (len(active[k]), k not in preferred, position[k]))
        active[chosen].add(p)
        guest[chosen].add(p)
    active_of = {p: k for k, ps in active.items() for p in ps}
    standby: dict[str, set[int]] = {k: set() for k in present}
    for p in range(partitions):
        for k in _successors(keys, here, home_of[p], replicas, skip=active_of[p]):
            standby[k].add(p)
    return {
        k: (tuple(sorted(active[k])), tuple(sorted(standby[k])), tuple(sorted(guest[k])))
        for k in present
    }


def _successors(
    keys: Sequence[str], here: set[str], start: str, count: int, *, skip: str | None
) -> list[str]:
    """The first ``count`` keys here after ``start`` in ``keys`` (cyclically), but ``skip``."""
    if count <= 0:
        return []
    at = keys.index(start)
    found: list[str] = []
    for step in range(1, len(keys) + 1):
        key = keys[(at + step) % len(keys)]
        if key in here and key != skip and key not in found:
            found.append(key)
            if len(found) == count:
                break
    return found
