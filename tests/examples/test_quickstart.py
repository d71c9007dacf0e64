"""docs/quickstart.md's consumer, ``examples/quickstart.py``, run as the page tells a reader to
run it (a subprocess from the repository root) against the test broker, bounded by
``--max-records``: it reads every record, commits them, and stops without leaving the group."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from staticconsumer.admin import describe_group

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parents[2]
RECORDS = 12
#: One join and 12 commits take a few seconds; CI machines are shared.
RUN_TIMEOUT_S = 120
LINE = re.compile(r"^(\S+)\[(\d+)\]@(\d+) key=(.*) value=b'quickstart-(\d+)'$")


async def _produce(bootstrap: str, topic: str) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for n in range(RECORDS):
            await producer.send(topic, f"quickstart-{n}".encode(), key=f"k{n % 3}".encode())
        await producer.flush()
    finally:
        await producer.stop()


def _committed_total(bootstrap: str, group: str, topic: str) -> int:
    async def read() -> int:
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group)
        await consumer.start()
        try:
            offsets = [await consumer.committed(TopicPartition(topic, p)) for p in range(2)]
        finally:
            await consumer.stop()
        return sum(o or 0 for o in offsets)

    return asyncio.run(read())


def test_quickstart_consumes_commits_and_stays_in_the_group(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic = topic_factory(partitions=2, prefix="quickstart")
    group = unique_group_id("quickstart")
    asyncio.run(_produce(kafka_bootstrap, topic))

    done = subprocess.run(
        [sys.executable, "examples/quickstart.py", "--bootstrap-server", kafka_bootstrap,
         "--topic", topic, "--group", group, "--instance-id", "quickstart-0",
         "--max-records", str(RECORDS)],
        cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    rows = [LINE.match(line) for line in done.stdout.splitlines()]
    assert all(rows), done.stdout
    assert sorted(int(row.group(5)) for row in rows if row) == list(range(RECORDS))
    assert "stopping after 12 records: instance id quickstart-0" in done.stderr
    assert _committed_total(kafka_bootstrap, group, topic) == RECORDS

    # A static member sends no LeaveGroup on stop: the group still holds quickstart-0.
    description = asyncio.run(describe_group(kafka_bootstrap, group))
    assert [m.group_instance_id for m in description.members] == ["quickstart-0"]
