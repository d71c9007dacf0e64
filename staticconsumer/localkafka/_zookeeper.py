"""ZooKeeper mode, for Kafka lines before KRaft combined mode (2.8 to 3.2).

Such a cluster is one ZooKeeper (``org.apache.zookeeper.server.ZooKeeperServerMain``, from the
jars that ``kafka_2.13`` of those lines depends on) and ZooKeeper-mode brokers. The ZooKeeper
listens on 127.0.0.1 only, on a free port of its own, keeps its data in the launcher's run
directory and is started before the brokers and stopped after them.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ._process import die_with_parent, kill_group, wait_listening

if TYPE_CHECKING:
    from ._cluster import Broker, LocalKafkaCluster

MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain"
#: The chroot every broker of the cluster registers under.
CHROOT = "/kafka"


def zookeeper_properties(data_dir: Path, port: int) -> dict[str, str]:
    """A standalone ZooKeeper on ``127.0.0.1:port``: no admin server, no four-letter words."""
    return {
        "dataDir": str(data_dir),
        "clientPort": str(port),
        "clientPortAddress": "127.0.0.1",
        "tickTime": "2000",
        "maxClientCnxns": "0",
        "admin.enableServer": "false",
        "4lw.commands.whitelist": "",
    }


def broker_properties(broker: Broker, zookeeper_port: int) -> dict[str, str]:
    """The mode-specific configs of one ZooKeeper-mode broker."""
    return {
        "broker.id": str(broker.node_id),
        "zookeeper.connect": f"127.0.0.1:{zookeeper_port}{CHROOT}",
        "zookeeper.connection.timeout.ms": "30000",
        "listeners": f"PLAINTEXT://127.0.0.1:{broker.port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker.port}",
    }


class ZooKeeper:
    """The ZooKeeper of one ZooKeeper-mode cluster (a process in its own process group)."""

    def __init__(self, cluster: LocalKafkaCluster) -> None:
        self.cluster = cluster
        self.port = 0
        self.directory = cluster.run_dir.path / "zookeeper"
        self.log_path = self.directory / "zookeeper.log"
        self.process: subprocess.Popen[bytes] | None = None

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        config = self.directory / "zookeeper.properties"
        properties = zookeeper_properties(self.directory / "data", self.port)
        config.write_text("".join(f"{k}={v}\n" for k, v in properties.items()))
        on_main_thread = threading.current_thread() is threading.main_thread()
        with self.log_path.open("ab") as out:
            self.process = subprocess.Popen(
                self.cluster.java_command(MAIN_CLASS, str(config), heap="128m"),
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=die_with_parent if on_main_thread else None,
            )  # fmt: skip
        self.cluster.run_dir.record_broker("zookeeper", self.process.pid)

    def wait_listening(self, deadline: float) -> None:
        """Until ZooKeeper accepts a connection; BrokerStartError at the deadline or exit."""
        wait_listening(self.port, self.is_running, self._failure, deadline)

    def _failure(self, what: str) -> str:
        try:
            tail = "\n".join(self.log_path.read_text(errors="replace").splitlines()[-40:])
        except FileNotFoundError:
            tail = ""
        return f"ZooKeeper {what}. Last lines of {self.log_path}:\n{tail}"

    def port_clash(self) -> bool:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return False
        return "Address already in use" in text or "BindException" in text

    def kill(self) -> None:
        """SIGKILL (after the brokers: a stopped cluster keeps no data to flush)."""
        if self.process is not None:
            kill_group(self.process.pid)
            self.process.wait(timeout=30)
