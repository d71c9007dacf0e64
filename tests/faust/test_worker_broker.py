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


def _settings(kafka_cluster: KafkaCluster, group: str, log_dir: Path, **kwargs: object) -> Settings:
    topic = kafka_cluster.create_topic(f"{group}-orders", partitions=PARTITIONS)
    return Settings("static", kafka_cluster.bootstrap_servers, topic, group, log_dir,
                    **kwargs)  # type: ignore[arg-type]  # fmt: skip


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
