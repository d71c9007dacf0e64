"""Kafka's own command-line tools (their classes from kafka-tools, at the broker's version, on
the jars Maven Central serves), run against the test broker as an operator would run them."""

from __future__ import annotations

import os
import subprocess

import pytest

from staticconsumer.localkafka import find_java, resolve_jars

#: kafka-tools at the main test broker's version.
TOOLS_VERSION = "4.4.0"


def run_tool(main_class: str, *args: str, timeout_s: float = 120) -> str:
    """Run ``main_class`` of kafka-tools with ``args``; its standard output (it must exit 0)."""
    java = find_java()
    if java is None:
        pytest.fail(f"this test runs Kafka's {main_class.rsplit('.', 1)[-1]} and needs Java 17+ "
                    "on PATH or JAVA_HOME", pytrace=False)  # fmt: skip
    jars = resolve_jars([f"org.apache.kafka:kafka-tools:{TOOLS_VERSION}"])
    done = subprocess.run(
        [str(java), "-cp", os.pathsep.join(str(j) for j in jars), main_class, *args],
        capture_output=True, text=True, timeout=timeout_s, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{main_class} {' '.join(args)}:\n{done.stderr[-3000:]}"
    return done.stdout


def set_group_config(bootstrap: str, group: str, key: str, value: str) -> None:
    """``kafka-configs.sh --alter --entity-type groups`` (a dynamic group config, KIP-848/1071)."""
    entity = ("--entity-type", "groups", "--entity-name", group)
    run_tool("org.apache.kafka.tools.ConfigCommand", "--bootstrap-server", bootstrap, "--alter",
             *entity, "--add-config", f"{key}={value}")  # fmt: skip
