"""``stop()`` runs the rebalance listener as Java's ``close()`` does (``onLeavePrepare``, issue 28),
on both group protocols: an application that commits in ``on_partitions_revoked`` (auto-commit
off, the pattern of the Streams-like app and of ``docs/static-consumer.md``) has what it consumed
committed when a clean ``stop()`` returns, so the next start of the same instance id replays
nothing. aiokafka's ``stop()`` calls no listener (``docs/aiokafka-differences.md``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import ConsumerRebalanceListener, TopicPartition

from staticconsumer import StaticConsumer

from ..conformance.conftest import produce
from ..reliability._harness import committed_offsets

PER_PARTITION = 5


class CommitOnRevoke(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    """Commits the consumer's positions when partitions are revoked, as an application does."""

    def __init__(self) -> None:
        self.consumer: StaticConsumer | None = None
        self.revoked: list[frozenset[int]] = []
        self.commit_errors: list[BaseException] = []

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.revoked.append(frozenset(tp.partition for tp in revoked))
        assert self.consumer is not None
        if revoked:
            try:
                await self.consumer.commit()
            except Exception as exc:  # the assertion below names it
                self.commit_errors.append(exc)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        pass


@pytest.mark.parametrize("group_protocol", ["classic", "consumer"])
async def test_a_commit_in_the_revoke_listener_on_stop_commits_what_was_consumed(
    group_protocol: str, kafka_bootstrap: str, topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=2), unique_group_id()
    tps = [TopicPartition(topic, p) for p in (0, 1)]
    for tp in tps:
        await produce(kafka_bootstrap, topic, tp.partition, range(PER_PARTITION))
    listener = CommitOnRevoke()
    consumer = StaticConsumer(
        bootstrap_servers=kafka_bootstrap, group_id=group, group_instance_id="stopper-0",
        group_protocol=group_protocol, enable_auto_commit=False, auto_offset_reset="earliest",
    )  # fmt: skip
    listener.consumer = consumer
    consumer.subscribe([topic], listener=listener)
    await consumer.start()
    try:
        seen = 0
        async with asyncio.timeout(30):
            while seen < 2 * PER_PARTITION:
                batch = await consumer.getmany(timeout_ms=1000)
                seen += sum(len(records) for records in batch.values())
        assert seen == 2 * PER_PARTITION
        assert await committed_offsets(kafka_bootstrap, group) == {}, "none yet"
        held_before_stop = len(listener.revoked)
    finally:
        await consumer.stop()
    assert listener.revoked[held_before_stop:] == [frozenset({0, 1})], listener.revoked
    assert listener.commit_errors == []
    committed = await committed_offsets(kafka_bootstrap, group)
    assert committed == {0: PER_PARTITION, 1: PER_PARTITION}, "the listener's commit on stop landed"
