"""A FastAPI service whose Kafka subscribers are static group members (docs/faststream.md,
"FastAPI"): FastStream's FastAPI router with one line changed (``StaticKafkaRouter`` for
``faststream.kafka.fastapi.KafkaRouter``). Run it with any ASGI server::

    export POD_NAME=orders-0 KAFKA_BOOTSTRAP_SERVERS=HOST:PORT
    uvicorn examples.fastapi_service:app

``python examples/fastapi_service.py [--bootstrap-servers HOST:PORT]`` runs a demo instead
(tests/examples/test_examples.py does; without the option it starts a local Kafka): it writes
12 orders, serves the app with uvicorn until they are billed, asks ``GET /orders/billed`` over
HTTP, stops the server (a graceful shutdown, as on SIGTERM), serves it again (a restart, as a
rolling update does) with 6 more orders, and shows from the health endpoint that the subscriber
kept its instance id, its partitions and its generation (no rebalance). Exit status 0 when it
did, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
import warnings
from typing import Any

import uvicorn
from aiokafka import AIOKafkaProducer

from staticconsumer.faststream import StaticKafkaRouter
from staticconsumer.localkafka import cluster_from_environment, create_topic  # the demo's

with warnings.catch_warnings():  # FastStream 0.7 announces the move of its FastAPI integration
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi import FastAPI

billed: list[int] = []


def build(bootstrap: str, *, instance_id: str | None = None, health_port: int | None = None,
          topic: str = "orders", group: str = "billing") -> FastAPI:  # fmt: skip
    # The one changed line: StaticKafkaRouter instead of faststream.kafka.fastapi.KafkaRouter.
    # instance_id=None reads the base id from the environment (a StatefulSet's POD_NAME).
    router = StaticKafkaRouter(bootstrap, instance_id=instance_id, health_port=health_port)

    # Instance id <base>-billing-orders (derived from the group and the topic).
    @router.subscriber(topic, group_id=group, auto_offset_reset="earliest")
    async def bill(order: dict[str, Any]) -> None:
        billed.append(order["id"])

    @router.get("/orders/billed")
    async def how_many() -> dict[str, int]:
        return {"billed": len(billed)}

    app = FastAPI()
    app.include_router(router)
    app.state.kafka = router.broker  # the demo reads its health endpoint
    return app


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


async def _get(port: int, path: str) -> Any:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    answer = (await reader.read()).decode()
    writer.close()
    return json.loads(answer.split("\r\n\r\n", 1)[1])


async def _serve_until(service: FastAPI, total: int) -> dict[str, Any]:
    """Serve ``service`` with uvicorn until ``total`` orders were billed; what the HTTP route
    and the health endpoint (each subscriber's id, partitions, generation) said. Then a
    graceful shutdown (uvicorn's, as on SIGTERM: the lifespan stops the broker)."""
    server = uvicorn.Server(uvicorn.Config(service, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.ensure_future(server.serve())
    try:
        async with asyncio.timeout(60):
            while not (server.started and len(billed) >= total):  # noqa: ASYNC110
                await asyncio.sleep(0.1)
        http = await _get(server.servers[0].sockets[0].getsockname()[1], "/orders/billed")
        health = await _get(service.state.kafka.health_address[1], "/readyz")
    finally:
        server.should_exit = True
        await serving
    members = {}
    for row in health["consumers"]:
        partitions = sorted(a["partition"] for a in row["assignment"])
        members[row["group_instance_id"]] = (partitions, row["generation_id"])
    return {"http": http, "members": members}


async def demo(bootstrap: str) -> bool:
    topic, group = f"orders-{uuid.uuid4().hex[:8]}", f"billing-{uuid.uuid4().hex[:6]}"
    await create_topic(bootstrap, topic, partitions=3)
    await _produce(bootstrap, topic, range(12))
    options: dict[str, Any] = {"instance_id": "orders-0", "health_port": 0, "topic": topic,
                               "group": group}  # fmt: skip
    first = await _serve_until(build(bootstrap, **options), 12)
    print(f"first run: GET /orders/billed -> {first['http']}; (partitions, generation) by "
          f"instance id: {first['members']}")  # fmt: skip
    await _produce(bootstrap, topic, range(12, 18))
    second = await _serve_until(build(bootstrap, **options), 18)
    print(f"after a restart: GET /orders/billed -> {second['http']}; (partitions, generation) "
          f"by instance id: {second['members']}")  # fmt: skip
    twice = len(billed) - len(set(billed))
    print(f"billed {len(billed)}, {twice} twice")
    same = first["members"] == second["members"] and len(first["members"]) == 1
    if not same or twice or sorted(set(billed)) != list(range(18)):
        print("FAILED: the subscriber's id, partitions or generation moved, or an order was "
              "billed twice or not at all")  # fmt: skip
        return False
    print("OK: same instance id, partitions and generation after the restart")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
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
