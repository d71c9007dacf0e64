"""Membership events without a broker: the JSON contract, the emitter, the options, the buffer."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

import staticconsumer
from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer._observability.emitter import EventEmitter, event_options, producer_kwargs
from staticconsumer._observability.publisher import EventPublisher
from staticconsumer.errors import ProtocolError
from staticconsumer.events import (
    EVENT_TYPES,
    FIELDS,
    EnforceRebalanceRequested,
    GroupJoined,
    GroupLeft,
    InstanceFenced,
    JoinGroupReason,
    MembershipEvent,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
    from_json,
)
from staticconsumer.membership import LogIdentity

DOC = Path(__file__).resolve().parents[1] / "docs" / "membership-events.md"
COMMON: dict[str, Any] = dict(
    event_id="ab" * 16, seq=7, ts_ms=1_700_000_000_123, group_id="billing", client_id="c-1",
    host="pod-0", group_instance_id="billing-0", member_id="billing-0-uuid", generation_id=4,
)  # fmt: skip
SAMPLES: list[MembershipEvent] = [
    JoinGroupReason(**COMMON, reason="initial join of the consumer"),
    GroupJoined(**COMMON, leader=False, protocol="range"),
    PartitionsAssigned(**COMMON, partitions=(("b", 1), ("a", 2), ("a", 0))),
    PartitionsRevoked(**COMMON, partitions=(), reason="rebalance"),
    EnforceRebalanceRequested(**COMMON, reason="new shard map ✓"),
    GroupLeft(**COMMON, reason="the consumer is being closed: scale down"),
    InstanceFenced(**COMMON, api="Heartbeat", other_holder="billing-0-other"),
    InstanceFenced(**{**COMMON, "group_instance_id": "x"}, api="OffsetCommit", other_holder=None),
    SessionExpired(**{**COMMON, "group_instance_id": None}, api="Heartbeat"),
]
SPECIFIC = {
    "join_reason": {"reason"}, "joined": {"leader", "protocol"}, "assigned": {"partitions"},
    "revoked": {"partitions", "reason"}, "enforce_requested": {"reason"}, "left": {"reason"},
    "fenced": {"api", "other_holder"}, "session_expired": {"api"},
}  # fmt: skip


def _doc_table(heading: str) -> list[str]:
    """First column (backticked) of the markdown table under ``heading`` in the schema doc."""
    text = DOC.read_text(encoding="utf-8").split(heading, 1)[1]
    rows, body = [], False
    for line in text.splitlines()[1:]:
        if line.startswith("## "):
            break
        body = body or line.startswith("|---")
        match = re.match(r"^\| `([a-z_]+)` \|", line)
        if body and match:
            rows.append(match.group(1))
    return rows


# -- the JSON contract ---------------------------------------------------------------------------


def test_fields_and_types_are_exactly_the_documented_ones() -> None:
    assert _doc_table("## Record") == list(FIELDS)
    assert _doc_table("## Types") == list(EVENT_TYPES)
    assert set(SPECIFIC) == set(EVENT_TYPES)


def test_the_documented_example_is_a_valid_event() -> None:
    example = DOC.read_text(encoding="utf-8").split("```json\n", 1)[1].split("\n```", 1)[0]
    event = from_json(example)
    assert isinstance(event, GroupJoined) and event.leader and event.generation_id == 7


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: f"{e.type}")
def test_json_round_trip_with_every_field_and_nulls_where_unused(event: MembershipEvent) -> None:
    document = json.loads(event.to_json())
    assert list(document) == list(FIELDS), "every field, in the documented order"
    assert document["schema"] == "staticconsumer.membership-event"
    assert document["version"] == 1 and document["type"] == event.type
    common = set(FIELDS[:12]) - {"schema", "version", "type"}
    for name in set(FIELDS) - common - {"schema", "version", "type"}:
        if name not in SPECIFIC[event.type]:
            assert document[name] is None, f"{event.type}: {name} must be null"
    assert event.to_dict() == document
    assert from_json(event.to_json()) == event
    assert from_json(event.to_json().encode()) == event
    assert MembershipEvent.from_json(event.to_json()) == event


def test_partitions_are_sorted_objects() -> None:
    document = json.loads(SAMPLES[2].to_json())
    assert document["partitions"] == [
        {"topic": "a", "partition": 0},
        {"topic": "a", "partition": 2},
        {"topic": "b", "partition": 1},
    ]
    assert SAMPLES[2].partitions == (("a", 0), ("a", 2), ("b", 1))  # type: ignore[attr-defined]


def test_events_are_frozen_and_slotted() -> None:
    event = SAMPLES[1]
    with pytest.raises(AttributeError):
        event.seq = 8  # type: ignore[misc]
    assert not hasattr(event, "__dict__")


def test_unicode_stays_readable_utf8() -> None:
    assert "✓" in SAMPLES[4].to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"schema": "other"}, "schema"),
        ({"version": 2}, "version"),
        ({"version": True}, "version"),
        ({"type": "rebalanced"}, "unknown type"),
        ({"extra": 1}, "unknown"),
        ({"api": "Heartbeat"}, "api must be null"),
        ({"seq": "7"}, "wrong type"),
        ({"generation_id": True}, "wrong type"),
        ({"generation_id": None}, "wrong type"),
        ({"group_id": None}, "wrong type"),
        ({"leader": 1}, "wrong type"),
        ({"partitions": []}, "partitions must be null"),
    ],
)
def test_from_json_is_strict(change: dict[str, Any], message: str) -> None:
    document = SAMPLES[1].to_dict()  # joined
    document.update(change)
    with pytest.raises(ProtocolError, match=message):
        from_json(json.dumps(document))


def test_from_json_rejects_missing_fields_bad_partitions_and_non_json() -> None:
    document = SAMPLES[2].to_dict()
    del document["host"]
    with pytest.raises(ProtocolError, match="missing"):
        from_json(json.dumps(document))
    document = SAMPLES[2].to_dict()
    document["partitions"] = [{"topic": "a", "partition": "0"}]
    with pytest.raises(ProtocolError, match="partition entry"):
        from_json(json.dumps(document))
    for bad in (b"\xff", "not json", "[1]"):
        with pytest.raises(ProtocolError):
            from_json(bad)


def test_event_types_are_exported() -> None:
    for cls in EVENT_TYPES.values():
        assert getattr(staticconsumer, cls.__name__) is cls
    assert staticconsumer.MembershipEvent is MembershipEvent


# -- the emitter ---------------------------------------------------------------------------------


def _identity() -> dict[str, Any]:
    return dict(group_id="g", client_id="c", group_instance_id="i", member_id=None,
                generation_id=-1)  # fmt: skip


def test_emitter_stamps_and_delivers_to_sink_then_callback() -> None:
    order: list[str] = []
    sink: list[MembershipEvent] = []
    seen: list[MembershipEvent] = []
    ids = iter(["1" * 32, "2" * 32])

    def on_event(e: MembershipEvent) -> None:
        order.append("callback")
        seen.append(e)

    def to_sink(e: MembershipEvent) -> None:
        order.append("sink")
        sink.append(e)

    emitter = EventEmitter(on_event, to_sink, host="h", clock_ms=lambda: 42,
                           new_id=lambda: next(ids))  # fmt: skip
    first = emitter.emit(JoinGroupReason, reason="r", **_identity())
    second = emitter.emit(GroupLeft, reason="bye", **_identity())
    assert sink == seen == [first, second] and order == ["sink", "callback"] * 2
    assert first is not None and second is not None
    assert (first.seq, second.seq) == (0, 1) and first.ts_ms == 42 and first.host == "h"
    assert (first.event_id, second.event_id) == ("1" * 32, "2" * 32)


def test_emitter_counts_callback_errors_and_never_raises() -> None:
    sink: list[MembershipEvent] = []

    def broken(e: MembershipEvent) -> None:
        raise RuntimeError("boom")

    emitter = EventEmitter(broken, sink.append, host="h")
    for _ in range(3):
        assert emitter.emit(SessionExpired, api="Heartbeat", **_identity()) is not None
    assert emitter.callback_errors == 3 and len(sink) == 3, "the sink still gets every event"
    assert emitter.emit(SessionExpired, **_identity()) is None, "a bad event is logged, not raised"


async def test_emitter_rejects_an_awaitable_result() -> None:
    async def later(e: MembershipEvent) -> None:
        return None

    emitter = EventEmitter(lambda e: later(e), None, host="h")
    emitter.emit(GroupLeft, reason="r", **_identity())
    assert emitter.callback_errors == 1


def test_default_host_and_event_ids() -> None:
    import socket

    event = EventEmitter(None, None).emit(GroupLeft, reason="r", **_identity())
    assert event is not None and event.host == socket.gethostname()
    assert re.fullmatch(r"[0-9a-f]{32}", event.event_id)


# -- options -------------------------------------------------------------------------------------


def _options(**over: Any) -> Any:
    args: dict[str, Any] = dict(on_event=None, events_topic=None, events_buffer_size=10_000,
                                events_flush_timeout_ms=5_000, events_producer_config=None,
                                group_id="g")  # fmt: skip
    args.update(over)
    return event_options(**args)


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"on_event": 3}, "on_event"),
        ({"events_topic": ""}, "events_topic"),
        ({"events_topic": "a b"}, "events_topic"),
        ({"events_topic": ".."}, "events_topic"),
        ({"events_topic": "x" * 250}, "events_topic"),
        ({"events_topic": b"t"}, "events_topic"),
        ({"events_buffer_size": 0}, "events_buffer_size"),
        ({"events_buffer_size": True}, "events_buffer_size"),
        ({"events_buffer_size": 1.5}, "events_buffer_size"),
        ({"events_flush_timeout_ms": -1}, "events_flush_timeout_ms"),
        ({"events_producer_config": {"acks": "all"}}, "needs events_topic"),
        ({"events_topic": "t", "events_producer_config": ["x"]}, "events_producer_config"),
        ({"events_topic": "t", "events_producer_config": {"nope": 1}}, "nope"),
        ({"events_topic": "t", "group_id": None}, "group_id"),
    ],
)
def test_options_are_validated_naming_the_field(over: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigurationError, match=field):
        _options(**over)


def test_async_callback_is_rejected_and_good_options_pass() -> None:
    async def handler(e: MembershipEvent) -> None:
        return None

    with pytest.raises(ConfigurationError, match="plain function"):
        _options(on_event=handler)
    options = _options(on_event=print, events_topic="membership.events-1",
                       events_producer_config={"linger_ms": 5})  # fmt: skip
    assert options.enabled and options.producer_config == {"linger_ms": 5}
    assert not _options().enabled


async def test_static_consumer_validates_event_options_at_construction() -> None:
    with pytest.raises(ConfigurationError, match="events_buffer_size"):
        StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                       group_instance_id="a", events_topic="e", events_buffer_size=0)  # fmt: skip
    with pytest.raises(ConfigurationError, match="group_id"):
        StaticConsumer("t", bootstrap_servers="127.0.0.1:1", on_event=print)
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g")
    assert (consumer.events_dropped, consumer.events_publish_errors) == (0, 0)
    assert (consumer.events_published, consumer.events_callback_errors) == (0, 0)
    await consumer.stop()


def test_producer_shares_cluster_and_security_settings() -> None:
    consumer_kwargs = {"bootstrap_servers": "k:9093", "security_protocol": "SASL_SSL",
                       "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "u",
                       "sasl_plain_password": "p", "client_id": "svc", "group_id": "g",
                       "session_timeout_ms": 60000}  # fmt: skip
    kwargs = producer_kwargs(consumer_kwargs, {"linger_ms": 10, "acks": 1})
    assert kwargs == {"bootstrap_servers": "k:9093", "security_protocol": "SASL_SSL",
                      "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "u",
                      "sasl_plain_password": "p", "client_id": "svc-events", "acks": 1,
                      "linger_ms": 10}  # fmt: skip
    assert producer_kwargs({}, {})["acks"] == "all"


# -- the publisher, with a fake producer ---------------------------------------------------------


class FakeProducer:
    """Records what it is sent. ``started`` gates start(); ``failures`` makes start() fail that
    many times; ``fail_send`` makes every delivery fail."""

    def __init__(self, *, failures: int = 0, fail_send: bool = False) -> None:
        self.started = asyncio.Event()
        self.sent: list[tuple[str, bytes, bytes]] = []
        self.failures, self.fail_send = failures, fail_send
        self.start_calls = 0
        self.stopped = self.abandoned = False

    async def start(self) -> None:
        self.start_calls += 1
        if self.failures:
            self.failures -= 1
            raise ConnectionError("refused")
        await self.started.wait()

    async def send(self, topic: str, value: bytes, key: bytes) -> Awaitable[Any]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.fail_send:
            future.set_exception(TimeoutError("no leader"))
        else:
            self.sent.append((topic, value, key))
            future.set_result(None)
        return future

    async def flush(self) -> None:
        return None

    async def stop(self) -> None:
        self.stopped = True


def _publisher(fake: FakeProducer, *, size: int = 3, flush_ms: int = 2000) -> EventPublisher:
    def abandon(producer: Any) -> None:
        producer.abandoned = True

    return EventPublisher("ev", buffer_size=size, flush_timeout_ms=flush_ms,
                          producer_factory=lambda: fake, abandon=abandon)  # fmt: skip


def _event(n: int) -> MembershipEvent:
    return GroupLeft(**{**COMMON, "seq": n}, reason=f"r{n}")


async def test_buffer_drops_the_newest_when_full_and_publishes_the_rest_in_order() -> None:
    fake = FakeProducer()
    publisher = _publisher(fake, size=3)
    await publisher.start()  # the producer is not up yet: events wait in the buffer
    for n in range(5):
        publisher.offer(_event(n))
    assert (publisher.buffered, publisher.dropped) == (3, 2)
    fake.started.set()
    await publisher.stop()
    assert [json.loads(v)["seq"] for _t, v, _k in fake.sent] == [0, 1, 2], "the newest dropped"
    assert {(t, k) for t, _v, k in fake.sent} == {("ev", b"billing")}, "key: the group id"
    assert (publisher.published, publisher.dropped, publisher.publish_errors) == (3, 2, 0)
    assert fake.stopped and not fake.abandoned


async def test_producer_start_is_retried_and_buffered_events_then_go_out() -> None:
    fake = FakeProducer(failures=2)
    fake.started.set()
    publisher = _publisher(fake, size=10)
    publisher.offer(_event(0))  # before start(): buffered
    await publisher.start()
    publisher.offer(_event(1))
    async with asyncio.timeout(30):
        while publisher.published < 2:  # noqa: ASYNC110  (state owned by the publishing task)
            await asyncio.sleep(0.01)
    assert fake.start_calls == 3 and publisher.publish_errors == 2
    await publisher.stop()
    assert publisher.dropped == 0


async def test_stop_gives_up_after_the_flush_timeout_and_counts_what_was_left() -> None:
    fake = FakeProducer()  # start() never returns: an unreachable cluster
    publisher = _publisher(fake, size=10, flush_ms=50)
    await publisher.start()
    for n in range(4):
        publisher.offer(_event(n))
    await publisher.stop()
    assert (publisher.dropped, publisher.published) == (4, 0)
    assert fake.abandoned and fake.stopped
    publisher.offer(_event(9))
    assert publisher.dropped == 5, "after stop() an event can only be dropped"
    await publisher.stop()  # idempotent


async def test_failed_deliveries_are_counted_not_raised_and_not_retried() -> None:
    fake = FakeProducer(fail_send=True)
    fake.started.set()
    publisher = _publisher(fake, size=10)
    await publisher.start()
    for n in range(3):
        publisher.offer(_event(n))
    await publisher.stop()
    assert (publisher.publish_errors, publisher.published, publisher.dropped) == (3, 0, 0)


async def test_stop_without_start_closes_nothing() -> None:
    fake = FakeProducer()
    publisher = _publisher(fake)
    publisher.offer(_event(0))
    await publisher.stop()
    assert publisher.dropped == 1 and not fake.stopped and fake.start_calls == 0


async def test_abandon_producer_seam_exists_in_this_aiokafka() -> None:
    """The one aiokafka-internal touch of publishing (``_compat.abandon_producer``): it fails
    loudly (AttributeError) if an aiokafka upgrade moves the producer's accumulator."""
    from aiokafka import AIOKafkaProducer

    from staticconsumer import _compat

    producer = AIOKafkaProducer(bootstrap_servers="127.0.0.1:1")
    _compat.abandon_producer(producer)
    async with asyncio.timeout(30):
        await producer.stop()  # never started, now abandoned: closes at once


async def test_a_silent_cluster_does_not_hold_up_stop() -> None:
    """A real AIOKafkaProducer against a port that accepts connections and never answers (a hung
    broker): start() returns at once, stop() gives up after the flush timeout."""
    from aiokafka import AIOKafkaProducer

    from staticconsumer import _compat

    held: list[asyncio.StreamWriter] = []

    async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    publisher = EventPublisher(
        "ev", buffer_size=100, flush_timeout_ms=200,
        producer_factory=lambda: AIOKafkaProducer(bootstrap_servers=f"127.0.0.1:{port}"),
        abandon=_compat.abandon_producer,
    )  # fmt: skip
    try:
        await publisher.start()
        for n in range(5):
            publisher.offer(_event(n))
        async with asyncio.timeout(30):  # a hang, not a speed check
            await publisher.stop()
        assert (publisher.dropped, publisher.published) == (5, 0)
        assert held, "the producer did try the silent broker"
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_a_publisher_of_a_consumer_names_it_in_its_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    identity = LogIdentity("billing", "billing-3", "c", lambda: "billing-3-x")
    publisher = EventPublisher("ev", buffer_size=1, flush_timeout_ms=0,
                               producer_factory=FakeProducer, identity=identity)  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="staticconsumer"):
        publisher.offer(_event(0))
        publisher.offer(_event(1))  # the buffer is full: dropped, logged
    (record,) = caplog.records
    assert record.name == "staticconsumer._observability.publisher"
    assert record.getMessage().startswith("[group=billing instance=billing-3 member=billing-3-x] ")
    assert (record.group_id, record.member_id) == ("billing", "billing-3-x")  # type: ignore[attr-defined]
