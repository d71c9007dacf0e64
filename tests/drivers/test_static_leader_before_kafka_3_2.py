"""Before Kafka 3.2 (KIP-814) a static leader that re-joins a stable group is not told it leads:
the coordinator names its previous member id as leader and sends no members (measured on 2.8.2;
tests/matrix checks it on the broker). The member then watches its topics' partition counts as
the leader would, so that added partitions start the rebalance that names it leader."""

from __future__ import annotations

import pytest

from staticconsumer import MembershipState
from staticconsumer.drivers.classic import replaced_leader
from staticconsumer.protocol import JoinGroupResult

from ._fakes import TOPIC, FakeCoordinator, ScriptedAssignor, classic_harness, wait_for

OLD = "i-0-0b0e6b5e-3c1d-4c41-9a49-4a5b0f7e2b11"
NEW = "i-0-7d3f5a2c-9e8b-4f6a-b1c2-d3e4f5a6b7c8"


def answer(leader: str, member_id: str = NEW, members: tuple[object, ...] = ()) -> JoinGroupResult:
    return JoinGroupResult(0, 3, "consumer", "range", leader, False, member_id,
                           members)  # type: ignore[arg-type]  # fmt: skip


@pytest.mark.parametrize(
    ("result", "instance_id", "expected"),
    [
        (answer(OLD), "i-0", True),  # our former self leads: pre-KIP-814
        (answer(NEW), "i-0", False),  # we lead, and are told so
        (answer(OLD.replace("i-0-", "i-1-")), "i-0", False),  # another member leads
        (answer("i-0-x" + OLD[3:]), "i-0", False),  # another instance id that starts like ours
        (answer(OLD.replace("i-0-", "i-01-")), "i-0", False),
        (answer(OLD, members=(object(),)), "i-0", False),  # a leader's answer, with members
        (answer(OLD), None, False),  # a dynamic member
    ],
)
def test_the_pre_kip_814_answer_is_recognised(
    result: JoinGroupResult, instance_id: str | None, expected: bool
) -> None:
    assert replaced_leader(result, instance_id) is expected


async def test_an_unannounced_static_leader_watches_its_topics_and_leads_on_a_change() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=FakeCoordinator(former_leader=OLD))
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    assert not h.driver.sender.is_leader
    assert h.seam.watched == {TOPIC}, "watches as the leader would"
    h.driver.on_metadata_change()  # aiokafka: a watched topic's partition count changed
    await wait_for(lambda: len(h.coordinator.sent("JOIN_GROUP")) == 2, "a re-join")
    await wait_for(lambda: h.driver.sender.is_leader, "named leader by the rebalance")
    await h.driver.close()


async def test_a_follower_watches_nothing() -> None:
    another = FakeCoordinator(former_leader=OLD.replace("i-0-", "i-1-"))
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=another)
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    assert h.seam.watched is None
    await h.driver.close()
