"""Our assignors as drop-in ``partition_assignment_strategy`` entries for plain aiokafka 0.14."""

from __future__ import annotations

from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka.cluster import ClusterMetadata
from aiokafka.coordinator.protocol import (
    ConsumerProtocol,
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)
from aiokafka.protocol.metadata import MetadataResponse_v0

from assignors import (
    Envelope,
    RangeAssignor,
    RosterAssignor,
    RoundRobinAssignor,
    StickyAssignor,
    decode_envelope,
    decode_sticky_user_data,
    for_aiokafka,
)


def cluster(counts: dict[str, int]) -> ClusterMetadata:
    metadata = ClusterMetadata()
    topics = [(0, t, [(0, p, 0, [0], [0]) for p in range(n)]) for t, n in counts.items()]
    metadata.update_metadata(MetadataResponse_v0([(0, "localhost", 9092)], topics))
    return metadata


def wire(metadata: Any) -> ConsumerProtocolMemberMetadata:
    """What the leader gets: the bytes aiokafka sends, decoded as aiokafka decodes them."""
    return ConsumerProtocol.METADATA.decode(metadata.encode())


def received(assignment: Any) -> ConsumerProtocolMemberAssignment:
    return ConsumerProtocol.ASSIGNMENT.decode(assignment.encode())


async def test_aiokafka_accepts_our_assignors() -> None:
    strategy = (
        for_aiokafka(StickyAssignor.for_instance("a")),
        for_aiokafka(RangeAssignor.for_instance("a")),
    )
    consumer = AIOKafkaConsumer(
        "t0", group_id="g", group_instance_id="a", partition_assignment_strategy=strategy
    )
    assert consumer._partition_assignment_strategy == strategy  # the tuple the coordinator uses
    assert [s.name for s in strategy] == ["sticky", "range"]


def test_leader_uses_instance_ids_from_user_data() -> None:
    # Member ids sort the other way round from instance ids: the plan must follow instance ids.
    followers = {"svc-0": "zzz-member", "svc-1": "aaa-member"}
    members = {
        member_id: wire(for_aiokafka(RangeAssignor.for_instance(instance)).metadata({"t0"}))
        for instance, member_id in followers.items()
    }
    leader = for_aiokafka(RangeAssignor.for_instance("svc-0"))
    plan = leader.assign(cluster({"t0": 4}), members)
    assert received(plan["zzz-member"]).partitions()[0].partition == 0
    assert sorted(tp.partition for tp in received(plan["zzz-member"]).partitions()) == [0, 1]
    assert sorted(tp.partition for tp in received(plan["aaa-member"]).partitions()) == [2, 3]
    # Without the envelope (dynamic members) the member ids decide.
    dynamic = {m: wire(for_aiokafka(RangeAssignor()).metadata({"t0"})) for m in followers.values()}
    plan = for_aiokafka(RangeAssignor()).assign(cluster({"t0": 4}), dynamic)
    assert sorted(tp.partition for tp in received(plan["aaa-member"]).partitions()) == [0, 1]


def test_topics_without_metadata_are_skipped() -> None:
    members = {"m": wire(for_aiokafka(RoundRobinAssignor()).metadata({"t0", "missing"}))}
    plan = for_aiokafka(RoundRobinAssignor()).assign(cluster({"t0": 2}), members)
    assert [(tp.topic, tp.partition) for tp in received(plan["m"]).partitions()] == [
        ("t0", 0),
        ("t0", 1),
    ]


def test_sticky_round_trip_through_aiokafka_structs_stays_sticky() -> None:
    consumers = {
        f"m{i}": for_aiokafka(StickyAssignor.for_instance(f"svc-{i}")) for i in range(3)
    }
    metadata = cluster({"t0": 6, "t1": 3})

    def rebalance(present: list[str]) -> dict[str, set[tuple[str, int]]]:
        members = {m: wire(consumers[m].metadata({"t0", "t1"})) for m in present}
        plan = consumers[present[0]].assign(metadata, members)
        out = {}
        for member_id, assignment in plan.items():
            consumers[member_id].on_assignment(received(assignment))
            out[member_id] = {(tp.topic, tp.partition) for tp in received(assignment).partitions()}
        return out

    first = rebalance(["m0", "m1", "m2"])
    assert sorted(len(p) for p in first.values()) == [3, 3, 3]
    # The subscription now carries owned partitions and the leader-issued generation.
    data = wire(consumers["m1"].metadata({"t0", "t1"})).user_data
    assert set(decode_sticky_user_data(data).owned_partitions) == first["m1"]
    assert decode_envelope(data) == Envelope("svc-1", 0)
    second = rebalance(["m0", "m2"])  # m1 leaves: only its partitions move
    assert first["m0"] <= second["m0"] and first["m2"] <= second["m2"]
    assert decode_envelope(wire(consumers["m0"].metadata({"t0"})).user_data) == Envelope("svc-0", 1)


def test_two_consumers_in_one_process_do_not_share_state() -> None:
    a = for_aiokafka(StickyAssignor.for_instance("a"))
    b = for_aiokafka(StickyAssignor.for_instance("a"))
    assert a is not b
    assignment = ConsumerProtocolMemberAssignment(0, [("t0", [0, 1])], b"")
    a.on_assignment(assignment)
    assert decode_sticky_user_data(wire(a.metadata({"t0"})).user_data).owned_partitions == (
        ("t0", 0),
        ("t0", 1),
    )
    assert decode_sticky_user_data(wire(b.metadata({"t0"})).user_data).owned_partitions == ()
    z = StickyAssignor.for_instance("z")
    assert for_aiokafka(z) is not for_aiokafka(z)
    assert not [k for k in vars(StickyAssignor) if k.startswith("_owned")]


def test_roster_assignor_via_aiokafka() -> None:
    members = {
        f"m{i}": wire(for_aiokafka(RosterAssignor.for_instance(f"svc-{i}")).metadata({"t0"}))
        for i in (0, 2)
    }
    plan = for_aiokafka(RosterAssignor()).assign(cluster({"t0": 6}), members)
    got = {m: sorted(tp.partition for tp in received(a).partitions()) for m, a in plan.items()}
    assert got == {"m0": [0, 1, 2], "m2": [3, 4, 5]}  # nobody owns anything yet: balanced
