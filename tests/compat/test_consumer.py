"""The consumer's seam without a broker: ApiVersions from whichever broker answers, the
coordinator lookup's three outcomes, the coordinator seam aiokafka calls, ``start_consumer`` on a
real ``AIOKafkaConsumer`` whose client is scripted, and the settings read from the consumer.
(``test_client_seam.py`` covers the subscription side of ``ClientSeam``.)"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiokafka
import aiokafka.errors as Errors
import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.client import ConnectionGroup
from aiokafka.consumer.group_coordinator import NoGroupCoordinator
from aiokafka.consumer.subscription_state import SubscriptionState
from aiokafka.structs import TopicPartition

from staticconsumer import StaticConsumer, _compat
from staticconsumer._compat import ClientSeam, CoordinatorSeam
from staticconsumer._compat.features import CLIENT_RACK
from staticconsumer._compat.requests import api_versions_request
from staticconsumer.errors import (
    ClusterUnavailableError,
    StaticConsumerError,
    UnsupportedBrokerError,
)
from staticconsumer.protocol import ApiKey, build_heartbeat
from tests._fake_client import KAFKA_2_2, FakeClient, api_versions, metadata

NOWHERE = "127.0.0.1:1"


def only_node(node: int, error: Exception) -> Any:
    """An ApiVersions answer: ``error`` from every node but ``node``, which answers."""

    def answer(node_id: int, request: Any) -> Any:
        return api_versions() if node_id == node else error

    return answer


# -- ApiVersions --------------------------------------------------------------------------------


async def test_api_versions_come_from_the_first_broker_that_answers() -> None:
    client = FakeClient(
        brokers=(1, 2, 3), answers={ApiKey.API_VERSIONS: [only_node(2, Errors.NodeNotReadyError())]}
    )
    versions = await _compat.negotiate_versions(client, 5.0, 0.0)
    assert versions.join_group == 9
    assert [s.node_id for s in client.sent] == [1, 2]


async def test_a_round_without_answer_refreshes_metadata_and_tries_the_failed_last() -> None:
    timed_out = Errors.KafkaTimeoutError()
    answers = [only_node(-1, timed_out), only_node(-1, timed_out), only_node(1, timed_out)]
    client = FakeClient(brokers=(1, 2), answers={ApiKey.API_VERSIONS: answers})
    await _compat.negotiate_versions(client, 5.0, 0.0)
    assert client.metadata_updates == 1
    assert [s.node_id for s in client.sent] == [1, 2, 1], "every broker failed: by node id again"


async def test_no_answer_before_the_deadline_is_cluster_unavailable_naming_each_failure() -> None:
    client = FakeClient(
        brokers=(1, 2), answers={ApiKey.API_VERSIONS: [Errors.RequestTimedOutError("slow")]}
    )
    with pytest.raises(ClusterUnavailableError, match="no broker answered ApiVersions") as raised:
        await _compat.negotiate_versions(client, 0.0, 0.0)
    assert "1:" in str(raised.value) and "2:" in str(raised.value)


async def test_a_final_failure_or_a_broker_too_old_is_raised_at_once() -> None:
    final = Errors.UnsupportedVersionError("no")
    client = FakeClient(brokers=(1, 2), answers={ApiKey.API_VERSIONS: [final]})
    with pytest.raises(Errors.UnsupportedVersionError):
        await _compat.negotiate_versions(client, 5.0, 0.0)
    assert len(client.sent) == 1
    old = api_versions({ApiKey.JOIN_GROUP: (0, 4)})
    with pytest.raises(UnsupportedBrokerError):
        await _compat.negotiate_versions(FakeClient(answers={ApiKey.API_VERSIONS: [old]}), 5, 0)


def test_an_untested_aiokafka_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _compat.check_aiokafka_version()
    monkeypatch.setattr(aiokafka, "__version__", "0.15.0")
    supported = r"supports aiokafka 0\.12\.x, 0\.13\.x, 0\.14\.x; aiokafka 0\.15\.0 is installed"
    with pytest.raises(StaticConsumerError, match=supported):
        _compat.check_aiokafka_version()


# -- the coordinator lookup and the coordination connection ---------------------------------------


def seam(client: FakeClient, *topics: str) -> tuple[ClientSeam, SubscriptionState]:
    subscription = SubscriptionState()
    if topics:
        subscription.subscribe(set(topics))
    return ClientSeam(client, subscription), subscription


async def test_the_coordinator_is_its_node_once_a_connection_to_it_is_ready() -> None:
    client = FakeClient(lookups=[3, 3], ready_answers=[True, False])
    s, _ = seam(client)
    assert await s.lookup_coordinator("g") == 3
    assert await s.lookup_coordinator("g") is None, "not ready: ask again later"


async def test_a_retriable_lookup_failure_refreshes_metadata_and_asks_again_later() -> None:
    client = FakeClient(lookups=[Errors.CoordinatorNotAvailableError()])
    s, _ = seam(client)
    assert await s.lookup_coordinator("g") is None
    assert client.metadata_updates == 1


async def test_a_refused_lookup_names_the_group_and_a_final_failure_propagates() -> None:
    client = FakeClient(lookups=[Errors.GroupAuthorizationFailedError(), Errors.UnknownError()])
    s, _ = seam(client)
    with pytest.raises(Errors.GroupAuthorizationFailedError) as raised:
        await s.lookup_coordinator("orders")
    assert raised.value.args == ("orders",)
    with pytest.raises(Errors.UnknownError):
        await s.lookup_coordinator("orders")


async def test_group_requests_take_the_coordination_connection() -> None:
    client = FakeClient()
    s, _ = seam(client)
    await s.send(1, api_versions_request())
    assert client.sent[0].group == ConnectionGroup.COORDINATION


@pytest.mark.parametrize("connection_picks_versions", [True, False], ids=["0.13+", "0.12"])
async def test_a_version_the_node_lacks_is_refused_before_it_is_sent(
    monkeypatch: pytest.MonkeyPatch, connection_picks_versions: bool
) -> None:
    """aiokafka 0.13+'s connection refuses it (``PinnedRequest.prepare``, tests/protocol/
    test_wire.py); 0.12's would send it, so there the seam asks the node's ApiVersions once,
    again after its connection broke, and refuses the same way."""
    from staticconsumer._compat import consumer as seam_module

    monkeypatch.setattr(seam_module, "CONNECTION_PICKS_VERSIONS", connection_picks_versions)
    old = {**KAFKA_2_2, ApiKey.HEARTBEAT: (0, 2)}
    client = FakeClient(answers={ApiKey.API_VERSIONS: [api_versions(old)], ApiKey.HEARTBEAT: [
        Errors.KafkaConnectionError("gone"), Errors.RequestTimedOutError("slow")]})  # fmt: skip
    s, _ = seam(client)
    heartbeat = build_heartbeat(2, group_id="g", generation_id=1, member_id="m",
                                group_instance_id=None)  # fmt: skip
    too_new = build_heartbeat(4, group_id="g", generation_id=1, member_id="m",
                              group_instance_id="i")  # fmt: skip
    if connection_picks_versions:  # the connection's check: the fake has none, the seam adds none
        with pytest.raises(Errors.KafkaConnectionError):
            await s.send(1, heartbeat)
        assert client.apis() == ["HEARTBEAT"]
        return
    with pytest.raises(UnsupportedBrokerError, match=r"Heartbeat v4: this broker supports v0-v2"):
        await s.send(1, too_new)
    assert client.apis() == ["API_VERSIONS"], "refused before it was sent"
    with pytest.raises(Errors.KafkaConnectionError):
        await s.send(1, heartbeat)  # allowed: sent, and the connection breaks
    with pytest.raises(Errors.RequestTimedOutError):
        await s.send(1, heartbeat)  # the node's ApiVersions are asked again
    assert client.apis() == ["API_VERSIONS", "HEARTBEAT", "API_VERSIONS", "HEARTBEAT"]
    assert {s.group for s in client.sent} == {ConnectionGroup.COORDINATION}


# -- what the leader and the fatal path read from the client -------------------------------------


async def test_the_leader_reads_partition_counts_and_racks_from_the_metadata() -> None:
    client = FakeClient()
    client.cluster.update_metadata(metadata((1, 2), {"t": {0: [1], 1: [2]}}, racks={2: "az-b"}))
    s, _ = seam(client, "t")
    assert s.partitions_per_topic(["t", "unknown"]) == {"t": 2}
    assert s.replica_racks(["t"]) == {("t", 0): frozenset(), ("t", 1): frozenset({"az-b"})}
    s.watch_topics({"t", "u"})
    assert client.topics_set == [{"t", "u"}]


async def test_a_pattern_subscription_keeps_aiokafkas_own_topic_list() -> None:
    client = FakeClient()
    subscription = SubscriptionState()
    subscription.subscribe_pattern(re.compile("t.*"))
    ClientSeam(client, subscription).watch_topics({"t1"})
    assert client.topics_set == []


async def test_an_aborted_wait_for_assignment_raises_the_reason() -> None:
    s, subscription = seam(FakeClient(), "t")
    subscription.register_fetch_waiters(set())  # as aiokafka's Fetcher does when created
    waiting = asyncio.ensure_future(subscription.wait_for_assignment())
    await asyncio.sleep(0)
    s.abort_waiters(_compat.WakeMarker("fenced"))
    with pytest.raises(_compat.WakeMarker):
        await waiting


async def test_without_an_assignment_there_is_nothing_consumed_or_to_pause() -> None:
    s, subscription = seam(FakeClient(), "t")
    assert s.assignment() is None, "subscribed, nothing assigned yet"
    s.mark_pending_revocation([("t", 0)])
    assert s.consumed_offsets() == {}
    assert s.current_subscription() is subscription.subscription and s.auto_assigned()
    assert s.listener() is subscription.listener


async def test_after_an_eager_revocation_the_next_assignment_keeps_no_position() -> None:
    s, _ = seam(FakeClient(), "t")
    s.assign([("t", 0)]).state_value(TopicPartition("t", 0)).seek(42)
    s.begin_reassignment()
    again = s.assign([("t", 0)])
    assert not again.state_value(TopicPartition("t", 0)).has_valid_position
    assert s.consumed_offsets([("t", 0)]) == {}


# -- the coordinator seam aiokafka calls ---------------------------------------------------------


@dataclass
class RecordingDriver:
    """A driver that records what the seam forwards to it."""

    seam: Any = None
    calls: list[tuple[str, Any]] = field(default_factory=list)
    errors: list[Exception] = field(default_factory=list)
    member_id: str = "svc-0-m"
    generation: int = 4

    def start(self) -> None:
        self.calls.append(("start", None))

    def check_errors(self) -> None:
        if self.errors:
            raise self.errors.pop(0)

    async def close(self) -> None:
        self.calls.append(("close", None))

    async def commit_offsets(self, assignment: Any, offsets: Any) -> None:
        self.calls.append(("commit_offsets", offsets))

    async def fetch_committed_offsets(self, partitions: Any) -> Any:
        self.calls.append(("fetch_committed_offsets", partitions))
        return {"fetched": partitions}

    def start_commit_offsets_refresh_task(self, assignment: Any) -> None:
        self.calls.append(("refresh", assignment))

    def maybe_leave_group(self) -> Any:
        self.calls.append(("leave", None))
        return "leaving"

    def on_metadata_change(self) -> None:
        self.calls.append(("metadata_change", None))


async def test_the_coordinator_seam_forwards_what_aiokafka_calls() -> None:
    driver = RecordingDriver(errors=[_compat.WakeMarker("fenced")])
    coordinator = CoordinatorSeam(FakeClient(), SubscriptionState(), driver)
    with pytest.raises(_compat.WakeMarker):
        coordinator.check_errors()
    coordinator.check_errors()
    await coordinator.commit_offsets(None, {"tp": 1})
    assert await coordinator.fetch_committed_offsets(["tp"]) == {"fetched": ["tp"]}
    coordinator.start_commit_offsets_refresh_task("assignment")
    assert coordinator.maybe_leave_group() == "leaving"
    await coordinator.close()
    assert [name for name, _ in driver.calls] == [
        "commit_offsets", "fetch_committed_offsets", "refresh", "leave", "close"]  # fmt: skip


async def test_a_watched_topics_partition_count_change_reaches_the_driver() -> None:
    client = FakeClient()
    client.cluster.update_metadata(metadata((1,), {"t": {0: [1]}, "u": {0: [1]}}))
    subscription = SubscriptionState()
    subscription.subscribe({"t"})
    driver = RecordingDriver()
    s = ClientSeam(client, subscription)
    s.watch_partition_counts(["t"])  # before attach: nothing to watch with
    s.attach(CoordinatorSeam(client, subscription, driver))
    s.watch_partition_counts(["t"])
    client.cluster.update_metadata(metadata((1,), {"t": {0: [1]}, "u": {0: [1], 1: [1]}}))
    assert driver.calls == [], "an unwatched topic grew"
    client.cluster.update_metadata(metadata((1,), {"t": {0: [1], 1: [1]}}))
    assert driver.calls == [("metadata_change", None)]


# -- start_consumer on a real AIOKafkaConsumer ---------------------------------------------------


@pytest.fixture
async def consumer_parts() -> AsyncIterator[list[AIOKafkaConsumer]]:
    """Consumers the test builds (``make``), stopped again afterwards."""
    made: list[AIOKafkaConsumer] = []
    yield made
    for consumer in made:
        await consumer.stop()


#: The settings each scripted consumer starts with, by its id.
_SETTINGS: dict[int, dict[str, Any]] = {}


def settings_of(**given: Any) -> dict[str, Any]:
    """An ``AIOKafkaConsumer``'s arguments as ``start_consumer`` takes them: given or defaulted."""
    parameters = inspect.signature(AIOKafkaConsumer.__init__).parameters.items()
    defaults = {n: p.default for n, p in parameters if p.default is not inspect.Parameter.empty}
    return {**defaults, **given}


async def start(consumer: AIOKafkaConsumer, make_driver: Any) -> None:
    await _compat.start_consumer(consumer, _SETTINGS[id(consumer)], make_driver)


def scripted(
    made: list[AIOKafkaConsumer], *topics: str, cls: type[AIOKafkaConsumer] = AIOKafkaConsumer,
    **kwargs: Any,
) -> tuple[AIOKafkaConsumer, FakeClient]:  # fmt: skip
    """A real consumer (of ``cls``) whose client answers from a scripted client: no connection
    is made. :func:`start` starts it with its arguments as settings."""
    consumer = cls(*topics, bootstrap_servers=NOWHERE, **kwargs)
    _SETTINGS[id(consumer)] = settings_of(bootstrap_servers=NOWHERE, **kwargs)
    made.append(consumer)
    fake = FakeClient()
    client = consumer._client

    async def nothing(*_: Any, **__: Any) -> None:
        return None

    client.bootstrap = nothing
    client.send = fake.send
    client.force_metadata_update = fake.force_metadata_update
    consumer._wait_topics = nothing
    client.cluster.update_metadata(metadata((1,), {"t": {0: [1], 1: [1]}}))
    return consumer, fake


async def test_start_consumer_puts_the_seam_between_aiokafka_and_the_driver(
    consumer_parts: list[AIOKafkaConsumer],
) -> None:
    consumer, fake = scripted(consumer_parts, "t", group_id="g", group_instance_id="svc-0",
                              client_id="svc", session_timeout_ms=30000)  # fmt: skip
    assert _compat.joins_group(consumer, "g") and _compat.subscribes_topics(consumer)
    driver = RecordingDriver()
    made: list[tuple[ClientSeam, Any]] = []

    def make_driver(seam: ClientSeam, versions: Any) -> RecordingDriver:
        made.append((seam, versions))
        driver.seam = seam
        return driver

    await start(consumer, make_driver)
    [(seam, versions)] = made
    assert fake.apis() == ["API_VERSIONS"] and versions.join_group == 9
    assert isinstance(consumer._coordinator, CoordinatorSeam)
    assert _compat.coordinator_of(consumer) is driver
    # What code written against aiokafka's GroupCoordinator reads (FastStream's listener does).
    assert (consumer._coordinator.member_id, consumer._coordinator.generation) == ("svc-0-m", 4)
    assert driver.calls == [("start", None)], "subscribed: no committed-offsets refresh task"
    seam.start_poll_timer()
    assert seam.idle_seconds() < 1.0
    with pytest.raises(StaticConsumerError, match="twice"):
        await start(consumer, make_driver)


async def test_assigned_partitions_in_a_group_start_the_committed_offsets_refresh(
    consumer_parts: list[AIOKafkaConsumer],
) -> None:
    consumer, _ = scripted(consumer_parts, group_id="g")
    consumer.assign([TopicPartition("t", 0)])
    assert not _compat.joins_group(consumer, "g")
    driver = RecordingDriver()
    await start(consumer, lambda seam, versions: driver)
    assert [name for name, _ in driver.calls] == ["refresh", "start"]


async def test_without_a_group_a_subscriber_gets_every_partition_at_start(
    consumer_parts: list[AIOKafkaConsumer],
) -> None:
    consumer, fake = scripted(consumer_parts, "t")

    def no_driver(seam: ClientSeam, versions: Any) -> Any:
        raise AssertionError("no group, no driver")

    await start(consumer, no_driver)
    assert isinstance(consumer._coordinator, NoGroupCoordinator)
    assert fake.apis() == [] and fake.metadata_updates == 1
    assert consumer.assignment() == {TopicPartition("t", 0), TopicPartition("t", 1)}
    assert _compat.coordinator_of(consumer) is None


async def test_assign_is_no_topic_subscription(consumer_parts: list[AIOKafkaConsumer]) -> None:
    """``subscribes_topics`` (StaticConsumer asks it before waiting at the roster barrier) said
    True after ``assign()``: aiokafka's manual assignment is a subscription object too."""
    consumer, _ = scripted(consumer_parts, group_id="g")
    assert not _compat.subscribes_topics(consumer), "nothing yet"
    consumer.assign([TopicPartition("t", 0)])
    assert not _compat.subscribes_topics(consumer), "assign(): no group join"
    subscriber, _ = scripted(consumer_parts, "t", group_id="g")
    assert _compat.subscribes_topics(subscriber)


async def test_start_consumer_downgrades_a_member_without_instance_id_on_kafka_2_2(
    consumer_parts: list[AIOKafkaConsumer],
) -> None:
    """KIP-345: a member without group_instance_id works with a broker before 2.3, at the
    versions the broker has; with one, start() is refused before any group request."""
    made: list[Any] = []

    def make_driver(seam: ClientSeam, versions: Any) -> RecordingDriver:
        made.append(versions)
        driver = RecordingDriver()
        driver.seam = seam
        return driver

    dynamic, fake = scripted(consumer_parts, "t", group_id="g")
    fake.answers[ApiKey.API_VERSIONS] = [api_versions(KAFKA_2_2)]
    await start(dynamic, make_driver)
    [versions] = made
    assert (versions.join_group, versions.sync_group, versions.offset_commit) == (4, 2, 6)

    static, fake = scripted(consumer_parts, "t", group_id="g", group_instance_id="svc-0")
    fake.answers[ApiKey.API_VERSIONS] = [api_versions(KAFKA_2_2)]
    with pytest.raises(UnsupportedBrokerError, match=r"JoinGroup \(api key 11\): the broker "
                       r"supports v0-v4; static membership needs v5"):  # fmt: skip
        await start(static, make_driver)
    assert len(made) == 1 and fake.apis() == ["API_VERSIONS"]


# -- stop: ours, never aiokafka's (issue 42) -----------------------------------------------------


class ExitStackConsumer(AIOKafkaConsumer):  # type: ignore[misc]  # aiokafka is untyped
    """aiokafka PR #1131's shape of ``AIOKafkaConsumer``: ``_closed`` stays unset (None) until
    aiokafka's own ``start()`` ends, and ``stop()`` closes through the exit stack that only that
    ``start()`` fills. A consumer started by ``start_consumer`` has no such stack."""

    def __init__(self, *topics: str, **kwargs: Any) -> None:
        super().__init__(*topics, **kwargs)
        self._closed = None

    async def stop(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._exit_stack.aclose()


class StaticOnExitStack(StaticConsumer, ExitStackConsumer):
    """StaticConsumer over that shape (the MRO puts it between StaticConsumer and aiokafka's)."""


async def test_stop_consumer_closes_what_start_consumer_made_without_aiokafkas_stop(
    consumer_parts: list[AIOKafkaConsumer],
) -> None:
    consumer, _ = scripted(consumer_parts, "t", cls=ExitStackConsumer, group_id="g",
                           group_instance_id="svc-0")  # fmt: skip
    driver = RecordingDriver()
    await start(consumer, lambda seam, versions: driver)
    fetcher = consumer._fetcher
    await _compat.stop_consumer(consumer)
    assert ("close", None) in driver.calls, "the coordinator seam closed the driver"
    assert fetcher._closed and consumer._closed is True
    with pytest.raises(Errors.ConsumerStoppedError):
        await consumer.getmany()
    calls = len(driver.calls)
    await _compat.stop_consumer(consumer)
    assert len(driver.calls) == calls, "a second stop does nothing"


async def test_a_static_consumer_stops_without_aiokafkas_start_bookkeeping(
    consumer_parts: list[AIOKafkaConsumer],
) -> None:
    """Before: ``StaticConsumer.stop`` ended in aiokafka's ``stop()``, which on #1131's shape
    raised AttributeError (no exit stack: aiokafka's ``start()`` never ran)."""
    never_started = StaticOnExitStack("t", bootstrap_servers=NOWHERE)
    await never_started.stop()
    assert never_started._closed is True
    consumer, _ = scripted(consumer_parts, "t", cls=StaticOnExitStack)
    await consumer.start()  # no group: every partition, through start_consumer
    assert consumer.assignment() == {TopicPartition("t", 0), TopicPartition("t", 1)}
    await asyncio.sleep(0)  # aiokafka's NoGroupCoordinator task runs once (its close awaits it)
    await consumer.stop()
    assert consumer._closed is True and consumer._fetcher._closed
    with pytest.raises(Errors.ConsumerStoppedError):
        await consumer.getone()


async def test_a_failed_start_on_that_shape_raises_its_own_error() -> None:
    """The failed start's cleanup is ours too: the bootstrap failure is raised, not the
    AttributeError of aiokafka's ``stop()`` on #1131's shape."""
    consumer = StaticOnExitStack("t", bootstrap_servers=NOWHERE, request_timeout_ms=1000)
    with pytest.raises(ClusterUnavailableError):
        await consumer.start()
    assert consumer._closed is True


# -- the settings the seam starts a consumer with (not aiokafka's private attributes) ---------


def _upper(raw: bytes) -> bytes:
    return raw.upper()


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"fetch_max_bytes": 1000, "fetch_min_bytes": 7, "fetch_max_wait_ms": 90,
         "max_partition_fetch_bytes": 4096, "check_crcs": False, "consumer_timeout_ms": 50,
         "retry_backoff_ms": 30, "auto_offset_reset": "earliest", "request_timeout_ms": 9000,
         "isolation_level": "read_committed", "key_deserializer": _upper,
         "value_deserializer": _upper, "exclude_internal_topics": False,
         # aiokafka 0.14's (refused before it: tests/compat/test_features.py)
         **({"client_rack": "rack-a"} if CLIENT_RACK else {})},
    ],
    ids=["defaults", "given"],
)  # fmt: skip
async def test_the_settings_the_seam_starts_with_are_what_aiokafka_starts_with(
    given: dict[str, Any],
) -> None:
    """The seam builds the fetcher and the group from the consumer's own record of its
    arguments; aiokafka's ``start()`` builds them from the private attributes its constructor
    set. On the installed aiokafka the two agree, defaults included (issue 42)."""
    consumer = StaticConsumer("t", bootstrap_servers=NOWHERE, group_id="g",
                              group_instance_id="i-0", **given)  # fmt: skip
    settings = consumer._aiokafka_settings
    fetcher = _compat.lifecycle._fetcher_settings(settings)
    aiokafkas = {
        "key_deserializer": consumer._key_deserializer,
        "value_deserializer": consumer._value_deserializer,
        "fetch_min_bytes": consumer._fetch_min_bytes,
        "fetch_max_bytes": consumer._fetch_max_bytes,
        "fetch_max_wait_ms": consumer._fetch_max_wait_ms,
        "max_partition_fetch_bytes": consumer._max_partition_fetch_bytes,
        "check_crcs": consumer._check_crcs, "fetcher_timeout": consumer._consumer_timeout,
        "retry_backoff_ms": consumer._retry_backoff_ms,
        "auto_offset_reset": consumer._auto_offset_reset,
        "isolation_level": consumer._isolation_level,
    }  # fmt: skip
    if CLIENT_RACK and consumer._client_rack is not None:
        aiokafkas["client_rack"] = consumer._client_rack
    assert fetcher == aiokafkas
    group = {"group_id": consumer._group_id, "group_instance_id": consumer._group_instance_id,
             "exclude_internal_topics": consumer._exclude_internal_topics,
             "request_timeout_ms": consumer._request_timeout_ms,
             "security_protocol": consumer._client._security_protocol}  # fmt: skip
    assert {name: settings[name] for name in group} == group
