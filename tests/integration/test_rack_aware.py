"""Rack-aware range assignment (KIP-881) end to end: broker racks -> leader -> RangeAssignor.

The real-broker test runs its own 3-node cluster, one ``broker.rack`` per node, and a topic whose
partitions each live on one node (replication factor 1). Three StaticConsumers with
``client_rack=`` set must end with Java's rack-aware range plan, which here differs from the plain
range plan. The unit tests above it pin the leader's seams without a broker.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.cluster import ClusterMetadata
from aiokafka.protocol.metadata import MetadataResponse_v1

from assignors import Member, MemberAssignment, RangeAssignor, assign_range
from staticconsumer import _compat
from staticconsumer.localkafka import LocalKafkaCluster, create_topic
from staticconsumer.membership import _plan as m
from staticconsumer.protocol import Subscription, decode_assignment
from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG

from ._fetch_paths import started_cluster
from ._group import start_member, wait_stable

RACKS = {1: "rack-a", 2: "rack-b", 3: "rack-c"}  # node id -> broker.rack

# -- the leader's seams, no broker -----------------------------------------------------------------


def test_replica_racks_reads_aiokafka_cluster_metadata() -> None:
    """An aiokafka upgrade that moves replicas or broker racks fails here, loudly."""
    cluster = ClusterMetadata()
    brokers = [(1, "h", 1, "rack-a"), (2, "h", 2, "rack-b"), (3, "h", 3, None)]
    partitions = [
        (0, 0, 1, [1, 2], [1]),  # every replica counts, in sync or not
        (0, 1, 3, [3], [3]),  # a broker without broker.rack adds no rack
        (0, 2, 2, [2, 9], [2]),  # an unknown broker adds no rack
    ]
    cluster.update_metadata(MetadataResponse_v1(brokers, 1, [(0, "t", False, partitions)]))
    assert _compat.replica_racks(cluster, ["t", "absent"]) == {
        ("t", 0): {"rack-a", "rack-b"},
        ("t", 1): frozenset(),
        ("t", 2): {"rack-b"},
    }


class _PreRackRange(RangeAssignor):
    """An ``assign_group`` written before ``partition_racks`` was part of the contract."""

    def assign_group(  # type: ignore[override]
        self, members: Sequence[Member], partitions_per_topic: Mapping[str, int]
    ) -> dict[str, MemberAssignment]:
        return super().assign_group(members, partitions_per_topic)


class _PrePlanRange(RangeAssignor):
    """A ``plan`` override written before ``partition_racks`` was part of the contract."""

    def plan(  # type: ignore[override]
        self, members: Sequence[Member], partitions_per_topic: Mapping[str, int]
    ) -> dict[str, list[tuple[str, int]]]:
        return assign_range(members, partitions_per_topic)


class _KwargsRange(RangeAssignor):
    def assign_group(self, *args: Any, **kwargs: Any) -> dict[str, MemberAssignment]:
        return super().assign_group(*args, **kwargs)


def _decoded(racks: Mapping[str, str | None]) -> dict[str, tuple[str | None, Subscription]]:
    return {
        f"member-{iid}": (iid, Subscription(topics=("t",), rack_id=rack))
        for iid, rack in racks.items()
    }


def _partitions(encoded: Mapping[str, bytes]) -> dict[str, list[int]]:
    return {
        member_id: sorted(p for _t, p in decode_assignment(data).topic_partitions)
        for member_id, data in encoded.items()
    }


def test_leader_always_passes_partition_racks() -> None:
    """One GroupAssignor contract (issue 11): ``partition_racks`` is always passed, replica racks
    when some member has a rack, None otherwise; an override without the keyword fails loudly
    rather than planning without racks in silence."""
    decoded = _decoded({"a": "rack-y", "b": "rack-x"})
    racks = {("t", 0): {"rack-x"}, ("t", 1): {"rack-y"}}
    rack_aware = {"member-a": [1], "member-b": [0]}
    plain = {"member-a": [0], "member-b": [1]}
    assert m.any_member_rack(decoded)
    assert not m.any_member_rack(_decoded({"a": None, "b": ""}))
    for assignor in (RangeAssignor(), _KwargsRange()):
        planned = m.plan_with_group_assignor(assignor, decoded, {"t": 2}, partition_racks=racks)
        assert _partitions(planned) == rack_aware, type(assignor).__name__
        unracked = m.plan_with_group_assignor(assignor, decoded, {"t": 2})
        assert _partitions(unracked) == plain, type(assignor).__name__
    for old in (_PreRackRange(), _PrePlanRange()):
        with pytest.raises(TypeError, match="partition_racks"):
            m.plan_with_group_assignor(old, decoded, {"t": 2})


# -- the real thing: 3 brokers on 3 racks ----------------------------------------------------------


@pytest.fixture(scope="module")
def rack_cluster() -> Iterator[LocalKafkaCluster]:
    yield from started_cluster(
        DEFAULT_TEST_BROKER_CONFIG, {node: {"broker.rack": rack} for node, rack in RACKS.items()}
    )


async def _racks_from_cluster(bootstrap: str, topic: str) -> dict[tuple[str, int], set[str]]:
    """Replica racks read through aiokafka's public admin API (not the leader's seam)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        brokers = (await admin.describe_cluster())["brokers"]
        (described,) = await admin.describe_topics([topic])
    finally:
        await admin.close()
    rack_of = {b["node_id"]: b["rack"] for b in brokers}
    return {
        (topic, p["partition"]): {rack_of[r] for r in p["replicas"] if rack_of.get(r)}
        for p in described["partitions"]
    }


async def test_static_consumers_get_javas_rack_aware_range_plan(
    rack_cluster: LocalKafkaCluster,
) -> None:
    bootstrap = rack_cluster.bootstrap_servers
    topic, group = f"racks-{uuid.uuid4().hex[:8]}", f"racks-{uuid.uuid4().hex[:8]}"
    # Partition p lives on node p % 3 + 1 only: p0 rack-a, p1 rack-b, p2 rack-c, p3 rack-a, ...
    await create_topic(bootstrap, topic, replica_assignment={p: [p % 3 + 1] for p in range(6)})
    racks = await _racks_from_cluster(bootstrap, topic)
    assert racks == {(topic, p): {RACKS[p % 3 + 1]} for p in range(6)}, "broker.rack per node"

    # Instance ids sort m0 < m1 < m2; plain range gives m0 [0, 1], m1 [2, 3], m2 [4, 5], which
    # mixes racks. Rack-aware, each member takes the two partitions on its own rack.
    member_racks = {"m0": "rack-a", "m1": "rack-b", "m2": "rack-c"}
    plain_members = [Member(iid, iid, [topic], rack=rack) for iid, rack in member_racks.items()]
    want = assign_range(plain_members, {topic: 6}, partition_racks=racks)
    rackless = assign_range(plain_members, {topic: 6})
    assert want != rackless, "the test must tell rack-aware from plain range"

    members = []
    try:
        for iid, rack in member_racks.items():
            members.append(
                await start_member(topic, bootstrap, group, iid, client_rack=rack,
                                   partition_assignment_strategy=(RangeAssignor(),))
            )  # fmt: skip
        await wait_stable(members, 6)
        got = {
            iid: sorted((tp.topic, tp.partition) for tp in member.consumer.assignment())
            for iid, member in zip(member_racks, members, strict=True)
        }
    finally:
        await asyncio.gather(*(member.stop() for member in members))
    assert got == want
    for iid, partitions in got.items():
        assert partitions, iid
        for tp in partitions:
            assert member_racks[iid] in racks[tp], (iid, tp)
    assert got != {iid: list(p) for iid, p in rackless.items()}


async def test_create_topic_returns_only_once_every_broker_serves_the_topic(
    rack_cluster: LocalKafkaCluster,
) -> None:
    """The race behind a flaky run: ``create_topic`` returned when one broker knew the topic, and
    ``describe_topics`` answered by another broker saw no partitions. Made certain here: broker 3
    is paused (SIGSTOP) while the topic is created through broker 1, so it cannot know the topic;
    ``create_topic`` must still be waiting when broker 3 resumes, and broker 3 must then serve
    every partition as soon as ``create_topic`` returns."""
    first, lagging = rack_cluster.broker(1), rack_cluster.broker(3)
    assert lagging.pid is not None
    topic = f"meta-{uuid.uuid4().hex[:8]}"
    assignment = {p: [p % 3 + 1] for p in range(6)}
    os.kill(lagging.pid, signal.SIGSTOP)
    try:
        creating = asyncio.create_task(
            create_topic(first.address, topic, replica_assignment=assignment)
        )
        await asyncio.wait({creating}, timeout=3)
        waited = not creating.done()
    finally:
        os.kill(lagging.pid, signal.SIGCONT)
    await creating
    assert waited, "create_topic returned while broker 3 could not know the topic"
    admin = AIOKafkaAdminClient(bootstrap_servers=lagging.address)
    await admin.start()
    try:
        (described,) = await admin.describe_topics([topic])
    finally:
        await admin.close()
    assert len(described["partitions"]) == 6, described
