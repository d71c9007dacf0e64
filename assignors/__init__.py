"""Partition assignors that know about static membership (KIP-345).

Pure functions take plain data and return ``member_id -> sorted [(topic, partition)]`` with an
entry for every member given; the output does not depend on input order::

    assign_range(members, partitions_per_topic)
    assign_roundrobin(members, partitions_per_topic)
    assign_sticky(members, partitions_per_topic)
    assign_cooperative_sticky(members, partitions_per_topic)
    assign_roster(members, partitions_per_topic)
    assign_tables(members, partitions_per_topic, standby_replicas=1, remembered=roster)

Members are ordered as Java orders them (``AbstractPartitionAssignor.MemberInfo``): static members
by ``group_instance_id``, before dynamic members by ``member_id`` (KIP-345 "future work" item 4);
``sorted_members(members)`` gives that order (strings compared as Java compares them).
Range and round-robin produce exactly Java's plans; sticky interoperates with Java's StickyAssignor;
roster is the plan for our client-side take on KIP-469 (homes are what members own; a roster change
moves only what balance needs; the roster itself is registered with ``staticconsumer.admin``).

Racks (KIP-881): ``assign_range(..., partition_racks={(topic, partition): racks})`` is rack-aware
exactly as Java's RangeAssignor when members have a ``rack``. Round-robin ignores racks, as Java's
does; sticky and roster ignore them too. ``RangeAssignor()`` in a StaticConsumer is rack-aware as
well: when some member sent a rack (``client_rack=``), the leader passes the replica racks from its
cluster metadata as ``assign_group(..., partition_racks=...)``.

**GroupAssignor** (a ``typing.Protocol``) is what StaticConsumer uses. Each assignor object here
satisfies it:

* ``name: str`` — the protocol name in JoinGroup: "range", "roundrobin", "sticky", "roster".
* ``assign_group(members: Sequence[Member], partitions_per_topic: Mapping[str, int], *,
  partition_racks=None) -> dict[str, MemberAssignment]`` — called by the leader with the decoded
  subscriptions and the instance ids from the JoinGroup response, plus ``{(topic, partition):
  replica racks}`` when some member has a rack (None otherwise); every implementation takes
  the keyword, even one that ignores racks.
  ``MemberAssignment.partitions`` is sorted; ``MemberAssignment.user_data`` goes into that
  member's assignment (each member may get its own; empty for range and round-robin).
* ``subscription_user_data(topics, owned: Sequence[tuple[str, int]], generation: int) -> bytes`` —
  called by each member for its own subscription. Sticky and roster put a Java StickyAssignor V1
  body (owned partitions + generation) first, so Java leaders stay sticky; every assignor appends
  our envelope with the member's instance id. Byte layout: :mod:`assignors._userdata`.
* optional, :class:`AssignmentReceiver`: ``on_assignment(assignment: MemberAssignment,
  generation: int) -> None`` — Java's ``ConsumerPartitionAssignor.onAssignment``: called on
  every member, the leader too, after each SyncGroup with its own assignment (partitions, the
  ``user_data`` the leader planned for it, the assignment ``version``) and the generation id,
  before the rebalance listener's ``on_partitions_assigned``. Classic protocol only: under
  KIP-848 (``group_protocol="consumer"``) the coordinator assigns, assignments carry no user
  data, and StaticConsumer refuses client-side assignors.

**Plain aiokafka**: ``static_membership`` gives a consumer both halves of static membership from
one id, its ``group_instance_id`` and its assignors (module :mod:`assignors.aiokafka_adapter`, the
only one that imports aiokafka, loaded on first use)::

    AIOKafkaConsumer(topic, group_id="g", **static_membership("svc-0", StickyAssignor))

``for_aiokafka(assignor)`` wraps one assignor; one without an instance id is refused unless
``dynamic_member=True``, and the leader refuses members whose consumer's id is not their
assignor's (the adapter's docstring says how it tells).

``for_instance`` returns a fresh object each call; all state lives on that object, never on a class
or module. ``RangeAssignor()`` (no instance id) behaves as a dynamic member. The roster assignor
needs no roster since issue 21 (``RosterAssignor.for_instance("svc-0")``); its ``roster=``
argument and ``RosterAssignor.with_roster([...])`` are deprecated (validated, then ignored with a
``DeprecationWarning``): register the ids with ``staticconsumer.admin.register_members``.
Mixing this package's assignors with aiokafka's built-in ones in one group is not supported.

``assign_tables`` is the table-aware plan a faust-style app needs (module :mod:`assignors._tables`):
actives, standbys never on the active's member, copartitioned topics planned together, homes that
follow instance ids through the roster the group remembers (it returns a :class:`TablePlan`, not
a ``Plan``; ``staticconsumer.faust`` speaks faust's assignment bytes around it).

Errors: invalid input (duplicate member ids, negative partition counts, bad roster entries or
instance ids) raises ``ValueError`` naming the problem.
"""

from typing import TYPE_CHECKING

from ._assignor import (
    AssignmentReceiver,
    CooperativeStickyAssignor,
    GroupAssignor,
    RangeAssignor,
    RosterAssignor,
    RoundRobinAssignor,
    StickyAssignor,
)
from ._cooperative import assign_cooperative_sticky
from ._member import Member, MemberAssignment, sorted_members
from ._range import assign_range
from ._roster import assign_roster
from ._roundrobin import assign_roundrobin
from ._sticky import assign_sticky
from ._tables import TablePlan, assign_tables
from ._userdata import (
    Envelope,
    StickyUserData,
    decode_envelope,
    decode_sticky_user_data,
    encode_envelope,
    encode_sticky_user_data,
)

if TYPE_CHECKING:  # their real types for type checkers; at run time loaded on first use
    from .aiokafka_adapter import AiokafkaAssignor, for_aiokafka, static_membership

__all__ = [
    "AiokafkaAssignor",
    "AssignmentReceiver",
    "CooperativeStickyAssignor",
    "Envelope",
    "GroupAssignor",
    "Member",
    "MemberAssignment",
    "RangeAssignor",
    "RosterAssignor",
    "RoundRobinAssignor",
    "StickyAssignor",
    "StickyUserData",
    "TablePlan",
    "assign_cooperative_sticky",
    "assign_range",
    "assign_roster",
    "assign_roundrobin",
    "assign_sticky",
    "assign_tables",
    "decode_envelope",
    "decode_sticky_user_data",
    "encode_envelope",
    "encode_sticky_user_data",
    "for_aiokafka",
    "sorted_members",
    "static_membership",
]


def __getattr__(name: str) -> object:
    """``AiokafkaAssignor``, ``for_aiokafka`` and ``static_membership`` import aiokafka: only
    when asked for."""
    if name in ("AiokafkaAssignor", "for_aiokafka", "static_membership"):
        from . import aiokafka_adapter

        return getattr(aiokafka_adapter, name)
    raise AttributeError(f"module 'assignors' has no attribute {name!r}")
