"""``StaticApp``: a ``faust.App`` whose worker consumer is a :class:`~staticconsumer.StaticConsumer`
(``docs/faust.md``).

faust runs its worker consumer in a thread of its own (``AIOKafkaConsumerThread``, its own event
loop). :class:`StaticThread` builds a StaticConsumer there instead of an ``AIOKafkaConsumer``,
with every faust setting faust would pass, our instance id, and :class:`TableAssignor` (faust's
assignment format, planned by instance id) when faust would use its own assignor; else
``roundrobin`` ordered by instance id. Fatal errors (FENCED_INSTANCE_ID; UNRELEASED_INSTANCE_ID
past its wait) log one line and crash the app, so the worker process exits with status 1.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from assignors import RoundRobinAssignor

from .. import InstanceId, StaticConsumer, integrations
from ..errors import (
    ConfigurationError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
)
from ..integrations import UNRELEASED_WAIT_MS, bounded_start, unreleased_wait_s
from ..options import (
    AUTO,
    CLASSIC,
    CONSUMER,
    STREAMS,
    check_group_protocol,
    left_to_the_coordinator,
)
from . import _seam
from ._assignor import TableAssignor
from ._seek_hold import SeekHold

log = logging.getLogger(__name__)


class StaticApp(_seam.App):
    """``faust.App`` whose workers are static group members (KIP-345). Every ``faust.App``
    argument and setting works; our own keywords:

    * ``instance_id``: this worker's ``group.instance.id``. Default: faust's
      ``consumer_group_instance_id`` setting, else ``InstanceId.from_env()`` (a StatefulSet pod
      name from ``$POD_NAME``/``$HOSTNAME``, or ``$STATICCONSUMER_INSTANCE_ID``), read when the
      worker starts; validated, and logged once.
    * ``group_protocol`` (Java ``group.protocol``, KIP-848): ``"classic"`` (default),
      ``"auto"`` (the consumer protocol where the broker offers it and faust's settings allow
      it: an app with tables, or with ``broker_session_timeout``/``broker_heartbeat_interval``
      set, runs the classic one; the choice is logged) or
      ``"consumer"``; with ``"consumer"`` the broker assigns partitions, so an app with tables
      (faust's actives and standbys are assigned by the client) is refused.
    * ``consumer_options``: other StaticConsumer keywords (``on_event``, ``health_port``,
      ``instance_takeover``...). Under ``"consumer"``, ``instance_takeover`` defaults to on when
      the id is this pod's StatefulSet name (as ``StaticKafkaBroker``'s).
    * ``unreleased_wait_ms``: under ``"consumer"``, how long the worker's start may wait for an
      instance id another member still holds (UNRELEASED_INSTANCE_ID, KIP-848) before the
      worker stops as on a fence (default 60 000).
    """

    def __init__(
        self,
        id: str,
        *,
        instance_id: str | None = None,
        group_protocol: str = CLASSIC,
        consumer_options: dict[str, Any] | None = None,
        unreleased_wait_ms: int = UNRELEASED_WAIT_MS,
        **options: Any,
    ) -> None:
        _seam.check_version()
        wait_s = unreleased_wait_s(unreleased_wait_ms)
        if instance_id is not None:
            InstanceId.validate(instance_id, field="StaticApp(instance_id=...)")
        check_group_protocol(group_protocol)
        if group_protocol == STREAMS:
            raise ConfigurationError(
                "StaticApp(group_protocol='streams'): a faust worker is a consumer-group member; "
                "group_protocol (Java: group.protocol) must be 'classic', 'consumer' (KIP-848) or "
                "'auto' here (a streams group, KIP-1071, takes a StaticConsumer with "
                "streams_topology: docs/streams-groups.md)"
            )
        owned = sorted(set(consumer_options or {}) & _OWNED)
        if owned:
            raise ConfigurationError(
                f"consumer_options may not set {', '.join(owned)}: StaticApp sets them"
            )
        super().__init__(id, **options)
        configured = _seam.configured_instance_id(self)
        if configured is not None:
            InstanceId.validate(configured, field="faust setting consumer_group_instance_id")
        self._given_instance_id = instance_id
        self._group_protocol = group_protocol
        self._consumer_options = dict(consumer_options or {})
        self._unreleased_wait_s = wait_s
        self._static_id: str | None = None
        self._fatal: StaticConsumerError | None = None

    @property
    def static_instance_id(self) -> str:
        """This worker's ``group.instance.id``, fixed (and logged) the first time it is read."""
        if self._static_id is None:
            given, source = self._given_instance_id, "StaticApp(instance_id=...)"
            if given is None:
                given, source = _seam.configured_instance_id(self), "consumer_group_instance_id"
            if given is None:
                given, source = InstanceId.from_env(), "the environment"
            self._static_id = InstanceId.validate(given, field=source)
            log.info("faust app %s: this worker is static member group.instance.id %s (from "
                     "%s)", self.conf.id, self._static_id, source)  # fmt: skip
        return self._static_id

    @property
    def fatal_error(self) -> StaticConsumerError | None:
        """The error that stopped the worker, if one did."""
        return self._fatal

    def _new_transport(self) -> Any:
        return StaticTransport(self.conf.broker_consumer, self)

    # -- the consumer thread calls these -----------------------------------------------------

    def static_consumer(
        self, options: dict[str, Any], *,
        on_fatal: Callable[[StaticConsumerError], None] | None = None,
    ) -> StaticConsumer:  # fmt: skip
        """The worker's consumer (in the consumer thread, with faust's options); ``on_fatal``
        runs first when it turns fatal, then :meth:`report_fatal`."""
        instance_id = self.static_instance_id
        tables = _seam.uses_table_assignor(self)
        protocol = self._group_protocol
        if protocol == AUTO and tables:  # the tables' assignment travels in user data
            protocol = CLASSIC
            log.info("faust app %s: group_protocol='auto' runs the classic protocol: faust's "
                     "tables and standbys are planned by the client", self.conf.id)  # fmt: skip
        static: dict[str, Any] = {"group_protocol": protocol, **self._consumer_options}
        if protocol == CONSUMER:
            if tables:
                raise ConfigurationError(_NO_TABLES_ON_CONSUMER_PROTOCOL.format(app=self.conf.id))
            for name in left_to_the_coordinator():  # the coordinator's, under KIP-848
                options.pop(name, None)
        elif protocol == AUTO:  # faust's settings at faust's defaults leave the choice open
            for name in _seam.settings_at_faust_defaults(self, left_to_the_coordinator()):
                options.pop(name, None)
        else:
            static["partition_assignment_strategy"] = [
                TableAssignor(self, instance_id) if tables
                else RoundRobinAssignor.for_instance(instance_id)
            ]  # fmt: skip

        def fatal(error: StaticConsumerError) -> None:
            if on_fatal is not None:
                on_fatal(error)
            self.report_fatal(error)

        return StaticConsumer(group_instance_id=instance_id, on_fatal=fatal, **static,
                              **options)  # fmt: skip

    @property
    def start_wait_s(self) -> float | None:
        """How long the worker consumer's start may take (None: no bound, the classic
        protocol's)."""
        return self._unreleased_wait_s if self._group_protocol == CONSUMER else None

    def report_fatal(self, error: StaticConsumerError) -> None:
        """Once: one log line, then the app crashes (the worker exits with status 1)."""
        if self._fatal is not None:
            return
        self._fatal = error
        log.critical("%s", fatal_line(self.conf.id, self._static_id, error))
        asyncio.run_coroutine_threadsafe(self.crash(error), self.loop)


_OWNED = frozenset({"group_instance_id", "on_fatal", "partition_assignment_strategy",
                    "group_protocol"})  # fmt: skip

_NO_TABLES_ON_CONSUMER_PROTOCOL = (
    "faust app {app}: group_protocol='consumer' (KIP-848) has the broker assign partitions, "
    "so faust's table assignment (actives and standby replicas, planned by the client and "
    "carried in the assignment's user data) cannot run: an app with tables or "
    "table_standby_replicas > 0 needs group_protocol='classic'. Without tables the consumer "
    "protocol works: actives from the broker, fencing of a duplicated worker (docs/faust.md)"
)


def fatal_line(app_id: str, instance_id: str | None, error: StaticConsumerError) -> str:
    """The one line a fatal worker logs: its id, what happened, what to check."""
    return integrations.fatal_line(
        f"faust worker of app {app_id} (group.instance.id {instance_id})", error,
        fenced="was fenced (FENCED_INSTANCE_ID, KIP-345): another worker took its id{holder}; "
        "check that no second worker runs with this id (a copied manifest, a StatefulSet "
        "glitch, one POD_NAME or consumer_group_instance_id for two)",
        unreleased="was refused its id (UNRELEASED_INSTANCE_ID, KIP-848): another member still "
        "holds it; check for a second worker with this id",
        ends="the worker stops (exit status 1)",
    )  # fmt: skip


class StaticThread(_seam.ConsumerThread):
    """faust's consumer thread, with a StaticConsumer as the worker consumer. A call into the
    thread (a commit, a fetch, a seek) ends at once when the thread can no longer answer it:
    the consumer turned fatal, or the thread ended (issue 52)."""

    _calls_end: asyncio.Future[None] | None = None  # done: no call will be answered

    async def call_thread(self, fun: Any, *args: Any, **kwargs: Any) -> Any:
        """mode's call into the consumer thread (its method queue answers a future of this
        loop), raced with the thread's end. mode's own waits for that future alone, and the
        method queue stops before the fenced consumer does: a call made then (the app's stop
        commits what its agents handled) was never answered, and the worker hung, neither
        working nor exiting."""
        ended = self._calls_ended()
        if ended.done():
            raise self._why_ended()
        try:
            promise = await _seam.queue_call(self, fun, *args, **kwargs)
        except RuntimeError as exc:  # the thread's loop is closed
            raise self._why_ended() from exc
        try:
            await asyncio.wait((promise, ended), return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not promise.done():
                promise.cancel()  # the method queue skips a cancelled call
        if promise.cancelled():  # the thread ended first
            raise self._why_ended()
        return promise.result()

    def _calls_ended(self) -> asyncio.Future[None]:
        if self._calls_end is None:
            self._calls_end = self.parent_loop.create_future()
        return self._calls_end

    def _why_ended(self) -> BaseException:
        """The consumer's fatal error, else the consumer stopped (faust's fetch ends on it)."""
        app = self.app
        fatal = app.fatal_error if isinstance(app, StaticApp) else None
        return fatal if fatal is not None else _seam.ConsumerStoppedError()

    def _end_calls(self) -> None:
        """In the app's loop: every call waiting on the thread, and every later one, ends."""
        ended = self._calls_ended()
        if not ended.done():
            ended.set_result(None)

    def _on_consumer_fatal(self, error: StaticConsumerError) -> None:
        """The consumer turned fatal (in the thread): end every call waiting on it."""
        self.parent_loop.call_soon_threadsafe(self._end_calls)

    def set_shutdown(self) -> None:
        """mode's: the thread has ended (stopped, or crashed); no call will be answered."""
        super().set_shutdown()
        self.parent_loop.call_soon_threadsafe(self._end_calls)

    async def on_start(self) -> None:
        """faust's start (the consumer made and started); under the consumer protocol bounded
        by ``unreleased_wait_ms``: an instance id still held elsewhere past it is fatal."""
        app = self.app
        assert isinstance(app, StaticApp)  # StaticTransport is made by StaticApp alone

        def unreleased() -> StaticConsumerError:
            error = UnreleasedInstanceIdError(
                f"no assignment {app.start_wait_s:g} s after start: the coordinator still "
                f"gives group.instance.id {app.static_instance_id} to another member "
                "(UNRELEASED_INSTANCE_ID, KIP-848)", group_id=app.conf.id,
            )  # fmt: skip
            app.report_fatal(error)
            return error

        await bounded_start(super().on_start(), app.start_wait_s, unreleased)

    def _create_worker_consumer(self, transport: Any) -> StaticConsumer:
        options = _seam.consumer_options(self, transport)
        app = self.app
        assert isinstance(app, StaticApp)  # StaticTransport is made by StaticApp alone
        return app.static_consumer(options, on_fatal=self._on_consumer_fatal)

    async def _fetch_records(  # faust's signature (its timeout is the fetch's)
        self,
        consumer: Any,
        active_partitions: Any,
        timeout: Any = None,  # noqa: ASYNC109
        max_records: Any = None,
    ) -> Any:
        """faust's fetch reads the fetcher directly: check the consumer's errors first, as
        ``getmany`` does (the fatal error; an error the consumer holds for the application,
        such as an ``on_assignment`` that raised), and raise the fatal error when the consumer
        woke the fetch for it."""
        if consumer.fatal_error is not None:
            raise consumer.fatal_error
        _seam.check_errors(consumer)
        try:
            return await super()._fetch_records(consumer, active_partitions, timeout=timeout,
                                                max_records=max_records)  # fmt: skip
        except Exception:
            if consumer.fatal_error is not None:  # the consumer woke the fetch for it
                raise consumer.fatal_error from None
            raise


class StaticFaustConsumer(_seam.Consumer):
    """faust's consumer, which hands no record to the agents twice around a stop or a
    rebalance (``docs/faust.md``, "Commits and rebalances")."""

    _commit_turn: asyncio.Lock | None = None
    _commits: set[asyncio.Future[bool]] | None = None  # running (force_commit)
    _hold: SeekHold | None = None  # the stream partitions' hold around an assignment

    @property
    def seek_hold(self) -> SeekHold:
        if self._hold is None:
            self._hold = SeekHold()
        return self._hold

    def _new_consumer_thread(self) -> StaticThread:
        return StaticThread(self, loop=self.loop, beacon=self.beacon)

    async def on_partitions_revoked(self, revoked: set[Any]) -> None:
        """faust's forgets the revoked partitions' acknowledged offsets first, then its app's
        handler stops the streams and commits, so what the agents handled since the last
        commit was handled again after every rebalance (an eager one revokes everything), by
        this worker or the partition's next. Stop the streams and commit before, as that
        handler does (its own steps, so it finds nothing more to do)."""
        assignment = self.assignment()
        if assignment and not self.app.should_stop:
            self.stop_flow()
            self.app.flow_control.suspend()
            self.pause_partitions(assignment)
            self.app.flow_control.clear()
            await (self.wait_empty() if self.app.conf.stream_wait_empty else self.commit())
        await super().on_partitions_revoked(revoked)

    async def on_partitions_assigned(self, assigned: set[Any], generation_id: int = 0) -> None:
        """faust's; its recovery then resumes the stream partitions and seeks them to their
        committed offsets (:meth:`resume_partitions`, :meth:`perform_seek`)."""
        self.seek_hold.assigned()
        await super().on_partitions_assigned(assigned, generation_id)

    def resume_partitions(self, tps: Any) -> None:
        """faust's resume, less the stream partitions held until the assignment's seek
        (``_seek_hold.py``)."""
        now = self.seek_hold.resume(set(tps), _seam.changelog_topics(self.app))
        super().resume_partitions(now)

    async def perform_seek(self) -> None:
        """faust's seek of the stream partitions to their committed offsets; then those held
        resume, once no seek is under way (``_seek_hold.py``)."""
        hold = self.seek_hold
        hold.seek_started()
        try:
            await super().perform_seek()
        finally:
            released = hold.seek_ended(set(self.assignment()))
            if released is not None:
                super().resume_partitions(released)

    async def _getmany(self, active_partitions: Any, timeout: float) -> Any:  # noqa: ASYNC109 (faust's)
        """faust's fetch (the consumer thread's ``getmany``). A fetch still waiting when a
        seek moved the positions may return records from before it, and the streams would
        get them again from the offset sought: drop them, and seek each of those partitions
        to where its stream goes on from (the offset sought, or the first record dropped if
        that is past it)."""
        seeks = self.seek_hold.seeks
        records = await super()._getmany(active_partitions, timeout)
        if not self.seek_hold.moved_since(seeks) or not records:
            return records
        read = _seam.read_offsets(self)
        for tp, batch in records.items():
            if batch:
                first = min(record.offset for record in batch)
                await self.seek(tp, max(first, read.get(tp) or 0))
        return {}

    async def commit(self, topics: Any = None, start_new_transaction: bool = True) -> bool:
        """faust's ``commit()`` returns without committing when another commit is in flight,
        so what was acknowledged after that one took its offsets stayed uncommitted when a
        revocation or the stop committed (both call it while the fetch loop's or the periodic
        commit runs), and the next holder handled those records again. Ours waits its turn,
        then commits them."""
        if self.app.client_only:  # as faust's: a client-only app has no group to commit to
            return False
        return await self.force_commit(topics, start_new_transaction=start_new_transaction)

    async def force_commit(self, topics: Any = None, start_new_transaction: bool = True) -> bool:
        """faust's commit, in turn with the others and run to its end once started. faust
        takes the acknowledged offsets off its list before it flushes the producer and
        commits; its fetch loop commits every ``broker_commit_every`` records, and stopping
        the fetcher (a SIGTERM) cancels that loop: a commit cancelled there lost the offsets
        it had taken, and later commits skipped them. Shielded, the commit lands; in turn, an
        older one never lands after a newer."""
        commit = asyncio.ensure_future(self._commit_in_turn(topics, start_new_transaction))
        running = self._commits_running()
        running.add(commit)  # owned: the stop waits for it (wait_commits)
        commit.add_done_callback(running.discard)
        return await asyncio.shield(commit)

    def _commits_running(self) -> set[asyncio.Future[bool]]:
        if self._commits is None:
            self._commits = set()
        return self._commits

    async def wait_commits(self) -> None:
        """Until every commit started has ended. A commit whose caller was cancelled (a
        SIGTERM stops faust's fetch loop) runs on, shielded: the consumer's stop waits for it
        here, so it belongs to the consumer's lifetime, and its error, if any, is taken."""
        running = tuple(self._commits_running())
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    async def on_stop(self) -> None:
        """faust's stop (the last commits of what was handled), then every commit still
        running (:meth:`wait_commits`), before the consumer thread stops."""
        await super().on_stop()
        await self.wait_commits()

    async def _commit_in_turn(self, topics: Any, start_new_transaction: bool) -> bool:
        if self._commit_turn is None:
            self._commit_turn = asyncio.Lock()
        async with self._commit_turn:
            return bool(await super().force_commit(
                topics, start_new_transaction=start_new_transaction))  # fmt: skip


class StaticTransport(_seam.Transport):
    Consumer = StaticFaustConsumer
