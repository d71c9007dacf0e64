"""Pre-registration (KIP-469's promise, kept by the client; ``docs/scaling.md``): a group's
*roster*, the ``group.instance.id``\\ s it should have, registered ahead of a scale-up, so that the
new members join in one rebalance and nothing owned moves twice. All of it lives here.

Opt-in: a consumer takes part only with ``roster_topic`` set (the CLI's and the admin calls'
default topic is :data:`DEFAULT_ROSTER_TOPIC`). Without it, it sends no roster request, logs no
roster line and needs no ACL on a roster topic.

Sans-IO (no asyncio, no aiokafka; the import contract checks them as it checks
``membership``):

* :mod:`._record` — :class:`Roster`, its versioned record format, and :meth:`Roster.status`,
  a :class:`RosterStatus` (defined below ``roster`` and ``_admin``, in
  ``staticconsumer._roster_status``, as ``_admin``'s group description carries it);
* :mod:`._plan` — :func:`plan_under_roster`, what a classic leader assigns under a roster;
* :mod:`._barrier` — :func:`barrier`, when a registered arrival joins; arrival records.

With I/O:

* :mod:`._reader` — :class:`RosterReader`: a member's bounded read on its own connection
  (``ClientSeam.read_partition_log``), typed errors;
* :mod:`._gate` — :class:`RosterGate`: the classic leader reads, plans, keeps the deadline;
* :mod:`._join` — :class:`JoinBarrier`: a registered arrival waits in ``start()``;
* :mod:`._store`, :mod:`._admin`, :mod:`._describe` — the admin's reads and writes (its own
  client and producer): register, set, unregister, describe, delete, and ``describe_group``
  with the roster beside the members (all re-exported by :mod:`staticconsumer.admin`).
"""

from .._instance_id import check_instance_ids
from .._roster_status import RosterStatus
from ._admin import (
    UNREGISTER_REASON,
    delete_roster,
    describe_roster,
    register_members,
    set_roster,
    unregister_members,
)
from ._barrier import (
    BarrierDecision,
    BarrierVerdict,
    arrival_key,
    arrival_value,
    barrier,
    read_arrival,
    scan_log,
)
from ._describe import describe_group
from ._gate import RosterGate, RosterSource
from ._join import JoinBarrier
from ._plan import RegisteredRoster, RosterPlan, RosterVerdict, plan_under_roster
from ._reader import ROSTER_READ_TIMEOUT_S, RosterReader, roster_reader
from ._record import (
    DEFAULT_ROSTER_TOPIC,
    DEFAULT_ROSTER_WAIT_MS,
    ROSTER_FORMAT_VERSION,
    Roster,
    check_roster_topic,
)
from ._store import DEFAULT_READ_TIMEOUT_S, read_roster

__all__ = [
    "DEFAULT_READ_TIMEOUT_S",
    "DEFAULT_ROSTER_TOPIC",
    "DEFAULT_ROSTER_WAIT_MS",
    "ROSTER_FORMAT_VERSION",
    "ROSTER_READ_TIMEOUT_S",
    "UNREGISTER_REASON",
    "BarrierDecision",
    "BarrierVerdict",
    "JoinBarrier",
    "RegisteredRoster",
    "Roster",
    "RosterGate",
    "RosterPlan",
    "RosterReader",
    "RosterSource",
    "RosterStatus",
    "RosterVerdict",
    "arrival_key",
    "arrival_value",
    "barrier",
    "check_instance_ids",
    "check_roster_topic",
    "delete_roster",
    "describe_group",
    "describe_roster",
    "plan_under_roster",
    "read_arrival",
    "read_roster",
    "register_members",
    "roster_reader",
    "scan_log",
    "set_roster",
    "unregister_members",
]
