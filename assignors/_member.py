"""Plain data every assignor takes and returns, and the member order they share.

Member order is Java's (``AbstractPartitionAssignor.MemberInfo.compareTo``): static members first,
by ``group_instance_id``; then dynamic members, by ``member_id``. Strings compare as Java compares
them (UTF-16 code units), so a Python leader and a Java leader sort the same group the same way.
Two static members with the same instance id (which the broker never lets happen) fall back to
member id, so the order never depends on input order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

TopicPartition = tuple[str, int]
Plan = dict[str, list[TopicPartition]]

__all__ = [
    "Member",
    "MemberAssignment",
    "Plan",
    "TopicPartition",
    "all_partitions",
    "check_partition_counts",
    "empty_plan",
    "java_key",
    "sorted_members",
    "subscribed_topics",
]


@dataclass(frozen=True)
class Member:
    """One group member as the leader sees it.

    ``owned_partitions`` and ``generation`` come from ConsumerProtocolSubscription v1+/v2+;
    ``user_data`` is the subscription's opaque bytes (the sticky assignors read Java's
    StickyAssignor data from it when ``owned_partitions`` is empty). ``rack`` is the member's
    ``client.rack`` (subscription v3); only :func:`assign_range` uses it, when given replica racks.
    Sequences are stored as tuples, so a ``Member`` is hashable and cannot change after it is
    built.
    """

    member_id: str
    group_instance_id: str | None
    topics: Sequence[str]
    owned_partitions: Sequence[TopicPartition] = ()
    generation: int = -1
    rack: str | None = None
    user_data: bytes = field(default=b"", repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.member_id, str):
            raise ValueError(f"member_id must be a str, got {self.member_id!r}")
        if self.group_instance_id is not None and not isinstance(self.group_instance_id, str):
            raise ValueError(
                f"group_instance_id must be a str or None, got {self.group_instance_id!r}"
            )
        if isinstance(self.topics, str):
            raise ValueError(
                f"topics of member {self.member_id!r} must be a sequence of names, "
                f"not the single string {self.topics!r}"
            )
        object.__setattr__(self, "topics", tuple(self.topics))
        owned = tuple((str(topic), int(partition)) for topic, partition in self.owned_partitions)
        object.__setattr__(self, "owned_partitions", owned)
        object.__setattr__(self, "user_data", bytes(self.user_data))


@dataclass(frozen=True)
class MemberAssignment:
    """One member's assignment: partitions plus assignment user data.

    The leader's :meth:`GroupAssignor.assign_group` returns one per member, each with its own
    ``user_data`` (opaque bytes the member's assignor reads back); every member, the leader
    too, then receives its own through the optional ``on_assignment(assignment, generation)``
    hook (:class:`assignors.AssignmentReceiver`), Java's ``ConsumerPartitionAssignor.onAssignment``.

    ``partitions`` are sorted in this package's plans; a member receives them in the order its
    leader listed them (per topic, topics in the order they first come).
    ``version`` is the ConsumerProtocolAssignment version the member's leader wrote (3 from a
    StaticConsumer or a Java leader, 0 from plain aiokafka's). In a plan it stays None: the
    leader writes version 3, as Java's does, and a version set in a plan is not sent.
    """

    partitions: tuple[TopicPartition, ...]
    user_data: bytes = field(default=b"", repr=False)
    version: int | None = None


def java_key(text: str) -> bytes:
    """Sort key that orders strings as ``java.lang.String.compareTo`` does (UTF-16 code units).

    Big-endian UTF-16 bytes compare lexicographically exactly as the code units do.
    """
    return text.encode("utf-16-be", "surrogatepass")


def _member_key(member: Member) -> tuple[int, bytes, bytes]:
    if member.group_instance_id is not None:
        return (0, java_key(member.group_instance_id), java_key(member.member_id))
    return (1, java_key(member.member_id), b"")


def sorted_members(members: Iterable[Member]) -> list[Member]:
    """Members in Java's assignor order; raises ``ValueError`` on duplicate member ids."""
    listed = list(members)
    seen: set[str] = set()
    for member in listed:
        if not isinstance(member, Member):
            raise ValueError(f"expected assignors.Member, got {type(member).__name__}")
        if member.member_id in seen:
            raise ValueError(f"duplicate member_id {member.member_id!r}")
        seen.add(member.member_id)
    return sorted(listed, key=_member_key)


def check_partition_counts(partitions_per_topic: Mapping[str, int]) -> None:
    """Raise ``ValueError`` naming the first topic whose partition count is not an int >= 0."""
    for topic, count in partitions_per_topic.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(
                f"partition count of topic {topic!r} must be an int >= 0, got {count!r}"
            )


def subscribed_topics(
    members: Iterable[Member], partitions_per_topic: Mapping[str, int]
) -> list[str]:
    """Topics some member subscribes to and that have metadata, in Java string order."""
    topics = {topic for member in members for topic in member.topics}
    return sorted((t for t in topics if t in partitions_per_topic), key=java_key)


def all_partitions(
    topics: Iterable[str], partitions_per_topic: Mapping[str, int]
) -> list[TopicPartition]:
    """Every partition of ``topics`` in the given topic order, partitions ascending."""
    return [(topic, p) for topic in topics for p in range(partitions_per_topic[topic])]


def empty_plan(members: Iterable[Member]) -> Plan:
    return {member.member_id: [] for member in members}
