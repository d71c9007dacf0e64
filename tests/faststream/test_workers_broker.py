"""``max_workers=N`` (FastStream's one consumer per worker) on a real broker: N static members
with ids of their own (``<base>-<key>-<n>``), a restart while records arrive that moves nothing
and causes no rebalance, and every record handled once, for each ack policy that runs workers."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from faststream import AckPolicy
from faststream.kafka.annotations import KafkaMessage

from staticconsumer import MembershipEvent, PartitionsAssigned
from staticconsumer.admin import describe_group
from staticconsumer.faststream import StaticKafkaBroker
from staticconsumer.localkafka import KafkaCluster, LocalKafkaCluster

from ..integration._group import wait_until
from ..reliability._harness import PARTITIONS, Producer, committed_offsets, rebalance_reasons

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(240)]
WORKERS = 3


class Service:
    """One run of the service: a StaticKafkaBroker whose one subscriber has WORKERS workers;
    every handled record is ``(partition, offset, the handling consumer's instance id)``."""

    def __init__(self, bootstrap: str, topic: str, group: str, policy: AckPolicy,
                 protocol: str, handled: list[tuple[int, int, str]]) -> None:  # fmt: skip
        self.events: list[MembershipEvent] = []
        self.broker = StaticKafkaBroker(
            bootstrap, instance_id="svc-0", group_protocol=protocol,
            on_event=self.events.append, graceful_timeout=10,
        )  # fmt: skip

        @self.broker.subscriber(topic, group_id=group, max_workers=WORKERS, ack_policy=policy,
                                auto_offset_reset="earliest")  # fmt: skip
        async def handle(body: Any, msg: KafkaMessage) -> None:
            raw = msg.raw_message
            await asyncio.sleep(0.02)  # records are in their handlers when the service stops
            handled.append((raw.partition, raw.offset, raw.consumer.group_instance_id))
            if policy is AckPolicy.MANUAL:
                await msg.ack()

    def assignments(self) -> dict[str, tuple[int, frozenset[int]]]:
        """Each worker's last ``(generation, partitions)``."""
        return {
            e.group_instance_id or "": (e.generation_id, frozenset(p for _, p in e.partitions))
            for e in self.events if isinstance(e, PartitionsAssigned)
        }  # fmt: skip

    async def settled(self, ids: set[str]) -> dict[str, tuple[int, frozenset[int]]]:
        """Once each worker holds its share (the consumer protocol hands partitions over in
        steps) and nothing has changed for a second."""
        changed = [time.monotonic(), len(self.events)]

        def done() -> bool:
            if len(self.events) != changed[1]:
                changed[:] = [time.monotonic(), len(self.events)]
            held = self.assignments()
            parts = [held[i][1] for i in ids if i in held]
            return (len(parts) == len(ids) and all(len(p) == PARTITIONS // WORKERS for p in parts)
                    and frozenset().union(*parts) == frozenset(range(PARTITIONS))
                    and time.monotonic() - changed[0] >= 1.0)  # fmt: skip

        await wait_until(done, 60, f"workers {sorted(ids)} each holding its share")
        return self.assignments()


@pytest.mark.parametrize(
    ("policy", "protocol"),
    [
        (AckPolicy.ACK, "classic"),
        (AckPolicy.REJECT_ON_ERROR, "classic"),
        (AckPolicy.NACK_ON_ERROR, "classic"),
        (AckPolicy.MANUAL, "classic"),
        (AckPolicy.ACK, "consumer"),
    ],
)  # fmt: skip
async def test_workers_are_static_members_of_their_own_and_a_restart_moves_nothing(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], policy: AckPolicy,
    protocol: str,
) -> None:  # fmt: skip
    bootstrap, group = kafka_cluster.bootstrap_servers, unique_group_id("fsw")
    topic = kafka_cluster.create_topic(f"{group}-t", partitions=PARTITIONS)
    ids = {f"svc-0-{group}-{topic}-{n}" for n in range(1, WORKERS + 1)}
    handled: list[tuple[int, int, str]] = []
    producer = Producer(bootstrap, topic, rate_per_s=100)
    first = Service(bootstrap, topic, group, policy, protocol, handled)
    await first.broker.start()
    try:
        assert set(first.broker.static_members) == ids
        before = await first.settled(ids)
        described = await describe_group(bootstrap, group)
        assert sorted(m.group_instance_id or "" for m in described.members) == sorted(ids)
        await producer.start()
        await asyncio.sleep(2)
        since_epoch = time.time()
    finally:
        await first.broker.stop()  # FastStream's graceful stop, records in flight
    second = Service(bootstrap, topic, group, policy, protocol, handled)
    await second.broker.start()
    try:
        after = await second.settled(ids)
        epoch_after = (await describe_group(bootstrap, group)).group_epoch
        await asyncio.sleep(2)
        await producer.stop()
        acked = producer.acked
        await wait_until(lambda: acked <= {(p, o) for p, o, _ in handled}, 60,
                         "every acknowledged record handled")  # fmt: skip
    finally:
        await second.broker.stop()
    if protocol == "classic" and isinstance(kafka_cluster, LocalKafkaCluster):  # its log is ours
        assert rebalance_reasons(kafka_cluster.logs(), group, since_epoch) == []
    assert {i: p for i, (_, p) in after.items()} == {i: p for i, (_, p) in before.items()}
    if protocol == "classic":  # the same generation (KIP-848's member epochs move on their own)
        assert {g for g, _ in after.values()} == {g for g, _ in before.values()}
    assert epoch_after == described.group_epoch  # consumer protocol: the group epoch (else None)
    counts = Counter((p, o) for p, o, _ in handled)
    assert set(counts) == acked and producer.failed == 0
    assert [k for k, n in counts.items() if n > 1] == [], "records handled twice"
    assert {i for _, _, i in handled} == ids  # each worker handled records
    owner = {p: i for i, (_, parts) in before.items() for p in parts}
    assert all(owner[p] == i for p, _, i in handled), "a record handled by a worker not its owner"
    ends = Counter(p for p, _ in acked)
    committed = await committed_offsets(bootstrap, group)
    assert {p: o for p, o in committed.items() if o >= 0} == {
        p: max(o for q, o in acked if q == p) + 1 for p in ends
    }  # fmt: skip
