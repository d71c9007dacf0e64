"""Incremental cooperative rebalancing (KIP-429) for static members, on the real broker."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiokafka import ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import CommitFailedError

from assignors import CooperativeStickyAssignor, RangeAssignor, StickyAssignor
from staticconsumer import StaticConsumer
from staticconsumer._compat import coordinator_of
from staticconsumer.admin import describe_group
from staticconsumer.membership import RebalanceProtocol

from ._group import FAST, Producer, duplicates, wait_until


class Ownership:
    """Who holds which partition, as the rebalance listeners report it, across all members of
    one process; records every moment at which two members held one partition."""

    def __init__(self) -> None:
        self.holder: dict[TopicPartition, str] = {}
        self.conflicts: list[tuple[TopicPartition, str, str]] = []
        self.revoked: dict[str, list[set[TopicPartition]]] = {}
        self.assigned: dict[str, list[set[TopicPartition]]] = {}

    def listener(self, name: str) -> ConsumerRebalanceListener:
        ownership = self

        class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
            def on_partitions_revoked(self, revoked: Any) -> None:
                ownership.revoked.setdefault(name, []).append(set(revoked))
                for tp in revoked:
                    if ownership.holder.get(tp) == name:
                        del ownership.holder[tp]

            def on_partitions_assigned(self, assigned: Any) -> None:
                ownership.assigned.setdefault(name, []).append(set(assigned))
                for tp in assigned:
                    other = ownership.holder.get(tp)
                    if other is not None and other != name:
                        ownership.conflicts.append((tp, other, name))
                    ownership.holder[tp] = name

        return Listener()

    def release(self, name: str) -> None:
        """A member stopped (no callback on stop): it holds nothing any more."""
        for tp in [tp for tp, who in self.holder.items() if who == name]:
            del self.holder[tp]


class Worker:
    """A StaticConsumer that consumes and commits after each batch until stopped."""

    def __init__(self, consumer: StaticConsumer, name: str) -> None:
        self.consumer, self.name = consumer, name
        self.seen: list[bytes] = []
        self.commit_failures = 0
        self.running = True
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while self.running:
            batch = await self.consumer.getmany(timeout_ms=200)
            self.seen.extend(r.value for rs in batch.values() for r in rs)
            if batch:
                try:
                    await self.consumer.commit()
                except CommitFailedError:
                    # A commit while the group rebalances fails at once (as Java's does); the
                    # member keeps what it consumed and commits it next time, or on revoke.
                    self.commit_failures += 1

    async def stop(self, **kw: Any) -> None:
        self.running = False
        await self.task
        await self.consumer.stop(**kw)


async def start_worker(
    topic: str, bootstrap: str, group: str, name: str, ownership: Ownership,
    strategy: tuple[Any, ...] = (CooperativeStickyAssignor(),),
) -> Worker:  # fmt: skip
    consumer = StaticConsumer(bootstrap_servers=bootstrap, group_id=group, group_instance_id=name,
                              partition_assignment_strategy=strategy, **FAST)  # fmt: skip
    consumer.subscribe([topic], listener=ownership.listener(name))
    await consumer.start()
    return Worker(consumer, name)


def held(workers: list[Worker]) -> dict[str, set[int]]:
    return {w.name: {tp.partition for tp in w.consumer.assignment()} for w in workers}


async def settle(workers: list[Worker], partitions: int, timeout_s: float = 60) -> None:
    def done() -> bool:
        sets = list(held(workers).values())
        gens = {w.consumer.generation_id for w in workers}
        return len(gens) == 1 and sum(map(len, sets)) == partitions == len(set().union(*sets))

    await wait_until(done, timeout_s, "every partition owned exactly once on one generation")
    await asyncio.sleep(1.0)  # and it stays so (no further rebalance due)
    assert done(), held(workers)


async def test_join_and_leave_move_only_what_moves_and_nothing_is_owned_twice(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group, ownership = topic_factory(partitions=12), unique_group_id(), Ownership()
    workers = [await start_worker(topic, kafka_bootstrap, group, f"coop-{i}", ownership)
               for i in range(3)]  # fmt: skip
    await settle(workers, 12)
    before = held(workers)
    revoked_before = {w.name: len(ownership.revoked.get(w.name, [])) for w in workers}

    newcomer = await start_worker(topic, kafka_bootstrap, group, "coop-3", ownership)
    workers.append(newcomer)
    await settle(workers, 12)
    after = held(workers)
    assert len(after["coop-3"]) == 3, after
    for name, partitions in before.items():
        kept, lost = partitions & after[name], partitions - after[name]
        revoked = set().union(*ownership.revoked.get(name, [])[revoked_before[name] :])
        assert {tp.partition for tp in revoked} == lost, f"{name} revoked only what moved"
        assert kept, f"{name} kept partitions"
    assert ownership.conflicts == [], "no partition was ever held by two members at once"
    assert {tp.partition for tp in set().union(*ownership.assigned["coop-3"])} == after["coop-3"]

    # One leaves for good: its partitions go to the others; nothing else moves.
    leaver = workers.pop(1)
    kept_before = held(workers)
    await leaver.stop(leave_group=True, reason="scale down")
    ownership.release(leaver.name)
    await settle(workers, 12)
    for name, partitions in kept_before.items():
        assert partitions <= held(workers)[name], f"{name} kept everything it had"
    assert ownership.conflicts == []
    for w in workers:
        await w.stop()


async def test_static_restart_under_cooperative_revokes_nothing_anywhere(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group, ownership = topic_factory(partitions=6), unique_group_id(), Ownership()
    workers = [await start_worker(topic, kafka_bootstrap, group, f"r-{i}", ownership)
               for i in range(3)]  # fmt: skip
    await settle(workers, 6)
    generation, before = workers[0].consumer.generation_id, held(workers)
    retired = workers[1]
    async with Producer(kafka_bootstrap, topic) as producer:
        closing = len(ownership.revoked.get("r-1", []))
        await retired.stop()
        # stop() tells the listener, as Java's close() does; from here on nothing is revoked.
        closed = [{tp.partition for tp in r} for r in ownership.revoked["r-1"][closing:]]
        assert closed == [before["r-1"]]
        revocations = sum(len(v) for v in ownership.revoked.values())
        ownership.release("r-1")
        workers[1] = await start_worker(topic, kafka_bootstrap, group, "r-1", ownership)
        await settle(workers, 6)
        await wait_until(lambda: len(producer.sent) > 30, 30, "records during the restart")
    assert held(workers) == before
    assert {w.consumer.generation_id for w in workers} == {generation}
    assert sum(len(v) for v in ownership.revoked.values()) == revocations
    await wait_until(lambda: len({v for w in [*workers, retired] for v in w.seen})
                     >= len(producer.sent), 60, "every record consumed")  # fmt: skip
    consumed = [v for w in [*workers, retired] for v in w.seen]
    assert duplicates(consumed) == [], "the restart replayed nothing"
    for w in workers:
        await w.stop()


async def test_rolling_upgrade_from_eager_range_to_cooperative_sticky(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """Java's documented path: bounce to ["cooperative-sticky", "range"], then to
    ["cooperative-sticky"]; consumption goes on and nothing is lost or owned twice."""
    topic, group, ownership = topic_factory(partitions=6), unique_group_id(), Ownership()
    names = [f"up-{i}" for i in range(3)]
    eager = (RangeAssignor(),)
    workers = [await start_worker(topic, kafka_bootstrap, group, n, ownership, eager)
               for n in names]  # fmt: skip
    await settle(workers, 6)
    retired: list[Worker] = []
    async with Producer(kafka_bootstrap, topic) as producer:
        # The group picks "cooperative-sticky" once every member offers it first; a member
        # that also offers "range" still rebalances eagerly (Java: the protocol every one of
        # its assignors supports); only the second bounce makes them cooperative.
        for strategy, mode in (
            ((CooperativeStickyAssignor(), RangeAssignor()), RebalanceProtocol.EAGER),
            ((CooperativeStickyAssignor(),), RebalanceProtocol.COOPERATIVE),
        ):
            for i, name in enumerate(names):
                await workers[i].stop()
                ownership.release(name)
                retired.append(workers[i])
                workers[i] = await start_worker(topic, kafka_bootstrap, group, name, ownership,
                                                tuple(type(a)() for a in strategy))  # fmt: skip
                await settle(workers, 6)
            described = await describe_group(kafka_bootstrap, group)
            assert described.protocol == "cooperative-sticky", described
            modes = {coordinator_of(w.consumer).engine.rebalance_protocol for w in workers}
            assert modes == {mode}
    await wait_until(lambda: len({v for w in workers + retired for v in w.seen})
                     >= len(producer.sent), 60, "every record consumed")  # fmt: skip
    assert ownership.conflicts == []
    consumed = [v for w in workers + retired for v in w.seen]
    assert set(consumed) >= set(producer.sent)
    assert duplicates(consumed) == [], "static bounces replay nothing"
    for w in workers:
        await w.stop()


async def test_eager_sticky_keeps_owned_partitions_across_generations(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group, ownership = topic_factory(partitions=6), unique_group_id(), Ownership()
    sticky = (StickyAssignor(),)
    workers = [await start_worker(topic, kafka_bootstrap, group, f"s-{i}", ownership, sticky)
               for i in range(2)]  # fmt: skip
    await settle(workers, 6)
    before = held(workers)
    workers.append(await start_worker(topic, kafka_bootstrap, group, "s-2", ownership, sticky))
    await settle(workers, 6)
    after = held(workers)
    assert len(after["s-2"]) == 2
    for name, partitions in before.items():
        assert len(partitions & after[name]) == 2, f"{name} kept 2 of its 3 partitions"
    for w in workers:
        await w.stop()
