"""Issue 41: the classic driver hands each member's own assignment (partitions, the user data
its leader planned for it, the version) to its assignor's optional ``on_assignment`` hook,
before the rebalance listener hears of the partitions; a hook that raises does not stop the
assignment, its error reaches the application's next poll once, and the member heartbeats on.
The real driver over the fake seam and coordinator (no broker)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from assignors import AssignmentReceiver, MemberAssignment
from staticconsumer import MembershipState, StaticConsumerError
from staticconsumer._compat import AiokafkaGroupAssignor
from staticconsumer.drivers.mailbox import Mailbox
from staticconsumer.membership import LogIdentity

from ..compat.test_assignors import OrderRecorder
from ._fakes import TOPIC, ScriptedAssignor, classic_harness, owned, wait_for


class Planned(ScriptedAssignor):
    """Plans every partition for the one member, with user data naming its instance id; its
    hook records what it got and how many listener calls had been made by then."""

    def __init__(self, name: str = "scripted") -> None:
        super().__init__((0, 1, 2))
        self.name = name
        self.received: list[tuple[MemberAssignment, int, int]] = []
        self.listener_calls: list[Any] = []
        self.raises: Exception | None = None

    def assign_group(self, members: Any, partitions_per_topic: Any, *,
                     partition_racks: Any = None) -> dict[str, MemberAssignment]:  # fmt: skip
        plan = super().assign_group(members, partitions_per_topic)
        member = members[0]
        mine = plan[member.member_id]
        data = f"for {member.group_instance_id}".encode()
        return {member.member_id: MemberAssignment(mine.partitions, data)}

    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        self.received.append((assignment, generation, len(self.listener_calls)))
        if self.raises is not None:
            raise self.raises


async def test_the_hook_gets_the_members_assignment_before_the_listener() -> None:
    assignor = Planned()
    assert isinstance(assignor, AssignmentReceiver)
    h = classic_harness(assignor)
    assignor.listener_calls = h.seam.listener_object.calls  # type: ignore[union-attr]
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    everything = tuple((TOPIC, p) for p in range(3))
    assert len(assignor.received) == 1
    assignment, generation, calls_before = assignor.received[0]
    assert (assignment, generation) == (MemberAssignment(everything, b"for i-0", 3), 1)
    # Eager: the listener heard of the (empty) revocation before the join, then of the
    # partitions only after the hook ran.
    assert assignor.listener_calls[calls_before:] == [("assigned", frozenset(everything))]
    await h.driver.close()


async def test_only_the_assignor_the_coordinator_chose_hears_of_the_assignment() -> None:
    chosen, other = Planned("first"), Planned("second")
    h = classic_harness(chosen, also_offered=(other,))  # offered second
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    assert len(chosen.received) == 1 and other.received == []
    await h.driver.close()


async def test_a_hook_that_raises_reaches_the_next_poll_once_and_the_assignment_stands() -> None:
    assignor = Planned()
    assignor.raises = AssertionError("not my url")
    h = classic_harness(assignor)
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    assert owned(h.driver.owned) == {0, 1, 2}, "the assignment is not held back"
    assert h.seam.listener_object.calls[-1][0] == "assigned"  # type: ignore[union-attr]
    with pytest.raises(StaticConsumerError, match=r"on_assignment failed.*not my url") as raised:
        h.driver.check_errors()
    assert isinstance(raised.value.__cause__, AssertionError)
    h.driver.check_errors()  # raised once
    # The member heartbeats on (the error did not hold the coordination loop).
    sent = len(h.coordinator.sent("HEARTBEAT"))
    await wait_for(lambda: len(h.coordinator.sent("HEARTBEAT")) >= sent + 2, "heartbeats")
    assert not h.fatal and h.driver.membership_state() is MembershipState.STABLE
    await h.driver.close()


async def test_a_hook_error_does_not_wait_for_the_application_to_poll() -> None:
    """Nobody polls here: the assignment and the heartbeats go on while the error waits."""
    assignor = Planned()
    assignor.raises = ValueError("bad user data")
    h = classic_harness(assignor)
    h.driver.start()
    await wait_for(lambda: len(h.coordinator.sent("HEARTBEAT")) >= 2, "heartbeats, unpolled")
    assert h.driver.mailbox.attention, "the error is waiting for the application's next poll"
    with pytest.raises(StaticConsumerError, match="bad user data"):
        h.driver.check_errors()
    await h.driver.close()


async def test_an_aiokafka_assignor_leads_and_hears_of_its_own_plan_through_the_adapter() -> None:
    """The classic driver runs a user's AbstractPartitionAssignor through the adapter: its
    metadata() is the subscription's user data, its plan goes out, and its on_assignment
    (then on_generation_assignment) gets the member's assignment as aiokafka decodes it."""
    user = OrderRecorder(tag=b"my metadata")
    h = classic_harness(AiokafkaGroupAssignor(user))  # type: ignore[arg-type]
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    assert user.seen == [h.driver.member_id] and user.user_data == {
        h.driver.member_id: b"my metadata"
    }
    (got,) = user.received
    assert got.assignment == [(TOPIC, [2, 1, 0])] and got.user_data == b"#0 of 1"
    assert got.version == 3 and user.generations == [1]
    assert owned(h.driver.owned) == {0, 1, 2}
    await h.driver.close()


# -- the mailbox: an error posted without waiting keeps its place ---------------------------------


class _Engine:
    fatal_error = None


class _Seam:
    def __init__(self) -> None:
        self.wakes: list[Exception] = []

    def abort_waiters(self, exc: Exception) -> None:
        self.wakes.append(exc)


def _mailbox(closing: asyncio.Event) -> Mailbox:
    member_log = LogIdentity("g", "i-0", "c", lambda: "m").logger(logging.getLogger(__name__))
    return Mailbox(_Engine(), _Seam(), member_log, loop_failure=lambda: None,  # type: ignore[arg-type]
                   closing=closing.wait)  # fmt: skip


async def test_an_error_posted_after_one_posted_without_waiting_is_raised_second() -> None:
    mailbox = _mailbox(asyncio.Event())
    first, second, dropped = ValueError("first"), ValueError("second"), ValueError("dropped")
    mailbox.post_nowait(first)
    mailbox.post_nowait(dropped)  # while one is pending: logged, not raised
    posting = asyncio.create_task(mailbox.post(second))
    await asyncio.sleep(0.01)
    assert not posting.done(), "post waits for the pending error to be raised first"
    with pytest.raises(ValueError, match="first"):
        mailbox.check()
    await asyncio.sleep(0.01)
    with pytest.raises(ValueError, match="second"):
        mailbox.check()
    await asyncio.wait_for(posting, 1)
    mailbox.check()  # nothing left: "dropped" was never pending


async def test_a_post_behind_a_pending_error_returns_on_close() -> None:
    closing = asyncio.Event()
    mailbox = _mailbox(closing)
    mailbox.post_nowait(ValueError("pending"))
    posting = asyncio.create_task(mailbox.post(ValueError("later")))
    await asyncio.sleep(0.01)
    closing.set()
    await asyncio.wait_for(posting, 1)
