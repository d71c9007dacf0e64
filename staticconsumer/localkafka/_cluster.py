"""A real Apache Kafka cluster on 127.0.0.1: KRaft combined broker+controller nodes from Kafka
3.3, ZooKeeper-mode brokers beside a ZooKeeper of their own before (2.8 to 3.2, :mod:`._zookeeper`).

Each node runs ``kafka.Kafka`` from the jars that :mod:`.maven` resolved from Maven Central, with
its data and log under the launcher's run directory. The cluster object is the test API: start,
stop, ``kill -9`` and restart single brokers, read their logs, create topics.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
import weakref
from collections.abc import Mapping
from pathlib import Path

from tenacity import RetryCallState

from ..errors import ConfigurationError
from ..security import SecuritySettings
from . import _probe, _retry, _zookeeper
from ._acls import create_acls, full_access
from ._java import (
    DEFAULT_KAFKA_VERSION,
    GROUP_FEATURE_SINCE,
    REBALANCE_PROTOCOLS_SETTING,
    SECURE_SINCE,
    check_group_version,
    group_feature_arguments,
    kafka_coordinates,
    log_config,
    parse_kafka_version,
    require_java,
    uses_kraft,
)
from ._process import RunDirectory, die_with_parent, kill_group, wait_listening
from ._secure import FULL_ACCESS_USERS, SECURITY_MODES, SUPER_USER, SecureBrokerSetup
from .errors import BrokerStartError
from .maven import cache_root, resolve_jars

log = logging.getLogger(__name__)

_LIVE: weakref.WeakSet[LocalKafkaCluster] = weakref.WeakSet()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _random_cluster_id() -> str:
    """A Kafka cluster id: url-safe base64 of 16 random bytes. Like Kafka's Uuid.randomUuid we
    never return one that starts with '-', which the storage tool would read as an option."""
    while True:
        candidate = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not candidate.startswith("-"):
            return candidate


class Broker:
    """One node: a KRaft broker and controller in one process, or a ZooKeeper-mode broker."""

    def __init__(self, cluster: LocalKafkaCluster, node_id: int) -> None:
        self.cluster = cluster
        self.node_id = node_id
        self.port = 0
        self.controller_port = 0
        self.directory = cluster.run_dir.path / f"node-{node_id}"
        self.log_path = self.directory / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def read_log(self) -> str:
        """Everything this broker has logged, across restarts."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.read_log().splitlines()[-lines:])

    def command_line(self) -> list[str]:
        """The ``/proc`` view of the running process, for tests that check what really runs."""
        if not self.pid:
            return []
        try:
            raw = Path(f"/proc/{self.pid}/cmdline").read_bytes()
        except OSError:
            return []
        return [part.decode() for part in raw.split(b"\0") if part]

    def _kraft_properties(self) -> dict[str, str]:
        nodes = self.cluster.brokers
        voters = ",".join(f"{b.node_id}@127.0.0.1:{b.controller_port}" for b in nodes)
        return {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        }

    def _properties(self) -> dict[str, str]:
        c = self.cluster
        replication = str(min(3, len(c.brokers)))
        if c.zookeeper is not None:
            props = _zookeeper.broker_properties(self, c.zookeeper.port)
        else:
            props = self._kraft_properties()
        props |= {
            "log.dirs": str(self.directory / "data"),
            "offsets.topic.replication.factor": replication,
            "transaction.state.log.replication.factor": replication,
            "transaction.state.log.min.isr": "1",
            "min.insync.replicas": "1",
            "auto.create.topics.enable": "true",
            "num.partitions": "1",
            "log.segment.bytes": str(16 * 1024 * 1024),
        }
        if c.secure is not None:
            props.update(c.secure.broker_properties(self.port, self.controller_port))
        props.update(c.config_for(self.node_id))
        return props

    def _write_config(self) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / "server.properties"
        path.touch(mode=0o600)  # a secured cluster's file holds the broker's JAAS passwords
        path.write_text("".join(f"{k}={v}\n" for k, v in self._properties().items()))
        return path

    def format_storage(self) -> None:
        config = self._write_config()
        cmd = self.cluster.java_command(
            "kafka.tools.StorageTool",
            "format",
            "-t",
            self.cluster.cluster_id,
            "-c",
            str(config),
            *group_feature_arguments(self.cluster.kafka_version, self.cluster.group_version),
            *(self.cluster.secure.scram_arguments() if self.cluster.secure else []),
            heap="256m",
        )
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
            raise BrokerStartError(f"formatting storage for node {self.node_id} failed:\n{tail}")

    def start(self) -> None:
        """Start (or restart) this broker's process; returns without waiting for readiness."""
        if self.is_running():
            return
        config = self._write_config()
        out = self.log_path.open("ab")
        # Linux ties "die with the parent" to the *thread* that forks: a broker started from a
        # worker thread (``asyncio.to_thread(cluster.restart_broker, n)``) would be killed when
        # that thread ends. Off the main thread the atexit hook and the run directory's pid
        # records still stop it.
        on_main_thread = threading.current_thread() is threading.main_thread()
        try:
            self.process = subprocess.Popen(
                self.cluster.java_command("kafka.Kafka", str(config)),
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=die_with_parent if on_main_thread else None,
            )  # fmt: skip
        finally:
            out.close()
        self.cluster.run_dir.record_broker(self.node_id, self.process.pid)
        log.info("started node %d (pid %d) on %s", self.node_id, self.process.pid, self.address)

    def kill(self) -> None:
        """``kill -9`` the broker: no clean shutdown, as in a crash."""
        if self.process is not None:
            kill_group(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self, timeout_s: float = 30.0) -> None:
        """A controlled shutdown (SIGTERM), then SIGKILL if it takes longer than ``timeout_s``."""
        if self.process is None or self.process.poll() is not None:
            return
        kill_group(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()

    def wait_listening(self, deadline: float) -> None:
        """Poll the port under the ``broker_listening`` policy until it accepts a connection;
        BrokerStartError when the process exits or ``deadline`` (monotonic) passes."""
        wait_listening(self.port, self.is_running, self._failure, deadline)

    def _failure(self, what: str) -> str:
        return (
            f"Kafka node {self.node_id} {what}. Last lines of {self.log_path}:\n{self.log_tail()}"
        )

    def port_clash(self) -> bool:
        text = self.log_tail(200)
        return "Address already in use" in text or "BindException" in text


class LocalKafkaCluster(_probe.TopicCreation):
    """A real Apache Kafka cluster of ``brokers`` KRaft nodes on 127.0.0.1.

    ``broker_config`` goes to every node; ``node_config`` maps a node id (1 to ``brokers``) to
    configs for that node only, which win over ``broker_config`` — e.g. one ``broker.rack`` per
    node for rack-aware assignment (KIP-881)::

        LocalKafkaCluster(3, node_config={n: {"broker.rack": f"rack-{n}"} for n in (1, 2, 3)})

    From Kafka 4.0 each node is formatted with the group feature finalized (KIP-848's
    ``group.version``): ``group_version=1``, the default, has the consumer protocol on;
    ``group_version=0`` makes a classic-only broker, the way KIP-1237 keeps once it removes the
    broker setting ``group.coordinator.rebalance.protocols`` (never written by the launcher).
    Before 4.0 nothing is formatted for it and ``group_version`` is refused.

    >>> with LocalKafkaCluster(brokers=1) as cluster:      # doctest: +SKIP
    ...     print(cluster.bootstrap_servers)
    """

    def __init__(
        self,
        brokers: int = 1,
        *,
        kafka_version: str | None = None,
        broker_config: Mapping[str, str] | None = None,
        node_config: Mapping[int, Mapping[str, str]] | None = None,
        startup_timeout_s: float = 180.0,
        cache_dir: Path | None = None,
        security: str = "plaintext",
        group_version: int | None = None,
    ) -> None:
        if brokers < 1:
            raise ValueError(f"brokers must be at least 1, got {brokers}")
        if security not in SECURITY_MODES:
            raise ValueError(
                f"security must be one of {', '.join(SECURITY_MODES)}, got {security!r}"
            )
        self.security = security
        #: The secured cluster's certificates, users and client configs (None when plaintext).
        self.secure: SecureBrokerSetup | None = None
        unknown = sorted(set(node_config or {}) - set(range(1, brokers + 1)), key=str)
        if unknown:
            raise ValueError(
                f"node_config names node ids {unknown}; this cluster's nodes are 1 to {brokers}"
            )
        self.node_config = {
            int(node): {str(k): str(v) for k, v in config.items()}
            for node, config in (node_config or {}).items()
        }
        self.kafka_version = (
            kafka_version or os.environ.get("STATICCONSUMER_KAFKA_VERSION") or DEFAULT_KAFKA_VERSION
        )
        parse_kafka_version(self.kafka_version)
        if security != "plaintext" and (
            not uses_kraft(self.kafka_version)
            or parse_kafka_version(self.kafka_version)[:2] < SECURE_SINCE
        ):
            raise ConfigurationError(
                f"security={security!r} needs Kafka {'.'.join(map(str, SECURE_SINCE))} or newer "
                f"(a KRaft broker whose storage tool adds SCRAM users), got {self.kafka_version}"
            )
        check_group_version(self.kafka_version, group_version)
        #: The group feature's level at format (None: 1 from Kafka 4.0, nothing before).
        self.group_version = group_version
        #: The ZooKeeper of a cluster before Kafka 3.3 (made at start; None in KRaft mode).
        self.zookeeper: _zookeeper.ZooKeeper | None = None
        self.broker_config = {str(k): str(v) for k, v in (broker_config or {}).items()}
        self._warn_deprecated_setting()
        self.startup_timeout_s = startup_timeout_s
        self.cache_dir = cache_dir or cache_root()
        self.size = brokers
        self.cluster_id = _random_cluster_id()
        self.brokers: list[Broker] = []
        self.started = False

    def _warn_deprecated_setting(self) -> None:
        """KIP-1237: from 4.0 the group feature decides; the old setting still works there."""
        given = REBALANCE_PROTOCOLS_SETTING in self.broker_config or any(
            REBALANCE_PROTOCOLS_SETTING in config for config in self.node_config.values()
        )
        if given and parse_kafka_version(self.kafka_version)[:2] >= GROUP_FEATURE_SINCE:
            log.warning(
                "%s is deprecated (KIP-1237) on Kafka %s: give group_version=0 for a "
                "classic-only broker (the group feature) instead",
                REBALANCE_PROTOCOLS_SETTING, self.kafka_version,
            )  # fmt: skip

    def config_for(self, node_id: int) -> dict[str, str]:
        """The configs given for node ``node_id``: ``broker_config``, then its ``node_config``."""
        return {**self.broker_config, **self.node_config.get(node_id, {})}

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> LocalKafkaCluster:
        """Resolve the jars (once), format storage, start every node, and wait until each one
        can produce and consume. Raises :class:`BrokerStartError` with the broker's log tail."""
        if self.started:
            return self
        self.java = require_java()
        jars = resolve_jars(kafka_coordinates(self.kafka_version), cache_dir=self.cache_dir)
        self.classpath = os.pathsep.join(str(j) for j in jars)
        self.run_dir = RunDirectory(self.cache_dir / "run")
        logging_config = log_config(self.kafka_version)
        self.log_config = self.run_dir.path / logging_config.file_name
        self.log_config.write_text(logging_config.text)
        self.logging_flag = logging_config.jvm_flag(self.log_config)
        _LIVE.add(self)
        if not uses_kraft(self.kafka_version):
            self.zookeeper = _zookeeper.ZooKeeper(self)
        if self.security == "sasl_ssl":
            self.secure = SecureBrokerSetup(self.run_dir.path / "security")
            self.secure.prepare()
        self.brokers = [Broker(self, node_id) for node_id in range(1, self.size + 1)]
        try:
            _retry.broker_port_clash(clashed=self._port_clash, before_sleep=self._new_ports)(
                self._start_nodes
            )
        except BaseException:
            self.stop()
            raise
        self.started = True
        log.info("Apache Kafka %s ready at %s", self.kafka_version, self.bootstrap_servers)
        return self

    def java_command(self, main_class: str, *args: str, heap: str = "512m") -> list[str]:
        """A JVM of this cluster's Kafka: its classpath, logging config and run-directory mark
        (which :func:`._process.reap_orphans` looks for)."""
        return [
            str(self.java), f"-Xmx{heap}", f"-Xms{heap}" if heap == "512m" else "-Xms64m",
            "-XX:+UseG1GC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
            self.logging_flag, f"-Dstaticconsumer.run={self.run_dir.path}",
            "-cp", self.classpath, main_class, *args,
        ]  # fmt: skip

    def _start_nodes(self) -> None:
        """Pick free ports, start ZooKeeper (before 3.3) or format each node's storage (KRaft),
        start the nodes, wait until ready."""
        for broker in self.brokers:
            broker.port, broker.controller_port = free_port(), free_port()
        if self.zookeeper is not None:
            self.zookeeper.port = free_port()
            self.zookeeper.start()
            self.zookeeper.wait_listening(time.monotonic() + self.startup_timeout_s)
        else:
            for broker in self.brokers:
                broker.format_storage()
        for broker in self.brokers:
            broker.start()
        self._wait_ready(self.brokers)

    def _port_clash(self, exc: BaseException) -> bool:
        """A start that failed because another process took a port between ``free_port()``
        and the broker's bind: worth another start on new ports."""
        processes: list[Broker | _zookeeper.ZooKeeper] = [*self.brokers]
        if self.zookeeper is not None:
            processes.append(self.zookeeper)
        return isinstance(exc, BrokerStartError) and any(p.port_clash() for p in processes)

    def _new_ports(self, state: RetryCallState) -> None:
        log.warning("a port was taken while Kafka started; retrying on new ports")
        for broker in self.brokers:
            broker.kill()
            shutil.rmtree(broker.directory / "data", ignore_errors=True)
        if self.zookeeper is not None:
            self.zookeeper.kill()
            shutil.rmtree(self.zookeeper.directory / "data", ignore_errors=True)

    def _wait_ready(self, brokers: list[Broker]) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        for broker in brokers:
            broker.wait_listening(deadline)
        remaining = max(5.0, deadline - time.monotonic())
        try:
            _probe.run_sync(
                lambda: _probe.probe_brokers(
                    self.bootstrap_servers,
                    [b.node_id for b in brokers],
                    remaining,
                    self.admin_security,
                )
            )
            if self.secure is not None:
                acls = [acl for user in FULL_ACCESS_USERS for acl in full_access(user)]
                security = self.secure.settings(SUPER_USER)
                _probe.run_sync(lambda: create_acls(self.bootstrap_servers, security, acls))
        except Exception as exc:
            tails = "\n".join(b._failure("is not serving") for b in brokers)
            raise BrokerStartError(
                f"Kafka did not become ready within {self.startup_timeout_s:.0f}s "
                f"({exc!r}).\n{tails}"
            ) from exc

    def stop(self) -> None:
        """Stop every broker and remove all data. Idempotent."""
        for broker in self.brokers:
            with contextlib.suppress(Exception):
                broker.kill()
        if self.zookeeper is not None:
            with contextlib.suppress(Exception):
                self.zookeeper.kill()
        if hasattr(self, "run_dir"):
            self.run_dir.remove()
        self.started = False
        _LIVE.discard(self)

    def __enter__(self) -> LocalKafkaCluster:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- test API -------------------------------------------------------------------------------

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(b.address for b in self.brokers)

    @property
    def admin_security(self) -> SecuritySettings | None:
        """The super user's client settings on a secured cluster (None when plaintext)."""
        return self.secure.settings(SUPER_USER) if self.secure is not None else None

    def client_settings(self, user: str = "app") -> SecuritySettings | None:
        """Client settings for one of the secured cluster's users (None when plaintext)."""
        return self.secure.settings(user) if self.secure is not None else None

    @property
    def client_config_path(self) -> Path | None:
        """The ``app`` user's Java client config file (``--command-config``), when secured."""
        return self.secure.client_config_path("app") if self.secure is not None else None

    def broker(self, node_id: int) -> Broker:
        for broker in self.brokers:
            if broker.node_id == node_id:
                return broker
        raise KeyError(
            f"no broker with node id {node_id}; have {[b.node_id for b in self.brokers]}"
        )

    def kill_broker(self, node_id: int) -> None:
        """``kill -9`` one broker."""
        self.broker(node_id).kill()

    def stop_broker(self, node_id: int) -> None:
        """Controlled shutdown of one broker."""
        self.broker(node_id).stop()

    def restart_broker(self, node_id: int, *, wait: bool = True) -> None:
        """Start a stopped or killed broker again, on the same ports and data."""
        broker = self.broker(node_id)
        broker.stop()
        broker.start()
        if wait:
            deadline = time.monotonic() + self.startup_timeout_s
            broker.wait_listening(deadline)

    def move_broker(self, node_id: int, *, wait: bool = True) -> str:
        """Restart one broker with its client listener on a new port (its advertised address
        moves with it; its data, node id and controller port stay), as a node replaced on
        another host is: every client that knew the old address must find it again
        (KIP-899's rebootstrap). Returns the new address."""
        broker = self.broker(node_id)
        broker.stop()
        broker.port = free_port()
        broker.start()
        if wait:
            broker.wait_listening(time.monotonic() + self.startup_timeout_s)
        return broker.address

    def broker_log(self, node_id: int) -> str:
        return self.broker(node_id).read_log()

    def logs(self) -> str:
        """All brokers' logs, concatenated (rebalance lines appear on the coordinator's)."""
        return "\n".join(b.read_log() for b in self.brokers)


@atexit.register
def _stop_all() -> None:
    for cluster in list(_LIVE):
        cluster.stop()
