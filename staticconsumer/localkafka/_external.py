"""Clusters we do not run as local processes: one named by KAFKA_BOOTSTRAP_SERVERS (here), or a
Kafka container when a Docker engine answers (``_docker.py``)."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from . import _probe
from .errors import LocalKafkaError

log = logging.getLogger(__name__)


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
    """True when the docker SDK (the ``docker`` extra) is installed and the engine that
    ``DOCKER_HOST`` (default: the local socket) names answers a ping within 3 seconds."""
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
