"""``StaticApp`` without a broker: the instance id, the options, faust's assignment planned by
instance id and handed to faust's tables, and the fatal error on faust's fetch path."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

import faust
import pytest
from faust.types import TP, Message

from assignors import Member, RoundRobinAssignor, assign_tables
from staticconsumer import StaticConsumer
from staticconsumer.errors import (
    ConfigurationError,
    FencedInstanceIdError,
    InvalidInstanceIdError,
    UnreleasedInstanceIdError,
)
from staticconsumer.faust import StaticApp, TableAssignor, _seam
from staticconsumer.faust._app import StaticThread, fatal_line
from staticconsumer.faust._assignor import KEY, newest_roster


def _app(url: str = "http://w0:6066", *, table: bool = True, **kwargs: Any) -> StaticApp:
    app = StaticApp("orders", broker="kafka://host-a:9092", store="memory://",
                    canonical_url=url, **kwargs)  # fmt: skip
    app.topic("orders", partitions=6)
    if table:
        app.Table("counts", default=int, partitions=6)
    return app


# -- the instance id ---------------------------------------------------------------------------


def test_the_instance_id_comes_from_the_argument_then_faust_then_the_environment(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("STATICCONSUMER_INSTANCE_ID", "from-env")
    caplog.set_level(logging.INFO, "staticconsumer.faust")
    assert _app(instance_id="given").static_instance_id == "given"
    assert _app(consumer_group_instance_id="setting").static_instance_id == "setting"
    app = _app()
    assert app.static_instance_id == "from-env" and app.static_instance_id == "from-env"
    lines = [r.getMessage() for r in caplog.records if "static member" in r.getMessage()]
    assert lines[-1] == ("faust app orders: this worker is static member group.instance.id "
                         "from-env (from the environment)")  # fmt: skip
    assert len(lines) == 3  # once per app


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"instance_id": "a b"}, InvalidInstanceIdError, r"StaticApp\(instance_id=...\)"),
        ({"consumer_group_instance_id": "a/b"}, InvalidInstanceIdError,
         "faust setting consumer_group_instance_id"),
        ({"group_protocol": "streams"}, ConfigurationError, "group_protocol"),
        ({"consumer_options": {"on_fatal": print}}, ConfigurationError,
         "consumer_options may not set on_fatal"),
    ],
)  # fmt: skip
def test_bad_options_are_refused_when_the_app_is_made(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        _app(**kwargs)


def test_no_id_anywhere_is_refused_when_the_worker_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)
    app = _app()
    with pytest.raises(InvalidInstanceIdError, match="no group instance id in the environment"):
        app.static_consumer({"group_id": "orders"})


# -- the consumer -------------------------------------------------------------------------------


async def test_the_worker_consumer_is_a_static_consumer_with_the_table_assignor() -> None:
    app = _app(instance_id="w-0")
    consumer = app.static_consumer({"group_id": "orders", "bootstrap_servers": "host-a:9092"})
    assert isinstance(consumer, StaticConsumer)
    assert consumer.group_instance_id == "w-0"
    (assignor,) = consumer._options.partition_assignment_strategy
    assert isinstance(assignor, TableAssignor) and assignor.group_instance_id == "w-0"
    bare = _app(instance_id="w-0", table=False, table_standby_replicas=0)
    (plain,) = bare.static_consumer({"group_id": "o"})._options.partition_assignment_strategy
    assert isinstance(plain, RoundRobinAssignor) and plain.group_instance_id == "w-0"


async def test_the_consumer_protocol_refuses_tables_and_takes_an_app_without() -> None:
    with pytest.raises(ConfigurationError, match="faust's table assignment"):
        _app(instance_id="w-0", group_protocol="consumer").static_consumer({"group_id": "o"})
    app = _app(instance_id="w-0", table=False, table_standby_replicas=0, group_protocol="consumer")
    consumer = app.static_consumer({"group_id": "o", "session_timeout_ms": 60000})
    assert consumer._options.group_protocol == "consumer"


# -- faust's assignment ---------------------------------------------------------------------


def _members(apps: dict[str, StaticApp], assignors: dict[str, TableAssignor],
             topics: tuple[str, ...]) -> list[Member]:  # fmt: skip
    return [Member(f"{iid}-{id(app)}", iid, topics,
                   user_data=assignors[iid].subscription_user_data(topics, (), -1))
            for iid, app in apps.items()]  # fmt: skip


def test_faust_tables_get_the_plan_by_instance_id_and_the_roster_comes_back() -> None:
    apps = {f"w-{n}": _app(f"http://w{n}:6066", instance_id=f"w-{n}") for n in range(3)}
    assignors = {iid: TableAssignor(app, iid) for iid, app in apps.items()}
    changelog = "orders-counts-changelog"
    topics = ("orders", changelog)
    members = _members(apps, assignors, topics)
    plan = assignors["w-0"].assign_group(members, {"orders": 6, changelog: 6})
    want = assign_tables(members, {"orders": 6, changelog: 6}, standby_replicas=1)
    for member in members:
        iid = member.group_instance_id
        assert iid is not None
        assignors[iid].on_assignment(plan[member.member_id], 1)
        faust_assignor = apps[iid].assignor
        actives = {(tp.topic, tp.partition) for tp in faust_assignor.assigned_actives()}
        standbys = {(tp.topic, tp.partition) for tp in faust_assignor.assigned_standbys()}
        assert actives == {(t, p) for t, ps in want.actives[member.member_id].items() for p in ps}
        assert standbys == {(t, p) for t, ps in want.standbys[member.member_id].items()
                            for p in ps}  # fmt: skip
        assert set(plan[member.member_id].partitions) == (
            actives | {tp for tp in standbys if tp[0] == changelog}
        )  # consumed: faust's rule
        assert assignors[iid].roster == ("w-0", "w-1", "w-2")
    # A new leader, members restarted (new member ids): the roster they send back wins.
    again = [Member(f"{m.group_instance_id}-new", m.group_instance_id, topics,
                    user_data=assignors[str(m.group_instance_id)].subscription_user_data(
                        topics, (), -1)) for m in reversed(members)]  # fmt: skip
    replan = assignors["w-2"].assign_group(again, {"orders": 6, changelog: 6})
    assert {m.group_instance_id: replan[m.member_id].partitions for m in again} == {
        m.group_instance_id: plan[m.member_id].partitions for m in members
    }


def test_a_stored_assignment_naming_another_url_is_taken_with_ours(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A restarted static member gets its previous process's stored assignment (no
    rebalance): faust would assert on the URL it names; the worker takes it, and says so."""
    old = _app("http://old:6066", instance_id="w-0")
    assignor = TableAssignor(old, "w-0")
    topics = ("orders", "orders-counts-changelog")
    member = Member(
        "w-0-a", "w-0", topics, user_data=assignor.subscription_user_data(topics, (), -1)
    )
    stored = assignor.assign_group([member], {"orders": 2, "orders-counts-changelog": 2})
    new = _app("http://new:6066", instance_id="w-0")
    TableAssignor(new, "w-0").on_assignment(stored["w-0-a"], 3)
    assert {tp.partition for tp in new.assignor.assigned_actives()} == {0, 1}
    assert "took an assignment planned for http://old:6066" in caplog.text


def test_a_global_tables_changelog_is_active_on_every_worker() -> None:
    apps = {f"w-{n}": _app(f"http://w{n}:6066", instance_id=f"w-{n}") for n in range(2)}
    for app in apps.values():
        app.GlobalTable("rates", default=int, partitions=4)
    assignors = {iid: TableAssignor(app, iid) for iid, app in apps.items()}
    rates = "orders-rates-changelog"
    topics = ("orders", "orders-counts-changelog", rates)
    members = _members(apps, assignors, topics)
    counts = {"orders": 6, "orders-counts-changelog": 6, rates: 4}
    plan = assignors["w-0"].assign_group(members, counts)
    planned = assign_tables(members, counts, standby_replicas=1)
    for member in members:
        assignors[str(member.group_instance_id)].on_assignment(plan[member.member_id], 1)
        faust_assignor = apps[str(member.group_instance_id)].assignor
        actives = {tp.partition for tp in faust_assignor.assigned_actives() if tp.topic == rates}
        standbys = {tp.partition for tp in faust_assignor.assigned_standbys() if tp.topic == rates}
        assert actives == {0, 1, 2, 3}  # recovered in full on every worker, as faust does
        assert standbys == {0, 1, 2, 3} - set(planned.actives[member.member_id][rates])


def test_the_newest_roster_wins() -> None:
    assert newest_roster([]) == ((), 0)
    assert newest_roster([{"roster": ["a"], "version": 2}, {"roster": ["b", "a"], "version": 3},
                          {}]) == (("b", "a"), 3)  # fmt: skip
    assert newest_roster([{"roster": ["b"], "version": 1}, {"roster": ["a"], "version": 1}]) == (
        ("a",),
        1,
    )
    assert KEY == "staticconsumer"


# -- fatal ------------------------------------------------------------------------------------


class _Fetcher:
    _closed = False

    def __init__(self, error: Exception | None) -> None:
        self.error = error
        self._subscriptions = self

    def fetch_context(self) -> Any:
        import contextlib

        return contextlib.nullcontext()

    async def fetched_records(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        if self.error is not None:
            raise self.error
        return {}


class _Consumer:
    _closed = False

    def __init__(self, fatal: Exception | None, raises: Exception | None = None) -> None:
        self.fatal_error = fatal
        self._fetcher = _Fetcher(raises)
        self.pending: Exception | None = None

    def check_errors(self) -> None:
        error, self.pending = self.pending, None
        if error is not None:
            raise error


async def test_faust_fetch_path_raises_the_fatal_error() -> None:
    app = _app(instance_id="w-0")
    thread = app.consumer._thread
    assert isinstance(thread, StaticThread)
    app.consumer.flow_active = True
    fenced = FencedInstanceIdError("fenced", group_id="orders", group_instance_id="w-0",
                                   member_id="m", api="Heartbeat")  # fmt: skip
    with pytest.raises(FencedInstanceIdError):
        await thread._fetch_records(_Consumer(fenced), set(), timeout=0.1)
    woken = _Consumer(None, raises=RuntimeError("woken"))
    with pytest.raises(RuntimeError, match="woken"):  # not fatal: faust's own error
        await thread._fetch_records(woken, set(), timeout=0.1)
    woken.fatal_error = fenced  # the consumer woke the fetch for its fatal error
    with pytest.raises(FencedInstanceIdError):
        await thread._fetch_records(woken, set(), timeout=0.1)
    assert await thread._fetch_records(_Consumer(None), set(), timeout=0.1) == {}
    held = _Consumer(None)
    held.pending = ValueError("on_assignment raised")  # held for the application's next poll
    with pytest.raises(ValueError, match="on_assignment raised"):
        await thread._fetch_records(held, set(), timeout=0.1)
    assert await thread._fetch_records(held, set(), timeout=0.1) == {}  # raised once


def test_the_fatal_line_names_the_id_and_what_to_check() -> None:
    fenced = FencedInstanceIdError("x", group_id="g", group_instance_id="w-1", member_id="m",
                                   api="Heartbeat")  # fmt: skip
    fenced.holder = "member w-1-abc"
    line = fatal_line("orders", "w-1", fenced)
    assert line.startswith("faust worker of app orders (group.instance.id w-1) was fenced")
    assert "now held by member w-1-abc" in line and "no second worker runs with this id" in line
    assert line.endswith("the worker stops (exit status 1)")
    unreleased = fatal_line("orders", "w-1", UnreleasedInstanceIdError("x", group_id="g"))
    assert "UNRELEASED_INSTANCE_ID" in unreleased


async def test_an_id_still_held_past_the_wait_stops_the_worker_under_the_consumer_protocol(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = _app(instance_id="w-0", table=False, table_standby_replicas=0,
               group_protocol="consumer", unreleased_wait_ms=50)  # fmt: skip
    crashed: list[BaseException] = []

    async def crash(reason: BaseException) -> None:
        crashed.append(reason)

    async def never_assigned(self: Any) -> None:  # start() waiting for the held id
        await asyncio.sleep(30)

    monkeypatch.setattr(app, "crash", crash)
    monkeypatch.setattr(_seam.ConsumerThread, "on_start", never_assigned)
    thread = app.consumer._thread
    with pytest.raises(UnreleasedInstanceIdError, match=r"still gives group\.instance\.id w-0"):
        await thread.on_start()
    await asyncio.sleep(0.05)
    assert crashed == [app.fatal_error] and isinstance(app.fatal_error, UnreleasedInstanceIdError)
    assert (
        next(r for r in caplog.records if r.levelname == "CRITICAL")
        .getMessage()
        .startswith("faust worker of app orders (group.instance.id w-0) was refused its id")
    )
    classic = _app(instance_id="w-0")
    assert classic.start_wait_s is None and app.start_wait_s == 0.05


def test_the_unreleased_wait_is_checked() -> None:
    with pytest.raises(ConfigurationError, match="unreleased_wait_ms"):
        _app(unreleased_wait_ms=0)


# -- commits ----------------------------------------------------------------------------------


async def _commits_while_one_is_in_flight(
    app: Any, monkeypatch: pytest.MonkeyPatch, *, cancelled: bool
) -> list[dict[int, int]]:
    """What reaches the consumer when a commit is made while another waits for the producer's
    flush: offsets 0..40 committed before; the fetch loop's commit (faust's loop commits every
    ``broker_commit_every`` records) takes 41..43, and is ``cancelled`` or not (a SIGTERM
    stops the fetcher, which cancels that loop); 44..46 handled meanwhile; then a revocation's
    or the stop's commit."""
    consumer = app.consumer
    tp = TP("orders", 0)
    committed: list[dict[int, int]] = []
    flushing, release = asyncio.Event(), asyncio.Event()

    async def flush() -> None:  # the producer's flush before a commit, held
        flushing.set()
        await release.wait()

    async def commit(offsets: dict[Any, int]) -> bool:  # what reaches the consumer
        committed.append({t.partition: o for t, o in offsets.items()})
        return True

    def ack(offsets: range) -> None:  # the agent handled these records
        for offset in offsets:
            consumer.ack(Message("orders", 0, offset, 0.0, 0, None, b"k", b"v", None, tp=tp))

    monkeypatch.setattr(app.topics, "acks_enabled_for", lambda topic: True)
    monkeypatch.setattr(consumer, "assignment", lambda: {tp})
    monkeypatch.setattr(consumer, "_commit", commit)
    ack(range(41))
    assert await consumer.commit()
    monkeypatch.setattr(app.producer, "flush", flush)
    ack(range(41, 44))
    fetch_loops = asyncio.ensure_future(consumer.commit())
    await flushing.wait()
    if cancelled:
        fetch_loops.cancel()
        with pytest.raises(asyncio.CancelledError):
            await fetch_loops
    ack(range(44, 47))
    last = asyncio.ensure_future(consumer.commit())  # a revocation's, or the stop's
    await asyncio.sleep(0)
    release.set()
    await last
    if not cancelled:
        await fetch_loops
    return committed


@pytest.mark.parametrize(("cancelled", "committed"), [(False, [{0: 41}, {0: 44}]),
                                                      (True, [{0: 41}])])  # fmt: skip
async def test_plain_faust_loses_commits_made_while_one_is_in_flight(
    monkeypatch: pytest.MonkeyPatch, cancelled: bool, committed: list[dict[int, int]]
) -> None:
    """The facts behind StaticFaustConsumer's commits: the last commit waits for the one in
    flight and commits nothing, so 44..46 stay uncommitted; a cancelled commit had taken
    41..43 off faust's list, and every later commit skips them (a gap after the committed
    41). The next holder handles those records again."""
    app = faust.App("orders", broker="kafka://host-a:9092", store="memory://")
    app.topic("orders", partitions=6)
    assert await _commits_while_one_is_in_flight(app, monkeypatch, cancelled=cancelled) == (
        committed)  # fmt: skip


@pytest.mark.parametrize("cancelled", [False, True])
async def test_every_commit_waits_its_turn_and_runs_to_its_end(
    monkeypatch: pytest.MonkeyPatch, cancelled: bool
) -> None:
    """StaticApp's consumer: 44 lands (cancelled or not), then the last commit's 47, in that
    order. Without it the rolling restart handled the record its SIGTERM interrupted twice,
    and a scale-up the records handled while the newcomer joined."""
    app = _app(instance_id="w-0")
    assert await _commits_while_one_is_in_flight(app, monkeypatch, cancelled=cancelled) == [
        {0: 41}, {0: 44}, {0: 47}]  # fmt: skip


async def _commits_at_a_revocation(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What reaches the consumer when a rebalance revokes a partition whose records 0..9 the
    agent handled since the last commit (an eager rebalance revokes every partition, kept
    ones too)."""
    consumer, tp = app.consumer, TP("orders", 0)
    committed: list[dict[int, int]] = []

    async def commit(offsets: dict[Any, int]) -> bool:
        committed.append({t.partition: o for t, o in offsets.items()})
        return True

    monkeypatch.setattr(app.topics, "acks_enabled_for", lambda topic: True)
    monkeypatch.setattr(consumer, "assignment", lambda: {tp})
    monkeypatch.setattr(consumer, "_commit", commit)
    for offset in range(10):
        consumer.ack(Message("orders", 0, offset, 0.0, 0, None, b"k", b"v", None, tp=tp))
    await consumer.on_partitions_revoked({tp})  # faust's, then its app's handler
    return committed


async def test_plain_faust_forgets_what_was_handled_when_a_partition_is_revoked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """faust's consumer drops the revoked partitions' acknowledged offsets before its app's
    handler commits: the next holder handles records 0..9 again."""
    app = faust.App("orders", broker="kafka://host-a:9092", store="memory://")
    app.topic("orders", partitions=6)
    assert await _commits_at_a_revocation(app, monkeypatch) == []


async def test_a_revocation_commits_what_was_handled(monkeypatch: pytest.MonkeyPatch) -> None:
    app = _app(instance_id="w-0")
    assert await _commits_at_a_revocation(app, monkeypatch) == [{0: 10}]


async def test_stream_partitions_resume_after_the_seek_that_follows_an_assignment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """faust's recovery resumes the stream partitions, then seeks them to their committed
    offsets (test_seam.py); records handed to the streams in between were handed again after
    the seek. A stream partition stays paused until the seek; a changelog one resumes."""
    app = _app(instance_id="w-0")
    consumer = app.consumer
    orders, changelog = TP("orders", 0), TP("orders-counts-changelog", 0)
    assert changelog.topic in _seam.changelog_topics(app)

    async def handled(*args: Any) -> None:  # the app's own handler: recovery, tables...
        consumer.pause_partitions({orders, changelog})

    async def seek_to_committed() -> dict[Any, int]:
        assert orders not in consumer._get_active_partitions()  # not fetched before the seek
        return {orders: 7}

    monkeypatch.setattr(consumer, "_on_partitions_assigned", handled)
    monkeypatch.setattr(consumer, "assignment", lambda: {orders, changelog})
    monkeypatch.setattr(consumer, "seek_to_committed", seek_to_committed)
    await consumer.on_partitions_assigned({orders, changelog}, 3)
    consumer.resume_partitions({orders, changelog})  # what recovery does before its seek
    assert consumer._get_active_partitions() == {changelog}
    await consumer.perform_seek()
    assert consumer._get_active_partitions() == {orders, changelog}
    consumer.pause_partitions({orders})
    consumer.resume_partitions({orders})  # no seek pending: at once
    assert consumer._get_active_partitions() == {orders, changelog}


async def test_a_seek_before_recovery_resumes_anything_does_not_end_the_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """faust's fetch seeks when a fetch comes back while the flow is stopped, often just after
    an assignment and before recovery resumes the stream partitions. On the broker that seek
    ended the hold: recovery's resume then let a kept partition's records through before
    recovery's own seek, which handed them again (the scale-up's records handled twice)."""
    app = _app(instance_id="w-0")
    consumer = app.consumer
    orders, changelog = TP("orders", 0), TP("orders-counts-changelog", 0)

    async def handled(*args: Any) -> None:  # the app's own handler: recovery, tables...
        consumer.pause_partitions({orders, changelog})

    async def seek_to_committed() -> dict[Any, int]:
        return {orders: 7}

    monkeypatch.setattr(consumer, "_on_partitions_assigned", handled)
    monkeypatch.setattr(consumer, "assignment", lambda: {orders, changelog})
    monkeypatch.setattr(consumer, "seek_to_committed", seek_to_committed)
    await consumer.on_partitions_assigned({orders, changelog}, 3)
    await consumer.perform_seek()  # the fetch's, while the flow is stopped
    consumer.resume_partitions({orders, changelog})  # recovery, before its seek
    assert consumer._get_active_partitions() == {changelog}
    await consumer.perform_seek()  # recovery's
    assert consumer._get_active_partitions() == {orders, changelog}


async def test_the_hold_ends_when_the_last_of_overlapping_seeks_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fetch's seek starts before recovery's resume and ends while recovery's own seek is
    under way (on the broker: records fetched between the two ends were moved back by the
    second and handed again). The stream partitions resume when the second seek ends."""
    app = _app(instance_id="w-0")
    consumer = app.consumer
    orders = TP("orders", 0)
    release = {name: asyncio.Event() for name in ("fetch's", "recovery's")}
    order: list[str] = []

    async def handled(*args: Any) -> None:
        consumer.pause_partitions({orders})

    async def seek_to_committed() -> dict[Any, int]:
        name = "fetch's" if not order else "recovery's"
        order.append(name)
        await release[name].wait()
        return {orders: 7}

    monkeypatch.setattr(consumer, "_on_partitions_assigned", handled)
    monkeypatch.setattr(consumer, "assignment", lambda: {orders})
    monkeypatch.setattr(consumer, "seek_to_committed", seek_to_committed)
    await consumer.on_partitions_assigned({orders}, 3)
    fetchs = asyncio.ensure_future(consumer.perform_seek())
    await asyncio.sleep(0)
    consumer.resume_partitions({orders})  # recovery, then its seek
    recoverys = asyncio.ensure_future(consumer.perform_seek())
    await asyncio.sleep(0)
    release["fetch's"].set()
    await fetchs
    assert orders not in consumer._get_active_partitions()  # recovery's seek still under way
    release["recovery's"].set()
    await recoverys
    assert consumer._get_active_partitions() == {orders}


async def _handed_when_a_fetch_spans_the_seek(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, list[tuple[Any, int]]]:
    """A fetch of faust's loop waits in the consumer thread while faust seeks the partition to
    its committed offset 59 (after an assignment); it returns records 57..60, fetched before
    the seek. What the fetch gives the loop, and the seeks made."""
    consumer, tp = app.consumer, TP("orders", 0)
    fetched, release = asyncio.Event(), asyncio.Event()
    sought: list[tuple[Any, int]] = []

    async def getmany(active_partitions: Any, timeout: float) -> dict[Any, list[Any]]:  # noqa: ASYNC109
        fetched.set()
        await release.wait()
        return {tp: [Message("orders", 0, o, 0.0, 0, None, b"k", b"v", None, tp=tp)
                     for o in range(57, 61)]}  # fmt: skip

    async def seek_to_committed() -> dict[Any, int]:
        return {tp: 59}

    async def seek(partition: Any, offset: int) -> None:  # the consumer thread's
        sought.append((partition, offset))

    monkeypatch.setattr(consumer._thread, "getmany", getmany)
    monkeypatch.setattr(consumer._thread, "seek_to_committed", seek_to_committed)
    monkeypatch.setattr(consumer, "_seek", seek)
    monkeypatch.setattr(consumer, "assignment", lambda: {tp})
    fetch = asyncio.ensure_future(consumer._getmany({tp}, 1.0))
    await fetched.wait()
    await consumer.perform_seek()
    release.set()
    return await fetch, sought


async def test_plain_faust_hands_on_a_fetch_from_before_its_seek(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its loop hands 59 and 60 on (at or past the offset sought), then fetches them again
    from 59."""
    app = faust.App("orders", broker="kafka://host-a:9092", store="memory://")
    records, sought = await _handed_when_a_fetch_spans_the_seek(app, monkeypatch)
    assert [r.offset for r in records[TP("orders", 0)]] == [57, 58, 59, 60] and sought == []


async def test_a_fetch_from_before_a_seek_is_dropped_and_fetched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records, sought = await _handed_when_a_fetch_spans_the_seek(_app(instance_id="w-0"),
                                                                monkeypatch)  # fmt: skip
    assert records == {} and sought == [(TP("orders", 0), 59)]


# -- calls into the consumer thread (issue 52) --------------------------------------------------


def _thread_not_serving(monkeypatch: pytest.MonkeyPatch) -> tuple[StaticApp, StaticThread]:
    """An app whose consumer thread is not serving calls (its loop never runs: as after its
    method queue stopped), with the app's crash recorded instead of run."""
    app = _app(instance_id="w-0")
    crashed: list[BaseException] = []

    async def crash(reason: BaseException) -> None:
        crashed.append(reason)

    monkeypatch.setattr(app, "crash", crash)
    thread = app.consumer._thread
    assert isinstance(thread, StaticThread)
    monkeypatch.setattr(thread, "parent_loop", asyncio.get_running_loop())
    return app, thread


async def _commit(offsets: Any) -> bool:
    return True


async def _waiting_call(thread: StaticThread) -> asyncio.Future[Any]:
    """A call into the thread (a commit), still waiting for its answer."""
    waiting = asyncio.ensure_future(thread.call_thread(_commit, {}))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    return waiting


async def test_plain_faust_waits_forever_on_a_thread_that_no_longer_serves_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, thread = _thread_not_serving(monkeypatch)
    with pytest.raises(TimeoutError):  # mode's call_thread: the promise alone
        await asyncio.wait_for(_seam.ConsumerThread.call_thread(thread, _commit, {}), 0.3)


async def test_a_call_waiting_on_the_thread_ends_with_the_fatal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, thread = _thread_not_serving(monkeypatch)
    waiting = await _waiting_call(thread)
    fenced = FencedInstanceIdError("fenced", group_id="orders", group_instance_id="w-0",
                                   member_id="m", api="OffsetCommit")  # fmt: skip
    consumer = app.static_consumer({"group_id": "orders"}, on_fatal=thread._on_consumer_fatal)
    consumer._on_fatal(fenced)  # what the driver calls, once, when the member turns fatal
    with pytest.raises(FencedInstanceIdError) as info:
        await asyncio.wait_for(waiting, 1)
    assert info.value is fenced is app.fatal_error
    with pytest.raises(FencedInstanceIdError):  # and every later call, at once
        await asyncio.wait_for(thread.call_thread(_commit, {}), 1)
    await consumer.stop()


async def test_a_call_waiting_on_a_thread_that_ended_fails_instead_of_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, thread = _thread_not_serving(monkeypatch)
    waiting = await _waiting_call(thread)
    thread.set_shutdown()  # mode's, from the thread: it has ended (stopped or crashed)
    with pytest.raises(_seam.ConsumerStoppedError):
        await asyncio.wait_for(waiting, 1)
    with pytest.raises(_seam.ConsumerStoppedError):
        await asyncio.wait_for(thread.call_thread(_commit, {}), 1)


# -- group_protocol="auto" (issue 51) -----------------------------------------------------------


async def test_auto_with_tables_runs_the_classic_protocol_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "staticconsumer.faust")
    consumer = _app(instance_id="w-0", group_protocol="auto").static_consumer({"group_id": "o"})
    assert consumer.group_protocol == "classic"
    (assignor,) = consumer._options.partition_assignment_strategy
    assert isinstance(assignor, TableAssignor)
    assert "group_protocol='auto' runs the classic protocol" in caplog.text
    await consumer.stop()


def _faust_passes(app: StaticApp) -> dict[str, Any]:
    """The options of faust's settings that the consumer protocol leaves to the coordinator,
    as faust's driver passes them (``_seam.consumer_options``)."""
    conf = app.conf
    return {"group_id": "o", "session_timeout_ms": int(conf.broker_session_timeout * 1000),
            "heartbeat_interval_ms": int(conf.broker_heartbeat_interval * 1000),
            "rebalance_timeout_ms": int(conf.broker_rebalance_timeout * 1000)}  # fmt: skip


async def test_auto_without_tables_leaves_the_choice_to_the_broker_unless_a_setting_decides(
) -> None:  # fmt: skip
    settings = {"table": False, "table_standby_replicas": 0, "group_protocol": "auto"}
    open_app = _app(instance_id="w-0", **settings)
    consumer = open_app.static_consumer(_faust_passes(open_app))
    assert consumer.group_protocol == "auto" and consumer._auto is not None
    assert consumer._auto.why_classic is None  # faust's defaults leave it open
    assert consumer.options.session_timeout_ms == 45_000  # a static member's, not faust's 60 s
    set_app = _app(instance_id="w-0", broker_session_timeout=30.0, **settings)
    chosen = set_app.static_consumer(_faust_passes(set_app))
    assert chosen._auto is not None
    assert chosen._auto.why_classic == (
        "session_timeout_ms was given, which only the classic protocol takes"
    )
    assert chosen.options.session_timeout_ms == 30_000
    await consumer.stop()
    await chosen.stop()


async def test_a_commit_whose_caller_was_cancelled_is_owned_and_the_stop_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 49: the shielded commit a SIGTERM's cancellation leaves running belongs to the
    consumer: ``wait_commits`` (the stop's) waits for it, and it lands."""
    app = _app(instance_id="w-0")
    consumer, tp = app.consumer, TP("orders", 0)
    committed: list[dict[int, int]] = []
    flushing, release = asyncio.Event(), asyncio.Event()

    async def flush() -> None:
        flushing.set()
        await release.wait()

    async def commit(offsets: dict[Any, int]) -> bool:
        committed.append({t.partition: o for t, o in offsets.items()})
        return True

    monkeypatch.setattr(app.topics, "acks_enabled_for", lambda topic: True)
    monkeypatch.setattr(consumer, "assignment", lambda: {tp})
    monkeypatch.setattr(consumer, "_commit", commit)
    monkeypatch.setattr(app.producer, "flush", flush)
    for offset in range(3):
        consumer.ack(Message("orders", 0, offset, 0.0, 0, None, b"k", b"v", None, tp=tp))
    caller = asyncio.ensure_future(consumer.commit())
    await flushing.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert len(consumer._commits_running()) == 1 and committed == []  # still running, owned
    waiting = asyncio.ensure_future(consumer.wait_commits())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    release.set()
    await asyncio.wait_for(waiting, 1)
    assert committed == [{0: 3}] and consumer._commits_running() == set()
    assert "await self.wait_commits()" in inspect.getsource(type(consumer).on_stop)


@pytest.mark.parametrize("protocol", ["consumer", "auto"])
async def test_takeover_is_on_for_the_pods_own_statefulset_id_as_staticconsumers_default(
    monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    """StaticApp leaves ``instance_takeover`` to the StaticConsumer's own default: on for the
    pod's own StatefulSet identity, under the consumer protocol or ``"auto"``'s choice of it."""
    monkeypatch.setenv("POD_NAME", "orders-3")
    app = _app(instance_id="orders-3", table=False, table_standby_replicas=0,
               group_protocol=protocol)  # fmt: skip
    consumer = app.static_consumer({"group_id": "o"})
    auto = consumer._auto
    options = consumer.options if auto is None else auto.consumer
    assert options is not None and options.instance_takeover is True
    other = _app(instance_id="w-0", table=False, table_standby_replicas=0,
                 group_protocol=protocol).static_consumer({"group_id": "o"})  # fmt: skip
    other_options = other.options if other._auto is None else other._auto.consumer
    assert other_options is not None and other_options.instance_takeover is False
    await consumer.stop()
    await other.stop()
