"""The seam to plain aiokafka: the only module that imports aiokafka.

aiokafka 0.14 takes ``partition_assignment_strategy`` as a tuple of objects and only duck-types
them (no ``issubclass`` check): the coordinator reads ``.name``, calls ``.metadata(topics)`` for the
JoinGroup, ``.assign(cluster, {member_id: ConsumerProtocolMemberMetadata})`` on the leader and
``.on_assignment(assignment)`` after SyncGroup. Its built-in assignors are classes with state on the
class; ours are *instances* with state on the instance, so two consumers in one process never share
it. ``on_generation_assignment(generation)`` is accepted for parity with aiokafka's sticky assignor,
although aiokafka 0.14 never calls it.

aiokafka's leader drops ``group_instance_id`` from the JoinGroup response, so each member puts its
instance id into its subscription user data (see :mod:`assignors._userdata`) and :meth:`assign`
reads it back. aiokafka gives assignors no generation id either: our leader writes ``max(reported
generations) + 1`` into each assignment's envelope and members report that next time. Behind a
Java leader (no envelope) a plain-aiokafka member reports generation -1, so on a conflicting claim
it loses to members that know their generation; use ``StaticConsumer`` for exact generations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)

from ._member import Member, MemberAssignment, TopicPartition
from ._userdata import NO_GENERATION, decode_envelope

__all__ = ["AiokafkaAdapter"]


class AiokafkaAdapter:
    """Mixin giving an assignor the methods aiokafka's ``GroupCoordinator`` calls."""

    group_instance_id: str | None

    def __init__(self) -> None:
        self._owned: tuple[TopicPartition, ...] = ()
        self._generation = NO_GENERATION

    # Provided by the assignor (see assignors.GroupAssignor).
    def assign_group(
        self, members: Sequence[Member], partitions_per_topic: Mapping[str, int]
    ) -> dict[str, MemberAssignment]:
        raise NotImplementedError

    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[TopicPartition], generation: int
    ) -> bytes:
        raise NotImplementedError

    # Called by aiokafka.
    def metadata(self, topics: Iterable[str]) -> Any:
        """The JoinGroup protocol metadata: subscription v0 with our user data."""
        names = sorted(topics)
        user_data = self.subscription_user_data(names, self._owned, self._generation)
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
        plan = self.assign_group(group, counts)
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
