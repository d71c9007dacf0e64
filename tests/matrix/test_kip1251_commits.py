"""KIP-1251 (Kafka 4.3): commits racing a reassignment on the consumer protocol (KIP-848), on the
real group coordinator, which is the oracle. ``scripts/broker_matrix.sh`` runs this module on
every line of the matrix (4.0.2 and 4.3.1 among them; before 4.0 there is no consumer protocol
and each test skips); the main test run covers 4.4.0.

What the broker checks, read from its ``ConsumerGroup.validateOffsetCommit`` (4.4.0) and seen
here: a commit at the member's current epoch is taken whole; one at an older epoch is taken when
every partition in it is still the member's (assigned or pending revocation) since an epoch not
newer than the one sent (assignment epoch <= sent epoch <= member epoch), else the whole request
is refused with STALE_MEMBER_EPOCH. Before 4.3 any epoch but the current one is refused.

What the member does: a commit carries only the partitions it holds at the epoch it carries
(KAFKA-19779: a correct client never sends others). STALE_MEMBER_EPOCH is sent again with the
epoch the next heartbeat brought, without the partitions that moved away meanwhile; the
application hears CommitFailedError for those only (their new owner's offsets stay), never the
STALE_MEMBER_EPOCH itself.

Each commit is held on its way to the coordinator (:class:`CommitTap`) while the group moves:
the race is made, not waited for.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import CommitFailedError

from staticconsumer import StaticConsumer
from staticconsumer._compat import coordinator_of
from staticconsumer.protocol import ApiKey, ErrorCode, parse_offset_commit

from ..integration._group import Member, owned, wait_until
from ..integration.test_consumer_protocol import CONSUMER, settled
from .test_broker_matrix import kafka_line, stop_all

pytestmark = pytest.mark.broker_matrix

__all__ = ["kafka_line"]  # the fixture, imported for this module's tests

#: First line whose coordinator checks assignment epochs (KIP-1251).
ASSIGNMENT_EPOCHS_SINCE = (4, 3)


class CommitTap:
    """Holds a member's OffsetCommit requests while :attr:`open` is clear, and records each one
    as it goes out (its epoch, its partitions) and the code its answer carries."""

    def __init__(self, consumer: StaticConsumer) -> None:
        self.open = asyncio.Event()
        self.open.set()
        self.waiting = asyncio.Event()
        self.sent: list[tuple[int, frozenset[int]]] = []
        self.answers: list[int] = []
        driver = coordinator_of(consumer)
        real = driver.to_coordinator

        async def to_coordinator(request: Any, **kwargs: Any) -> Any:
            if request.api_key != ApiKey.OFFSET_COMMIT:
                return await real(request, **kwargs)
            self.waiting.set()
            await self.open.wait()
            partitions = frozenset(p[0] for _topic, ps, _tags in request.struct.topics
                                   for p in ps)  # fmt: skip
            self.sent.append((request.struct.generation_id, partitions))
            response = await real(request, **kwargs)
            failed = parse_offset_commit(response).failed
            self.answers.append(failed[0].error_code if failed else ErrorCode.NONE)
            return response

        driver.to_coordinator = to_coordinator


class CommitsOnRebalance(ConsumerRebalanceListener):  # type: ignore[misc]
    """Commits ``offset`` for what it gains (``on_assign``) or loses (``on_revoke``), at once,
    from the rebalance callback."""

    def __init__(self, offset: int, *, on_assign: bool = False, on_revoke: bool = False) -> None:
        self.consumer: StaticConsumer | None = None
        self.offset, self.on_assign, self.on_revoke = offset, on_assign, on_revoke
        self.committed: list[frozenset[int]] = []

    async def _commit(self, partitions: Any) -> None:
        assert self.consumer is not None
        if partitions:
            await self.consumer.commit({tp: self.offset for tp in partitions})
            self.committed.append(frozenset(tp.partition for tp in partitions))

    async def on_partitions_revoked(self, revoked: Any) -> None:
        if self.on_revoke:
            await self._commit(revoked)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        if self.on_assign:
            await self._commit(assigned)


async def join(topics: list[str], bootstrap: str, group: str, instance_id: str,
               listener: CommitsOnRebalance | None = None) -> Member:  # fmt: skip
    """A static consumer-protocol member polling (and committing nothing by itself)."""
    consumer = StaticConsumer(bootstrap_servers=bootstrap, group_id=group,
                              group_instance_id=instance_id, **CONSUMER)  # fmt: skip
    listener = listener or CommitsOnRebalance(0)
    listener.consumer = consumer
    consumer.subscribe(topics, listener=listener)
    member = Member(consumer, listener)  # type: ignore[arg-type]
    await consumer.start()
    member.task = asyncio.create_task(member.run())  # its topics stay empty: no commit of its own
    return member


async def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        offsets = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


def needs_the_consumer_protocol(kafka_line: tuple[int, int]) -> None:
    if kafka_line < (4, 0):
        pytest.skip("the consumer protocol (KIP-848) needs Kafka 4.0")


async def test_a_commit_in_flight_for_a_partition_that_moves_commits_only_what_stays(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str], caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """(a) A's commit of both its partitions is held while B joins and takes one; (b) B commits
    the partition it gains at once, from its assignment callback. A's commit, sent late at its
    old epoch, is refused whole (the moved partition is no longer A's); A sends it again at its
    new epoch for the partition it kept, and the application hears of the moved one only."""
    needs_the_consumer_protocol(kafka_line)
    caplog.set_level(logging.WARNING, logger="staticconsumer")
    topic, group = topic_factory(partitions=2), unique_group_id()
    a = await join([topic], kafka_bootstrap, group, "k1251-a")
    b: Member | None = None
    try:
        await settled([a], 2)
        old_epoch, tap = a.consumer.generation_id, CommitTap(a.consumer)
        tap.open.clear()
        a_commit = asyncio.create_task(
            a.consumer.commit({TopicPartition(topic, p): 10 for p in (0, 1)})
        )
        await asyncio.wait_for(tap.waiting.wait(), 10)
        gains = CommitsOnRebalance(20, on_assign=True)
        b = await join([topic], kafka_bootstrap, group, "k1251-b", gains)
        await settled([a, b], 2)
        [moved], [kept] = owned(b), owned(a)
        await wait_until(lambda: frozenset({moved}) in gains.committed, 10, "B's commit")
        tap.open.set()
        with pytest.raises(CommitFailedError) as info:
            await asyncio.wait_for(a_commit, 20)
        assert f"{topic}-{moved}" in str(info.value) and f"{topic}-{kept}" not in str(info.value)
        new_epoch = a.consumer.generation_id
        assert new_epoch > old_epoch
        assert tap.sent == [(old_epoch, {0, 1}), (new_epoch, {kept})]
        assert tap.answers == [ErrorCode.STALE_MEMBER_EPOCH, ErrorCode.NONE]
        stale = [r for r in caplog.records if "instance=k1251-b" in r.getMessage()
                 and "STALE_MEMBER_EPOCH" in r.getMessage()]  # fmt: skip
        assert stale == [], "B's commit of what it gained was taken as sent"
        assert await committed(kafka_bootstrap, group, topic) == {kept: 10, moved: 20}, (
            "nothing of A's for the partition B holds"
        )
    finally:
        await stop_all([m for m in (a, b) if m is not None])


async def test_a_commit_sent_before_an_epoch_bump_that_moves_nothing(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """B joins the group on another topic: A's epoch moves on, its partition stays. A's commit
    held across that bump is taken as sent from Kafka 4.3 (its partition is A's since an epoch
    not newer than the one sent); before 4.3 it is refused with STALE_MEMBER_EPOCH and sent
    again at the new epoch. The application hears nothing of it either way."""
    needs_the_consumer_protocol(kafka_line)
    mine, other = topic_factory(partitions=1), topic_factory(partitions=1)
    group = unique_group_id()
    a = await join([mine], kafka_bootstrap, group, "k1251-c")
    b: Member | None = None
    try:
        await settled([a], 1)
        old_epoch, tap = a.consumer.generation_id, CommitTap(a.consumer)
        tap.open.clear()
        a_commit = asyncio.create_task(a.consumer.commit({TopicPartition(mine, 0): 10}))
        await asyncio.wait_for(tap.waiting.wait(), 10)
        b = await join([other], kafka_bootstrap, group, "k1251-d")
        await wait_until(lambda: a.consumer.generation_id > old_epoch and owned(b) == {0}, 20,
                         "A's epoch to move on and B to hold its topic's partition")  # fmt: skip
        assert owned(a) == {0}
        new_epoch = a.consumer.generation_id
        tap.open.set()
        await asyncio.wait_for(a_commit, 20)  # no error for the application
        if kafka_line >= ASSIGNMENT_EPOCHS_SINCE:
            assert (tap.sent, tap.answers) == ([(old_epoch, {0})], [ErrorCode.NONE])
        else:
            assert tap.sent == [(old_epoch, {0}), (new_epoch, {0})]
            assert tap.answers == [ErrorCode.STALE_MEMBER_EPOCH, ErrorCode.NONE]
        assert await committed(kafka_bootstrap, group, mine) == {0: 10}
    finally:
        await stop_all([m for m in (a, b) if m is not None])


async def test_a_partition_being_revoked_is_committed_from_the_revoke_callback(
    kafka_line: tuple[int, int], kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    """A commits the partition it is giving up from its revoke callback, while B waits for it:
    the partition is A's until A says it let go (pending revocation), so the commit is taken at
    once, and B starts where A left it."""
    needs_the_consumer_protocol(kafka_line)
    topic, group = topic_factory(partitions=2), unique_group_id()
    gives = CommitsOnRebalance(7, on_revoke=True)
    a = await join([topic], kafka_bootstrap, group, "k1251-e", gives)
    b: Member | None = None
    try:
        await settled([a], 2)
        old_epoch, tap = a.consumer.generation_id, CommitTap(a.consumer)
        b = await join([topic], kafka_bootstrap, group, "k1251-f")
        await settled([a, b], 2)
        [moved] = owned(b)
        assert gives.committed == [frozenset({moved})]
        assert (tap.sent, tap.answers) == ([(old_epoch, {moved})], [ErrorCode.NONE])
        assert await committed(kafka_bootstrap, group, topic) == {moved: 7}
        assert await b.consumer.committed(TopicPartition(topic, moved)) == 7, "B starts there"
    finally:
        await stop_all([m for m in (a, b) if m is not None])
