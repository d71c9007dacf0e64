"""pytest plugin: a real Apache Kafka for your tests.

Opt-in: installing staticconsumer registers no plugin, so a service's own test run gets no new
fixtures unasked. Enable it in your top-level ``conftest.py``::

    pytest_plugins = ["staticconsumer.testing.pytest_plugin"]

or for one run with ``pytest -p staticconsumer.testing.pytest_plugin``.

Fixtures
--------
``kafka_cluster``         session-scoped single-node cluster (see :mod:`staticconsumer.localkafka`
                          for where it comes from).
``kafka_cluster_3``       session-scoped 3-node cluster launched locally (broker control needs it).
``kafka_bootstrap``       ``kafka_cluster.bootstrap_servers``.
``kafka_broker_config``   broker configs for both clusters; override it in your conftest.py.
``topic_factory``         ``topic_factory(partitions=1, cluster=None) -> name``: a new topic.
``unique_topic``          ``unique_topic(prefix="topic") -> name``: a fresh name, nothing created.
``unique_group_id``       ``unique_group_id(prefix="group") -> name``.

When no broker can be had, every test that needs one FAILS with a message naming the three ways
to get one. It is never skipped.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Iterator

import pytest

from ..localkafka import KafkaCluster, cluster_from_environment
from ..localkafka.errors import LocalKafkaError

#: Broker configs for fast tests: no initial rebalance delay and short minimum session timeouts;
#: consumer groups (KIP-848) and streams groups (KIP-1071) with a 10 s session and a 500 ms
#: heartbeat interval (the broker's defaults are 45 s and 5 s, and their minimums 45 s and 5 s);
#: streams groups assign at once (their initial delay is 3 s by default) and keep one standby
#: per task (the broker's default is none).
DEFAULT_TEST_BROKER_CONFIG = {
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "offsets.topic.num.partitions": "10",
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.session.timeout.ms": "10000",
    "group.consumer.min.heartbeat.interval.ms": "100",
    "group.consumer.heartbeat.interval.ms": "500",
    "group.streams.min.session.timeout.ms": "1000",
    "group.streams.session.timeout.ms": "10000",
    "group.streams.min.heartbeat.interval.ms": "100",
    "group.streams.heartbeat.interval.ms": "500",
    "group.streams.initial.rebalance.delay.ms": "0",
    "group.streams.num.standby.replicas": "1",
}

_counter = itertools.count()


def _start(brokers: int, config: dict[str, str], use_existing: bool) -> KafkaCluster:
    try:
        return cluster_from_environment(
            brokers, broker_config=config, use_existing=use_existing
        ).start()
    except (LocalKafkaError, ValueError) as exc:
        pytest.fail(
            f"this test needs a real Apache Kafka broker and none could be had:\n{exc}",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def kafka_broker_config() -> dict[str, str]:
    return dict(DEFAULT_TEST_BROKER_CONFIG)


@pytest.fixture(scope="session")
def kafka_cluster(kafka_broker_config: dict[str, str]) -> Iterator[KafkaCluster]:
    cluster = _start(1, kafka_broker_config, use_existing=True)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def kafka_cluster_3(kafka_broker_config: dict[str, str]) -> Iterator[KafkaCluster]:
    # Always launched here (never KAFKA_BOOTSTRAP_SERVERS): tests on it kill and restart brokers.
    cluster = _start(3, kafka_broker_config, use_existing=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def kafka_bootstrap(kafka_cluster: KafkaCluster) -> str:
    return kafka_cluster.bootstrap_servers


def _unique(prefix: str) -> str:
    return f"{prefix}-{os.getpid()}-{next(_counter)}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def unique_topic() -> Callable[..., str]:
    return lambda prefix="topic": _unique(prefix)


@pytest.fixture
def unique_group_id() -> Callable[..., str]:
    return lambda prefix="group": _unique(prefix)


@pytest.fixture
def topic_factory(kafka_cluster: KafkaCluster) -> Callable[..., str]:
    def make(
        partitions: int = 1,
        *,
        replication_factor: int = 1,
        cluster: KafkaCluster | None = None,
        prefix: str = "topic",
    ) -> str:
        return (cluster or kafka_cluster).create_topic(
            _unique(prefix), partitions=partitions, replication_factor=replication_factor
        )

    return make
