"""A faust app whose workers are static group members (docs/faust.md).

The app is the part above ``demo()``: a faust app as usual (an agent counting orders per
customer in a RocksDB table), with one line changed (``StaticApp`` for ``faust.App``). Run its
workers as any faust app's, one per pod; the instance id is the pod's name::

    export POD_NAME=orders-0 KAFKA_BOOTSTRAP_SERVERS=HOST:PORT
    faust -A examples.faust_app worker -l info

``python examples/faust_app.py [--bootstrap-servers HOST:PORT]`` runs a demo instead
(tests/examples/test_examples.py does; without the option it starts a local Kafka): it writes 12
orders, runs a worker (faust's own ``worker`` command, ``POD_NAME=orders-0``) until they are
committed, stops it (SIGTERM) and runs it again (a restart, as a rolling update does) with 6
more, showing each time the coordinator's view: the worker's instance id and its partitions.
Exit status 0 when the restarted worker had the same instance id and partitions and both runs
stopped cleanly, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from staticconsumer.faust import StaticApp
from staticconsumer.localkafka import cluster_from_environment, create_topic  # the demo's

GROUP = os.environ.get("FAUST_EXAMPLE_GROUP", "faust-example")
ROOT = Path(__file__).resolve().parents[1]  # the checkout (the demo's workers import from it)

# The one changed line: StaticApp instead of faust.App. The instance id comes from the
# environment (a StatefulSet's POD_NAME), or StaticApp(instance_id=...), or faust's own
# consumer_group_instance_id setting.
app = StaticApp(
    GROUP,
    broker=f"kafka://{os.environ.get('KAFKA_BOOTSTRAP_SERVERS', 'localhost:9092')}",
    store="rocksdb://",
    datadir=os.environ.get("FAUST_EXAMPLE_DATADIR", "faust-data"),
    topic_partitions=3,
    topic_replication_factor=1,
    consumer_auto_offset_reset="earliest",
)
orders = app.topic(f"{GROUP}-orders", key_type=str, value_type=str, partitions=3)
per_customer = app.Table("per-customer", default=int, partitions=3)


@app.agent(orders)
async def count(stream: Any) -> None:
    async for customer, _order in stream.items():
        per_customer[customer] += 1


# -- the demo ---------------------------------------------------------------------------------


def _topic() -> str:
    return f"{GROUP}-orders"


async def _produce(bootstrap: str, first: int, count_: int) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for n in range(first, first + count_):
            await producer.send_and_wait(_topic(), f"order-{n}".encode(),
                                         key=f"customer-{n % 4}".encode())  # fmt: skip
    finally:
        await producer.stop()


async def _run_worker(bootstrap: str, env: dict[str, str], committed: int) -> tuple[str, int]:
    """One worker process until the group has ``committed`` records committed; then SIGTERM.
    Returns the coordinator's view of it while it ran, and its exit status."""
    from aiokafka.admin import AIOKafkaAdminClient
    from aiokafka.errors import KafkaError

    from staticconsumer.admin import describe_group

    worker = await asyncio.create_subprocess_exec(  # faust's own worker command, as a pod's
        sys.executable, "-m", "faust", "-A", "examples.faust_app", "worker", "--without-web",
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        for _ in range(240):
            try:
                offsets = await admin.list_consumer_group_offsets(GROUP)
            except KafkaError:  # e.g. no coordinator yet on a fresh broker: ask again
                offsets = {}
            done = sum(m.offset for tp, m in offsets.items() if tp.topic == _topic())
            if done >= committed:
                break
            await asyncio.sleep(0.5)
        group = await describe_group(bootstrap, GROUP)
    finally:
        await admin.close()
        worker.send_signal(signal.SIGTERM)
    rows = [f"  {m.group_instance_id}  partitions "
            f"{sorted(p for t, p in m.assignment if t == _topic())}"
            for m in group.members]  # fmt: skip
    async with asyncio.timeout(90):
        return "\n".join(rows), await worker.wait()


async def demo(bootstrap: str) -> int:
    with tempfile.TemporaryDirectory() as datadir:
        env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "POD_NAME": "orders-0",
               "FAUST_EXAMPLE_GROUP": GROUP, "FAUST_EXAMPLE_DATADIR": datadir,
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        await create_topic(bootstrap, _topic(), partitions=3)
        await _produce(bootstrap, 0, 12)
        first, first_rc = await _run_worker(bootstrap, env, 12)
        print(f"group {GROUP}, first run (exit status {first_rc}):\n{first}")
        await _produce(bootstrap, 12, 6)
        second, second_rc = await _run_worker(bootstrap, env, 18)
        print(f"after the restart (exit status {second_rc}):\n{second}")
    if first == second and "orders-0  partitions [0, 1, 2]" in first and first_rc == second_rc == 0:
        print("OK: same instance id and partitions after the restart, 18 orders committed")
        return 0
    print("FAILED: the restart changed the worker's id or partitions")
    return 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="StaticApp demo (see the module docstring)")
    parser.add_argument("--bootstrap-servers", default=None)
    args = parser.parse_args()
    os.environ["FAUST_EXAMPLE_GROUP"] = GROUP = f"faust-example-{uuid.uuid4().hex[:8]}"
    if args.bootstrap_servers is not None:
        sys.exit(asyncio.run(demo(args.bootstrap_servers)))
    cluster = cluster_from_environment(1, use_existing=True).start()
    try:
        sys.exit(asyncio.run(demo(cluster.bootstrap_servers)))
    finally:
        cluster.stop()
