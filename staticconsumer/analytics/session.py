"""The SparkSession of the report job, with Spark's Kafka source on its classpath.

The source is ``org.apache.spark:spark-sql-kafka-0-10_2.13:<pyspark version>``. Its jars come from
:func:`staticconsumer.localkafka.maven.resolve_jars` (``mvn`` when present, else a checksum-verified
download from Maven Central) into the staticconsumer cache, and are handed to Spark as
``spark.jars``. Jars that Spark itself ships (``provided`` in the connector's POM, or compile-scope
duplicates such as ``scala-library``, ``hadoop-client-*``, ``slf4j-api``) are left out, so only the
connector, ``spark-token-provider-kafka``, ``kafka-clients`` and ``commons-pool2`` are added.

``$STATICCONSUMER_SPARK_KAFKA_VERSION`` overrides the connector version, for a Maven repository
that lacks the exact version of the installed pyspark (mixing Spark versions is at your own risk).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

from ..localkafka.errors import KafkaResolutionError
from ..localkafka.maven import cache_root, resolve_jars

log = logging.getLogger(__name__)

LOCAL_MASTER = "local[2]"
SCALA_BINARY = "2.13"
VERSION_ENV = "STATICCONSUMER_SPARK_KAFKA_VERSION"
_VERSION_PART = re.compile(r"^\d+\.\d+")

#: Settings for a local run: small shuffles, no UI, loopback only, UTC, a modest driver heap.
LOCAL_CONF: Mapping[str, str] = {
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.memory": "2g",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}
COMMON_CONF: Mapping[str, str] = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.debug.maxToStringFields": "200",
}
_LOG4J2 = """\
# Written by staticconsumer.analytics: warnings and errors only, on stderr.
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.kafka.name = org.apache.kafka
logger.kafka.level = error
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.offsets.name = org.apache.spark.sql.kafka010
logger.offsets.level = error
# "batch is falling behind": expected when recomputing takes longer than --trigger-seconds.
logger.trigger.name = org.apache.spark.sql.execution.streaming.ProcessingTimeExecutor
logger.trigger.level = error
logger.resolve.name = org.apache.spark.sql.execution.streaming.ResolveWriteToStream
logger.resolve.level = error
"""


def connector_coordinate(spark_version: str | None = None) -> str:
    """Maven coordinate of Spark's Kafka source matching ``spark_version`` (default: pyspark's)."""
    version = os.environ.get(VERSION_ENV) or spark_version or pyspark.__version__
    return f"org.apache.spark:spark-sql-kafka-0-10_{SCALA_BINARY}:{version}"


def artifact_name(jar: str) -> str:
    """``hadoop-client-runtime-3.4.1.jar`` -> ``hadoop-client-runtime``: the name without version.

    The version is the last ``-``-separated part that starts with ``<digits>.<digits>``, so
    ``spark-sql-kafka-0-10_2.13-4.0.0.jar`` gives ``spark-sql-kafka-0-10_2.13``.
    """
    stem = jar[:-4] if jar.endswith(".jar") else jar
    parts = stem.split("-")
    for index in range(len(parts) - 1, 0, -1):
        if _VERSION_PART.match(parts[index]):
            return "-".join(parts[:index])
    return stem


def spark_jars_dir() -> Path:
    """The jars of the Spark that pyspark launches: ``$SPARK_HOME/jars`` or pyspark's own."""
    home = os.environ.get("SPARK_HOME")
    return Path(home) / "jars" if home else Path(pyspark.__file__).parent / "jars"


def kafka_source_jars(coordinate: str | None = None) -> list[Path]:
    """The jars to add for Spark's Kafka source: its runtime closure minus what Spark ships."""
    wanted = coordinate or connector_coordinate()
    try:
        resolved = resolve_jars([wanted])
    except KafkaResolutionError as exc:
        raise KafkaResolutionError(
            f"Spark's Kafka source {wanted} (for pyspark {pyspark.__version__}) could not be "
            f"resolved. Install a pyspark whose Kafka source the Maven repository serves (the "
            f"tested one is 4.0.0), or set ${VERSION_ENV} to a version it serves.\n{exc}"
        ) from exc
    shipped = {artifact_name(jar.name) for jar in spark_jars_dir().glob("*.jar")}
    return [jar for jar in resolved if artifact_name(jar.name) not in shipped]


def _log4j2_file() -> Path:
    path = cache_root() / "spark" / "log4j2-quiet.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_LOG4J2)
    return path


def is_local(master: str | None) -> bool:
    return master is None or master.startswith("local")


@contextmanager
def _loopback_env(local: bool) -> Iterator[None]:
    """Have a local Spark resolve its own address to loopback while the JVM starts."""
    previous = os.environ.get("SPARK_LOCAL_IP")
    if local and previous is None:
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    try:
        yield
    finally:
        if local and previous is None:
            os.environ.pop("SPARK_LOCAL_IP", None)


def build_session(
    master: str | None = None,
    *,
    conf: Mapping[str, str] | None = None,
    app_name: str = "staticconsumer-report",
) -> SparkSession:
    """A SparkSession with the Kafka source: ``local[2]`` by default, else ``master``.

    Local runs get :data:`LOCAL_CONF` and a log4j2 configuration that keeps Spark to warnings.
    ``conf`` entries win over both. If this process already runs a SparkSession, Spark returns
    that one and static settings (jars, memory) cannot change: build the session first.
    """
    local = is_local(master)
    settings = dict(COMMON_CONF)
    if local:
        settings.update(LOCAL_CONF)
        settings["spark.driver.extraJavaOptions"] = (
            f"-Dlog4j.configurationFile=file:{_log4j2_file()} -Dlog4j2.level=WARN"
        )
    settings["spark.jars"] = ",".join(str(jar) for jar in kafka_source_jars())
    settings.update(conf or {})
    builder = SparkSession.builder.appName(app_name).master(master or LOCAL_MASTER)
    for key, value in settings.items():
        builder = builder.config(key, value)
    log.info("starting Spark (%s)", master or LOCAL_MASTER)
    with _loopback_env(local):
        spark = builder.getOrCreate()
    if local:
        spark.sparkContext.setLogLevel("WARN")
    return spark
