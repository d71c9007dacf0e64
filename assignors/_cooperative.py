"""Cooperative sticky assignment (KIP-429): the sticky plan, minus every partition that would
change owner in this round.

Compatible with Java's ``CooperativeStickyAssignor`` (protocol "cooperative-sticky"): owned
partitions and generations come from the subscription (ConsumerProtocolSubscription v1+ owned
partitions, v2+ generation), claims are resolved as :func:`assign_sticky` resolves them, and a
partition that moves from its current owner to another member is left out of *both* members'
assignments for this generation. The owner revokes it (it is not in its new assignment) and
re-joins at once; in the next generation nobody owns it and it goes to its new member. So no
partition is ever owned by two members in the same generation.

Example: C0 owned [t0p0, t0p1, t0p2, t0p3]; C1 joins. The sticky plan gives C1 [t0p2, t0p3];
this round::

    C0: [t0p0, t0p1]      # revokes t0p2, t0p3 and re-joins
    C1: []
    # next round: C0 [t0p0, t0p1], C1 [t0p2, t0p3]

Racks are ignored (see :mod:`assignors._sticky`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._member import Member, Plan, check_partition_counts, sorted_members
from ._sticky import assign_sticky, resolve_claims


def assign_cooperative_sticky(
    members: Iterable[Member], partitions_per_topic: Mapping[str, int]
) -> Plan:
    """Cooperative sticky plan: ``member_id -> sorted [(topic, partition)]`` (module docstring).

    Raises ``ValueError`` on duplicate member ids or a negative partition count.
    """
    ordered = sorted_members(members)
    check_partition_counts(partitions_per_topic)
    plan = assign_sticky(ordered, partitions_per_topic)
    subscriptions = [
        frozenset(t for t in member.topics if t in partitions_per_topic) for member in ordered
    ]
    owner = resolve_claims(ordered, subscriptions, partitions_per_topic)
    for index, member in enumerate(ordered):
        plan[member.member_id] = [
            tp for tp in plan[member.member_id] if owner.get(tp, index) == index
        ]
    return plan
