# aiokafka 0.14's own tests against the broker our pytest plugin starts (scripts/aiokafka_suite.sh),
# with StaticConsumer swapped in when SWAP=1.
import asyncio
import gc
import os

import aiokafka
import aiokafka.consumer
import pytest

pytest_plugins = ["staticconsumer.testing.pytest_plugin"]

if os.environ.get("SWAP") == "1":
    from staticconsumer import StaticConsumer

    aiokafka.consumer.AIOKafkaConsumer = StaticConsumer
    aiokafka.AIOKafkaConsumer = StaticConsumer


@pytest.fixture(scope="session")
def kafka_broker_config():
    return {"num.partitions": "2", "group.initial.rebalance.delay.ms": "0"}


@pytest.fixture(scope="class")
def loop(request):
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    if not loop._closed:
        loop.call_soon(loop.stop)
        loop.run_forever()
        loop.close()
    gc.collect()
    asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def collect_garbage():
    yield
    gc.collect()


@pytest.fixture(scope="class")
def setup_test_class_serverless(request, loop):
    request.cls.loop = loop


@pytest.fixture(scope="class")
def setup_test_class(request, loop, kafka_cluster):
    host, port = kafka_cluster.bootstrap_servers.split(",")[0].rsplit(":", 1)
    request.cls.loop = loop
    request.cls.kafka_host = host
    request.cls.kafka_port = int(port)
    request.cls.hosts = [f"{host}:{port}"]
    request.cls.kafka_version = os.environ.get("KV", "4.4.0")
    request.cls.kafka_ssl_port = None
    request.cls.kafka_sasl_plain_port = None
    request.cls.kafka_sasl_ssl_port = None
    request.cls.ssl_folder = None
    request.cls.acl_manager = None
    request.cls.kerberos_utils = None
    request.cls.kafka_config = None
