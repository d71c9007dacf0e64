"""Assignor objects: one pure hook for StaticConsumer, aiokafka's hooks for plain aiokafka."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Protocol, TypeVar, runtime_checkable

from ._cooperative import assign_cooperative_sticky
from ._member import Member, MemberAssignment, Plan, TopicPartition
from ._range import PartitionRacks, assign_range
from ._roster import assign_roster, check_roster, warn_roster_argument
from ._roundrobin import assign_roundrobin
from ._sticky import assign_sticky, previous_assignment
from ._userdata import (
    NO_GENERATION,
    Envelope,
    encode_envelope,
    encode_generation,
    encode_sticky_user_data,
)

_A = TypeVar("_A", bound="_InstanceAssignor")


class GroupAssignor(Protocol):
    """What StaticConsumer's leader and members call (see the package docstring).

    The leader always passes ``partition_racks`` (KIP-881): replica racks when some member has a
    rack, else None. An implementation takes the keyword even if it ignores racks. Each
    :class:`MemberAssignment` of the plan may carry its own ``user_data``; an assignor that also
    has :class:`AssignmentReceiver`'s optional ``on_assignment`` gets, on every member, its own.
    """

    @property
    def name(self) -> str: ...

    def assign_group(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> dict[str, MemberAssignment]: ...

    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[TopicPartition], generation: int
    ) -> bytes: ...

    @property
    def supported_protocols(self) -> tuple[str, ...]:
        """Rebalance protocols the assignor supports: ("eager",), or with "cooperative"
        (KIP-429) when its plans never hand a partition to a new owner in the generation in
        which another member still owns it."""
        ...


@runtime_checkable
class AssignmentReceiver(Protocol):
    """The optional hook of a :class:`GroupAssignor`: Java's
    ``ConsumerPartitionAssignor.onAssignment(Assignment, ConsumerGroupMetadata)``.

    ``on_assignment(assignment, generation)`` is called on every member, the leader too, after
    each SyncGroup of the classic protocol with the assignment its leader planned for it: the
    partitions (in the order the plan listed them), the plan's ``user_data`` for this member,
    and the version of the ConsumerProtocolAssignment the leader wrote; ``generation`` is the
    group's generation id. It runs before the rebalance listener hears of the partitions
    (``on_partitions_assigned``), as in Java, and also when a static member re-joins without a
    rebalance (the coordinator hands it its stored assignment again). A hook that raises does
    not stop the assignment: the error is raised to the application's next poll, once, as
    Java's ``poll()`` throws it.

    An assignor without the method is never called (detected with ``isinstance(assignor,
    AssignmentReceiver)``); StaticConsumer checks at construction that the method takes
    ``(assignment, generation)`` and is not a coroutine function.

    Under ``group_protocol="consumer"`` (KIP-848) the coordinator assigns and an assignment
    carries no user data: client-side assignors are refused there (``ConfigurationError``).
    """

    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None: ...


class _Assignor:
    name: ClassVar[str]
    supported_protocols: ClassVar[tuple[str, ...]] = ("eager",)

    def __init__(self, *, group_instance_id: str | None = None) -> None:
        if group_instance_id is not None:
            check_roster([group_instance_id])  # same rules as any group.instance.id
        self.group_instance_id = group_instance_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(group_instance_id={self.group_instance_id!r})"

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> Plan:
        """The pure plan; only rack-aware assignors (range) look at ``partition_racks``."""
        raise NotImplementedError

    def assignment_user_data(self, members: Sequence[Member]) -> bytes:
        return b""

    def assign_group(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> dict[str, MemberAssignment]:
        """Leader hook: ``member_id -> MemberAssignment`` for every member given.

        ``partition_racks`` (KIP-881) maps ``(topic, partition)`` to the racks of its replicas;
        range uses it with the members' ``rack``, the other assignors ignore it as Java's do.
        """
        members = list(members)
        plan = self.plan(members, partitions_per_topic, partition_racks=partition_racks)
        user_data = self.assignment_user_data(members)
        return {
            member_id: MemberAssignment(tuple(partitions), user_data)
            for member_id, partitions in plan.items()
        }

    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[TopicPartition], generation: int
    ) -> bytes:
        """Member hook: the user data for this member's own subscription."""
        return encode_envelope(Envelope(self.group_instance_id, generation))


class _InstanceAssignor(_Assignor):
    @classmethod
    def for_instance(cls: type[_A], group_instance_id: str) -> _A:
        """A fresh assignor for the static member ``group_instance_id`` (new object each call)."""
        return cls(group_instance_id=group_instance_id)


class _OwnedMixin(_Assignor):
    """For assignors that need previous owners: Java StickyAssignor V1 body, then our envelope."""

    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[TopicPartition], generation: int
    ) -> bytes:
        prefix = encode_sticky_user_data(owned, generation)
        return encode_envelope(Envelope(self.group_instance_id, generation), prefix)

    def assignment_user_data(self, members: Sequence[Member]) -> bytes:
        newest = max((previous_assignment(m)[1] for m in members), default=NO_GENERATION)
        return encode_envelope(Envelope(None, max(newest + 1, 0)))


class RangeAssignor(_InstanceAssignor):
    """Protocol "range": Java's RangeAssignor plan (see :func:`assign_range`), rack-aware (KIP-881)
    when the leader passes ``partition_racks`` and members have a rack, as Java's is.

    Example: C0, C1 subscribe to t0 (three partitions)::

        C0: [t0p0, t0p1]
        C1: [t0p2]
    """

    name: ClassVar[str] = "range"

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> Plan:
        return assign_range(members, partitions_per_topic, partition_racks=partition_racks)


class RoundRobinAssignor(_InstanceAssignor):
    """Protocol "roundrobin": Java's RoundRobinAssignor plan (see :func:`assign_roundrobin`).

    Example: C0, C1 subscribe to t0 (three partitions)::

        C0: [t0p0, t0p2]
        C1: [t0p1]
    """

    name: ClassVar[str] = "roundrobin"

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> Plan:
        return assign_roundrobin(members, partitions_per_topic)


class StickyAssignor(_OwnedMixin, _InstanceAssignor):
    """Protocol "sticky", interoperable with Java's StickyAssignor (see :func:`assign_sticky`).

    Example: C0 owned [t0p0, t0p1, t0p2] and C1 joins::

        C0: [t0p0, t0p1]
        C1: [t0p2]
    """

    name: ClassVar[str] = "sticky"

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> Plan:
        return assign_sticky(members, partitions_per_topic)


class CooperativeStickyAssignor(_InstanceAssignor):
    """Protocol "cooperative-sticky" (KIP-429), interoperable with Java's
    ``CooperativeStickyAssignor`` (see :func:`assign_cooperative_sticky`): a partition that moves
    is first revoked by its owner, then assigned in the next generation.

    Example: C0 owned [t0p0, t0p1, t0p2] and C1 joins; first round, then second::

        C0: [t0p0, t0p1]      C0: [t0p0, t0p1]
        C1: []                C1: [t0p2]
    """

    name: ClassVar[str] = "cooperative-sticky"
    #: The rebalance protocols this assignor supports (eager assignors support only "eager").
    supported_protocols: ClassVar[tuple[str, ...]] = ("cooperative", "eager")

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> Plan:
        return assign_cooperative_sticky(members, partitions_per_topic)

    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[TopicPartition], generation: int
    ) -> bytes:
        """Java's cooperative user data (the generation, int32), then our envelope."""
        prefix = encode_generation(generation)
        return encode_envelope(Envelope(self.group_instance_id, generation), prefix)


class RosterAssignor(_OwnedMixin, _Assignor):
    """Protocol "roster": homes are what members own; balance first, then the fewest moves (see
    :func:`assign_roster`). The roster itself is a registration read by the leader at each
    rebalance (``staticconsumer.admin.register_members``): while registered members are
    missing the leader holds arrivals, so N arrivals cost one move (docs/scaling.md).

    ``RosterAssignor()`` needs no roster. The ``roster`` argument (``RosterAssignor([...])``,
    :meth:`with_roster`, ``for_instance(..., roster=[...])``) is deprecated since issue 21: it is
    still validated (``ValueError`` on a bad entry), kept as :attr:`roster`, and otherwise
    ignored, with a ``DeprecationWarning``; register the ids instead.

    Example: a and b own t0 (four partitions), c joins::

        before: a: [t0p0, t0p1]  b: [t0p2, t0p3]
        after:  a: [t0p0, t0p1]  b: [t0p2]        c: [t0p3]
    """

    name: ClassVar[str] = "roster"

    def __init__(
        self, roster: Sequence[str] | None = None, *, group_instance_id: str | None = None
    ) -> None:
        super().__init__(group_instance_id=group_instance_id)
        self.roster: tuple[str, ...] = ()
        self._take_roster(roster, stacklevel=2)

    def _take_roster(self, roster: Sequence[str] | None, *, stacklevel: int) -> None:
        warn_roster_argument(roster, stacklevel=stacklevel + 1)
        self.roster = tuple(check_roster(roster)) if roster is not None else ()

    def __repr__(self) -> str:
        return (
            f"RosterAssignor(roster={list(self.roster)!r}, "
            f"group_instance_id={self.group_instance_id!r})"
        )

    @classmethod
    def with_roster(
        cls, roster: Sequence[str], *, group_instance_id: str | None = None
    ) -> RosterAssignor:
        """Deprecated: ``RosterAssignor()`` and a registered roster (class docstring)."""
        assignor = cls(group_instance_id=group_instance_id)
        assignor._take_roster(roster, stacklevel=2)
        return assignor

    @classmethod
    def for_instance(
        cls, group_instance_id: str, *, roster: Sequence[str] | None = None
    ) -> RosterAssignor:
        """A fresh assignor for the static member ``group_instance_id`` (``roster``:
        deprecated, see the class docstring)."""
        assignor = cls(group_instance_id=group_instance_id)
        assignor._take_roster(roster, stacklevel=2)
        return assignor

    def plan(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: PartitionRacks | None = None,
    ) -> Plan:
        return assign_roster(members, partitions_per_topic)
