"""A FastStream service whose every subscriber is a static group member (docs/faststream.md).

The service is the part above ``demo()``: a FastStream app as usual, with one line changed
(``StaticKafkaBroker`` for ``KafkaBroker``). Run it as any FastStream app (``faststream run``
needs ``faststream[cli]``)::

    export POD_NAME=orders-0 KAFKA_BOOTSTRAP_SERVERS=HOST:PORT
    faststream run examples.faststream_service:app

``python examples/faststream_service.py [--bootstrap-servers HOST:PORT]`` runs a demo instead
(tests/examples/test_examples.py does; without the option it starts a local Kafka): it writes
12 orders, runs the app until they are handled, runs it again (a restart, as a rolling update
does) with 6 more, and shows that each subscriber kept its instance id and its partitions, with
the health endpoint's answer each time. Exit status 0 when it did, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from typing import Any

from aiokafka import AIOKafkaProducer
from faststream import AckPolicy, FastStream
from faststream.kafka.annotations import KafkaMessage

from staticconsumer.faststream import StaticKafkaBroker, SubscriberKey
from staticconsumer.localkafka import cluster_from_environment, create_topic  # the demo's

handled: list[str] = []


def build(bootstrap: str, *, instance_id: str | None = None, health_port: int | None = None,
          topic: str = "orders", group: str = "billing") -> FastStream:  # fmt: skip
    # The one changed line: StaticKafkaBroker instead of faststream.kafka.KafkaBroker.
    # instance_id=None reads the base id from the environment (a StatefulSet's POD_NAME).
    broker = StaticKafkaBroker(bootstrap, instance_id=instance_id, health_port=health_port)

    # Instance id <base>-billing-orders (derived from the group and the topic).
    @broker.subscriber(topic, group_id=group, auto_offset_reset="earliest")
    async def bill(order: dict[str, Any]) -> None:
        handled.append(f"billed {order['id']}")

    # Instance id <base>-mailer (a key given); a batch subscriber committing by hand.
    @broker.subscriber(topic, group_id=f"{group}-mail", auto_offset_reset="earliest",
                       batch=True, ack_policy=AckPolicy.MANUAL,
                       group_instance_id=SubscriberKey("mailer"))  # fmt: skip
    async def mail(orders: list[dict[str, Any]], msg: KafkaMessage) -> None:
        handled.extend(f"mailed {order['id']}" for order in orders)
        await msg.ack()

    return FastStream(broker)


app = build(os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))


# -- the demo ----------------------------------------------------------------------------------


async def _produce(bootstrap: str, topic: str, ids: range) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for n in ids:
            await producer.send_and_wait(topic, json.dumps({"id": n}).encode(), partition=n % 3)
    finally:
        await producer.stop()


async def _run_until(service: FastStream, total: int) -> dict[str, Any]:
    """Run the app with FastStream's runner until ``total`` records were handled; the health
    endpoint's answer while it ran."""
    broker = service.broker
    assert isinstance(broker, StaticKafkaBroker)
    runner = asyncio.ensure_future(service.run())
    try:
        async with asyncio.timeout(60):
            while len(handled) < total:  # noqa: ASYNC110  (the handlers fill the list)
                await asyncio.sleep(0.1)
        health = await _readyz(broker)
    finally:
        service.exit()
        await runner
    return health


async def _readyz(broker: StaticKafkaBroker) -> dict[str, Any]:
    assert broker.health_address is not None
    reader, writer = await asyncio.open_connection("localhost", broker.health_address[1])
    writer.write(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = (await reader.read()).decode()
    writer.close()
    status, body = answer.split("\r\n", 1)[0], answer.split("\r\n\r\n", 1)[1]
    return {"status": status, **json.loads(body)}


def _show(title: str, health: dict[str, Any]) -> dict[str, list[int]]:
    print(f"{title} (/readyz: {health['status']}):")
    rows = {}
    for consumer in sorted(health["consumers"], key=lambda c: c["group_instance_id"]):
        parts = sorted(a["partition"] for a in consumer["assignment"])
        rows[consumer["group_instance_id"]] = parts
        print(f"  {consumer['group_instance_id']}  partitions {parts}  state {consumer['state']}")
    return rows


async def demo(bootstrap: str) -> bool:
    topic, group = f"orders-{uuid.uuid4().hex[:8]}", f"billing-{uuid.uuid4().hex[:6]}"
    await create_topic(bootstrap, topic, partitions=3)
    options: dict[str, Any] = {"instance_id": "orders-0", "health_port": 0, "topic": topic,
                               "group": group}  # fmt: skip
    await _produce(bootstrap, topic, range(12))
    first = _show("first run", await _run_until(build(bootstrap, **options), 24))
    await _produce(bootstrap, topic, range(12, 18))
    second = _show("after a restart", await _run_until(build(bootstrap, **options), 36))
    twice = len(handled) - len(set(handled))
    print(f"handled {len(handled)}, {twice} twice (each order billed once and mailed once)")
    if first != second or twice:
        print("FAILED: a subscriber's partitions moved, or an order was handled twice")
        return False
    print("OK: same instance ids and partitions after the restart")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-servers", metavar="HOST:PORT",
                        help="a running Kafka; default: start a local one")  # fmt: skip
    given = parser.parse_args().bootstrap_servers
    if given:
        return 0 if asyncio.run(demo(given)) else 1
    print("starting a local Apache Kafka (staticconsumer.localkafka) ...")
    cluster = cluster_from_environment(broker_config={"group.initial.rebalance.delay.ms": "0"})
    cluster.start()
    try:
        return 0 if asyncio.run(demo(cluster.bootstrap_servers)) else 1
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
