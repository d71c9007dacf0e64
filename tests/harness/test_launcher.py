"""The launcher itself, end to end on a real broker: CLI contract, port clash, readiness bound,
bad versions and the jar cache."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from staticconsumer.errors import BrokerStartError, KafkaResolutionError
from staticconsumer.localkafka import _cluster, cache_root, resolve_jars
from staticconsumer.localkafka._java import DEFAULT_KAFKA_VERSION, kafka_coordinates


def _cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("KAFKA_BOOTSTRAP_SERVERS", None)
    return env


def test_cli_prints_one_bootstrap_line_and_cleans_up_on_sigterm() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "staticconsumer",
            "local-kafka",
            "--broker-config",
            "group.initial.rebalance.delay.ms=0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_cli_env(),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("BOOTSTRAP_SERVERS=127.0.0.1:"), line
        host, port = line.split("=", 1)[1].split(":")
        with socket.create_connection((host, int(port)), timeout=5):
            pass
        run_dirs = [
            p for p in (cache_root() / "run").iterdir() if p.name.startswith(f"{proc.pid}-")
        ]
        assert len(run_dirs) == 1
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err[-2000:]
    assert out.strip() == "", "stdout carries exactly one line"
    assert not run_dirs[0].exists(), "data removed on stop"
    with pytest.raises(OSError), socket.create_connection((host, int(port)), timeout=2):
        pass


def test_cli_unknown_version_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "staticconsumer", "local-kafka", "--kafka-version", "2.0.0"],
        capture_output=True,
        text=True,
        env=_cli_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert "not supported" in done.stderr
    assert "Traceback" not in done.stderr


def test_version_missing_from_maven_central_shows_maven_tail(tmp_path: Path) -> None:
    with pytest.raises(KafkaResolutionError) as info:
        resolve_jars(kafka_coordinates("4.9.9"), cache_dir=tmp_path)
    assert "kafka_2.13:4.9.9" in str(info.value)
    assert "Last lines" in str(info.value)


def test_second_resolution_reuses_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = resolve_jars(kafka_coordinates(DEFAULT_KAFKA_VERSION))
    # Maven is now unusable: the answer must come from the cache alone.
    fake = tmp_path / "mvn"
    fake.write_text("#!/bin/sh\nexit 99\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    started = time.monotonic()
    assert resolve_jars(kafka_coordinates(DEFAULT_KAFKA_VERSION)) == first
    assert time.monotonic() - started < 5
    assert any(p.name.startswith("kafka_2.13-") for p in first)


def test_port_taken_between_pick_and_bind_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))  # bound, not listening: the broker's bind fails
    real_free_port = _cluster.free_port
    handed: list[int] = []

    def first_one_taken() -> int:
        port = taken.getsockname()[1] if not handed else real_free_port()
        handed.append(port)
        return int(port)

    monkeypatch.setattr(_cluster, "free_port", first_one_taken)
    try:
        with _cluster.LocalKafkaCluster(1, startup_timeout_s=120) as cluster:
            assert cluster.brokers[0].port != taken.getsockname()[1]
            assert "Address already in use" in cluster.brokers[0].read_log() or len(handed) > 2
    finally:
        taken.close()
    assert len(handed) >= 4, "ports were picked again after the clash"


def test_broker_not_ready_in_time_shows_its_log() -> None:
    cluster = _cluster.LocalKafkaCluster(1, startup_timeout_s=0.5)
    with pytest.raises(BrokerStartError) as info:
        cluster.start()
    assert "did not" in str(info.value)
    assert "Last lines of" in str(info.value)
    assert all(not b.is_running() for b in cluster.brokers)


@pytest.mark.parametrize("version", ["3.9.1"])
def test_kafka_3_9_works_too(version: str) -> None:
    with _cluster.LocalKafkaCluster(1, kafka_version=version) as cluster:
        assert f"kafka_2.13-{version}.jar" in " ".join(cluster.brokers[0].command_line())
        assert (
            "Kafka Server started" in cluster.brokers[0].read_log()
            or "started (kafka" in cluster.brokers[0].read_log()
        )


def test_kafka_2_8_runs_with_its_own_zookeeper_on_loopback() -> None:
    """Before Kafka 3.3 the launcher starts a ZooKeeper with the brokers, on 127.0.0.1 and a free
    port of its own, and stops it and removes its data with them."""
    cluster = _cluster.LocalKafkaCluster(1, kafka_version="2.8.2")
    with cluster:
        zookeeper = cluster.zookeeper
        assert zookeeper is not None and zookeeper.is_running()
        assert zookeeper.process is not None
        assert "kafka_2.13-2.8.2.jar" in " ".join(cluster.brokers[0].command_line())
        assert "zookeeper.connect = 127.0.0.1:" in cluster.brokers[0].read_log()
        assert zookeeper.port != cluster.brokers[0].port
        with socket.socket() as probe, pytest.raises(OSError):
            probe.bind(("127.0.0.1", zookeeper.port))  # ZooKeeper holds it
        # Java listens on an IPv6 socket: 127.0.0.1 shows there as ::ffff:127.0.0.1.
        loopback = {"0100007F", "0000000000000000FFFF00000100007F"}
        assert set(_listening_hosts(zookeeper.port)) <= loopback, "loopback only"
        assert _listening_hosts(zookeeper.port)
        run_dir = cluster.run_dir.path
    assert zookeeper.process.poll() is not None, "ZooKeeper stopped with the cluster"
    assert not run_dir.exists(), "its data removed"


def _listening_hosts(port: int) -> list[str]:
    """The hex host part of every socket listening on ``port`` (``/proc/net/tcp`` and ``tcp6``)."""
    hosts = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            host, _, hex_port = fields[1].partition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                hosts.append(host)
    return hosts
