"""Step b of the broker resolution: a single-node KRaft Kafka in a container (testcontainers).

The container runs with host networking and listens on 127.0.0.1 only, on ports we pick, so the
broker advertises exactly the address clients connect to (no port mapping, no bridge network).
It is configured through the startup contract of the official ``apache/kafka`` image, which any
image named by ``STATICCONSUMER_KAFKA_IMAGE`` must follow (``scripts/kafka_image.sh`` builds one
with no registry):

- ``KAFKA_<NAME>`` environment variables become broker properties: the prefix is dropped, the rest
  lower-cased, then ``___`` -> ``-``, ``__`` -> ``_``, ``_`` -> ``.``
  (``KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS`` -> ``group.min.session.timeout.ms``);
- ``CLUSTER_ID`` formats the KRaft storage, then the broker starts.

testcontainers (and the docker SDK it brings) is the ``docker`` extra: it is imported only when
this path is taken, and its absence is a clear
:class:`~staticconsumer.localkafka.errors.NoBrokerAvailableError`.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import socket
import time
import weakref
from collections.abc import Mapping
from typing import Any

from . import _probe, _retry
from ._cluster import _random_cluster_id, free_port
from ._external import _NoBrokerControl
from .errors import BrokerStartError, NoBrokerAvailableError

log = logging.getLogger(__name__)

#: The environment variable that names the image (default: the official image of the version).
IMAGE_ENV = "STATICCONSUMER_KAFKA_IMAGE"
DOCKER_EXTRA_HELP = (
    "a Docker engine answers, but the Docker path needs testcontainers: "
    "pip install 'staticconsumer[docker]'"
)
_LIVE: weakref.WeakSet[DockerCluster] = weakref.WeakSet()


def default_image(kafka_version: str) -> str:
    """``STATICCONSUMER_KAFKA_IMAGE``, else the official ``apache/kafka:<version>``."""
    return os.environ.get(IMAGE_ENV, "").strip() or f"apache/kafka:{kafka_version}"


def property_variable(key: str) -> str:
    """The ``apache/kafka`` image's variable for a broker property (the inverse of its rule)."""
    return "KAFKA_" + key.replace("_", "__").replace("-", "___").replace(".", "_").upper()


def container_environment(
    port: int, controller_port: int, cluster_id: str, broker_config: Mapping[str, str]
) -> dict[str, str]:
    """What the container gets: a combined broker+controller node on 127.0.0.1, then the
    caller's ``broker_config`` (which wins)."""
    properties = {
        "node.id": "1",
        "process.roles": "broker,controller",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "log.dirs": "/tmp/kraft-combined-logs",
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "auto.create.topics.enable": "true",
        **broker_config,
    }
    env = {property_variable(k): str(v) for k, v in properties.items()}
    env["CLUSTER_ID"] = cluster_id
    env["KAFKA_HEAP_OPTS"] = "-Xmx512m -Xms512m"
    return env


def _wait_listening(port: int, deadline: float) -> None:
    """The JVM in the container takes a few seconds to open its port (``broker_listening``)."""

    def connect() -> None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError as exc:
            raise _retry.NotYet(f"port {port}: {exc}") from exc

    for attempt in _retry.broker_listening(deadline):
        with attempt:
            connect()


def _container_class() -> Any:
    """testcontainers' ``DockerContainer``, imported only now; its reaper container (an image
    from a registry) is switched off: we remove our container ourselves, also at exit."""
    try:
        from testcontainers.core.config import testcontainers_config
        from testcontainers.core.container import DockerContainer
    except ImportError as exc:
        raise NoBrokerAvailableError(DOCKER_EXTRA_HELP) from exc
    testcontainers_config.ryuk_disabled = True
    return DockerContainer


class DockerCluster(_NoBrokerControl):
    """A single-node KRaft Kafka in a container on the host's network, listening on loopback."""

    def __init__(
        self,
        kafka_version: str,
        broker_config: Mapping[str, str],
        *,
        image: str | None = None,
        startup_timeout_s: float = 120.0,
    ) -> None:
        self.kafka_version = kafka_version
        self.image = image or default_image(kafka_version)
        self.broker_config = {str(k): str(v) for k, v in broker_config.items()}
        self.startup_timeout_s = startup_timeout_s
        self.brokers: list[Any] = []
        self._container: Any = None
        self.bootstrap_servers = ""

    def start(self) -> DockerCluster:
        """Start the container and wait until the broker produces and consumes."""
        if self._container is not None:
            return self
        container_class = _container_class()
        port, controller_port = free_port(), free_port()
        env = container_environment(port, controller_port, _random_cluster_id(), self.broker_config)
        container = container_class(self.image, env=env, network_mode="host")
        try:
            container.start()
        except Exception as exc:
            raise BrokerStartError(
                f"the Kafka container {self.image} did not start: {exc}. Pick a local image that "
                f"follows the apache/kafka image's contract with {IMAGE_ENV} "
                "(scripts/kafka_image.sh builds one without a registry)"
            ) from exc
        self._container = container
        _LIVE.add(self)
        self.bootstrap_servers = f"127.0.0.1:{port}"
        deadline = time.monotonic() + self.startup_timeout_s
        try:
            _wait_listening(port, deadline)
            _probe.run_sync(
                lambda: _probe.probe_brokers(self.bootstrap_servers, [1], self.startup_timeout_s)
            )
        except (Exception, _retry.NotYet) as exc:
            tail = self.container_log()[-3000:]
            self.stop()
            raise BrokerStartError(
                f"Kafka in container {self.image} did not become ready ({exc!r}). Its log:\n{tail}"
            ) from exc
        log.info("Apache Kafka (container %s) ready at %s", self.image, self.bootstrap_servers)
        return self

    def container_log(self) -> str:
        """The container's stdout and stderr so far."""
        if self._container is None:
            return ""
        with contextlib.suppress(Exception):
            out, err = self._container.get_logs()
            return bytes(out + err).decode(errors="replace")
        return ""

    def stop(self) -> None:
        """Remove the container. Idempotent."""
        if self._container is not None:
            with contextlib.suppress(Exception):
                self._container.stop()
            self._container = None
        _LIVE.discard(self)


@atexit.register
def _stop_all() -> None:
    for cluster in list(_LIVE):
        cluster.stop()
