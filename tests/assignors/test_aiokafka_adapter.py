"""Our assignors as drop-in ``partition_assignment_strategy`` entries for plain aiokafka 0.14."""

from __future__ import annotations

import re
from typing import Any

import pytest
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
    static_membership,
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
    # The broker names static members "<instance id>-<uuid>"; with instance ids "svc" and
    # "svc-a" the member ids sort the other way round: the plan must follow instance ids.
    followers = {"svc": "svc-zzz", "svc-a": "svc-a-aaa"}
    members = {
        member_id: wire(for_aiokafka(RangeAssignor.for_instance(instance)).metadata({"t0"}))
        for instance, member_id in followers.items()
    }
    leader = for_aiokafka(RangeAssignor.for_instance("svc"))
    plan = leader.assign(cluster({"t0": 4}), members)
    assert received(plan["svc-zzz"]).partitions()[0].partition == 0
    assert sorted(tp.partition for tp in received(plan["svc-zzz"]).partitions()) == [0, 1]
    assert sorted(tp.partition for tp in received(plan["svc-a-aaa"]).partitions()) == [2, 3]
    # Without the envelope (dynamic members) the member ids decide.
    dynamic = {m: wire(for_aiokafka(RangeAssignor(), dynamic_member=True).metadata({"t0"}))
               for m in followers.values()}  # fmt: skip
    plan = for_aiokafka(RangeAssignor(), dynamic_member=True).assign(cluster({"t0": 4}), dynamic)
    assert sorted(tp.partition for tp in received(plan["svc-a-aaa"]).partitions()) == [0, 1]


def test_topics_without_metadata_are_skipped() -> None:
    dynamic = for_aiokafka(RoundRobinAssignor(), dynamic_member=True)
    members = {"m": wire(dynamic.metadata({"t0", "missing"}))}
    plan = dynamic.assign(cluster({"t0": 2}), members)
    assert [(tp.topic, tp.partition) for tp in received(plan["m"]).partitions()] == [
        ("t0", 0),
        ("t0", 1),
    ]


def test_sticky_round_trip_through_aiokafka_structs_stays_sticky() -> None:
    consumers = {  # keyed by the member ids the broker gives: "<instance id>-<uuid>"
        f"svc-{i}-m": for_aiokafka(StickyAssignor.for_instance(f"svc-{i}")) for i in range(3)
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

    first = rebalance(["svc-0-m", "svc-1-m", "svc-2-m"])
    assert sorted(len(p) for p in first.values()) == [3, 3, 3]
    # The subscription now carries owned partitions and the leader-issued generation.
    data = wire(consumers["svc-1-m"].metadata({"t0", "t1"})).user_data
    assert set(decode_sticky_user_data(data).owned_partitions) == first["svc-1-m"]
    assert decode_envelope(data) == Envelope("svc-1", 0)
    second = rebalance(["svc-0-m", "svc-2-m"])  # svc-1 leaves: only its partitions move
    assert first["svc-0-m"] <= second["svc-0-m"] and first["svc-2-m"] <= second["svc-2-m"]
    envelope = decode_envelope(wire(consumers["svc-0-m"].metadata({"t0"})).user_data)
    assert envelope == Envelope("svc-0", 1)


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
        f"svc-{i}-m": wire(for_aiokafka(RosterAssignor.for_instance(f"svc-{i}")).metadata({"t0"}))
        for i in (0, 2)
    }
    plan = for_aiokafka(RosterAssignor.for_instance("svc-0")).assign(cluster({"t0": 6}), members)
    got = {m: sorted(tp.partition for tp in received(a).partitions()) for m, a in plan.items()}
    assert got == {"svc-0-m": [0, 1, 2], "svc-2-m": [3, 4, 5]}  # nobody owns anything: balanced


# -- one id for both halves: static_membership, and the refusals -------------------------------


async def test_static_membership_gives_the_consumer_and_its_assignors_one_id() -> None:
    kwargs = static_membership("svc-0", StickyAssignor, RangeAssignor.for_instance("svc-0"))
    consumer = AIOKafkaConsumer("t0", group_id="g", **kwargs)
    assert consumer._group_instance_id == "svc-0"
    strategy = consumer._partition_assignment_strategy
    assert [s.name for s in strategy] == ["sticky", "range"]
    assert [s.assignor.group_instance_id for s in strategy] == ["svc-0", "svc-0"]
    envelope = decode_envelope(wire(strategy[0].metadata({"t0"})).user_data)
    assert envelope is not None and envelope.group_instance_id == "svc-0"
    default = static_membership("svc-1")["partition_assignment_strategy"]
    assert [s.name for s in default] == ["range", "roundrobin"], "StaticConsumer's default"
    assert static_membership("svc-1")["partition_assignment_strategy"][0] is not default[0]


@pytest.mark.parametrize(
    ("instance_id", "words"),
    [
        (None, "needs the member's group.instance.id (KIP-345), got None"),
        ("", "needs the member's group.instance.id (KIP-345), got ''"),
        ("svc 0", "svc 0"),  # Kafka's rules: [a-zA-Z0-9._-] only
    ],
)  # fmt: skip
def test_static_membership_refuses_a_missing_or_invalid_id(
    instance_id: str | None, words: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        static_membership(instance_id, RangeAssignor)  # type: ignore[arg-type]


def test_static_membership_refuses_an_assignor_made_for_another_id_or_none() -> None:
    with pytest.raises(ValueError, match=r"was made for group_instance_id 'svc-0'.* same id"):
        static_membership("svc-1", RangeAssignor.for_instance("svc-0"))
    with pytest.raises(ValueError, match=r"was made for group_instance_id None"):
        static_membership("svc-1", RangeAssignor())
    with pytest.raises(ValueError, match=r"was made for group_instance_id 'svc-0'"):
        static_membership("svc-1", for_aiokafka(StickyAssignor.for_instance("svc-0")))
    with pytest.raises(ValueError, match=r"dict has no for_instance"):
        static_membership("svc-1", dict)


def test_an_assignor_without_instance_id_is_refused_unless_the_member_is_dynamic() -> None:
    """It would silently order this member by member id, new on every restart."""
    with pytest.raises(ValueError, match=r"order this member by its member id") as refused:
        for_aiokafka(RangeAssignor())
    assert "static_membership('<group.instance.id>', RangeAssignor)" in str(refused.value)
    assert for_aiokafka(RangeAssignor(), dynamic_member=True).name == "range"


def test_the_leader_refuses_members_whose_consumer_id_is_not_their_assignors() -> None:
    """The broker names a static member '<group.instance.id>-<uuid>': a subscription saying
    svc-0 from member svc-1-... (another id on its consumer) or from a dynamic member id (none
    on its consumer) is a consumer configured with two different ids."""
    sent = wire(for_aiokafka(RangeAssignor.for_instance("svc-0")).metadata({"t0"}))
    good = wire(for_aiokafka(RangeAssignor.for_instance("svc-2")).metadata({"t0"}))
    leader = for_aiokafka(RangeAssignor.for_instance("svc-2"))
    for member_id in ("svc-1-4f2c", "aiokafka-0.14.0-4f2c"):
        with pytest.raises(ValueError) as refused:
            leader.assign(cluster({"t0": 2}), {member_id: sent, "svc-2-77aa": good})
        text = str(refused.value)
        assert f"member {member_id!r} sent 'svc-0'" in text and "svc-2-77aa" not in text
        assert "static_membership" in text
    plan = leader.assign(cluster({"t0": 2}), {"svc-0-4f2c": sent, "svc-2-77aa": good})
    assert sorted(plan) == ["svc-0-4f2c", "svc-2-77aa"]
