"""Issue 41: after every SyncGroup the classic engine hands the member's own assignment (its
partitions, the user data its leader planned for it, the version the leader wrote) to its
assignor (``DeliverAssignment``), after the rebalance's revocations and before the application
hears of the partitions, as Java's ``onJoinComplete`` calls ``ConsumerPartitionAssignor
.onAssignment``. No broker: the engine's actions only."""

from __future__ import annotations

from assignors import MemberAssignment
from staticconsumer.events import GroupJoined, PartitionsAssigned
from staticconsumer.membership import (
    Assign,
    AssignmentComputed,
    ClassicMember,
    DeliverAssignment,
    Emit,
    JoinGroupAnswered,
    JoinRequested,
    MemberState,
    RaiseError,
    RebalanceProtocol,
    Revoke,
    SendSyncGroup,
    SyncGroupAnswered,
    encode_assignments,
)
from staticconsumer.protocol import (
    Assignment,
    ErrorCode,
    JoinGroupMember,
    TopicPartitions,
    decode_assignment,
    encode_assignment,
    group_partitions,
)

from .test_classic_member import T0, TOPICS, joined, kinds, new_member, stable


def sync_answer(*tps: tuple[str, int], user_data: bytes | None, version: int = 3) -> bytes:
    planned = Assignment(partitions=group_partitions(sorted(tps)), user_data=user_data)
    return encode_assignment(planned, version)


def delivered(actions: list[object]) -> list[DeliverAssignment]:
    return [a for a in actions if isinstance(a, DeliverAssignment)]


def test_a_follower_hands_its_assignor_its_partitions_user_data_and_version() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined(generation=7))
    answer = sync_answer(("t", 1), ("t", 0), user_data=b"for i-0")
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, answer)))
    mine = MemberAssignment((("t", 0), ("t", 1)), b"for i-0", 3)
    assert delivered(actions) == [DeliverAssignment("p", 7, mine)]
    # Before the application hears of the partitions (Java: onAssignment, then the listener).
    order = kinds(actions)
    assert order.index(DeliverAssignment) < order.index(Assign)
    assert [a.kind for a in actions[order.index(DeliverAssignment) :] if isinstance(a, Emit)] == [
        PartitionsAssigned
    ]


def test_the_leader_gets_its_own_assignment_from_sync_group_not_from_its_plan() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    people = (JoinGroupMember("m-1", "i-0", b""), JoinGroupMember("m-2", "i-1", b""))
    member.handle(JoinGroupAnswered(ErrorCode.NONE, 4, "m-1", "p", "m-1", False, people))
    plan = (
        ("m-1", sync_answer(("t", 0), user_data=b"for i-0")),
        ("m-2", sync_answer(("t", 1), user_data=b"for i-1")),
    )
    assert member.handle(AssignmentComputed(plan)) == [SendSyncGroup(4, "m-1", "p", plan)]
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, plan[0][1])))
    assert delivered(actions) == [
        DeliverAssignment("p", 4, MemberAssignment((("t", 0),), b"for i-0", 3))
    ]


def test_no_user_data_and_an_older_version_arrive_as_written() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined())
    answer = sync_answer(("t", 0), user_data=None, version=0)  # plain aiokafka's leader
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, answer)))
    assert delivered(actions) == [DeliverAssignment("p", 1, MemberAssignment((("t", 0),), b"", 0))]


def test_an_empty_assignment_is_delivered_too() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined())
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, sync_answer(user_data=b"x"))))
    assert delivered(actions) == [DeliverAssignment("p", 1, MemberAssignment((), b"x", 3))]


def test_cooperative_delivers_the_whole_assignment_after_the_revocation() -> None:
    member = new_member(protocol=RebalanceProtocol.COOPERATIVE)
    stable(member, ("t", 0), ("t", 1))
    member.handle(JoinRequested("metadata"))
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined(generation=2))
    answer = sync_answer(("t", 1), ("t", 2), user_data=b"gen 2")
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, answer)))
    order = kinds(actions)
    assert order.index(Revoke) < order.index(DeliverAssignment) < order.index(Assign)
    assert delivered(actions) == [
        DeliverAssignment("p", 2, MemberAssignment((("t", 1), ("t", 2)), b"gen 2", 3))
    ]
    assert actions[-1] == Assign((("t", 1), ("t", 2)), (("t", 2),))


def test_a_static_rejoin_that_is_handed_the_same_assignment_delivers_it_again() -> None:
    """A restarted static member whose metadata is unchanged: the coordinator answers its
    SyncGroup with the stored assignment, and the new process's assignor must learn it."""
    member = new_member()
    first = stable(member, ("t", 0), generation=3)
    assert [d.assignment.partitions for d in delivered(first)] == [(("t", 0),)]
    member.handle(JoinRequested("metadata"))
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined(generation=3))
    answer = sync_answer(("t", 0), user_data=b"stored")
    again = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, answer)))
    assert delivered(again) == [
        DeliverAssignment("p", 3, MemberAssignment((("t", 0),), b"stored", 3))
    ]
    assert [a.kind for a in again if isinstance(a, Emit)] == [GroupJoined, PartitionsAssigned]


def test_an_undecodable_assignment_delivers_nothing() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined())
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, b"\x00")))
    assert kinds(actions) == [RaiseError] and member.state is MemberState.UNJOINED


def test_a_failed_sync_delivers_nothing() -> None:
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined())
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.REBALANCE_IN_PROGRESS)))
    assert delivered(actions) == []


def test_the_delivered_assignment_matches_what_the_member_then_owns() -> None:
    member: ClassicMember = new_member()
    actions = stable(member, ("t", 2), ("t", 0))
    (delivery,) = delivered(list(actions))
    assert delivery.assignment.partitions == member.owned == (("t", 0), ("t", 2))


def test_the_partitions_arrive_in_the_order_the_leader_listed_them() -> None:
    """faust's assignor compares the partitions it receives with the ones it planned, in
    order; the member's own holdings stay sorted."""
    member = new_member()
    member.poll(T0, TOPICS, 0.0)
    member.handle(joined())
    listed = Assignment(partitions=(TopicPartitions("u", (3, 0)), TopicPartitions("t", (1,))))
    actions = list(member.handle(SyncGroupAnswered(ErrorCode.NONE, encode_assignment(listed))))
    (delivery,) = delivered(actions)
    assert delivery.assignment.partitions == (("u", 3), ("u", 0), ("t", 1))
    assert member.owned == (("t", 1), ("u", 0), ("u", 3))


def test_the_leader_writes_a_plans_partitions_in_the_order_listed() -> None:
    plan = {"m": MemberAssignment((("u", 3), ("t", 1), ("u", 0)), b"d")}
    written = decode_assignment(encode_assignments(plan)["m"])
    assert written == Assignment(
        partitions=(TopicPartitions("u", (3, 0)), TopicPartitions("t", (1,))), user_data=b"d"
    )
