"""Finding a Java runtime and the Apache Kafka jars for a given Kafka version."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigurationError
from .errors import NoBrokerAvailableError

#: The Kafka that ``staticconsumer local-kafka`` runs by default: the newest 4.x release that is
#: complete on Maven Central and that aiokafka 0.14 works with (tested in CI).
DEFAULT_KAFKA_VERSION = "4.4.0"
#: Oldest release line we run: Kafka 2.8, the last line that needs ZooKeeper (its jars ship it).
MIN_KAFKA_VERSION = (2, 8)
#: First line whose KRaft combined mode (broker and controller in one process) is production
#: ready; older lines run as a ZooKeeper-mode broker beside a ZooKeeper of their own.
KRAFT_SINCE = (3, 3)
#: First line whose storage tool writes SCRAM users before the first start (KIP-554's
#: ``--add-scram``), which the secured KRaft broker needs (``_secure.py``).
SECURE_SINCE = (3, 5)
#: First line whose storage tool finalizes the group feature (``group.version``, KIP-848) at
#: format: level 1 turns the consumer protocol on, level 0 leaves the classic one alone. KIP-1237
#: deprecates the broker setting ``group.coordinator.rebalance.protocols`` for it. Measured: 3.9's
#: tool knows the feature but refuses it ("Unsupported feature: group.version", its level 1 is not
#: production there) and 3.8's ignores it; 3.7 to 3.9 run the early access, off, as before.
GROUP_FEATURE_SINCE = (4, 0)
#: The deprecated broker setting (KIP-1237) that the launcher never writes from 4.0.
REBALANCE_PROTOCOLS_SETTING = "group.coordinator.rebalance.protocols"
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")

#: Logging backend per Kafka major version. Kafka 4 logs through log4j 2, Kafka 2 and 3 through
#: log4j 1 (reload4j, its maintained fork); the broker jar on Maven Central carries no binding for
#: slf4j, so we add one.
_LOG_BACKEND = {
    2: ("org.slf4j:slf4j-reload4j:1.7.36",),
    3: ("org.slf4j:slf4j-reload4j:1.7.36",),
    4: ("org.apache.logging.log4j:log4j-slf4j-impl:2.25.4",),
}

_LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.quiet1.name = org.apache.kafka.raft
logger.quiet1.level = WARN
logger.quiet2.name = kafka.log
logger.quiet2.level = WARN
logger.quiet3.name = org.apache.kafka.storage
logger.quiet3.level = WARN
logger.quiet4.name = state.change.logger
logger.quiet4.level = WARN
"""
_LOG4J1 = """\
log4j.rootLogger=INFO, out
log4j.appender.out=org.apache.log4j.ConsoleAppender
log4j.appender.out.layout=org.apache.log4j.PatternLayout
log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.kafka.raft=WARN
log4j.logger.kafka.log=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.zookeeper=WARN
"""


@dataclass(frozen=True)
class LogConfig:
    """How a Kafka line's JVM is told where its logging config is."""

    file_name: str
    text: str
    system_property: str

    def jvm_flag(self, path: Path) -> str:
        prefix = "" if self.system_property.startswith("log4j2") else "file:"
        return f"-D{self.system_property}={prefix}{path}"


def log_config(version: str) -> LogConfig:
    """log4j 2 for Kafka 4, log4j 1 (reload4j) for Kafka 2 and 3 (ZooKeeper too)."""
    if parse_kafka_version(version)[0] >= 4:
        return LogConfig("log4j2.properties", _LOG4J2, "log4j2.configurationFile")
    return LogConfig("log4j.properties", _LOG4J1, "log4j.configuration")


def uses_kraft(version: str) -> bool:
    """KRaft combined mode from Kafka 3.3; a ZooKeeper-mode broker before."""
    return parse_kafka_version(version)[:2] >= KRAFT_SINCE


def group_feature_arguments(version: str, group_version: int | None) -> tuple[str, ...]:
    """The storage tool's ``--feature`` for the group feature: from Kafka 4.0 always, at
    ``group_version`` or at level 1 (the consumer protocol on, which a fresh 4.x cluster finalizes
    anyway: said explicitly so that the broker setting is never what decides); none before 4.0,
    where ``group_version`` is refused (:func:`check_group_version`)."""
    check_group_version(version, group_version)
    if parse_kafka_version(version)[:2] < GROUP_FEATURE_SINCE:
        return ()
    return ("--feature", f"group.version={1 if group_version is None else group_version}")


def check_group_version(version: str, group_version: int | None) -> None:
    """``group_version`` is 0 or 1, on Kafka 4.0 or newer; ConfigurationError otherwise."""
    if group_version is None:
        return
    if group_version not in (0, 1):
        raise ConfigurationError(
            f"group_version must be 0 (classic protocol only) or 1 (the consumer protocol on), "
            f"got {group_version!r}"
        )
    if parse_kafka_version(version)[:2] < GROUP_FEATURE_SINCE:
        raise ConfigurationError(
            f"group_version needs Kafka {'.'.join(map(str, GROUP_FEATURE_SINCE))} or newer (the "
            f"group feature, KIP-848), got {version}: before 4.0 the consumer protocol is early "
            f"access, off by default"
        )


NO_BROKER_HELP = (
    "No Apache Kafka broker is available. Get one in any of three ways:\n"
    "  1. set KAFKA_BOOTSTRAP_SERVERS=host:port[,host:port] to use a running cluster;\n"
    "  2. run a Docker engine and `pip install 'staticconsumer[docker]'` (Kafka then runs in a\n"
    "     container of STATICCONSUMER_KAFKA_IMAGE, default apache/kafka:<version>);\n"
    "  3. install Java 17 or newer (e.g. `apt-get install openjdk-17-jre-headless`): the\n"
    "     broker is then fetched once from Maven Central (org.apache.kafka:kafka_2.13) and\n"
    "     run locally."
)


def parse_kafka_version(version: str) -> tuple[int, int, int]:
    """Check a ``--kafka-version`` / ``STATICCONSUMER_KAFKA_VERSION`` value."""
    match = _VERSION.match(version.strip())
    if not match:
        raise ConfigurationError(
            f"--kafka-version must look like 4.3.1 (major.minor.patch), got {version!r}"
        )
    parsed = (int(match[1]), int(match[2]), int(match[3]))
    if parsed[:2] < MIN_KAFKA_VERSION or parsed[0] not in _LOG_BACKEND:
        raise ConfigurationError(
            f"Apache Kafka {version} is not supported by the local launcher: use 2.8.x, 3.x or "
            f"4.x (default {DEFAULT_KAFKA_VERSION})"
        )
    return parsed


def kafka_coordinates(version: str) -> list[str]:
    major = parse_kafka_version(version)[0]
    return [f"org.apache.kafka:kafka_2.13:{version}", *_LOG_BACKEND[major]]


def find_java() -> Path | None:
    """A ``java`` of version 17 or newer: ``$JAVA_HOME/bin/java`` first, then the PATH."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path))
    for java in candidates:
        if java.exists() and java_major_version(java) >= 17:
            return java
    return None


def java_major_version(java: Path) -> int:
    try:
        done = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    match = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    if not match:
        return 0
    major = int(match[1])
    return int(match[2] or 0) if major == 1 else major


def require_java() -> Path:
    java = find_java()
    if java is None:
        raise NoBrokerAvailableError(NO_BROKER_HELP)
    return java
