"""Lost partitions reach the rebalance listener's ``on_partitions_lost`` (Java's
``ConsumerRebalanceListener.onPartitionsLost``, KIP-429; confluent-kafka's ``on_lost``), and a
listener without it gets ``on_partitions_revoked``, as Java's default does: the real Driver over
the fake seam, for both group protocols. Nothing is committed for lost partitions."""

from __future__ import annotations

from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer import MembershipState
from staticconsumer.protocol import ErrorCode

from ._fakes import TOPIC, Listener, ScriptedAssignor, classic_harness, wait_for
from .test_consumer_group import ConsumerGroupCoordinator, kip848_driver, stable

ALL = frozenset({(TOPIC, 0), (TOPIC, 1), (TOPIC, 2)})


class LostListener(Listener):
    """A listener with ``on_partitions_lost`` (the way users extend aiokafka's base class)."""

    def on_partitions_lost(self, lost: set[TopicPartition]) -> None:
        self.calls.append(("lost", frozenset((tp.topic, tp.partition) for tp in lost)))


class AsyncLostListener(Listener):
    async def on_partitions_lost(self, lost: set[TopicPartition]) -> None:
        self.calls.append(("lost", frozenset((tp.topic, tp.partition) for tp in lost)))


#: An eager member's listener hears of every join first, the first included, with nothing revoked
#: (aiokafka's and Java's eager contract).
FIRST_JOIN = ("revoked", frozenset())


async def _lose_classic(listener: Listener) -> list[tuple[str, frozenset[tuple[str, int]]]]:
    """Join, consume, then a heartbeat answered UNKNOWN_MEMBER_ID (the member is gone): the
    listener's calls until the member holds its partitions again."""
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    h.seam.listener_object = listener
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    h.seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(41, "")}
    h.coordinator.heartbeat_errors.append(ErrorCode.UNKNOWN_MEMBER_ID)
    await wait_for(lambda: len(listener.calls) >= 4, "lost and assigned again")
    assert h.coordinator.commits == [], "nothing is committed for lost partitions"
    await h.driver.close()
    return listener.calls


async def test_a_listener_with_on_partitions_lost_is_told_lost_not_revoked() -> None:
    calls = await _lose_classic(LostListener())
    assert calls[:4] == [FIRST_JOIN, ("assigned", ALL), ("lost", ALL), ("assigned", ALL)]
    assert "revoked" not in [kind for kind, _ in calls[1:4]]


async def test_an_async_on_partitions_lost_is_awaited() -> None:
    calls = await _lose_classic(AsyncLostListener())
    assert calls[:4] == [FIRST_JOIN, ("assigned", ALL), ("lost", ALL), ("assigned", ALL)]


async def test_a_listener_without_on_partitions_lost_is_told_revoked() -> None:
    calls = await _lose_classic(Listener())
    assert calls[:4] == [FIRST_JOIN, ("assigned", ALL), ("revoked", ALL), ("assigned", ALL)]


async def test_a_rebalance_still_revokes_through_on_partitions_revoked() -> None:
    listener = LostListener()
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    h.seam.listener_object = listener
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    h.coordinator.heartbeat_errors.append(ErrorCode.REBALANCE_IN_PROGRESS)  # not lost
    await wait_for(lambda: len(listener.calls) >= 4, "revoked and assigned again")
    assert listener.calls[:3] == [FIRST_JOIN, ("assigned", ALL), ("revoked", ALL)]
    await h.driver.close()


async def test_kip848_fenced_member_epoch_tells_on_partitions_lost() -> None:
    coordinator = ConsumerGroupCoordinator(target=(0, 1))
    seam, driver, fatal = kip848_driver(coordinator)
    calls: list[tuple[str, list[int]]] = []

    class Listener848:
        def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
            calls.append(("revoked", sorted(tp.partition for tp in revoked)))

        def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
            calls.append(("assigned", sorted(tp.partition for tp in assigned)))

        async def on_partitions_lost(self, lost: set[TopicPartition]) -> None:
            calls.append(("lost", sorted(tp.partition for tp in lost)))

    seam.listener_object = Listener848()  # type: ignore[assignment]
    await stable(driver, 1)
    start = len(calls)
    coordinator.heartbeat_errors.append(ErrorCode.FENCED_MEMBER_EPOCH)
    await stable(driver, 2)
    assert calls[start:] == [("lost", [0, 1]), ("assigned", [0, 1])]
    assert coordinator.sent("OFFSET_COMMIT") == [] and fatal == []
    await driver.close()
