"""What a classic-protocol member puts on the wire and what its leader plans, without I/O.

* :func:`subscription_bytes` — the ConsumerProtocolSubscription a member sends, as Java sends it
  (v3: owned partitions, generation, rack);
* :func:`plan_with_group_assignor` — the leader's assignment with this package's assignors, which
  receive every member's ``group_instance_id`` (aiokafka's leader drops it) and, when members have
  racks, the racks of every partition's replicas (KIP-881).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from assignors import GroupAssignor, Member, MemberAssignment

from ..protocol import (
    Assignment,
    Subscription,
    encode_assignment,
    encode_subscription,
    group_partitions,
    group_partitions_as_listed,
)

log = logging.getLogger(__name__)


def subscription_bytes(
    topics: Iterable[str],
    user_data: bytes | None,
    owned: Iterable[tuple[str, int]],
    generation: int,
    rack: str | None,
) -> bytes:
    """ConsumerProtocolSubscription v3, as the Java client sends it.

    Carrying owned partitions and the generation also means a follower's metadata changes
    between generations, so a re-join the member asks for really rebalances (KIP-800).
    """
    return encode_subscription(
        Subscription(
            topics=tuple(sorted(set(topics))),
            user_data=user_data,
            owned_partitions=group_partitions(sorted(owned)),
            generation_id=generation,
            rack_id=rack,
        )
    )


def user_data_for(
    assignor: GroupAssignor,
    topics: Iterable[str],
    owned: Sequence[tuple[str, int]],
    generation: int,
) -> bytes:
    """What an assignor puts into this member's subscription (owned partitions, generation)."""
    return assignor.subscription_user_data(sorted(set(topics)), owned, generation)


def any_member_rack(members: Mapping[str, tuple[str | None, Subscription]]) -> bool:
    """True when some subscription carries a non-empty rack: only then does the leader look up
    replica racks (Java's RangeAssignor skips rack work too when no consumer has a rack)."""
    return any(sub.rack_id for _instance_id, sub in members.values())


def plain_members(members: Mapping[str, tuple[str | None, Subscription]]) -> list[Member]:
    """The decoded subscriptions as the ``assignors`` package's plain members."""
    return [
        Member(
            member_id=member_id,
            group_instance_id=instance_id,
            topics=list(sub.topics),
            owned_partitions=list(sub.owned),
            generation=sub.generation_id,
            rack=sub.rack_id,
            user_data=sub.user_data or b"",
        )
        for member_id, (instance_id, sub) in members.items()
    ]


def encode_assignments(plan: Mapping[str, MemberAssignment]) -> dict[str, bytes]:
    """``member_id -> ConsumerProtocolAssignment`` bytes (v3, as Java writes), as SyncGroup
    carries them: each member's own user data, its partitions in the order the plan lists them
    (this package's assignors list them sorted)."""
    return {
        member_id: encode_assignment(
            Assignment(
                partitions=group_partitions_as_listed(result.partitions),
                user_data=result.user_data,
            )
        )
        for member_id, result in plan.items()
    }


def plan_with_group_assignor(
    assignor: Any,
    members: Mapping[str, tuple[str | None, Subscription]],
    partitions_per_topic: Mapping[str, int],
    *,
    partition_racks: Mapping[tuple[str, int], Collection[str]] | None = None,
) -> dict[str, bytes]:
    """Run the assignor on the decoded subscriptions; return encoded assignments.
    ``partition_racks``: ``(topic, partition) -> racks of its replicas`` (KIP-881), or None."""
    plan = assignor.assign_group(
        plain_members(members), partitions_per_topic, partition_racks=partition_racks
    )
    return encode_assignments(plan)
