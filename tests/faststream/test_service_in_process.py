"""One StaticKafkaBroker service in this process on a real broker: what StaticConsumer gives
reaches a FastStream service. One health endpoint for the process (ready once every subscriber
holds its assignment), metrics and membership events labelled per subscriber, a batch subscriber
with manual acks, and FastStream's graceful stop as ``stop()`` without LeaveGroup: the revoke
listener runs, what was handled is committed, the static members stay in the group."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import ConsumerRebalanceListener
from aiokafka.admin import AIOKafkaAdminClient
from faststream import AckPolicy
from faststream.kafka.annotations import KafkaMessage

from staticconsumer import MembershipEvent, PartitionsAssigned
from staticconsumer.admin import describe_group
from staticconsumer.faststream import StaticKafkaBroker

from .._http import http_request
from ..conformance.conftest import produce
from ..integration._group import wait_until

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(120)]
PER_PARTITION = 5


class Revokes(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    def __init__(self) -> None:
        self.revoked: list[frozenset[int]] = []

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self.revoked.append(frozenset(tp.partition for tp in revoked))

    async def on_partitions_assigned(self, assigned: Any) -> None:
        pass


async def _committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return {(tp.topic, tp.partition): meta.offset for tp, meta in offsets.items()}


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
async def test_one_service_health_metrics_events_and_a_graceful_stop(
    kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str], protocol: str,
) -> None:  # fmt: skip
    one, two, group = topic_factory(partitions=2), topic_factory(partitions=2), unique_group_id()
    for topic in (one, two):
        for partition in (0, 1):
            await produce(kafka_bootstrap, topic, partition, range(PER_PARTITION))
    events: list[MembershipEvent] = []
    strategy = "cooperative-sticky" if protocol == "classic" else None
    broker = StaticKafkaBroker(kafka_bootstrap, instance_id="svc-0", group_protocol=protocol,
                               health_port=0, on_event=events.append,
                               partition_assignment_strategy=strategy)  # fmt: skip
    listener, handled = Revokes(), []

    @broker.subscriber(one, group_id=group, auto_offset_reset="earliest", listener=listener)
    async def single(body: Any, msg: KafkaMessage) -> None:
        handled.append((one, msg.raw_message.partition, msg.raw_message.offset))

    @broker.subscriber(two, group_id=group, auto_offset_reset="earliest", batch=True,
                       ack_policy=AckPolicy.MANUAL)  # fmt: skip
    async def batch(body: list[Any], msg: KafkaMessage) -> None:
        handled.extend((two, r.partition, r.offset) for r in msg.raw_message)
        await msg.ack()

    ids = {f"svc-0-{group}-{one}", f"svc-0-{group}-{two}"}
    await broker.start()
    try:
        await wait_until(lambda: len(handled) == 4 * PER_PARTITION, 30, "every record handled")
        assert broker.health_address is not None
        ready = await http_request(broker.health_address, "/readyz")
        assert ready.status == 200, ready.body
        consumers = ready.json()["consumers"]
        assert {c["group_instance_id"] for c in consumers} == ids
        assert all(len(c["assignment"]) == 2 for c in consumers), consumers
        metrics = (await http_request(broker.health_address, "/metrics")).body.decode()
        assert all(f'instance_id="{i}"' in metrics for i in ids), metrics
        assigned = {e.group_instance_id for e in events if isinstance(e, PartitionsAssigned)}
        assert assigned == ids
        held = len(listener.revoked)
    finally:
        await broker.stop()
    assert sorted(handled) == sorted(
        (t, p, o) for t in (one, two) for p in (0, 1) for o in range(PER_PARTITION)
    )  # each once
    assert listener.revoked[held:] == [frozenset({0, 1})], listener.revoked  # stop ran it
    committed = await _committed(kafka_bootstrap, group)
    assert committed == {(t, p): PER_PARTITION for t in (one, two) for p in (0, 1)}
    members = (await describe_group(kafka_bootstrap, group)).members
    assert {m.group_instance_id for m in members} == ids  # no LeaveGroup: still members
    await asyncio.sleep(0)


async def test_a_service_of_whole_ids_runs_with_no_base_id_anywhere(
    kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)  # a laptop: no pod name anywhere
    topic, group = topic_factory(partitions=2), unique_group_id()
    await produce(kafka_bootstrap, topic, 0, range(PER_PARTITION))
    broker, handled = StaticKafkaBroker(kafka_bootstrap), []

    @broker.subscriber(topic, group_id=group, group_instance_id=f"{group}-billing",
                       auto_offset_reset="earliest")  # fmt: skip
    async def bill(body: Any, msg: KafkaMessage) -> None:
        handled.append(msg.raw_message.offset)

    await broker.start()
    try:
        await wait_until(lambda: len(handled) == PER_PARTITION, 30, "every record handled")
        members = (await describe_group(kafka_bootstrap, group)).members
    finally:
        await broker.stop()
    assert [m.group_instance_id for m in members] == [f"{group}-billing"]
    assert broker.static_members == {f"{group}-billing": f"{group}/{topic}"}
