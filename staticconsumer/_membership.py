"""Static-membership group logic that needs no aiokafka internals.

* :func:`classify` — the one place where group error codes become decisions and exceptions
  (the "errors translated at one boundary" rule);
* :func:`subscription_bytes` — the ConsumerProtocolSubscription a member sends, as Java sends it
  (v3: owned partitions, generation, rack);
* :func:`plan_with_group_assignor` — the leader's assignment with this package's assignors, which
  receive every member's ``group_instance_id`` (aiokafka's leader drops it) and, when members have
  racks, the racks of every partition's replicas (KIP-881).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assignors import Member
from assignors._assignor import accepts_partition_racks

from .errors import FencedInstanceIdError
from .protocol import (
    Assignment,
    ErrorCode,
    Subscription,
    encode_assignment,
    encode_subscription,
    group_partitions,
)

log = logging.getLogger("staticconsumer")


class Action(enum.Enum):
    """What the member does about a group API error code."""

    OK = "ok"
    COORDINATOR_DEAD = "find the coordinator again, then retry"
    REJOIN = "re-join with the same member id"
    RESET = "forget member id and generation, then re-join"
    RETRY = "back off and retry"
    FATAL = "stop: the consumer is finished"
    RAISE = "raise to the user"


_ACTIONS: dict[int, Action] = {
    ErrorCode.NONE: Action.OK,
    ErrorCode.COORDINATOR_NOT_AVAILABLE: Action.COORDINATOR_DEAD,
    ErrorCode.NOT_COORDINATOR: Action.COORDINATOR_DEAD,
    ErrorCode.REQUEST_TIMED_OUT: Action.COORDINATOR_DEAD,
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: Action.RETRY,
    ErrorCode.REBALANCE_IN_PROGRESS: Action.REJOIN,
    ErrorCode.ILLEGAL_GENERATION: Action.RESET,
    ErrorCode.UNKNOWN_MEMBER_ID: Action.RESET,
    ErrorCode.FENCED_INSTANCE_ID: Action.FATAL,
}


def classify(error_code: int) -> Action:
    """The decision for ``error_code`` from JoinGroup, SyncGroup, Heartbeat or OffsetCommit.

    UNKNOWN_MEMBER_ID on a static member means the coordinator removed it (session timeout or an
    admin), not that another process took its id — that is FENCED_INSTANCE_ID, which the broker
    only answers because we send the instance id on every request (KIP-345).
    """
    return _ACTIONS.get(error_code, Action.RAISE)


@dataclass(frozen=True)
class MemberContext:
    group_id: str
    group_instance_id: str | None
    member_id: str
    client_id: str


def fenced_error(ctx: MemberContext, api: str, holder: str | None = None) -> FencedInstanceIdError:
    """The FencedInstanceIdError for ``api``; the message says what to check."""
    message = (
        f"{api} answered FENCED_INSTANCE_ID: group {ctx.group_id!r} has given group.instance.id "
        f"{ctx.group_instance_id!r} to another member, so this member ({ctx.member_id!r}, client "
        f"{ctx.client_id!r}) is fenced and has stopped: no heartbeats, no re-join, no commits, no "
        "LeaveGroup. Check that no two consumers are configured with the same instance id (e.g. "
        "two pods or threads sharing one id), or that this process was not replaced by a newer one."
    )
    if holder:
        message += f" The id is now held by {holder}."
    error = FencedInstanceIdError(
        message,
        group_id=ctx.group_id,
        group_instance_id=ctx.group_instance_id or "",
        member_id=ctx.member_id,
        api=api,
    )
    error.holder = holder
    return error


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
    assignor: Any, topics: Iterable[str], owned: Sequence[tuple[str, int]], generation: int
) -> bytes | None:
    """What an assignor puts into our own subscription: this package's assignors get owned
    partitions and the generation; aiokafka-style ones are asked for ``metadata(topics)``."""
    if hasattr(assignor, "subscription_user_data"):
        data: bytes = assignor.subscription_user_data(sorted(set(topics)), owned, generation)
        return data
    metadata = assignor.metadata(set(topics))
    return getattr(metadata, "user_data", None)


def any_member_rack(members: Mapping[str, tuple[str | None, Subscription]]) -> bool:
    """True when some subscription carries a non-empty rack: only then does the leader look up
    replica racks (Java's RangeAssignor skips rack work too when no consumer has a rack)."""
    return any(sub.rack_id for _instance_id, sub in members.values())


def plan_with_group_assignor(
    assignor: Any,
    members: Mapping[str, tuple[str | None, Subscription]],
    partitions_per_topic: Mapping[str, int],
    *,
    partition_racks: Mapping[tuple[str, int], Collection[str]] | None = None,
) -> dict[str, bytes]:
    """Run one of our assignors on the decoded subscriptions; return encoded assignments.

    ``partition_racks`` (``(topic, partition) -> racks of its replicas``, KIP-881) is passed on
    only when given and when the assignor accepts it (:func:`accepts_partition_racks`).
    """
    plain = [
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
    if partition_racks is None:
        plan = assignor.assign_group(plain, partitions_per_topic)
    elif accepts_partition_racks(assignor.assign_group):
        plan = assignor.assign_group(plain, partitions_per_topic, partition_racks=partition_racks)
    else:
        log.debug(
            "assignor %r takes no partition_racks keyword: planning without replica racks",
            getattr(assignor, "name", assignor),
        )
        plan = assignor.assign_group(plain, partitions_per_topic)
    return {
        member_id: encode_assignment(
            Assignment(partitions=group_partitions(result.partitions), user_data=result.user_data)
        )
        for member_id, result in plan.items()
    }
