"""Our assignors for plain aiokafka: ``static_membership(group_instance_id, *assignors)`` and
``for_aiokafka(assignor)``. The only module of the package that imports aiokafka, and only when it
is imported itself (``import assignors`` does not)::

    AIOKafkaConsumer(topic, group_id="g", **static_membership("svc-0", StickyAssignor))

A static member needs its instance id twice: on the consumer (``group_instance_id``: the broker
keeps its partitions across a restart, KIP-345) and in each assignor (which puts it in the
subscription, so that the leader orders members by it). :func:`static_membership` makes both
from one id: the consumer's keyword arguments ``group_instance_id`` and
``partition_assignment_strategy``. What cannot be checked there is refused where it can be:

* ``for_aiokafka(RangeAssignor())``, an assignor without an instance id, raises ``ValueError``
  unless ``dynamic_member=True`` says the consumer has none either: the leader would order it
  by member id, which changes on every restart (its partitions move).
* The consumer's id and its assignor's differ, or the consumer has none (the assignor cannot see
  the consumer): the leader sees it when it assigns. The broker names a static member
  ``<group.instance.id>-<uuid>``, so a member whose subscription says ``svc-0`` but whose member
  id does not start with ``svc-0-`` is refused: :meth:`AiokafkaAssignor.assign` raises
  ``ValueError`` naming each such member, and aiokafka hands it to the leader's application
  (``getmany``/``getone`` raise it, as a ``KafkaError``) on every rebalance until the member is
  fixed. (A dynamic member whose ``client_id`` is the assignor's id escapes this check.)

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

from ._assignor import GroupAssignor, RangeAssignor, RoundRobinAssignor
from ._member import Member, MemberAssignment, TopicPartition
from ._roster import check_roster
from ._userdata import NO_GENERATION, decode_envelope

__all__ = ["AiokafkaAssignor", "for_aiokafka", "static_membership"]

#: What :func:`static_membership` offers when given no assignor: StaticConsumer's default.
DEFAULT_ASSIGNORS: tuple[type[Any], ...] = (RangeAssignor, RoundRobinAssignor)


def for_aiokafka(assignor: GroupAssignor, *, dynamic_member: bool = False) -> AiokafkaAssignor:
    """``assignor`` as a ``partition_assignment_strategy`` entry for plain aiokafka 0.14.

    An assignor without ``group_instance_id`` raises ``ValueError`` unless ``dynamic_member``
    says this consumer is a dynamic member (no ``group_instance_id`` either): such a member is
    ordered by its member id, which changes on every restart. For a static member use
    :func:`static_membership`, which gives the consumer and the assignor the same id."""
    instance_id = getattr(assignor, "group_instance_id", None)
    if instance_id is None and not dynamic_member:
        raise ValueError(
            f"for_aiokafka({assignor!r}): the assignor has no group_instance_id, so the leader "
            "would order this member by its member id, which the broker makes anew on every "
            "restart: its partitions would move. For a static member use "
            f"static_membership('<group.instance.id>', {type(assignor).__name__}) as the "
            "consumer's keyword arguments (KIP-345); for a dynamic member (no "
            "group_instance_id on the consumer) pass dynamic_member=True"
        )
    return AiokafkaAssignor(assignor)


def static_membership(
    group_instance_id: str, *assignors: type[Any] | GroupAssignor
) -> dict[str, Any]:
    """A plain ``AIOKafkaConsumer``'s static membership from one id: the keyword arguments
    ``group_instance_id`` (Java ``group.instance.id``, KIP-345) and
    ``partition_assignment_strategy`` (each assignor told the same id), as in
    ``AIOKafkaConsumer(topic, group_id="g", **static_membership("svc-0", StickyAssignor))``.

    ``assignors`` are this package's assignor classes (``RangeAssignor``; each made with
    ``for_instance(group_instance_id)``) or assignors made for this same id, in order of
    preference; none: range then round-robin, as a StaticConsumer. ``ValueError``, naming why,
    for a missing or invalid id (Kafka's rules), an assignor made without an id or for another
    one, and an object that is no assignor of this package."""
    if not isinstance(group_instance_id, str) or not group_instance_id:
        raise ValueError(
            f"static_membership needs the member's group.instance.id (KIP-345), got "
            f"{group_instance_id!r}: without one the consumer is a dynamic member, which the "
            "broker gives a new member id and a rebalance on every restart"
        )
    check_roster([group_instance_id])  # Kafka's rules for a group.instance.id
    strategy = tuple(
        AiokafkaAssignor(_for_instance(a, group_instance_id))
        for a in assignors or DEFAULT_ASSIGNORS
    )
    return {"group_instance_id": group_instance_id, "partition_assignment_strategy": strategy}


def _for_instance(assignor: type[Any] | GroupAssignor, group_instance_id: str) -> GroupAssignor:
    """``assignor`` for ``group_instance_id``: made from a class, or checked when given made."""
    if isinstance(assignor, AiokafkaAssignor):
        assignor = assignor.assignor
    if isinstance(assignor, type):
        make = getattr(assignor, "for_instance", None)
        if make is None:
            raise ValueError(
                f"static_membership: {assignor.__name__} has no for_instance(group_instance_id): "
                "pass this package's assignors (RangeAssignor, StickyAssignor, ...)"
            )
        made: GroupAssignor = make(group_instance_id)
        return made
    theirs = getattr(assignor, "group_instance_id", None)
    if theirs != group_instance_id:
        raise ValueError(
            f"static_membership({group_instance_id!r}): {assignor!r} was made for "
            f"group_instance_id {theirs!r}; the consumer and its assignor must carry the same "
            "id (the leader orders members by the assignor's, the broker keeps partitions by "
            "the consumer's): pass the class, e.g. RangeAssignor, and static_membership makes it"
        )
    return assignor


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
        """Leader: plan with partition counts from aiokafka's ``ClusterMetadata``. A member
        whose assignor's instance id is not its consumer's is refused (module docstring)."""
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
        _check_instance_ids(group)
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


def _check_instance_ids(members: Iterable[Member]) -> None:
    """``ValueError`` for members whose subscription carries an instance id the broker did not
    name them by: the broker's member id of a static member is ``<group.instance.id>-<uuid>``
    (KIP-345), so their consumer has another ``group_instance_id``, or none."""
    wrong = sorted(
        (m.member_id, m.group_instance_id)
        for m in members
        if m.group_instance_id is not None and not m.member_id.startswith(f"{m.group_instance_id}-")
    )
    if wrong:
        listed = "; ".join(f"member {m!r} sent {i!r}" for m, i in wrong)
        raise ValueError(
            "a consumer's group_instance_id differs from its assignor's, or the consumer has "
            "none: the broker names a static member '<group_instance_id>-<uuid>', and "
            f"{listed} in its assignor's user data. Give each consumer both halves from one id: "
            "AIOKafkaConsumer(..., **static_membership('<id>', RangeAssignor))"
        )


def _to_aiokafka(assignment: MemberAssignment) -> Any:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in assignment.partitions:
        by_topic.setdefault(topic, []).append(partition)
    return ConsumerProtocolMemberAssignment(
        0, [(topic, partitions) for topic, partitions in by_topic.items()], assignment.user_data
    )
