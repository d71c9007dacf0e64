"""How a member reads its group's roster: on the consumer's own connection, only when it was
configured for pre-registration (``roster_topic``), bounded, with typed errors.

Why the consumer's own client (issue 31): the leader reads while the whole group waits in
SyncGroup, on every rebalance it leads. A second ``AIOKafkaConsumer`` per read paid a bootstrap,
a login and a metadata round on each; :meth:`ClientSeam.read_partition_log
<staticconsumer._compat.ClientSeam.read_partition_log>` asks the leader of the roster topic's one
partition on the connections the consumer already holds (Metadata, ListOffsets, Fetch).

Why opt-in: a consumer built without ``roster_topic`` has no :class:`RosterReader` at all
(:func:`roster_reader` answers None), so it sends no roster request, logs no roster line and
needs no ACL on any roster topic. Pre-registration is a feature a group asks for, not a tax
every group pays.

Errors, translated here once: no topic or no record is "no roster" (None); a missing ACL is
:class:`~staticconsumer.errors.RosterAuthorizationError`; anything else that stops the read
(another error code, no answer within :data:`ROSTER_READ_TIMEOUT_S`, a record of a newer format)
is :class:`~staticconsumer.errors.RosterUnreadableError`. The caller (the leader's gate, the join
barrier) logs it with the consumer's identity and goes on without the roster. The admin's reads
(:mod:`._store`) run this same read on their own client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from .._compat import KafkaError
from .._compat.auth import who
from .._compat.roster import PartitionLog
from .._observability.emitter import SHARED_CLIENT_KEYS
from ..errors import RosterAuthorizationError, RosterFormatError, RosterUnreadableError
from ..protocol import ErrorCode, error_name
from ._barrier import scan_log
from ._gate import RosterSource
from ._record import Roster

#: The bound on one roster read (the leader reads while the group waits in SyncGroup).
ROSTER_READ_TIMEOUT_S = 3.0
_ACLS = (
    "members built with roster_topic need DESCRIBE and READ on topic {topic}; the admin also "
    "WRITE on it, and CREATE (on the topic or the cluster) once, to create it"
)


def _denied(
    group_id: str, topic: str, what: str, name: str, principal: str
) -> RosterAuthorizationError:
    return RosterAuthorizationError(
        f"{what} the roster of group {group_id!r} in topic {topic!r} was refused: {name} for "
        f"{principal} ({_ACLS.format(topic=topic)})",
        group_id=group_id, topic=topic, error_name=name,
    )  # fmt: skip


def _unreadable(group_id: str, topic: str, why: str, name: str = "") -> RosterUnreadableError:
    return RosterUnreadableError(
        f"the roster of group {group_id!r} in topic {topic!r} could not be read: {why}",
        group_id=group_id, topic=topic, error_name=name,
    )  # fmt: skip


#: Reads every record of a topic's partition 0 (the consumer's ``ClientSeam.read_partition_log``).
LogRead = Callable[[str], Awaitable[PartitionLog]]


@dataclass(frozen=True)
class RosterReader:
    """A consumer's pre-registration settings: its group, the roster topic, the principal it is
    (named in an ACL error) and its client arguments (used only to write an arrival at the
    join barrier; never in the repr)."""

    group_id: str
    roster_topic: str
    client_kwargs: Mapping[str, Any] = field(repr=False)
    principal: str

    def source(self, read_log: LogRead) -> RosterSource:
        """The leader's roster read over ``read_log`` (the driver's seam)."""

        async def read() -> Roster | None:
            roster, _ = await self.read(read_log, arrivals=False)
            return roster

        return read

    async def read(
        self, read_log: LogRead, *, arrivals: bool = True, timeout_s: float | None = None
    ) -> tuple[Roster | None, dict[str, int]]:
        """The roster (None: none) and, with ``arrivals``, its arrivals (module docstring),
        bounded by ``timeout_s`` (None: :data:`ROSTER_READ_TIMEOUT_S`)."""
        topic, group_id = self.roster_topic, self.group_id
        bound = ROSTER_READ_TIMEOUT_S if timeout_s is None else timeout_s
        try:
            log = await asyncio.wait_for(read_log(topic), bound)
        except TimeoutError:
            why = f"no answer in {bound:g}s"
            raise _unreadable(group_id, topic, why) from None
        except KafkaError as exc:  # no answer, a lost connection, a corrupt batch
            raise _unreadable(group_id, topic, str(exc) or type(exc).__name__) from exc
        if log.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
            return None, {}
        if log.error_code == ErrorCode.TOPIC_AUTHORIZATION_FAILED:
            name = error_name(log.error_code)
            raise _denied(group_id, topic, "reading", name, self.principal)
        if log.error_code:
            name = error_name(log.error_code)
            raise _unreadable(group_id, topic, f"the broker answered {name}", name)
        try:
            return scan_log(log.records, group_id, arrivals=arrivals)
        except RosterFormatError as exc:
            raise _unreadable(group_id, topic, str(exc)) from exc


def roster_reader(
    roster_topic: str | None, group_id: str | None, consumer_kwargs: Mapping[str, Any]
) -> RosterReader | None:
    """The consumer's :class:`RosterReader`; None (pre-registration off: no roster request, no
    roster log line) without a ``roster_topic`` or a group."""
    if roster_topic is None or not group_id:
        return None
    client_kwargs = {k: consumer_kwargs[k] for k in SHARED_CLIENT_KEYS if k in consumer_kwargs}
    principal = who(SimpleNamespace(**client_kwargs))
    return RosterReader(group_id, roster_topic, client_kwargs, principal)
