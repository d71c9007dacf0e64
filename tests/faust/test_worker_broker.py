"""faust's real worker (``faust worker`` through ``app.main()``, in subprocesses) with
``StaticApp`` on a real broker: a duplicated worker stops the older holder."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from staticconsumer.localkafka import KafkaCluster

from ..integration._group import wait_until
from ._harness import PARTITIONS, Settings, Worker, figures, keyed_producer, now, wait_handled

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(400)]


def _settings(
    kafka_cluster: KafkaCluster, group: str, log_dir: Path, kind: str = "static"
) -> Settings:
    """``kind``: "static" (StaticApp) or "plain" (faust.App, for plain faust's figures)."""
    topic = kafka_cluster.create_topic(f"{group}-orders", partitions=PARTITIONS)
    return Settings(kind, kafka_cluster.bootstrap_servers, topic, group, log_dir)


async def test_a_duplicated_worker_stops_the_older_and_the_rest_go_on(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    settings = _settings(kafka_cluster, unique_group_id("fdup"), tmp_path)
    workers = [Worker(f"w-{n}", f"w-{n}", settings) for n in range(3)]
    older, copy = workers[1], Worker("w-1-copy", "w-1", settings)  # a copied manifest
    producer = keyed_producer(settings.bootstrap, settings.topic)
    try:
        for worker in workers:
            await worker.start()
        for worker in workers:
            await worker.wait_assigned()
        await producer.start()
        await asyncio.sleep(3)
        started = now()
        await copy.start()
        await wait_until(lambda: older.returncode is not None, 60, "the older w-1 to exit")
        older_exit_s = now() - started
        before = sum(1 for w in workers for e in w.events if e["ev"] == "record")
        await asyncio.sleep(5)  # the rest keep consuming
        await producer.stop()
        everyone = [*workers, copy]
        await wait_handled(everyone, producer)
        after = sum(1 for w in workers for e in w.events if e["ev"] == "record")
        found = figures(everyone, producer)
    finally:
        await producer.stop()
        for worker in [*workers, copy]:
            await worker.stop()
    fatal = [line for line in older.log_text().splitlines()
             if "was fenced (FENCED_INSTANCE_ID" in line]  # fmt: skip
    assert older.returncode not in (0, None), older.returncode
    assert older_exit_s < 15, older_exit_s
    assert len(fatal) == 1 and "group.instance.id w-1" in fatal[0], fatal
    assert copy.returncode == 0 and workers[0].returncode == 0 and workers[2].returncode == 0
    assert after > before, "the workers kept consuming"
    assert found.lost == 0, found


async def test_a_rolling_restart_rebalances_nothing_and_restores_nothing(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    settings = _settings(kafka_cluster, unique_group_id("froll"), tmp_path)
    workers = [Worker(f"w-{n}", f"w-{n}", settings) for n in range(3)]
    producer = keyed_producer(settings.bootstrap, settings.topic)
    try:
        for worker in workers:
            await worker.start()
        for worker in workers:
            await worker.wait_assigned()
        await producer.start()
        await asyncio.sleep(3)
        stable = now()
        before = {w.name: w.actives(settings.topic) for w in workers}
        for worker in workers:  # one at a time, as a StatefulSet rolls
            await worker.stop()
            assert worker.returncode == 0
            await worker.start()
            await worker.wait_assigned()
            await asyncio.sleep(2)
        await producer.stop()
        await wait_handled(workers, producer)
        after = {w.name: w.actives(settings.topic) for w in workers}
        found = figures(workers, producer, since=stable)
    finally:
        await producer.stop()
        for worker in workers:
            await worker.stop()
    assert sorted(p for ps in before.values() for p in ps) == list(range(PARTITIONS)), before
    assert after == before
    assert (found.rebalances, found.restored, found.duplicates, found.lost) == (0, 0, 0, 0), found


async def test_a_worker_away_past_its_session_gets_its_own_tables_back(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    settings = _settings(kafka_cluster, unique_group_id("faway"), tmp_path)
    settings.session_timeout_s = 8.0
    workers = [Worker(f"w-{n}", f"w-{n}", settings) for n in range(3)]
    away = workers[1]
    producer = keyed_producer(settings.bootstrap, settings.topic)
    try:
        for worker in workers:
            await worker.start()
        for worker in workers:
            await worker.wait_assigned()
        await producer.start()
        await asyncio.sleep(3)
        before = {w.name: w.tables() for w in workers}
        await away.stop()  # a static member's clean stop keeps it in the group...
        left = [w for w in workers if w is not away]
        moved_at = len(left[0].assignments())
        await wait_until(lambda: len(left[0].assignments()) > moved_at, 60,
                         "the rebalance after w-1's session ended")  # fmt: skip
        await asyncio.sleep(3)
        during = {w.name: w.tables() for w in left}
        back_at = len(left[0].assignments())
        await away.start()  # ...until its session ends; then it comes back
        await away.wait_assigned()
        await wait_until(lambda: len(left[0].assignments()) > back_at, 60, "w-1 back")
        await asyncio.sleep(3)
        await producer.stop()
        await wait_handled(workers, producer)
        after = {w.name: w.tables() for w in workers}
        found = figures(workers, producer)
    finally:
        await producer.stop()
        for worker in workers:
            await worker.stop()
    topic = settings.topic
    gone = before["w-1"][topic]["actives"]
    for worker in left:  # while w-1 was away only its partitions moved, each to one of them
        mine = before[worker.name][topic]["actives"]
        assert mine <= during[worker.name][topic]["actives"], (worker.name, before, during)
    assert set().union(*(during[w.name][topic]["actives"] for w in left)) == set(
        range(PARTITIONS)), during  # fmt: skip
    assert gone and gone.isdisjoint(*(before[w.name][topic]["actives"] for w in left))
    assert after == before, (before, after)  # its own actives and standbys back, and theirs
    assert found.lost == 0, found
