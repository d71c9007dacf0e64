"""aiokafka-style assignors under StaticConsumer (issue 41): ``AiokafkaGroupAssignor`` over
aiokafka's real types (no broker). Members reach ``assign`` in instance-id order; the cluster is
an aiokafka ``ClusterMetadata``; subscription user data goes in, each member's assignment user
data comes out, crosses the wire (our encoder and decoder) and reaches that member's
``on_assignment`` as aiokafka would decode it; aiokafka's own range and round-robin run too."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from aiokafka.cluster import ClusterMetadata
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from aiokafka.coordinator.protocol import (
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)
from hypothesis import given
from hypothesis import strategies as st

from assignors import AssignmentReceiver, Member, MemberAssignment, RangeAssignor
from assignors import RoundRobinAssignor as OurRoundRobin
from staticconsumer._compat import AiokafkaGroupAssignor
from staticconsumer._compat.assignors import PlanCluster
from staticconsumer.membership import encode_assignments
from staticconsumer.protocol import decode_assignment


class OrderRecorder(AbstractPartitionAssignor):
    """A user's own assignor: remembers the member order it saw, the topics' partitions and
    each member's subscription user data; plans round-robin in the order it is given, listing
    each member's partitions newest first, with user data naming the member's place; its member
    side keeps what it was told."""

    name = "recorder"

    def __init__(self, tag: bytes = b"") -> None:
        self.tag = tag
        self.seen: list[str] = []
        self.user_data: dict[str, bytes] = {}
        self.partitions: dict[str, set[int] | None] = {}
        self.metadata_topics: list[Any] = []
        self.received: list[Any] = []
        self.generations: list[int] = []

    def metadata(self, topics: Iterable[str]) -> ConsumerProtocolMemberMetadata:
        self.metadata_topics.append(topics)
        return ConsumerProtocolMemberMetadata(0, sorted(topics), self.tag)

    def assign(
        self, cluster: ClusterMetadata, members: Mapping[str, ConsumerProtocolMemberMetadata]
    ) -> dict[str, ConsumerProtocolMemberAssignment]:
        self.seen = list(members)
        self.user_data = {m: bytes(meta.user_data) for m, meta in members.items()}
        topics = sorted({t for meta in members.values() for t in meta.subscription})
        self.partitions = {t: cluster.partitions_for_topic(t) for t in topics}
        got: dict[str, list[int]] = {m: [] for m in members}
        order = list(members)
        for i, p in enumerate(sorted(cluster.partitions_for_topic("t") or ())):
            got[order[i % len(order)]].append(p)
        return {
            m: ConsumerProtocolMemberAssignment(
                0, [("t", sorted(got[m], reverse=True))], f"#{i} of {len(order)}".encode()
            )
            for i, m in enumerate(order)
        }

    def on_assignment(self, assignment: ConsumerProtocolMemberAssignment) -> None:
        self.received.append(assignment)

    def on_generation_assignment(self, generation: int) -> None:
        self.generations.append(generation)


def static(instance_id: str, member_id: str | None = None, data: bytes = b"") -> Member:
    return Member(member_id or f"{instance_id}-{uuid.uuid4()}", instance_id, ["t"], user_data=data)


def test_members_reach_assign_in_instance_id_order_then_dynamic_ones_by_member_id() -> None:
    members = [
        Member("c-2", None, ["t"]),
        static("svc-10", "svc-10-0"),
        static("svc-2", "svc-2-f"),
        Member("a-9", None, ["t"]),
        static("svc-1", "svc-1-z"),
    ]
    recorder = OrderRecorder()
    AiokafkaGroupAssignor(recorder).assign_group(members, {"t": 5})
    # Java's order: static members by instance id (as strings: svc-1 < svc-10 < svc-2), then
    # dynamic members by member id. Whatever order the members came in.
    assert recorder.seen == ["svc-1-z", "svc-10-0", "svc-2-f", "a-9", "c-2"]
    assert recorder.partitions == {"t": {0, 1, 2, 3, 4}}


def test_subscription_user_data_goes_in_and_each_members_assignment_user_data_comes_out() -> None:
    members = [static("b", data=b"from b"), static("a", data=b"from a")]
    recorder = OrderRecorder()
    plan = AiokafkaGroupAssignor(recorder).assign_group(members, {"t": 4})
    a, b = (m.member_id for m in sorted(members, key=lambda m: m.group_instance_id or ""))
    assert recorder.user_data == {a: b"from a", b: b"from b"}
    # Partitions as the assignor listed them (newest first), its user data per member.
    assert plan == {
        a: MemberAssignment((("t", 2), ("t", 0)), b"#0 of 2"),
        b: MemberAssignment((("t", 3), ("t", 1)), b"#1 of 2"),
    }


def test_each_member_receives_what_the_leader_planned_for_it_as_aiokafka_decodes_it() -> None:
    """Leader's plan -> our SyncGroup bytes -> the member's decode -> its on_assignment: the
    same ``assignment`` list (order kept: faust compares it) and user data aiokafka's own
    decoder would give, the version the leader wrote, and the generation."""
    members = [static("a"), static("b")]
    leader = OrderRecorder()
    plan = AiokafkaGroupAssignor(leader).assign_group(members, {"t": 5})
    planned = leader.assign(PlanCluster({"t": 5}), {
        m.member_id: ConsumerProtocolMemberMetadata(0, ["t"], b"") for m in members
    })  # fmt: skip
    for member_id, data in encode_assignments(plan).items():
        follower = OrderRecorder()
        received = decode_assignment(data)
        hook = AiokafkaGroupAssignor(follower)
        hook.on_assignment(
            MemberAssignment(received.topic_partitions, received.user_data or b"", 3), 7
        )
        (got,) = follower.received
        assert isinstance(got, ConsumerProtocolMemberAssignment)
        assert got.assignment == planned[member_id].assignment  # [("t", [4, 2, 0])]: as listed
        assert got.user_data == planned[member_id].user_data
        assert got.version == 3 and follower.generations == [7]
        assert ConsumerProtocolMemberAssignment.decode(data) == got, "aiokafka's own decode"


def test_the_join_carries_what_metadata_returns() -> None:
    recorder = OrderRecorder(tag=b"my url")
    adapted = AiokafkaGroupAssignor(recorder)
    assert adapted.subscription_user_data(["u", "t"], [("t", 0)], 4) == b"my url"
    assert recorder.metadata_topics == [{"t", "u"}], "a set of topics, as aiokafka passes"
    assert isinstance(adapted, AssignmentReceiver) and adapted.name == "recorder"


def test_an_assignor_without_on_generation_assignment_gets_on_assignment_alone() -> None:
    adapted = AiokafkaGroupAssignor(RangePartitionAssignor)
    adapted.on_assignment(MemberAssignment((("t", 0),), b"", 3), 2)  # nothing else to call


class _Broken(OrderRecorder):
    def __init__(self, answer: Any) -> None:
        super().__init__()
        self.answer = answer

    def assign(self, cluster: Any, members: Any) -> Any:
        return self.answer(list(members))

    def metadata(self, topics: Iterable[str]) -> Any:
        return self.answer([])


@pytest.mark.parametrize(("answer", "words"), [
    (lambda ids: {ids[0]: ConsumerProtocolMemberAssignment(0, [], b"")}, "left out ["),
    (lambda ids: {**{i: ConsumerProtocolMemberAssignment(0, [], b"") for i in ids},
                  "stranger": ConsumerProtocolMemberAssignment(0, [], b"")},
     "not in the group ['stranger']"),
    (lambda ids: [], "returned list, not a dict"),
])  # fmt: skip
def test_a_plan_that_is_not_one_per_member_is_refused(answer: Any, words: str) -> None:
    with pytest.raises(ValueError, match="assign") as caught:
        AiokafkaGroupAssignor(_Broken(answer)).assign_group([static("a"), static("b")], {"t": 2})
    assert words in str(caught.value)


def test_metadata_that_is_no_member_metadata_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="ConsumerProtocolMemberMetadata"):
        AiokafkaGroupAssignor(_Broken(lambda _ids: b"raw")).subscription_user_data(["t"], [], -1)


def test_the_plan_cluster_is_aiokafkas_cluster_metadata_from_partition_counts() -> None:
    cluster = PlanCluster({"t": 3, "empty": 0})
    assert isinstance(cluster, ClusterMetadata)
    assert cluster.partitions_for_topic("t") == {0, 1, 2}
    assert cluster.available_partitions_for_topic("t") == {0, 1, 2}
    assert cluster.partitions_for_topic("empty") == set()
    assert cluster.partitions_for_topic("absent") is None
    assert cluster.topics() == {"t", "empty"}


# -- aiokafka's own range and round-robin under the adapter ---------------------------------------

ALIKE = {"range": (RangePartitionAssignor, RangeAssignor), "roundrobin": (
    RoundRobinPartitionAssignor, OurRoundRobin)}  # fmt: skip
INSTANCE_IDS = st.lists(
    st.from_regex(r"[a-z]{1,3}-[0-9]{1,2}", fullmatch=True), min_size=1, max_size=6, unique=True
)


def _owned(plan: Mapping[str, MemberAssignment], members: list[Member]) -> dict[str, set[Any]]:
    ids = {m.member_id: m.group_instance_id for m in members}
    return {str(ids[m]): set(a.partitions) for m, a in plan.items()}


@pytest.mark.parametrize("name", sorted(ALIKE))
@given(ids=INSTANCE_IDS, partitions=st.integers(0, 12), restarted=st.integers(0, 5))
def test_aiokafkas_own_assignors_keep_a_restarted_static_members_partitions(
    name: str, ids: list[str], partitions: int, restarted: int
) -> None:
    """Static members' ids are ``<instance id>-<uuid>``: aiokafka's range and round-robin (they
    sort member ids) plan by instance id under the adapter, so a restart (a new uuid) moves
    nothing, and the plan is this project's Java-exact plan. (No id here is another followed
    by ``-``: the module docstring's exception.)"""
    theirs, ours = ALIKE[name]
    counts = {"t": partitions}
    members = [static(i) for i in ids]
    before = _owned(AiokafkaGroupAssignor(theirs).assign_group(members, counts), members)
    again = list(members)
    k = restarted % len(members)
    again[k] = static(ids[k])  # the same instance, a new member id
    after = _owned(AiokafkaGroupAssignor(theirs).assign_group(again, counts), again)
    assert after == before
    assert after == _owned(ours().assign_group(again, counts), again)


def test_the_documented_exception_an_id_that_is_another_followed_by_a_dash() -> None:
    """``svc`` and ``svc-a``: member ids ``svc-<uuid>`` and ``svc-a-<uuid>`` sort by the uuid's
    first character, so aiokafka's range (member-id order) can put ``svc-a`` first, unlike the
    instance-id order the adapter hands over and this project's range follows."""
    members = [static("svc", "svc-b0000000"), static("svc-a", "svc-a-00000000")]
    theirs = AiokafkaGroupAssignor(RangePartitionAssignor).assign_group(members, {"t": 2})
    ours = RangeAssignor().assign_group(members, {"t": 2})
    assert _owned(theirs, members) == {"svc": {("t", 1)}, "svc-a": {("t", 0)}}
    assert _owned(ours, members) == {"svc": {("t", 0)}, "svc-a": {("t", 1)}}
