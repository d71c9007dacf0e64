"""Launcher logic that needs no broker: version checks, the resolution order, orphan reaping."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from staticconsumer import localkafka
from staticconsumer.errors import LocalKafkaError, NoBrokerAvailableError
from staticconsumer.localkafka import _java, _process
from staticconsumer.localkafka._java import kafka_coordinates, parse_kafka_version


@pytest.mark.parametrize("bad", ["", "4", "4.1", "latest", "4.1.1-rc1", "2.7.2", "1.1.1", "5.0.0"])
def test_kafka_version_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match=r"kafka-version|not supported"):
        parse_kafka_version(bad)


@pytest.mark.parametrize(
    ("version", "kraft", "log_file"),
    [
        ("2.8.2", False, "log4j.properties"),
        ("3.2.3", False, "log4j.properties"),
        ("3.3.2", True, "log4j.properties"),
        ("3.5.2", True, "log4j.properties"),
        ("3.9.1", True, "log4j.properties"),
        ("4.0.2", True, "log4j2.properties"),
        ("4.3.1", True, "log4j2.properties"),
    ],
)
def test_each_line_gets_its_mode_and_logging(version: str, kraft: bool, log_file: str) -> None:
    """KRaft combined mode from 3.3, ZooKeeper before; log4j 2 from 4.0, reload4j before."""
    assert _java.uses_kraft(version) is kraft
    config = _java.log_config(version)
    assert config.file_name == log_file
    flag = config.jvm_flag(Path("/run/x") / log_file)
    if log_file == "log4j2.properties":
        assert flag == "-Dlog4j2.configurationFile=/run/x/log4j2.properties"
    else:
        assert flag == "-Dlog4j.configuration=file:/run/x/log4j.properties"
        assert "log4j.rootLogger" in config.text
    assert any("slf4j" in c for c in kafka_coordinates(version))


def test_zookeeper_mode_broker_and_zookeeper_configs(tmp_path: Path) -> None:
    from staticconsumer.localkafka import _zookeeper

    cluster = localkafka.LocalKafkaCluster(2, kafka_version="2.8.2")
    cluster.run_dir = _process.RunDirectory(tmp_path / "run")
    try:
        cluster.zookeeper = _zookeeper.ZooKeeper(cluster)
        cluster.zookeeper.port = 2181
        cluster.brokers = [localkafka.Broker(cluster, n) for n in (1, 2)]
        cluster.brokers[1].port = 9093
        props = cluster.brokers[1]._properties()
        zk = _zookeeper.zookeeper_properties(tmp_path / "zk", 2181)
    finally:
        cluster.run_dir.remove()
    assert props["broker.id"] == "2"
    assert props["zookeeper.connect"] == "127.0.0.1:2181/kafka"
    assert props["listeners"] == props["advertised.listeners"] == "PLAINTEXT://127.0.0.1:9093"
    assert not any(k.startswith(("process.roles", "controller.", "node.id")) for k in props)
    assert props["offsets.topic.replication.factor"] == "2"
    assert zk["clientPortAddress"] == "127.0.0.1"  # loopback only
    assert zk["clientPort"] == "2181" and zk["admin.enableServer"] == "false"


@pytest.mark.parametrize("version", ["2.8.2", "3.4.1"])
def test_secured_broker_before_3_5_is_refused_at_construction(version: str) -> None:
    with pytest.raises(ValueError, match=r"needs Kafka 3\.5 or newer.*SCRAM"):
        localkafka.LocalKafkaCluster(1, kafka_version=version, security="sasl_ssl")


def test_logging_backend_follows_major_version() -> None:
    assert kafka_coordinates("3.9.1")[0] == "org.apache.kafka:kafka_2.13:3.9.1"
    assert any("reload4j" in c for c in kafka_coordinates("3.9.1"))
    assert any("log4j-slf4j-impl" in c for c in kafka_coordinates("4.3.1"))


def test_bootstrap_env_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    cluster = localkafka.cluster_from_environment()
    assert isinstance(cluster, localkafka.ExternalCluster)
    assert cluster.start().bootstrap_servers == "127.0.0.1:1"
    with pytest.raises(LocalKafkaError, match="KAFKA_BOOTSTRAP_SERVERS"):
        cluster.kill_broker(1)


def test_no_way_to_a_broker_names_all_three(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP_SERVERS", raising=False)
    monkeypatch.setattr(localkafka, "docker_engine_answers", lambda: False)
    monkeypatch.setattr(localkafka, "find_java", lambda: None)
    with pytest.raises(NoBrokerAvailableError) as info:
        localkafka.cluster_from_environment()
    message = str(info.value)
    assert "KAFKA_BOOTSTRAP_SERVERS" in message
    assert "Docker" in message
    assert "Java 17" in message


def test_java_version_parsing(tmp_path: Path) -> None:
    fake = tmp_path / "java"
    fake.write_text("#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n")
    fake.chmod(0o755)
    assert _java.java_major_version(fake) == 11
    fake.write_text("#!/bin/sh\necho 'java version \"1.8.0_202\"' >&2\n")
    assert _java.java_major_version(fake) == 8
    fake.write_text("#!/bin/sh\necho 'openjdk version \"21\" 2023-09-19' >&2\n")
    assert _java.java_major_version(fake) == 21


def test_orphans_of_a_dead_launcher_are_killed_and_removed(tmp_path: Path) -> None:
    root = tmp_path / "run"
    orphan_dir = root / "999999-deadbeef"
    orphan_dir.mkdir(parents=True)
    # A launcher pid that does not exist any more.
    (orphan_dir / "launcher").write_text("999999 12345\n")
    # A stand-in "broker" whose command line looks like ours, in its own process group.
    fake_broker = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "kafka.Kafka", str(orphan_dir)],
        start_new_session=True,
    )
    (orphan_dir / "broker-1.pgid").write_text(f"{fake_broker.pid}\n")
    # A process group that is NOT ours must survive, even if recorded.
    bystander = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True
    )
    (orphan_dir / "broker-2.pgid").write_text(f"{bystander.pid}\n")
    # The ZooKeeper of a Kafka before 3.3, started from the same run directory.
    fake_zookeeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)",
         "org.apache.zookeeper.server.ZooKeeperServerMain", str(orphan_dir)],
        start_new_session=True,
    )  # fmt: skip
    (orphan_dir / "broker-zookeeper.pgid").write_text(f"{fake_zookeeper.pid}\n")
    # Popen returns while the child is still inside execve: its cmdline can read empty a moment.
    for child in (fake_broker, fake_zookeeper):
        while str(orphan_dir).encode() not in Path(f"/proc/{child.pid}/cmdline").read_bytes():
            time.sleep(0.01)
    try:
        run = _process.RunDirectory(root)
        assert fake_broker.wait(timeout=10) == -signal.SIGKILL
        assert fake_zookeeper.wait(timeout=10) == -signal.SIGKILL
        assert bystander.poll() is None
        assert not orphan_dir.exists()
        assert run.path.exists()
        # A live launcher's directory is left alone.
        assert _process.reap_orphans(root) == 0
        assert run.path.exists()
    finally:
        bystander.kill()
        bystander.wait()
        fake_broker.kill()
        fake_zookeeper.kill()


def test_process_start_time_detects_dead_pid() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    time.sleep(0.05)
    assert _process.process_start_time(child.pid) is None
    assert _process.process_start_time(os.getpid()) not in (None, "?")


def test_cluster_id_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    # 0xf8.. encodes to '-' first in url-safe base64; the storage tool then reads it as a flag
    # (this failed a broker start before the fix).
    import uuid

    from staticconsumer.localkafka import _cluster

    draws = iter([uuid.UUID(bytes=b"\xf8" + b"\x00" * 15), uuid.UUID(bytes=b"\x10" * 16)])
    monkeypatch.setattr(_cluster.uuid, "uuid4", lambda: next(draws))
    cluster_id = _cluster._random_cluster_id()
    assert not cluster_id.startswith("-")
    assert len(cluster_id) == 22


# -- per-node broker configs (node_config), e.g. broker.rack for KIP-881 tests -------------------


def test_node_config_reaches_only_its_node(tmp_path: Path) -> None:
    cluster = localkafka.LocalKafkaCluster(
        3,
        broker_config={"broker.rack": "everywhere", "num.partitions": "4"},
        node_config={2: {"broker.rack": "rack-b"}, 3: {"broker.rack": "rack-c"}},
    )
    cluster.run_dir = _process.RunDirectory(tmp_path / "run")
    try:
        cluster.brokers = [localkafka.Broker(cluster, n) for n in (1, 2, 3)]
        props = {b.node_id: b._properties() for b in cluster.brokers}
    finally:
        cluster.run_dir.remove()
    assert [props[n]["broker.rack"] for n in (1, 2, 3)] == ["everywhere", "rack-b", "rack-c"]
    assert {props[n]["num.partitions"] for n in (1, 2, 3)} == {"4"}
    assert [props[n]["node.id"] for n in (1, 2, 3)] == ["1", "2", "3"]


def test_node_config_for_a_missing_node_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"node_config names node ids \[0, 4\].*1 to 3"):
        localkafka.LocalKafkaCluster(3, node_config={0: {}, 4: {"broker.rack": "x"}})
    assert localkafka.LocalKafkaCluster(1).config_for(1) == {}


def test_broker_resolution_imports_no_test_only_package() -> None:
    """``staticconsumer local-kafka``'s resolution, with no Docker engine: testcontainers and the
    docker SDK's container code stay unimported (they are the ``docker`` extra)."""
    probe = (
        "import sys, staticconsumer.cli, staticconsumer.localkafka as lk\n"
        "cluster = lk.cluster_from_environment()\n"
        "print(type(cluster).__name__, sorted(m for m in sys.modules if m.split('.')[0] in "
        "('testcontainers', 'pytest', 'hypothesis')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_BOOTSTRAP_SERVERS"}
    env["DOCKER_HOST"] = "unix:///nonexistent/docker.sock"  # no engine answers
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 1) == ["LocalKafkaCluster", "[]\n"], done.stdout


def test_docker_path_without_the_docker_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("testcontainers", "testcontainers.core.config", "testcontainers.core.container"):
        monkeypatch.setitem(sys.modules, name, None)  # an import of it raises ImportError
    with pytest.raises(NoBrokerAvailableError, match=r"pip install 'staticconsumer\[docker\]'"):
        localkafka.DockerCluster("4.3.1", {}).start()


def test_docker_image_follows_the_official_images_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from staticconsumer.localkafka import _docker

    assert _docker.property_variable("group.min.session.timeout.ms") == (
        "KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS"
    )
    assert _docker.property_variable("log.cleaner-io_ratio") == "KAFKA_LOG_CLEANER___IO__RATIO"
    env = _docker.container_environment(9092, 9093, "cid", {"num.partitions": "3"})
    assert env["KAFKA_LISTENERS"] == "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093"
    assert env["KAFKA_ADVERTISED_LISTENERS"] == "PLAINTEXT://127.0.0.1:9092"
    assert env["KAFKA_NUM_PARTITIONS"] == "3" and env["CLUSTER_ID"] == "cid"
    monkeypatch.delenv(_docker.IMAGE_ENV, raising=False)
    assert _docker.default_image("4.3.1") == "apache/kafka:4.3.1"
    monkeypatch.setenv(_docker.IMAGE_ENV, "local/kafka:test")
    assert localkafka.DockerCluster("4.3.1", {}).image == "local/kafka:test"


@pytest.mark.parametrize(
    ("version", "arguments"),
    [
        ("2.8.2", ()),
        ("3.7.2", ()),  # early access: no group feature, the consumer protocol off as before
        ("3.8.1", ()),  # its storage tool ignores --feature group.version (measured)
        ("3.9.1", ()),  # its storage tool refuses it: "Unsupported feature: group.version"
        ("4.0.2", ("--feature", "group.version=1")),
        ("4.1.1", ("--feature", "group.version=1")),
        ("4.2.0", ("--feature", "group.version=1")),
        ("4.3.1", ("--feature", "group.version=1")),
        ("4.4.0", ("--feature", "group.version=1")),
    ],
)
def test_the_group_feature_is_finalized_at_format_from_4_0(
    version: str, arguments: tuple[str, ...]
) -> None:
    """KIP-1237: from 4.0 the group feature, not group.coordinator.rebalance.protocols, says
    whether the consumer protocol is on; the launcher formats each node with it."""
    assert _java.group_feature_arguments(version, None) == arguments
    if arguments:
        assert _java.group_feature_arguments(version, 0) == ("--feature", "group.version=0")


@pytest.mark.parametrize("version", ["3.7.2", "3.9.1"])
def test_group_version_before_4_0_is_refused_at_construction(version: str) -> None:
    with pytest.raises(ValueError, match=r"group_version needs Kafka 4\.0 or newer"):
        localkafka.LocalKafkaCluster(1, kafka_version=version, group_version=1)


@pytest.mark.parametrize("level", [2, -1])
def test_group_version_other_than_0_or_1_is_refused(level: int) -> None:
    with pytest.raises(ValueError, match=r"group_version must be 0 .* or 1"):
        localkafka.LocalKafkaCluster(1, kafka_version="4.4.0", group_version=level)


@pytest.mark.parametrize(
    ("version", "group_version", "feature"),
    [("4.4.0", None, "group.version=1"), ("4.4.0", 0, "group.version=0"), ("3.9.1", None, None)],
)
def test_format_storage_passes_the_group_feature_and_never_the_old_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, group_version: int | None,
    feature: str | None,
) -> None:  # fmt: skip
    from staticconsumer.localkafka import _cluster

    cluster = localkafka.LocalKafkaCluster(1, kafka_version=version, group_version=group_version)
    cluster.run_dir = _process.RunDirectory(tmp_path / "run")
    cluster.java, cluster.classpath, cluster.logging_flag = Path("java"), "cp", "-Dlog"
    cluster.brokers = [localkafka.Broker(cluster, 1)]
    ran: list[list[str]] = []

    def run(cmd: list[str], **_kwargs: object) -> subprocess.CompletedProcess[str]:
        ran.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(_cluster.subprocess, "run", run)
    try:
        cluster.brokers[0].format_storage()
        written = (cluster.brokers[0].directory / "server.properties").read_text()
    finally:
        cluster.run_dir.remove()
    [command] = ran
    assert command[command.index("kafka.tools.StorageTool") + 1] == "format"
    if feature is None:
        assert "--feature" not in command
    else:
        assert command[command.index("--feature") + 1] == feature
    assert "group.coordinator.rebalance.protocols" not in written


def test_the_deprecated_setting_given_on_4_x_is_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("WARNING", logger="staticconsumer.localkafka")
    old = {"group.coordinator.rebalance.protocols": "classic"}
    localkafka.LocalKafkaCluster(1, kafka_version="3.9.1", broker_config=old)
    assert caplog.records == [], "3.7 to 3.9 have only the setting: nothing to say"
    localkafka.LocalKafkaCluster(1, kafka_version="4.4.0", node_config={1: old})
    [record] = caplog.records
    assert "deprecated (KIP-1237)" in record.getMessage()
    assert "group_version=0" in record.getMessage()
