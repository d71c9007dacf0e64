"""docs/kubernetes.md, run: its Python snippet, its StatefulSet manifest, and every
``$ staticconsumer ...`` command against the real broker, output compared line by line."""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from staticconsumer import HealthServer, StaticConsumer
from staticconsumer._observability.health import LIVE_PATH, READY_PATH
from staticconsumer.admin import describe_group, reconcile
from staticconsumer.errors import ConfigurationError
from staticconsumer.localkafka import KafkaCluster

from ..integration._group import start_member, wait_stable

DOC = Path(__file__).resolve().parents[2] / "docs" / "kubernetes.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(), flags=re.S)


def _commands() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$ `` line of the console blocks."""
    steps: list[tuple[str, list[str]]] = []
    for block in _blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return steps


def test_the_doc_has_the_commands_this_test_runs() -> None:
    commands = [c for c, _ in _commands()]
    assert len(commands) == 3
    assert all(c.startswith("staticconsumer ") for c in commands)


async def test_python_snippet_takes_the_statefulset_pod_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("STATICCONSUMER_INSTANCE_ID", raising=False)
    monkeypatch.setenv("POD_NAME", "orders-0")
    scope: dict[str, object] = {"bootstrap": "127.0.0.1:9092"}
    exec(_blocks("python")[0], scope)  # builds the consumer; nothing connects before start()
    consumer, health = scope["consumer"], scope["health"]
    assert isinstance(consumer, StaticConsumer)
    assert consumer.group_instance_id == "orders-0"
    assert isinstance(health, HealthServer) and health.consumers == (consumer,)
    monkeypatch.setenv("POD_NAME", "orders-7d4b9c6f5b-x2k8q")  # a Deployment pod: refused
    with pytest.raises(ConfigurationError, match="Deployment"):
        exec(_blocks("python")[0], scope)


def _snippet_health_port() -> int:
    found = re.search(r"HealthServer\(port=(\d+)", _blocks("python")[0])
    assert found, "the Python snippet opens no health endpoint"
    return int(found[1])


def test_statefulset_manifest_fits_the_session_timeout() -> None:
    import yaml  # the test extra's pyyaml

    manifest = yaml.safe_load(_blocks("yaml")[0])
    assert manifest["kind"] == "StatefulSet"
    pod = manifest["spec"]["template"]["spec"]
    env = {e["name"]: e for e in pod["containers"][0]["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    container = pod["containers"][0]
    # The probes hit the consumer's health endpoint, on the port the Python snippet opens.
    assert container["readinessProbe"]["httpGet"]["path"] == READY_PATH
    assert container["livenessProbe"]["httpGet"]["path"] == LIVE_PATH
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    for probe in ("readinessProbe", "livenessProbe"):
        port = container[probe]["httpGet"]["port"]
        assert ports.get(port, port) == _snippet_health_port()
    grace_ms = pod["terminationGracePeriodSeconds"] * 1000
    restart_ms = 30_000  # the doc's allowance for scheduling, image pull and start-up
    assert grace_ms + restart_ms < int(env["SESSION_TIMEOUT_MS"]["value"]) <= 1_800_000


async def test_every_command_in_the_doc_against_the_broker(
    kafka_cluster: KafkaCluster, kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=6), f"orders-{uuid.uuid4().hex[:8]}"
    members = [
        await start_member(topic, kafka_bootstrap, group, f"orders-{i}", session_timeout_ms=60000)
        for i in range(3)
    ]
    try:
        await wait_stable(members, 6)
        await members[2].stop()  # scaled down: the pod is gone, its static member stays
        for command, expected in _commands():
            argv = shlex.split(command.replace("$BOOTSTRAP", kafka_bootstrap))
            argv = [group if a == "orders" and argv[i - 1] == "--group" else a
                    for i, a in enumerate(argv)]  # fmt: skip
            done = await asyncio.to_thread(  # the members keep heartbeating meanwhile
                subprocess.run, [sys.executable, "-m", "staticconsumer", *argv[1:]],
                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            assert done.returncode == 0, (command, done.stderr)
            if expected:
                want = [line.replace("group orders:", f"group {group}:") for line in expected]
                assert done.stdout.splitlines() == want, command
        description = await describe_group(kafka_bootstrap, group)
        assert [m.group_instance_id for m in description.members] == ["orders-0", "orders-1"]
        logs = getattr(kafka_cluster, "logs", None)  # a launched broker: its log has the reason
        if logs is not None:
            assert "client reason: member was removed by an admin: scale down to 2" in logs()
        # Python: desired ids by name; nothing more to remove; a thread id counts as its pod.
        plan = await reconcile(kafka_bootstrap, group, ["orders-0", "orders-1"], apply=True)
        assert (plan.keep, plan.remove, plan.removed) == (("orders-0", "orders-1"), (), ())
        dry = await reconcile(kafka_bootstrap, group, ["orders-0"], reason="scale down to 1")
        assert (dry.remove, dry.applied, dry.removed) == (("orders-1",), False, ())
        assert len((await describe_group(kafka_bootstrap, group)).members) == 2
    finally:
        for member in members[:2]:
            await member.stop()


async def test_reconcile_counts_thread_ids_as_their_pod(
    kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), f"threads-{uuid.uuid4().hex[:8]}"
    ids = ["svc-0-thread-0", "svc-0-thread-1", "svc-1-thread-0", "ghost-0"]
    members = [await start_member(topic, kafka_bootstrap, group, i, session_timeout_ms=60000)
               for i in ids]  # fmt: skip
    try:
        await wait_stable(members, 4)
        await members[3].stop()
        await members[2].stop()
        plan = await reconcile(kafka_bootstrap, group, ["svc-0", "svc-2"], reason="cleanup",
                               apply=True)  # fmt: skip
        assert plan.keep == ("svc-0-thread-0", "svc-0-thread-1")
        assert plan.remove == plan.removed == ("ghost-0", "svc-1-thread-0")
        assert plan.missing == ("svc-2",) and plan.failed == ()
        await wait_stable(members[:2], 4)
    finally:
        for member in members[:2]:
            await member.stop()
