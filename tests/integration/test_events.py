"""Membership events (docs/membership-events.md) from StaticConsumers on the real broker."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer

from staticconsumer import (
    EnforceRebalanceRequested,
    FencedInstanceIdError,
    GroupJoined,
    GroupLeft,
    InstanceFenced,
    JoinGroupReason,
    MembershipEvent,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
    StaticConsumer,
)
from staticconsumer.admin import remove_members
from staticconsumer.events import FIELDS, from_json

from ._group import FAST, Member, Producer, owned, start_member, wait_stable, wait_until


def _recorder() -> tuple[list[MembershipEvent], Callable[[MembershipEvent], None]]:
    events: list[MembershipEvent] = []
    return events, events.append


async def _member(
    topic: str, bootstrap: str, group: str, instance_id: str | None, **kw: Any
) -> tuple[Member, list[MembershipEvent]]:
    events, record = _recorder()
    member = await start_member(topic, bootstrap, group, instance_id, on_event=record, **kw)
    return member, events


def _of(events: list[MembershipEvent], cls: type[MembershipEvent]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def _kinds(events: list[MembershipEvent]) -> list[str]:
    """Event types, a run of join_reason events (a JoinGroup retried after e.g. NOT_COORDINATOR
    on a fresh broker) counted once."""
    out: list[str] = []
    for e in events:
        if not (e.type == "join_reason" and out and out[-1] == "join_reason"):
            out.append(e.type)
    return out


def _check_identity(events: list[MembershipEvent], group: str, instance_id: str | None) -> None:
    assert [e.seq for e in events] == list(range(len(events))), "seq 0, 1, 2, ... in order"
    assert all(e.group_id == group and e.group_instance_id == instance_id for e in events)
    assert all(e.client_id and e.host and len(e.event_id) == 32 for e in events)
    stamps = [e.ts_ms for e in events]
    assert stamps == sorted(stamps) and abs(stamps[-1] - time.time() * 1000) < 600_000
    assert len({e.event_id for e in events}) == len(events)


async def test_static_member_start_reports_join_reason_joined_and_assigned(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=3), unique_group_id()
    member, events = await _member(topic, kafka_bootstrap, group, "ev-a", client_id="ev-client")
    try:
        await wait_until(lambda: bool(_of(events, PartitionsAssigned)), 30, "assigned event")
        assert _kinds(events)[:3] == ["join_reason", "joined", "assigned"], events
        reason = events[0]
        joined, assigned = _of(events, GroupJoined)[0], _of(events, PartitionsAssigned)[0]
        assert reason.reason == "initial join of the consumer" and reason.generation_id == -1
        assert reason.member_id is None, "no member id before the first join"
        assert isinstance(joined, GroupJoined) and joined.leader is True
        assert joined.generation_id == member.consumer.generation_id >= 1
        assert joined.member_id == member.consumer.member_id and joined.member_id.startswith("ev-a")
        assert joined.protocol == "range"  # StaticConsumer's default: our range assignor first
        assert assigned.partitions == ((topic, 0), (topic, 1), (topic, 2))
        assert assigned.generation_id == joined.generation_id
        assert not _of(events, PartitionsRevoked), "nothing was revoked on a first join"
        _check_identity(events, group, "ev-a")
        assert {e.client_id for e in events} == {"ev-client"}
    finally:
        await member.stop()
    close = events[-1]
    assert isinstance(close, PartitionsRevoked) and close.reason == "close"
    assert close.partitions == ((topic, 0), (topic, 1), (topic, 2))
    assert not _of(events, GroupLeft), "a static member sends no LeaveGroup on stop()"


async def test_restart_within_session_timeout_keeps_generation_and_revokes_nothing_elsewhere(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, a_events = await _member(topic, kafka_bootstrap, group, "rs-a")
    b, b_events = await _member(topic, kafka_bootstrap, group, "rs-b")
    await wait_stable([a, b], 4)
    generation, old_member_id, a_parts = a.consumer.generation_id, a.consumer.member_id, owned(a)
    b_seen = len(b_events)
    await a.stop()
    a2, a2_events = await _member(topic, kafka_bootstrap, group, "rs-a")
    try:
        await wait_until(lambda: bool(_of(a2_events, PartitionsAssigned)), 30, "a2 assigned")
        await asyncio.sleep(1.0)  # room for a (wrong) rebalance to show up
        closing = a_events[-1]
        assert isinstance(closing, PartitionsRevoked) and closing.reason == "close"
        assert {p for _t, p in closing.partitions} == a_parts
        joined = _of(a2_events, GroupJoined)
        assert len(joined) == 1 and joined[0].generation_id == generation, "no rebalance"
        assert joined[0].member_id != old_member_id and joined[0].member_id.startswith("rs-a")
        assert {p for _t, p in _of(a2_events, PartitionsAssigned)[0].partitions} == a_parts
        assert b_events[b_seen:] == [], "the other member saw no revoke, join or anything"
        assert b.consumer.generation_id == generation
    finally:
        await a2.stop()
        await b.stop()


async def test_enforce_rebalance_reports_request_reason_and_new_generation(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, a_events = await _member(topic, kafka_bootstrap, group, "en-a")
    b, b_events = await _member(topic, kafka_bootstrap, group, "en-b")
    await wait_stable([a, b], 4)
    generation = a.consumer.generation_id
    seen = len(a_events), len(b_events)
    reason = f"new shard map {time.time_ns()}"
    try:
        await a.consumer.enforce_rebalance(reason)
        await wait_stable([a, b], 4)
        await wait_until(
            lambda: all(len(_of(ev[n:], PartitionsAssigned)) == 1
                        for ev, n in ((a_events, seen[0]), (b_events, seen[1]))),
            30, "assigned events of the new generation",
        )  # fmt: skip
        mine = a_events[seen[0] :]
        kinds = _kinds(mine)
        assert kinds == ["enforce_requested", "revoked", "join_reason", "joined", "assigned"], kinds
        mine = [mine[0], mine[1], mine[2], *mine[-2:]]  # the first join_reason, then the rest
        assert isinstance(mine[0], EnforceRebalanceRequested) and mine[0].reason == reason
        assert mine[0].generation_id == generation
        assert mine[1].reason == "rebalance" and mine[1].generation_id == generation
        assert isinstance(mine[2], JoinGroupReason)
        assert mine[2].reason == f"rebalance enforced by user: {reason}"
        assert mine[3].generation_id == mine[4].generation_id == generation + 1
        theirs = b_events[seen[1] :]
        assert _kinds(theirs) == ["revoked", "join_reason", "joined", "assigned"], theirs
        theirs = [theirs[0], theirs[1], *theirs[-2:]]
        assert theirs[1].reason == "the group coordinator started a rebalance"
        assert theirs[2].generation_id == generation + 1
        assigned = [*mine[4].partitions, *theirs[3].partitions]
        assert sorted(assigned) == [(topic, p) for p in range(4)], "together: every partition"
    finally:
        await a.stop()
        await b.stop()


async def test_leave_with_reason_reports_left_after_the_close_revoke(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, a_events = await _member(topic, kafka_bootstrap, group, "lv-a", session_timeout_ms=60000)
    b, b_events = await _member(topic, kafka_bootstrap, group, "lv-b", session_timeout_ms=60000)
    await wait_stable([a, b], 4)
    generation, member_id = a.consumer.generation_id, a.consumer.member_id
    reason = f"scale down {time.time_ns()}"
    await a.stop(leave_group=True, reason=reason)
    try:
        revoked, left = a_events[-2:]
        assert isinstance(revoked, PartitionsRevoked) and revoked.reason == "close"
        assert isinstance(left, GroupLeft)
        assert left.reason == f"the consumer is being closed: {reason}"
        assert left.member_id == member_id and left.generation_id == generation
        await wait_until(lambda: len(owned(b)) == 4, 30, "the survivor to own all")
        joined = _of(b_events, GroupJoined)[-1]
        assert joined.generation_id == generation + 1 and joined.leader
    finally:
        await b.stop()


async def test_same_instance_id_fences_the_old_member_and_names_the_holder(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    old_events, record = _recorder()
    old = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", on_event=record, **FAST)  # fmt: skip
    await old.start()
    old_member_id = old.member_id
    new = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", client_id="the-new-twin", **FAST)  # fmt: skip
    await new.start()
    try:
        try:
            async with asyncio.timeout(30):
                while True:
                    await old.getmany(timeout_ms=100)
        except FencedInstanceIdError:
            pass
        fenced = _of(old_events, InstanceFenced)
        assert len(fenced) == 1, old_events
        assert fenced[0].api in ("Heartbeat", "OffsetCommit")
        assert fenced[0].other_holder == new.member_id != old_member_id
        assert fenced[0].member_id == old_member_id and fenced[0].group_instance_id == "twin"
        await old.stop()
        assert old_events[-1] is fenced[0], "a fenced member reports no close revoke, no leave"
    finally:
        await old.stop()
        await new.stop()


async def test_removed_member_reports_session_expired_then_joins_as_new(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    member, events = await _member(topic, kafka_bootstrap, group, "gone-a")
    try:
        await wait_stable([member], 2)
        old_member_id = member.consumer.member_id
        await remove_members(kafka_bootstrap, group, ["gone-a"], reason="test removal")
        await wait_until(lambda: bool(_of(events, SessionExpired)), 30, "session_expired")
        await wait_until(lambda: len(_of(events, GroupJoined)) == 2, 30, "the re-join")
        expired = _of(events, SessionExpired)
        assert len(expired) == 1 and expired[0].member_id == old_member_id
        assert expired[0].api in ("Heartbeat", "OffsetCommit", "JoinGroup", "SyncGroup")
        rejoined = _of(events, GroupJoined)[-1]
        assert rejoined.member_id != old_member_id and rejoined.seq > expired[0].seq
        after = [e for e in events if e.seq > expired[0].seq]
        assert _kinds(after)[:2] == ["revoked", "join_reason"], after
        assert after[1].reason == "rejoining after an error from the group coordinator"
    finally:
        await member.stop()


async def test_events_are_published_as_schema_v1_json(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, events_topic = topic_factory(partitions=2), topic_factory(partitions=3)
    group = unique_group_id()
    member, events = await _member(
        topic, kafka_bootstrap, group, "pub-a", events_topic=events_topic
    )
    await wait_stable([member], 2)
    await member.consumer.enforce_rebalance("published reason")
    await wait_until(lambda: len(_of(events, GroupJoined)) == 2, 30, "the enforced re-join")
    await member.stop(leave_group=True, reason="done")
    consumer = member.consumer
    assert consumer.events_published == len(events) and consumer.events_dropped == 0
    assert consumer.events_publish_errors == 0
    reader = AIOKafkaConsumer(events_topic, bootstrap_servers=kafka_bootstrap,
                              auto_offset_reset="earliest", enable_auto_commit=False)  # fmt: skip
    await reader.start()
    records: list[Any] = []
    try:
        async with asyncio.timeout(30):
            while len(records) < len(events):
                batch = await reader.getmany(timeout_ms=500)
                records.extend(r for rs in batch.values() for r in rs)
    finally:
        await reader.stop()
    assert {r.key for r in records} == {group.encode()}
    assert len({r.partition for r in records}) == 1, "one key: one partition, in order"
    documents = [json.loads(r.value) for r in records]
    assert all(list(d) == list(FIELDS) for d in documents)
    assert all(d["schema"] == "staticconsumer.membership-event" and d["version"] == 1
               for d in documents)  # fmt: skip
    assert [from_json(r.value) for r in records] == events, "published == on_event, in order"
    assert [d["type"] for d in documents][-2:] == ["revoked", "left"]


async def test_unreachable_events_cluster_and_raising_callback_do_not_stop_consumption(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    seen: list[MembershipEvent] = []

    def broken(event: MembershipEvent) -> None:
        seen.append(event)
        raise RuntimeError("the callback is broken")

    member = await start_member(
        topic, kafka_bootstrap, group, "sink-a", on_event=broken, events_topic="membership",
        events_producer_config={"bootstrap_servers": "127.0.0.1:1"},  # nothing listens there
        events_flush_timeout_ms=500,
    )  # fmt: skip
    async with Producer(kafka_bootstrap, topic) as producer:
        await wait_until(lambda: len(producer.sent) >= 20, 30, "records produced")
    await wait_until(lambda: set(member.seen) >= set(producer.sent), 30, "all consumed")
    consumer = member.consumer
    assert consumer.events_callback_errors == len(seen) >= 3
    assert consumer.events_publish_errors >= 1, "failed producer starts are counted"
    async with asyncio.timeout(30):  # generous: stop() must not hang on the dead cluster
        await member.stop()
    assert consumer.events_published == 0
    assert consumer.events_dropped == len(seen), "every event was buffered, then given up"
