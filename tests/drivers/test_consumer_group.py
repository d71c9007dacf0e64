"""The real Driver with the KIP-848 engine and its ConsumerGroupSender over the fake seam
(``_fakes.FakeSeam``) and a scripted consumer-group coordinator, no broker: what differs from
the classic protocol (lost partitions leave the fetcher, no member-triggered rebalance, topics
named by id) goes through the same driver loop."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from typing import Any

import pytest
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer._compat import KafkaError
from staticconsumer.drivers import Driver
from staticconsumer.drivers.consumer_group import ConsumerGroupSender, consumer_group_driver
from staticconsumer.errors import StaticConsumerError
from staticconsumer.membership import MembershipState
from staticconsumer.protocol import ApiKey, ErrorCode, response_class
from staticconsumer.protocol._wire import to_values

from ._fakes import TOPIC, VERSIONS, FakeSeam, kip848_options, wait_for

TOPIC_ID = uuid.UUID(int=7)


class ConsumerGroupCoordinator:
    """A KIP-848 coordinator for one member: a heartbeat at epoch 0 (a join) gets the next
    epoch and ``target``; ``heartbeat_errors`` answer the next heartbeats; topics by id from
    Metadata; every OffsetCommit succeeds. ``next_target``: the next heartbeat without an error
    bumps the epoch and sends it."""

    def __init__(self, target: tuple[int, ...]) -> None:
        self.target = target
        self.next_target: tuple[int, ...] | None = None
        self.epoch = 0
        self.heartbeat_errors: list[int] = []
        self.metadata_error = 0  # Metadata v13's top-level error (KIP-1102)
        self.requests: list[tuple[str, dict[str, Any]]] = []

    async def answer(self, request: Any) -> Any:
        struct = request.struct
        fields = {name: getattr(struct, name) for name in struct.SCHEMA.names}
        key, version = request.api_key, request.api_version
        self.requests.append((ApiKey(key).name, fields))
        await asyncio.sleep(0)
        if key == ApiKey.CONSUMER_GROUP_HEARTBEAT:
            answer = self._heartbeat(fields)
        elif key == ApiKey.METADATA:
            answer = {"brokers": [], "cluster_id": "c", "controller_id": 0,
                      "error_code": self.metadata_error, "topics": [
                {"error_code": 0, "name": TOPIC, "topic_id": TOPIC_ID, "is_internal": False,
                 "partitions": [], "topic_authorized_operations": 0}]}  # fmt: skip
        elif key == ApiKey.OFFSET_COMMIT:  # (name, partitions, tags), (index, offset, ...)
            answer = {"topics": [{"name": t[0], "partitions": [
                {"partition_index": p[0], "error_code": 0} for p in t[1]]}
                for t in fields["topics"]]}  # fmt: skip
        else:
            raise KafkaError(f"the fake coordinator does not answer {ApiKey(key).name}")
        cls = response_class(key, version)
        return cls(*to_values(cls.SCHEMA, {"throttle_time_ms": 0, **answer}))

    def _heartbeat(self, fields: dict[str, Any]) -> dict[str, Any]:
        code = self.heartbeat_errors.pop(0) if self.heartbeat_errors else ErrorCode.NONE
        assignment = None
        joining = fields["member_epoch"] == 0
        if code == ErrorCode.NONE and (joining or self.next_target):
            if not joining:
                self.target, self.next_target = self.next_target or self.target, None
            self.epoch += 1
            assignment = {"topic_partitions": [
                {"topic_id": TOPIC_ID, "partitions": list(self.target)}]}  # fmt: skip
        return {"error_code": code, "error_message": None, "member_id": fields["member_id"],
                "member_epoch": self.epoch if code == ErrorCode.NONE else -1,
                "heartbeat_interval_ms": 20, "assignment": assignment}  # fmt: skip

    def sent(self, api: str) -> list[dict[str, Any]]:
        return [fields for name, fields in self.requests if name == api]


class JournalSeam(FakeSeam):
    """The fake seam, writing the rebalance listener's calls and the fetcher's assignments to
    one journal, in order."""

    def __init__(self, coordinator: ConsumerGroupCoordinator) -> None:
        super().__init__(coordinator)  # type: ignore[arg-type]
        self.journal: list[tuple[str, list[int]]] = []
        seam = self

        class Listener:
            def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
                seam.journal.append(("revoked", sorted(tp.partition for tp in revoked)))

            def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
                seam.journal.append(("assigned", sorted(tp.partition for tp in assigned)))

        self.listener_object = Listener()  # type: ignore[assignment]

    def assign(self, partitions: Iterable[tuple[str, int]]) -> Any:
        chosen = list(partitions)
        self.journal.append(("fetcher", sorted(p for _t, p in chosen)))
        return super().assign(chosen)

    def mark_pending_revocation(self, partitions: Iterable[tuple[str, int]]) -> None:
        commits = len(self.group_coordinator.sent("OFFSET_COMMIT"))  # type: ignore[attr-defined]
        self.journal.append(("handed out no more", sorted(p for _t, p in partitions)))
        self.journal.append(("commits so far", [commits]))


def kip848_driver(
    coordinator: ConsumerGroupCoordinator,
) -> tuple[JournalSeam, Driver, list[StaticConsumerError]]:
    seam = JournalSeam(coordinator)
    fatal: list[StaticConsumerError] = []
    options = kip848_options(enable_auto_commit=True, auto_commit_interval_ms=60_000)
    driver = consumer_group_driver(seam, VERSIONS, options, on_fatal=fatal.append,
                                   events=None)  # type: ignore[arg-type]  # fmt: skip
    driver.start()
    return seam, driver, fatal


async def stable(driver: Driver, epoch: int) -> None:
    await wait_for(lambda: driver.generation == epoch
                   and driver.membership_state() is MembershipState.STABLE,
                   f"stable at epoch {epoch}")  # fmt: skip


async def test_lost_partitions_leave_the_fetcher_after_the_listener_uncommitted() -> None:
    coordinator = ConsumerGroupCoordinator(target=(0, 1))
    seam, driver, fatal = kip848_driver(coordinator)
    assert isinstance(driver.sender, ConsumerGroupSender)
    await stable(driver, 1)
    assert driver.owned == ((TOPIC, 0), (TOPIC, 1))
    seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(7, "")}
    start = len(seam.journal)
    coordinator.heartbeat_errors.append(ErrorCode.FENCED_MEMBER_EPOCH)  # the epoch is gone
    await stable(driver, 2)  # joined again at epoch 0, got the next epoch
    after = seam.journal[start:]
    lost = after.index(("revoked", [0, 1]))
    assert after[lost + 1] == ("fetcher", []), "lost partitions leave the fetcher at once"
    assert after[lost + 2 :] == [("fetcher", [0, 1]), ("assigned", [0, 1])]
    assert coordinator.sent("OFFSET_COMMIT") == [], "nothing is committed for lost partitions"
    assert driver.owned == ((TOPIC, 0), (TOPIC, 1)) and fatal == []
    await driver.close()
    commits = coordinator.sent("OFFSET_COMMIT")
    assert [c["generation_id"] for c in commits] == [2], "on close, with the new member epoch"


async def test_a_revocation_hands_out_nothing_more_of_what_it_revokes_before_its_commit() -> None:
    """The reconciliation revokes partition 0 while 1 stays: the fetcher stops handing out 0
    before the commit on revoke and the listener (Java's markPendingRevocation), so an
    application consuming meanwhile reads nothing the next owner reads again."""
    coordinator = ConsumerGroupCoordinator(target=(0, 1))
    seam, driver, fatal = kip848_driver(coordinator)
    await stable(driver, 1)
    seam.consumed = {TopicPartition(TOPIC, 0): OffsetAndMetadata(7, "")}
    start = len(seam.journal)
    coordinator.next_target = (1,)
    await stable(driver, 2)
    after = seam.journal[start:]
    assert after[:3] == [("handed out no more", [0]), ("commits so far", [0]),
                         ("revoked", [0])], after  # fmt: skip
    commits = coordinator.sent("OFFSET_COMMIT")
    assert len(commits) == 1 and commits[0]["generation_id"] == 2, "committed after, epoch 2"
    assert driver.owned == ((TOPIC, 1),) and fatal == []
    await driver.close()


async def test_enforce_rebalance_is_logged_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    coordinator = ConsumerGroupCoordinator(target=(0, 1, 2))
    _seam, driver, _fatal = kip848_driver(coordinator)
    await stable(driver, 1)
    driver.enforce_rebalance("please")
    await asyncio.sleep(0.1)  # five heartbeat intervals
    assert "not supported by group_protocol='consumer'" in caplog.text
    joins = [f for f in coordinator.sent("CONSUMER_GROUP_HEARTBEAT") if f["member_epoch"] == 0]
    assert len(joins) == 1 and driver.generation == 1
    await driver.close()
    assert driver.membership_state() is MembershipState.STOPPED


async def test_a_heartbeat_refused_for_a_topic_acl_names_the_subscribed_topics() -> None:
    """Issue 29: TOPIC_AUTHORIZATION_FAILED on ConsumerGroupHeartbeat (KAFKA-18813: DESCRIBE on
    every subscribed topic name) reaches the application naming the topics the heartbeat
    subscribed to, not an anonymous "a topic"."""
    from aiokafka.errors import TopicAuthorizationFailedError

    coordinator = ConsumerGroupCoordinator(target=(0, 1))
    coordinator.heartbeat_errors.append(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    _seam, driver, fatal = kip848_driver(coordinator)
    raised: list[TopicAuthorizationFailedError] = []

    def polled() -> bool:  # what the application's getmany() does first
        try:
            driver.check_errors()
        except TopicAuthorizationFailedError as exc:
            raised.append(exc)
        return bool(raised)

    try:
        await wait_for(polled, "the error, raised to the application")
        assert raised[0].args == (TOPIC,) and fatal == []
    finally:
        await driver.close()


async def test_rebootstrap_required_in_metadata_goes_to_the_client() -> None:
    """Metadata v13's top-level REBOOTSTRAP_REQUIRED (KIP-1102), met while the member learns its
    topics' ids, is handed to the client (which goes back to its bootstrap servers); the
    topics it named are still used."""
    coordinator = ConsumerGroupCoordinator(target=(0, 1))
    coordinator.metadata_error = ErrorCode.REBOOTSTRAP_REQUIRED
    seam, driver, fatal = kip848_driver(coordinator)
    try:
        await stable(driver, 1)
        assert coordinator.sent("METADATA"), "topic ids asked with Metadata"
        assert seam.rebootstraps and set(seam.rebootstraps) == {129}
        assert driver.owned == ((TOPIC, 0), (TOPIC, 1)) and fatal == []
    finally:
        await driver.close()
