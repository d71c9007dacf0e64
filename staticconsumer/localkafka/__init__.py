"""A real Apache Kafka on demand, for the CLI, our tests and users' own test suites.

One resolution order, shared by ``staticconsumer local-kafka`` and the pytest fixtures
(:func:`cluster_from_environment`):

a. ``KAFKA_BOOTSTRAP_SERVERS`` is set: use that cluster, start nothing;
b. a Docker engine answers (and the ``docker`` extra is installed) and the version runs KRaft
   (3.3 and newer; older lines go to step c): a single-node KRaft Kafka
   container on the host's network, listening on 127.0.0.1, from ``STATICCONSUMER_KAFKA_IMAGE``
   (default the official ``apache/kafka:<version>``; see :mod:`._docker` for the image contract);
c. Java 17+ is present: Apache Kafka's own broker (``kafka.Kafka``) from Maven Central, resolved
   once into a per-user cache (``mvn`` when installed, else a checksum-verified download): KRaft
   combined nodes from Kafka 3.3, a ZooKeeper-mode broker and its own ZooKeeper for 2.8 to 3.2;
d. none of these: :class:`~.errors.NoBrokerAvailableError` naming the three ways.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ._cluster import Broker, LocalKafkaCluster, free_port
from ._docker import DockerCluster
from ._external import ExternalCluster, docker_engine_answers
from ._java import (
    DEFAULT_KAFKA_VERSION,
    NO_BROKER_HELP,
    find_java,
    kafka_coordinates,
    parse_kafka_version,
    uses_kraft,
)
from ._probe import create_topic, delete_topics
from .errors import BrokerStartError, KafkaResolutionError, LocalKafkaError, NoBrokerAvailableError
from .maven import cache_root, resolve_jars

KafkaCluster = LocalKafkaCluster | DockerCluster | ExternalCluster

__all__ = [
    "DEFAULT_KAFKA_VERSION",
    "NO_BROKER_HELP",
    "Broker",
    "BrokerStartError",
    "DockerCluster",
    "ExternalCluster",
    "KafkaCluster",
    "KafkaResolutionError",
    "LocalKafkaCluster",
    "LocalKafkaError",
    "NoBrokerAvailableError",
    "cache_root",
    "cluster_from_environment",
    "create_topic",
    "delete_topics",
    "free_port",
    "kafka_coordinates",
    "resolve_jars",
]


def cluster_from_environment(
    brokers: int = 1,
    *,
    kafka_version: str | None = None,
    broker_config: Mapping[str, str] | None = None,
    use_existing: bool = True,
    security: str = "plaintext",
) -> KafkaCluster:
    """Pick where Kafka comes from (see the module docstring); the caller calls ``start()``.

    ``use_existing=False`` skips step a, for tests that must control broker processes.
    ``security="sasl_ssl"`` always launches Apache Kafka from Maven Central (step c): the
    secured broker's certificates, users and ACLs are made by the launcher (``_secure.py``).
    """
    version = (
        kafka_version or os.environ.get("STATICCONSUMER_KAFKA_VERSION") or DEFAULT_KAFKA_VERSION
    )
    parse_kafka_version(version)
    if security != "plaintext":
        if find_java() is None:
            raise NoBrokerAvailableError(f"a {security} local broker needs Java 17+")
        return LocalKafkaCluster(
            brokers, kafka_version=version, broker_config=broker_config, security=security
        )
    existing = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "").strip()
    if use_existing and existing:
        return ExternalCluster(existing)
    if brokers == 1 and uses_kraft(version) and docker_engine_answers():
        return DockerCluster(version, broker_config or {})
    if find_java() is not None:
        return LocalKafkaCluster(brokers, kafka_version=version, broker_config=broker_config)
    raise NoBrokerAvailableError(NO_BROKER_HELP)
