"""``StaticKafkaBroker``: FastStream's ``KafkaBroker`` whose every subscriber consumer is a
:class:`~staticconsumer.StaticConsumer` (``docs/faststream.md``)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import weakref
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any

from faststream.kafka import KafkaBroker

from .. import HealthServer, InstanceId, Membership, MembershipState
from ..errors import (
    ConfigurationError,
    FencedInstanceIdError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
)
from ..events import MembershipEvent
from . import _seam
from ._consumer import ServiceConsumer
from ._ids import Declared, Member, mapping_line, plan_members

log = logging.getLogger(__name__)

#: ``subscriber(...)`` options FastStream always passes (with its own defaults): left out when
#: they hold FastStream's default, so StaticConsumer's apply (its instance-id-first assignors;
#: under the consumer protocol, the coordinator's session and heartbeat).
_DEFAULTED = ("partition_assignment_strategy", "session_timeout_ms", "heartbeat_interval_ms")
#: StaticConsumer keywords the broker sets itself (refused in ``consumer_options``).
_OWNED = frozenset({
    "group_instance_id", "group_protocol", "group_remote_assignor", "instance_takeover",
    "on_fatal", "on_event", "health_port", "health_host", "partition_assignment_strategy",
})  # fmt: skip
#: staticconsumer raises UNRELEASED_INSTANCE_ID to the application after 45 s; a subscriber
#: under the consumer protocol without an assignment by then is stopped a little later.
UNRELEASED_WAIT_MS = 60_000


class WorkerIds(tuple[str, ...]):
    """The instance ids of a subscriber's workers (``max_workers=N`` without ``ACK_FIRST``:
    FastStream builds N consumers from one set of arguments): what :meth:`StaticKafkaBroker.
    _plan` writes as the subscriber's ``group_instance_id``; each consumer built takes the
    first id no running consumer holds, so worker n is ``<id>-n`` in every start."""

    __slots__ = ()


def _faststream_defaults() -> dict[str, Any]:
    parameters = inspect.signature(KafkaBroker.subscriber).parameters
    return {name: parameters[name].default for name in _DEFAULTED}


class _SubscriberHealth:
    """One subscriber on the health endpoint: the membership (and metrics) of the consumer it
    has now; ``not_started`` before its first."""

    def __init__(self, consumers: Mapping[str, ServiceConsumer], member: Member) -> None:
        self._consumers = consumers
        self._member = member

    @property
    def membership(self) -> Membership:
        consumer = self._consumers.get(self._member.group_instance_id)
        if consumer is None:
            return Membership(MembershipState.NOT_STARTED, self._member.declared.group_id,
                              self._member.group_instance_id)  # fmt: skip
        return consumer.membership

    @property
    def metrics(self) -> Callable[[], Any] | None:
        consumer = self._consumers.get(self._member.group_instance_id)
        return consumer.metrics if consumer is not None else None


class StaticKafkaBroker(_seam.ConnectSeam):
    """``faststream.kafka.KafkaBroker`` with a :class:`~staticconsumer.StaticConsumer` under each
    subscriber. Every ``KafkaBroker`` argument works; the keywords of our own:

    * ``instance_id``: the process's base id (default ``InstanceId.from_env()`` at start: a
      StatefulSet pod name). Each subscriber with a group is ``<base>-<key>``
      (``staticconsumer.faststream._ids`` and ``docs/faststream.md``: the scheme).
    * ``group_protocol`` (Java ``group.protocol``, KIP-848), ``group_remote_assignor``,
      ``instance_takeover`` (None: on under the consumer protocol when the base id is this
      pod's StatefulSet name) and ``partition_assignment_strategy`` (default: StaticConsumer's
      instance-id-first ``range`` then ``roundrobin``; ``"cooperative-sticky"`` by name) for
      every subscriber.
    * ``health_port``/``health_host``: one endpoint for the process, ready when every
      subscriber holds its assignment; ``/metrics`` labelled per subscriber.
    * ``on_event``: membership events of every subscriber (each names its instance id).
    * ``consumer_options``: other StaticConsumer keywords for every subscriber (e.g.
      ``events_topic``).

    A fatal subscriber (FENCED_INSTANCE_ID; UNRELEASED_INSTANCE_ID past
    ``unreleased_wait_ms``) logs one line and stops the FastStream app; :meth:`stop` then raises
    that error, so ``app.run()`` (and ``faststream run``) ends with a non-zero status.
    """

    def __init__(
        self,
        bootstrap_servers: str | Sequence[str] = "localhost",
        *,
        instance_id: str | None = None,
        group_protocol: str = "classic",
        group_remote_assignor: str | None = None,
        instance_takeover: bool | None = None,
        partition_assignment_strategy: Any = None,
        health_port: int | None = None,
        health_host: str | None = None,
        on_event: Callable[[MembershipEvent], object] | None = None,
        consumer_options: Mapping[str, Any] | None = None,
        unreleased_wait_ms: int = UNRELEASED_WAIT_MS,
        **kwargs: Any,
    ) -> None:
        _seam.check_version()
        if instance_id is not None:
            InstanceId.validate(instance_id, field="instance_id")
        owned = sorted(_OWNED & set(consumer_options or {}))
        if owned:
            raise ConfigurationError(
                f"consumer_options may not set {', '.join(owned)}: StaticKafkaBroker sets them "
                "for every subscriber (pass them to StaticKafkaBroker itself)"
            )
        self._health_server = HealthServer(port=health_port, host=health_host) if (
            health_port is not None) else None  # fmt: skip
        if isinstance(unreleased_wait_ms, bool) or not isinstance(unreleased_wait_ms, int) or (
                unreleased_wait_ms <= 0):  # fmt: skip
            raise ConfigurationError(
                "unreleased_wait_ms (staticconsumer option, no Java key; KIP-848's "
                f"UNRELEASED_INSTANCE_ID) must be an int > 0, got {unreleased_wait_ms!r}"
            )
        super().__init__(bootstrap_servers, **kwargs)
        self._instance_id = instance_id
        self._static: dict[str, Any] = {
            "group_protocol": group_protocol, "on_event": on_event, **(consumer_options or {}),
        }  # fmt: skip
        if group_protocol == "consumer":
            self._static["group_remote_assignor"] = group_remote_assignor
        elif group_remote_assignor is not None or instance_takeover:
            self._static["group_remote_assignor"] = group_remote_assignor  # StaticConsumer says
            self._static["instance_takeover"] = instance_takeover  # why, at start
        self._takeover = instance_takeover
        self._strategy = partition_assignment_strategy
        self._unreleased_wait_s = unreleased_wait_ms / 1000
        self._given: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()
        self._held: set[str] = set()  # worker ids whose consumer runs (built, not stopped)
        self._unbuilt: set[str] = set()  # worker ids of a subscriber without handlers
        self._members: dict[str, Member] = {}
        self._consumers: dict[str, ServiceConsumer] = {}
        self._base = ""
        self._fatal: StaticConsumerError | None = None
        self._stopping: asyncio.Task[None] | None = None

    # -- identity ---------------------------------------------------------------------------

    @property
    def static_members(self) -> Mapping[str, str]:
        """``{group_instance_id: subscriber}`` of the last start (the mapping logged)."""
        return {iid: m.label for iid, m in self._members.items()}

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        """The error that stopped the service, if one did."""
        return self._fatal

    @property
    def health_address(self) -> tuple[str, int] | None:
        return self._health_server.address if self._health_server is not None else None

    def _declare(self, subscriber: Any) -> Declared:
        """What ``subscriber`` says about itself (its ``group_instance_id`` as the user gave it,
        before :meth:`_plan` wrote the planned one into its arguments)."""
        args = _seam.connection_args(subscriber)
        if subscriber not in self._given:
            self._given[subscriber] = args.get("group_instance_id")
        group, topics = _seam.group_id(subscriber), tuple(_seam.topic_names(subscriber))
        return Declared(f"{group or '-'}/{','.join(topics)}", group, topics,
                        self._given[subscriber], _seam.consumer_count(subscriber))  # fmt: skip

    def _plan(self) -> tuple[Member, ...]:
        """Each subscriber's instance id (or its workers' ids), written into its aiokafka
        arguments; logged once."""
        self._base = base = self._instance_id or InstanceId.from_env()
        subscribers = self.subscribers
        self._unbuilt = set()
        declared = [self._declare(subscriber) for subscriber in subscribers]
        members = plan_members(base, declared)
        for subscriber, item in zip(subscribers, declared, strict=True):
            own = tuple(m.group_instance_id for m in members if m.declared is item)
            planned: str | WorkerIds | None = own[0] if len(own) == 1 else None
            if len(own) > 1:  # FastStream builds them from one set of arguments
                planned = WorkerIds(own)
                if not _seam.has_handlers(subscriber):  # get_one()/async for: worker 1 alone
                    self._unbuilt.update(own[1:])
            _seam.connection_args(subscriber)["group_instance_id"] = planned
        self._members = {m.group_instance_id: m for m in members}
        log.info("%s", mapping_line(base, members))
        return members

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        self._fatal, self._stopping = None, None
        self._held.clear()
        members = self._plan()
        health = self._health_server
        if health is not None:
            for registered in health.consumers:
                health.unregister(registered)
            for member in members:
                if member.group_instance_id not in self._unbuilt:
                    health.register(_SubscriberHealth(self._consumers, member))
            await health.start()
        try:
            await super().start()
        except BaseException:
            if health is not None:
                await health.close()
            raise

    async def stop(
        self, exc_type: type[BaseException] | None = None, exc_val: BaseException | None = None,
        exc_tb: TracebackType | None = None,
    ) -> None:  # fmt: skip
        """FastStream's graceful stop (each StaticConsumer stops without LeaveGroup: its revoke
        listener runs, offsets are committed); then the health endpoint closes. After a fatal
        subscriber, raises its error: the application ends with a non-zero status."""
        try:
            await super().stop(exc_type, exc_val, exc_tb)
        finally:
            if self._health_server is not None:
                await self._health_server.close()
        if self._fatal is not None:  # its traceback was logged where it was raised
            raise self._fatal.with_traceback(None) from None

    # -- the consumers -------------------------------------------------------------------------

    def consumer_builder(self, options: Mapping[str, Any]) -> _seam.Builder:
        return functools.partial(self._build, dict(options))

    def _build(self, options: dict[str, Any], **kwargs: Any) -> ServiceConsumer:
        args = {**options, **kwargs}
        defaults = _faststream_defaults()
        for name in _DEFAULTED:
            if name in args and args[name] == defaults[name]:
                del args[name]
        consumer_protocol = self._static["group_protocol"] == "consumer"
        if self._strategy is not None:  # StaticConsumer refuses it with the consumer protocol
            args.setdefault("partition_assignment_strategy", self._strategy)
        iid = args.get("group_instance_id")
        worker = isinstance(iid, WorkerIds)
        if isinstance(iid, WorkerIds):
            iid = args["group_instance_id"] = self._take_worker(iid)
        static = dict(self._static)
        if consumer_protocol:
            takeover = self._takeover
            if takeover is None:
                takeover = iid is not None and InstanceId.is_statefulset_identity(self._base)
            static["instance_takeover"] = takeover
        consumer = ServiceConsumer(
            report=functools.partial(self._on_fatal, iid),
            start_wait_s=self._unreleased_wait_s if consumer_protocol and iid else None,
            handling_wait_s=_seam.graceful_timeout(self) if worker else None,
            on_stopped=functools.partial(self._held.discard, iid) if worker else None,
            **static, **args,
        )  # fmt: skip
        if iid is not None:
            self._consumers[iid] = consumer
        return consumer

    def _take_worker(self, ids: WorkerIds) -> str:
        """The first of a subscriber's worker ids that no running consumer holds."""
        for iid in ids:
            if iid not in self._held:
                self._held.add(iid)
                return iid
        raise StaticConsumerError(
            f"all {len(ids)} worker instance ids of a subscriber ({', '.join(ids)}) are held by "
            "running consumers: FastStream built more consumers than its max_workers"
        )

    # -- the fatal end ---------------------------------------------------------------------------

    def _on_fatal(self, group_instance_id: str | None, error: StaticConsumerError) -> None:
        """Once per start: one log line, then the FastStream app (or, without one, every
        subscriber) stops; :meth:`stop` raises ``error``."""
        if self._fatal is not None:
            return
        self._fatal = error
        log.critical("%s", self._fatal_line(group_instance_id, error))
        app = _seam.application(self)
        if app is not None:
            app.exit()
        elif self._stopping is None:
            self._stopping = asyncio.get_running_loop().create_task(self._stop_subscribers())

    async def _stop_subscribers(self) -> None:
        for subscriber in self.subscribers:
            await subscriber.stop()

    def _fatal_line(self, group_instance_id: str | None, error: StaticConsumerError) -> str:
        member = self._members.get(group_instance_id or "")
        who = (f"subscriber {member.label}, group.instance.id {group_instance_id}"
               if member is not None else f"group.instance.id {group_instance_id}")  # fmt: skip
        if isinstance(error, FencedInstanceIdError):
            holder = f" (now held by {error.holder})" if error.holder else ""
            what = (f"fenced (FENCED_INSTANCE_ID, KIP-345): another process took the id"
                    f"{holder}; check that no second pod runs with base id {self._base} (a "
                    "StatefulSet glitch, a copied manifest, one STATICCONSUMER_INSTANCE_ID/"
                    "POD_NAME for two pods)")  # fmt: skip
        elif isinstance(error, UnreleasedInstanceIdError):
            what = (f"refused (UNRELEASED_INSTANCE_ID, KIP-848): another member still holds "
                    f"the id; check for a second pod with base id {self._base}, or pass "
                    "instance_takeover=True if its previous process is gone")  # fmt: skip
        else:
            what = f"failed fatally: {error}"
        return f"{who} {what}; stopping the FastStream app (non-zero exit status)"
