"""``StaticKafkaBroker``: FastStream's ``KafkaBroker`` whose every subscriber consumer is a
:class:`~staticconsumer.StaticConsumer` (``docs/faststream.md``)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from faststream.kafka import KafkaBroker

from .. import HealthServer, InstanceId, Membership, MembershipState
from ..errors import (
    ConfigurationError,
    StaticConsumerError,
)
from ..events import MembershipEvent
from ..integrations import UNRELEASED_WAIT_MS, fatal_line, unreleased_wait_s
from ..options import AUTO, CONSUMER, REFUSED_BY_CONSUMER_PROTOCOL
from . import _seam
from ._consumer import ServiceConsumer, WorkerStop
from ._identities import Identities, Planned, WorkerIds
from ._ids import UNKNOWN_BASE, Member

log = logging.getLogger(__name__)

#: ``subscriber(...)`` options FastStream always passes (with its own defaults): left out when
#: they hold FastStream's default, so StaticConsumer's apply (its instance-id-first assignors;
#: under the consumer protocol, the coordinator's session and heartbeat).
_DEFAULTED = tuple(option.name for option in REFUSED_BY_CONSUMER_PROTOCOL)
#: StaticConsumer keywords the broker sets itself (refused in ``consumer_options``).
_OWNED = frozenset({
    "group_instance_id", "group_protocol", "group_remote_assignor", "instance_takeover",
    "on_fatal", "on_event", "health_port", "health_host", "partition_assignment_strategy",
})  # fmt: skip


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
      (``staticconsumer.faststream._ids`` and ``docs/faststream.md``: the scheme); a
      subscriber with ``max_workers=N`` one consumer per worker, ``<base>-<key>-<n>``. Ids and
      consumer options are checked when a subscriber is declared, when the broker connects
      (``TestKafkaBroker`` too) and at start.
    * ``group_protocol`` (Java ``group.protocol``, KIP-848: ``"classic"``, ``"consumer"`` or
      ``"auto"``, the consumer protocol where the broker offers it), ``group_remote_assignor``,
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
        wait_s = unreleased_wait_s(unreleased_wait_ms)
        super().__init__(bootstrap_servers, **kwargs)
        self._static: dict[str, Any] = {
            "group_protocol": group_protocol, "on_event": on_event, **(consumer_options or {}),
        }  # fmt: skip
        if group_protocol == CONSUMER:
            self._static["group_remote_assignor"] = group_remote_assignor
        elif group_remote_assignor is not None or instance_takeover:
            self._static["group_remote_assignor"] = group_remote_assignor  # StaticConsumer says
            self._static["instance_takeover"] = instance_takeover  # why, at start
        self._takeover = instance_takeover
        self._strategy = partition_assignment_strategy
        self._unreleased_wait_s = wait_s
        self._ids = Identities(instance_id)
        self._consumers: dict[str, ServiceConsumer] = {}
        self._fatal: StaticConsumerError | None = None
        self._stopping: asyncio.Task[None] | None = None
        #: Called once a fatal subscriber has been reported and the stop arranged (the FastAPI
        #: router's: ask the ASGI server to stop), and how the fatal line says what follows.
        self.after_fatal: Callable[[], None] | None = None
        self.fatal_ends = "stopping the FastStream app (non-zero exit status)"
        self._checks_on = True  # KafkaBroker's __init__ includes its routers= before this

    # -- identity ---------------------------------------------------------------------------

    @property
    def static_members(self) -> Mapping[str, str]:
        """``{group_instance_id: subscriber}`` of the last start (the mapping logged)."""
        return {iid: m.label for iid, m in self._ids.members.items()}

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        """The error that stopped the service, if one did."""
        return self._fatal

    @property
    def health_address(self) -> tuple[str, int] | None:
        return self._health_server.address if self._health_server is not None else None

    # -- checks: when declared, when connected (TestKafkaBroker too), at start -----------------

    if not TYPE_CHECKING:  # type checkers keep KafkaBroker's own signatures and overloads

        def subscriber(self, *args, **kwargs):
            subscriber = super().subscriber(*args, **kwargs)
            self._declared(subscriber)
            return subscriber

        def include_router(self, *args, **kwargs):
            super().include_router(*args, **kwargs)
            self._declared(None)

    def _declared(self, subscriber: Any) -> None:
        """A subscriber (None: a router's) was declared: checked now; on a running broker,
        planned now (its start builds its consumers from the planned ids)."""
        if not getattr(self, "_checks_on", False):
            return
        if self.running:
            self._register(self._plan(fresh=False, only=subscriber), fresh=False)
        else:
            self._check(self._ids.known_base(), only=subscriber)

    async def connect(self) -> Any:
        self._check(self._ids.known_base())  # before anything connects; TestKafkaBroker too
        return await super().connect()

    def _check(self, base: str | None, only: Any = None) -> list[Planned]:
        """The id scheme over every subscriber, and the options of each subscriber's consumers
        (of ``only``, when given) as StaticConsumer checks them when it is built."""
        planned = self._ids.check(self.subscribers, base)
        for item in planned:
            if only is None or item.subscriber is only:
                self._check_options(item)
        return planned

    def _check_options(self, item: Planned) -> None:
        iid = item.members[0].group_instance_id if item.members else None
        if iid is not None and iid.startswith(UNKNOWN_BASE):
            iid = "base-id"  # a valid id: what the options checks ask is whether there is one
        args = {**_seam.connection_args(item.subscriber), "group_id": item.declared.group_id,
                "group_instance_id": iid}  # fmt: skip
        ServiceConsumer.check_options(**self._consumer_kwargs(args))

    def _plan(self, *, fresh: bool, only: Any = None) -> tuple[Member, ...]:
        """The ids, checked on the base id, written into the subscribers' arguments."""
        base = self._ids.required_base(self.subscribers)
        return self._ids.plan(self._check(base, only), base, fresh=fresh)

    def _register(self, members: Sequence[Member], *, fresh: bool) -> None:
        """The consumers to be built, one row each on the health endpoint."""
        health = self._health_server
        if health is None:
            return
        if fresh:
            for registered in health.consumers:
                health.unregister(registered)
        known = {row.membership.group_instance_id for row in health.consumers}
        for member in members:
            iid = member.group_instance_id
            if iid not in self._ids.unbuilt and iid not in known:
                health.register(_SubscriberHealth(self._consumers, member))

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        self._fatal, self._stopping = None, None
        self._register(self._plan(fresh=True), fresh=True)
        health = self._health_server
        if health is not None:
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
        iid = args.get("group_instance_id")
        worker = None
        if isinstance(iid, WorkerIds):
            iid = args["group_instance_id"] = self._ids.take_worker(iid)
            worker = WorkerStop(_seam.graceful_timeout(self),
                                functools.partial(self._ids.release, iid))  # fmt: skip
        consumer_protocol = self._static["group_protocol"] == CONSUMER
        consumer = ServiceConsumer(
            report=functools.partial(self._on_fatal, iid),
            start_wait_s=self._unreleased_wait_s if consumer_protocol and iid else None,
            worker=worker, **self._consumer_kwargs(args),
        )  # fmt: skip
        if iid is not None:
            self._consumers[iid] = consumer
        return consumer

    def _consumer_kwargs(self, args: dict[str, Any]) -> dict[str, Any]:
        """StaticConsumer's keywords for a consumer FastStream builds with ``args``: FastStream's
        defaults left out (module docstring), the broker's own options added."""
        defaults = _faststream_defaults()
        args = {k: v for k, v in args.items() if k not in defaults or v != defaults[k]}
        if self._strategy is not None:  # StaticConsumer refuses it with the consumer protocol
            args.setdefault("partition_assignment_strategy", self._strategy)
        static = dict(self._static)
        if static["group_protocol"] in (CONSUMER, AUTO):  # AUTO: if the consumer one runs
            takeover = self._takeover
            if takeover is None:
                takeover = self._ids.is_pod_identity(args.get("group_instance_id"))
            static["instance_takeover"] = takeover
        return {**static, **args}

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
        if self.after_fatal is not None:
            self.after_fatal()

    async def _stop_subscribers(self) -> None:
        for subscriber in self.subscribers:
            await subscriber.stop()

    def _fatal_line(self, group_instance_id: str | None, error: StaticConsumerError) -> str:
        member = self._ids.members.get(group_instance_id or "")
        who = (f"subscriber {member.label}, group.instance.id {group_instance_id}"
               if member is not None else f"group.instance.id {group_instance_id}")  # fmt: skip
        base = self._ids.base if member is None or member.how != "given" else None
        twin = (f"a second pod with base id {base}" if base else
                f"a second process with group.instance.id {group_instance_id}")  # fmt: skip
        return fatal_line(
            who, error,
            fenced="fenced (FENCED_INSTANCE_ID, KIP-345): another process took the id"
            f"{{holder}}; check for {twin} (a StatefulSet glitch, a copied manifest, one "
            "STATICCONSUMER_INSTANCE_ID/POD_NAME for two pods)",
            unreleased="refused (UNRELEASED_INSTANCE_ID, KIP-848): another member still holds "
            f"the id; check for {twin}, or pass instance_takeover=True if its previous process "
            "is gone",
            ends=self.fatal_ends,
        )  # fmt: skip
