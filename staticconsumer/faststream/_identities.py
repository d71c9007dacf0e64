"""Which consumer of a :class:`~staticconsumer.faststream.StaticKafkaBroker` is which static
member: what each subscriber declares (read through ``_seam``), checked whenever the broker
can (``_ids`` has the scheme), planned into the subscribers' aiokafka arguments at start, and
the worker ids that running consumers hold.

The checks run when a subscriber is declared (``broker.subscriber(...)``, a router included),
when the broker connects (``TestKafkaBroker`` runs that too: a unit test meets the error a real
start would raise) and at start, each time over every subscriber: the id scheme on the base id
when it is known (``instance_id=``, or a valid one in the environment; else ``<base>-<key>``),
and at start on the base id the ids need (none when every subscriber gives a whole id).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import InstanceId
from ..errors import InvalidInstanceIdError, StaticConsumerError
from . import _seam
from ._ids import Declared, Member, mapping_line, plan_members

log = logging.getLogger(__name__)


class WorkerIds(tuple[str, ...]):
    """The instance ids of a subscriber's workers (``max_workers=N`` without ``ACK_FIRST``:
    FastStream builds N consumers from one set of arguments): what :meth:`Identities.plan`
    writes as the subscriber's ``group_instance_id``; each consumer built takes the first id no
    running consumer holds (:meth:`Identities.take_worker`), so worker n is ``<id>-n`` in every
    start."""

    __slots__ = ()


@dataclass(frozen=True)
class Planned:
    """One subscriber, what it declared and its consumers' members (none without a group)."""

    subscriber: Any
    declared: Declared
    members: tuple[Member, ...]


class Identities:
    """The broker's subscribers' identities (``instance_id``: the base id it was given)."""

    def __init__(self, instance_id: str | None) -> None:
        self.instance_id = instance_id
        #: The base id of the last start (None: none was needed, or none is known yet).
        self.base: str | None = None
        #: ``{group_instance_id: member}`` of the last start.
        self.members: dict[str, Member] = {}
        #: Worker ids FastStream will not build (a worker subscriber without handlers).
        self.unbuilt: set[str] = set()
        self._given: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()
        self._held: set[str] = set()  # worker ids whose consumer runs (built, not stopped)

    def declare(self, subscriber: Any) -> Declared:
        """What ``subscriber`` says about itself: its ``group_instance_id`` as the user gave it
        (remembered before :meth:`plan` writes the planned one into its arguments)."""
        if subscriber not in self._given:
            self._given[subscriber] = _seam.connection_args(subscriber).get("group_instance_id")
        group, topics = _seam.group_id(subscriber), tuple(_seam.topic_names(subscriber))
        return Declared(f"{group or '-'}/{','.join(topics)}", group, topics,
                        self._given[subscriber], _seam.consumer_count(subscriber))  # fmt: skip

    def known_base(self) -> str | None:
        """The base id, when it can be had without an error: ``instance_id``, or the
        environment's when valid (a declaration, a ``TestKafkaBroker`` run)."""
        if self.instance_id is not None:
            return self.instance_id
        try:
            return InstanceId.from_env()
        except InvalidInstanceIdError:
            return None

    def required_base(self, subscribers: Sequence[Any]) -> str | None:
        """At start: ``instance_id``, or the environment's, which must be there when an id is
        built on it (the error names those subscribers); when none is (every subscriber gives
        a whole id), the environment's if it has a valid one, else None: no base needed."""
        if self.instance_id is not None:
            return self.instance_id
        needing = sorted(d.label for d in map(self.declare, subscribers) if d.needs_base)
        if not needing:
            return self.known_base()
        try:
            return InstanceId.from_env()
        except InvalidInstanceIdError as exc:
            raise InvalidInstanceIdError(
                f"{exc}: the instance ids of subscribers {', '.join(needing)} are built on the "
                "base id (or give StaticKafkaBroker(instance_id=...), or each of them a whole "
                "group_instance_id)"
            ) from exc

    def is_pod_identity(self, group_instance_id: str | None) -> bool:
        """Whether the id is this pod's own StatefulSet identity (``instance_takeover``'s
        default, KIP-848): built on a base id that is (``orders-0-billing-orders``), or a
        whole id that is one (``orders-0``)."""
        member = self.members.get(group_instance_id or "")
        if member is None:
            return False
        if member.how == "given":
            return InstanceId.is_statefulset_identity(member.group_instance_id)
        return self.base is not None and InstanceId.is_statefulset_identity(self.base)

    def check(self, subscribers: Sequence[Any], base: str | None) -> list[Planned]:
        """The id scheme over every subscriber (``base`` None: not known yet)."""
        declared = [self.declare(subscriber) for subscriber in subscribers]
        members = plan_members(base, declared)
        return [Planned(s, d, tuple(m for m in members if m.declared is d))
                for s, d in zip(subscribers, declared, strict=True)]  # fmt: skip

    def plan(self, planned: list[Planned], base: str | None, *, fresh: bool) -> tuple[Member, ...]:
        """Each subscriber's instance id (or its workers' ids) written into its aiokafka
        arguments; the mapping logged. ``fresh``: at start (no consumer runs); else a
        subscriber was declared on the running broker, whose consumers keep their ids."""
        self.base, self.unbuilt = base, set()
        if fresh:
            self._held = set()
        for item in planned:
            ids = tuple(m.group_instance_id for m in item.members)
            value: str | WorkerIds | None = ids[0] if len(ids) == 1 else None
            if len(ids) > 1:  # FastStream builds them from one set of arguments
                value = WorkerIds(ids)
                if not _seam.has_handlers(item.subscriber):  # get_one(): worker 1 alone
                    self.unbuilt.update(ids[1:])
            _seam.connection_args(item.subscriber)["group_instance_id"] = value
        members = tuple(m for item in planned for m in item.members)
        self.members = {m.group_instance_id: m for m in members}
        log.info("%s", mapping_line(base, members))
        return members

    def take_worker(self, ids: WorkerIds) -> str:
        """The first of a subscriber's worker ids that no running consumer holds."""
        for iid in ids:
            if iid not in self._held:
                self._held.add(iid)
                return iid
        raise StaticConsumerError(
            f"all {len(ids)} worker instance ids of a subscriber ({', '.join(ids)}) are held by "
            "running consumers: FastStream built more consumers than its max_workers"
        )

    def release(self, group_instance_id: str) -> None:
        """A worker's consumer stopped: its id is free for the next one built."""
        self._held.discard(group_instance_id)
