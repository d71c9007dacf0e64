"""Consumer group admin for static members (KIP-345): describe a group, remove members by
``group.instance.id``.

A static member does not leave the group when it stops, so its partitions wait for it until
``session.timeout.ms`` runs out. When it is not coming back (a scale-down, a retired host), an
admin removes it by instance id and the group rebalances at once::

    from staticconsumer.admin import describe_group, remove_members

    description = await describe_group("localhost:9092", "orders")
    for member in description.members:
        print(member.group_instance_id, member.assignment)   # ('orders', 0), ...

    await remove_members("localhost:9092", "orders", ["orders-3"])

Every function takes the client's TLS/SASL settings as aiokafka's keyword arguments
(``security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_plain_username=...``) or as
``security=SecuritySettings(...)`` (:mod:`staticconsumer.security`). A refused login raises
:class:`~staticconsumer.errors.AuthenticationError`, a missing ACL
:class:`~staticconsumer.errors.GroupAdminAuthorizationError`; neither is retried.

:func:`remove_members` raises when some instance id could not be removed;
:func:`try_remove_members` does the same request and returns a :class:`RemovalOutcome` that says,
per instance id, removed or Kafka's error name (the CLI uses it to print both lists).

:func:`remove_members` sends ONE LeaveGroup v3+ request (batched, KIP-345) naming every instance id
with member id ``""``, as Java's ``Admin.removeMembersFromConsumerGroup`` does; from v5 each
member carries a reason (KIP-800: ``"member was removed by an admin"``, followed by
``": <reason>"`` when one is given; :func:`removal_reason`), which the broker writes to its log.
The broker removes the known members and answers UNKNOWN_MEMBER_ID for each unknown one; the
batch causes one rebalance.

:func:`describe_group` describes a KIP-848 consumer group with ConsumerGroupDescribe (member
epochs, assignments and target assignments; ``group_protocol == "consumer"``) and any other group
with DescribeGroups v4+ (negotiated), the first version that reports ``group_instance_id``. An
unknown group is described as state ``"Dead"`` with no members, whatever the broker's version: up
to v5 the broker answers that way itself, v6 answers GROUP_ID_NOT_FOUND (KIP-1043) and we
translate it. :func:`remove_members` works on both kinds of group: the coordinator removes a
consumer group's static member by instance id too.

Coordinator lookup and retries (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
COORDINATOR_LOAD_IN_PROGRESS) are described in :mod:`staticconsumer._admin.coordinator`.

:func:`describe_streams_group` describes a streams group (KIP-1071) with StreamsGroupDescribe: its
epochs and each member (one stream thread) with its instance id, process id, epoch and tasks
(``description.member("app-0-1")``: one thread by instance id). A streams group takes no
LeaveGroup: its static members leave when their session ends (``docs/streams-groups.md``).

Pre-registration (KIP-469's promise, kept by the client; docs/scaling.md; its code is
:mod:`staticconsumer.roster`): a group's roster is the set of instance ids it should have, stored
in a compacted topic (default ``_staticconsumer_rosters``) and changed while the group runs, no
member restarted. Members read it only when built with ``roster_topic`` (default None: off)::

    await register_members("localhost:9092", "orders", ["orders-4", "orders-5"])
    roster = await describe_roster("localhost:9092", "orders")   # Roster | None
    await unregister_members("localhost:9092", "orders", ["orders-5"], remove=True)

:func:`register_members` adds ids, :func:`set_roster` replaces them, :func:`unregister_members`
takes ids off (``remove=True`` also removes those static members from the group at once),
:func:`delete_roster` writes a tombstone. :func:`read_roster` is the bounded read a group's
leader does while it plans (None: no roster; ``RosterUnreadableError``: it could not be read).

This module is the public face only: the calls live in :mod:`staticconsumer._admin`
(``describe``, ``remove``, ``reconcile``, ``coordinator``) and :mod:`staticconsumer.roster`
(the roster calls, and ``describe_group`` with the roster beside the members), which never
import it back.
"""

from __future__ import annotations

from ._admin.client import DEFAULT_TIMEOUT_S
from ._admin.describe import GroupDescription, GroupMemberDescription, describe_group_with_client
from ._admin.describe_streams import (
    StreamsGroupDescription,
    StreamsMemberDescription,
    StreamsTaskLists,
    describe_streams_group,
    format_tasks,
)
from ._admin.reconcile import ReconcilePlan, desired_count_ids, reconcile
from ._admin.remove import RemovalOutcome, RemoveMembersResult, remove_members, try_remove_members
from .membership import ADMIN_REMOVE_REASON
from .membership import admin_remove_reason as removal_reason
from .roster import DEFAULT_READ_TIMEOUT_S as DEFAULT_ROSTER_READ_TIMEOUT_S
from .roster import (
    DEFAULT_ROSTER_TOPIC,
    DEFAULT_ROSTER_WAIT_MS,
    UNREGISTER_REASON,
    Roster,
    RosterStatus,
    delete_roster,
    describe_group,
    describe_roster,
    read_roster,
    register_members,
    set_roster,
    unregister_members,
)

__all__ = [
    "DEFAULT_REMOVE_REASON",
    "DEFAULT_ROSTER_READ_TIMEOUT_S",
    "DEFAULT_ROSTER_TOPIC",
    "DEFAULT_ROSTER_WAIT_MS",
    "DEFAULT_TIMEOUT_S",
    "UNREGISTER_REASON",
    "GroupDescription",
    "GroupMemberDescription",
    "ReconcilePlan",
    "RemovalOutcome",
    "RemoveMembersResult",
    "Roster",
    "RosterStatus",
    "StreamsGroupDescription",
    "StreamsMemberDescription",
    "StreamsTaskLists",
    "delete_roster",
    "describe_group",
    "describe_group_with_client",
    "describe_roster",
    "describe_streams_group",
    "desired_count_ids",
    "format_tasks",
    "read_roster",
    "reconcile",
    "register_members",
    "removal_reason",
    "remove_members",
    "set_roster",
    "try_remove_members",
    "unregister_members",
]

#: The reason a removal sends when none is given (LeaveGroup v5+, KIP-800), as Java's admin
#: client words it; :func:`remove_members`, :func:`try_remove_members`, :func:`reconcile`.
DEFAULT_REMOVE_REASON = ADMIN_REMOVE_REASON
