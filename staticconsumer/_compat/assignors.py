"""aiokafka-style assignors under StaticConsumer: :class:`AiokafkaGroupAssignor` turns an
``AbstractPartitionAssignor`` (aiokafka's own, faust's, a user's) into an
:class:`assignors.GroupAssignor` with the optional ``on_assignment`` hook, so the classic driver
runs it as it runs this project's assignors (issue 41).

The adapter's contract, what the wrapped assignor sees (aiokafka 0.14's hooks, same order):

* ``metadata(topics)`` (a ``set`` of the subscribed topics) at each JoinGroup: the ``user_data``
  of the ``ConsumerProtocolMemberMetadata`` it returns becomes the subscription's user data (the
  member's owned partitions and generation travel in the subscription's own fields, v3).
* ``assign(cluster, members)`` on the leader. **Members come in instance-id order**: ``members``
  is a ``dict`` (``member_id -> ConsumerProtocolMemberMetadata(0, topics, user_data)``, the bytes
  each member's ``metadata()`` returned) whose insertion order is Java's assignor order (static
  members by ``group_instance_id``, then dynamic members by member id; strings compared as Java
  does: :func:`assignors.sorted_members`). An assignor that walks the dict in its order follows
  instance ids, so a restarted static member (new member id) is planned where it was. One that
  sorts member ids itself (aiokafka's ``RangePartitionAssignor`` and
  ``RoundRobinPartitionAssignor``) orders by member id; the broker names a static member
  ``<group.instance.id>-<uuid>``, so that follows instance ids too unless one instance id is
  another followed by ``-`` (``svc`` and ``svc-a``; for those, and for groups mixing dynamic
  members, use this project's ``RangeAssignor``/``RoundRobinAssignor``, which give Java's plans).
  ``cluster`` is an aiokafka ``ClusterMetadata`` built from the leader's partition counts:
  ``partitions_for_topic``, ``available_partitions_for_topic`` (every partition: a plan does not
  depend on leaders) and ``topics()`` answer; it knows no brokers, leaders or replicas. Each
  returned ``ConsumerProtocolMemberAssignment`` goes to its member with its ``user_data`` and its
  partitions in the order listed; the leader writes version 3, as Java's leader does. A plan that
  leaves out a member or names one that is not in the group raises ``ValueError`` (the leader's
  application gets it; the group re-joins).
* ``on_assignment(assignment)`` on every member, the leader too, after each SyncGroup (also a
  static re-join without a rebalance): a ``ConsumerProtocolMemberAssignment`` of the version the
  leader wrote, ``assignment`` listing ``(topic, [partitions])`` as the leader listed them, and
  the ``user_data`` the leader's plan gave this member; then ``on_generation_assignment
  (generation)`` when the assignor has it (aiokafka's sticky assignor; aiokafka itself never calls
  it). Both before ``on_partitions_assigned``.

The assignor is used as given: a class whose hooks are classmethods (aiokafka's built-ins) keeps
its state on the class, as under aiokafka; an instance (faust's) on the instance. Eager only:
aiokafka has no cooperative protocol. Classic protocol only: under KIP-848 there is no
client-side assignment and no user data (StaticConsumer refuses it at construction).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aiokafka.cluster import ClusterMetadata
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)
from typing_extensions import override

from assignors import (
    AssignmentReceiver,
    GroupAssignor,
    Member,
    MemberAssignment,
    sorted_members,
)

__all__ = ["AiokafkaGroupAssignor", "PlanCluster", "is_aiokafka_assignor", "unusable_reason"]

#: The hooks aiokafka calls on an assignor (``aiokafka.consumer.group_coordinator``).
_HOOKS = ("metadata", "assign", "on_assignment")


def is_aiokafka_assignor(entry: object) -> bool:
    """An ``AbstractPartitionAssignor`` subclass or instance (aiokafka's, faust's, a user's)."""
    if isinstance(entry, type):
        return issubclass(entry, AbstractPartitionAssignor)
    return isinstance(entry, AbstractPartitionAssignor)


def unusable_reason(entry: object) -> str | None:
    """Why the aiokafka-style assignor ``entry`` cannot run as given, or None: a class with
    abstract hooks left, a class whose hooks take ``self`` (pass an instance), or a ``name``
    that is no str."""
    if isinstance(entry, type):
        if inspect.isabstract(entry):
            left = ", ".join(sorted(getattr(entry, "__abstractmethods__", ())))
            return f"it does not implement {left}"
        unbound = [h for h in _HOOKS if inspect.isfunction(inspect.getattr_static(entry, h))]
        if unbound:
            return f"{', '.join(unbound)} take self: pass an instance, {entry.__name__}(...)"
    if not isinstance(getattr(entry, "name", None), str):
        return "its name is not a str"
    return None


class PlanCluster(ClusterMetadata):  # type: ignore[misc]
    """aiokafka's ``ClusterMetadata`` as a plan reads it, from partition counts alone (module
    docstring): every partition of each topic counts as available."""

    def __init__(self, partitions_per_topic: Mapping[str, int]) -> None:
        super().__init__()
        self._counts = dict(partitions_per_topic)

    @override
    def topics(self, exclude_internal_topics: bool = True) -> set[str]:
        return set(self._counts)

    @override
    def partitions_for_topic(self, topic: str) -> set[int] | None:
        count = self._counts.get(topic)
        return None if count is None else set(range(count))

    @override
    def available_partitions_for_topic(self, topic: str) -> set[int] | None:
        return self.partitions_for_topic(topic)


class AiokafkaGroupAssignor(GroupAssignor, AssignmentReceiver):
    """One aiokafka-style assignor (a class or an instance) as a GroupAssignor (module
    docstring)."""

    def __init__(self, assignor: Any) -> None:
        self.assignor = assignor

    def __repr__(self) -> str:
        return f"AiokafkaGroupAssignor({self.assignor!r})"

    @property
    @override
    def name(self) -> str:
        return str(self.assignor.name)

    @property
    @override
    def supported_protocols(self) -> tuple[str, ...]:
        return ("eager",)  # aiokafka has no cooperative rebalancing

    @override
    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[tuple[str, int]], generation: int
    ) -> bytes:
        metadata = self.assignor.metadata(set(topics))
        if not hasattr(metadata, "user_data"):
            raise TypeError(
                f"{self.assignor!r}.metadata(topics) returned {metadata!r}, not aiokafka's "
                "ConsumerProtocolMemberMetadata"
            )
        return bytes(metadata.user_data or b"")

    @override
    def assign_group(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: object = None,
    ) -> dict[str, MemberAssignment]:
        ordered = sorted_members(members)  # insertion order: the adapter's contract
        subscriptions = {
            m.member_id: ConsumerProtocolMemberMetadata(0, list(m.topics), m.user_data)
            for m in ordered
        }
        planned = self.assignor.assign(PlanCluster(partitions_per_topic), subscriptions)
        _check_plan(self.assignor, subscriptions, planned)
        return {member_id: _from_aiokafka(planned[member_id]) for member_id in subscriptions}

    @override
    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        self.assignor.on_assignment(_to_aiokafka(assignment))
        on_generation = getattr(self.assignor, "on_generation_assignment", None)
        if callable(on_generation):
            on_generation(generation)


def _check_plan(assignor: Any, members: Mapping[str, Any], planned: Any) -> None:
    """``ValueError`` for a plan that is no mapping, leaves out a member or names a stranger."""
    if not isinstance(planned, Mapping):
        raise ValueError(f"{assignor!r}.assign returned {type(planned).__name__}, not a dict")
    missing = sorted(set(members) - set(planned))
    strangers = sorted(set(planned) - set(members))
    if missing or strangers:
        raise ValueError(
            f"{assignor!r}.assign must plan for exactly the members it was given: "
            f"left out {missing}, not in the group {strangers}"
        )


def _from_aiokafka(assignment: Any) -> MemberAssignment:
    """A ``ConsumerProtocolMemberAssignment``'s partitions (as listed) and user data."""
    listed = tuple(
        (str(topic), int(partition))
        for topic, partitions in assignment.assignment
        for partition in partitions
    )
    return MemberAssignment(listed, bytes(assignment.user_data or b""))


def _to_aiokafka(assignment: MemberAssignment) -> Any:
    """What aiokafka's coordinator decodes from SyncGroup: ``(topic, [partitions])`` grouped as
    the leader listed them, the user data, the version read."""
    by_topic: dict[str, list[int]] = {}
    for topic, partition in assignment.partitions:
        by_topic.setdefault(topic, []).append(partition)
    version = 0 if assignment.version is None else assignment.version
    return ConsumerProtocolMemberAssignment(version, list(by_topic.items()), assignment.user_data)
