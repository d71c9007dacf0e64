"""Clusters we do not run as local processes: one named by KAFKA_BOOTSTRAP_SERVERS, or a
testcontainers Kafka container when a Docker engine answers."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Mapping
from typing import Any

from ..errors import BrokerStartError, LocalKafkaError
from . import _probe

log = logging.getLogger(__name__)

#: Confluent Platform image per Apache Kafka minor version (cp-kafka 7.9 ships Kafka 3.9, 8.x 4.x).
_CP_IMAGE = {(3, 9): "7.9.0", (4, 0): "8.0.0", (4, 1): "8.1.0"}


class _NoBrokerControl(_probe.TopicCreation):
    """Broker-level operations are only possible on a cluster we launched ourselves."""

    bootstrap_servers: str
    kafka_version = "unknown"

    def _unsupported(self, what: str) -> LocalKafkaError:
        return LocalKafkaError(
            f"{what} needs a cluster started by the local launcher (Java); this one is "
            f"{type(self).__name__} at {self.bootstrap_servers}. Unset KAFKA_BOOTSTRAP_SERVERS."
        )

    def kill_broker(self, node_id: int) -> None:
        raise self._unsupported("kill_broker")

    def stop_broker(self, node_id: int) -> None:
        raise self._unsupported("stop_broker")

    def restart_broker(self, node_id: int, *, wait: bool = True) -> None:
        raise self._unsupported("restart_broker")

    def broker_log(self, node_id: int) -> str:
        raise self._unsupported("broker_log")

    def logs(self) -> str:
        raise self._unsupported("reading broker logs")


class ExternalCluster(_NoBrokerControl):
    """A running cluster named by ``KAFKA_BOOTSTRAP_SERVERS``: we start and stop nothing."""

    def __init__(self, bootstrap_servers: str) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.brokers: list[Any] = []

    def start(self) -> ExternalCluster:
        return self

    def stop(self) -> None:
        return None


def docker_engine_answers() -> bool:
    """True when the docker SDK is installed and an engine answers a ping within 3 seconds."""
    try:
        import docker  # type: ignore[import-untyped]
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=3)
        try:
            return bool(client.ping())
        finally:
            with contextlib.suppress(Exception):
                client.close()
    except Exception:
        return False


class DockerCluster(_NoBrokerControl):
    """A single-node KRaft Kafka in a container, through testcontainers."""

    def __init__(self, kafka_version: str, broker_config: Mapping[str, str]) -> None:
        from ._java import parse_kafka_version

        major, minor, _ = parse_kafka_version(kafka_version)
        tag = os.environ.get("STATICCONSUMER_DOCKER_IMAGE") or (
            f"confluentinc/cp-kafka:{_CP_IMAGE.get((major, minor), '8.1.0')}"
        )
        self.kafka_version = kafka_version
        self.image = tag
        self.broker_config = dict(broker_config)
        self.brokers: list[Any] = []
        self._container: Any = None
        self.bootstrap_servers = ""

    def start(self) -> DockerCluster:
        from testcontainers.community.kafka import KafkaContainer

        container = KafkaContainer(image=self.image).with_kraft()
        for key, value in self.broker_config.items():
            container.with_env("KAFKA_" + key.upper().replace(".", "_"), value)
        try:
            container.start()
        except Exception as exc:
            raise BrokerStartError(
                f"the Kafka container {self.image} did not start: {exc}"
            ) from exc
        self._container = container
        self.bootstrap_servers = container.get_bootstrap_server()
        return self

    def stop(self) -> None:
        if self._container is not None:
            with contextlib.suppress(Exception):
                self._container.stop()
            self._container = None
