"""Our assignors for plain aiokafka: ``for_aiokafka(assignor)``. The only module of the package
that imports aiokafka, and only when it is imported itself (``import assignors`` does not)::

    AIOKafkaConsumer(..., group_instance_id="svc-0", partition_assignment_strategy=(
        for_aiokafka(StickyAssignor.for_instance("svc-0")),
    ))

aiokafka 0.14 takes ``partition_assignment_strategy`` as a tuple of objects and only duck-types
them (no ``issubclass`` check): the coordinator reads ``.name``, calls ``.metadata(topics)`` for the
JoinGroup, ``.assign(cluster, {member_id: ConsumerProtocolMemberMetadata})`` on the leader and
``.on_assignment(assignment)`` after SyncGroup. Its built-in assignors are classes with state on the
class; ours are *instances* with state on the instance, so two consumers in one process never share
it: :class:`AiokafkaAssignor` wraps one assignor and keeps that state.
``on_generation_assignment(generation)`` is accepted for parity with aiokafka's sticky
assignor, although aiokafka 0.14 never calls it.

aiokafka's leader drops ``group_instance_id`` from the JoinGroup response, so each member puts its
instance id into its subscription user data (see :mod:`assignors._userdata`) and :meth:`assign`
reads it back. aiokafka gives assignors no generation id either: our leader writes ``max(reported
generations) + 1`` into each assignment's envelope and members report that next time. Behind a
Java leader (no envelope) a plain-aiokafka member reports generation -1, so on a conflicting claim
it loses to members that know their generation; use ``StaticConsumer`` for exact generations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)

from ._assignor import GroupAssignor
from ._member import Member, MemberAssignment, TopicPartition
from ._userdata import NO_GENERATION, decode_envelope

__all__ = ["AiokafkaAssignor", "for_aiokafka"]


def for_aiokafka(assignor: GroupAssignor) -> AiokafkaAssignor:
    """``assignor`` as a ``partition_assignment_strategy`` entry for plain aiokafka 0.14."""
    return AiokafkaAssignor(assignor)


class AiokafkaAssignor:
    """The methods aiokafka's ``GroupCoordinator`` calls, around one of our assignors."""

    def __init__(self, assignor: GroupAssignor) -> None:
        self.assignor = assignor
        self._owned: tuple[TopicPartition, ...] = ()
        self._generation = NO_GENERATION

    @property
    def name(self) -> str:
        return self.assignor.name

    def __repr__(self) -> str:
        return f"for_aiokafka({self.assignor!r})"

    # Called by aiokafka.
    def metadata(self, topics: Iterable[str]) -> Any:
        """The JoinGroup protocol metadata: subscription v0 with our user data."""
        names = sorted(topics)
        user_data = self.assignor.subscription_user_data(names, self._owned, self._generation)
        return ConsumerProtocolMemberMetadata(0, names, user_data)

    def assign(self, cluster: Any, members: Mapping[str, Any]) -> dict[str, Any]:
        """Leader: plan with partition counts from aiokafka's ``ClusterMetadata``."""
        group: list[Member] = []
        wanted: set[str] = set()
        for member_id, metadata in members.items():
            user_data = bytes(metadata.user_data or b"")
            envelope = decode_envelope(user_data)
            topics = tuple(metadata.subscription)
            wanted.update(topics)
            group.append(
                Member(
                    member_id=member_id,
                    group_instance_id=envelope.group_instance_id if envelope else None,
                    topics=topics,
                    user_data=user_data,
                )
            )
        counts: dict[str, int] = {}
        for topic in wanted:
            partitions = cluster.partitions_for_topic(topic)
            if partitions:  # Java skips topics without metadata, and so do we
                counts[topic] = len(partitions)
        plan = self.assignor.assign_group(group, counts)
        return {member_id: _to_aiokafka(assignment) for member_id, assignment in plan.items()}

    def on_assignment(self, assignment: Any) -> None:
        """Follower: remember what we own (and the generation our leader told us)."""
        self._owned = tuple(sorted((tp.topic, tp.partition) for tp in assignment.partitions()))
        envelope = decode_envelope(bytes(assignment.user_data or b""))
        self._generation = envelope.generation if envelope is not None else NO_GENERATION

    def on_generation_assignment(self, generation: int) -> None:
        self._generation = generation


def _to_aiokafka(assignment: MemberAssignment) -> Any:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in assignment.partitions:
        by_topic.setdefault(topic, []).append(partition)
    return ConsumerProtocolMemberAssignment(
        0, [(topic, partitions) for topic, partitions in by_topic.items()], assignment.user_data
    )
