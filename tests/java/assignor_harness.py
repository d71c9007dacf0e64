"""Build and run the Java programs in this folder against kafka-clients from Maven Central.

``AssignorHarness.java`` runs Java's assignors as a test oracle, ``AssignorBench.java`` times them
for ``benchmarks/assignors_bench.py``, ``InteropConsumer.java`` runs Java ``KafkaConsumer``s as
group peers for ``tests/integration/test_java_interop.py``. One ``javac`` compiles them all, once
per change of any source or of the classpath.

Jars come from ``staticconsumer.localkafka.maven.resolve_jars`` when it is importable; otherwise
from ``mvn dependency:copy-dependencies`` on a generated POM (the fallback this helper owns, so the
test can switch to the shared resolver without changes). A missing JDK or Maven raises
``JavaToolMissing`` with what to install; the caller turns that into a test failure.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

KAFKA_CLIENTS = "org.apache.kafka:kafka-clients:4.4.0"
HERE = Path(__file__).resolve().parent


class JavaToolMissing(RuntimeError):
    """A JDK or Maven is not installed."""


def _cache_dir() -> Path:
    explicit = os.environ.get("STATICCONSUMER_CACHE_DIR")
    base = Path(explicit) if explicit else Path.home() / ".cache" / "staticconsumer"
    path = base / "assignor-harness"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _require(tool: str, install: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise JavaToolMissing(f"`{tool}` not found on PATH: install {install}")
    return path


def kafka_clients_jars() -> list[Path]:
    try:
        from staticconsumer.localkafka.maven import resolve_jars
    except ImportError:
        return _mvn_copy_dependencies(KAFKA_CLIENTS)
    return resolve_jars([KAFKA_CLIENTS])


def _mvn_copy_dependencies(coordinate: str) -> list[Path]:
    mvn = _require("mvn", "Apache Maven 3 (e.g. `apt-get install maven`)")
    group, artifact, version = coordinate.split(":")
    out = _cache_dir() / f"jars-{artifact}-{version}"
    if not (out / ".complete").exists():
        out.mkdir(parents=True, exist_ok=True)
        (out / "pom.xml").write_text(
            f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>staticconsumer.tests</groupId><artifactId>harness</artifactId><version>0</version>
  <dependencies><dependency>
    <groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>
  </dependency></dependencies>
</project>
"""
        )
        subprocess.run(
            [mvn, "-q", "-B", "dependency:copy-dependencies", "-DoutputDirectory=lib"],
            cwd=out,
            check=True,
        )
        (out / ".complete").touch()
    return sorted((out / "lib").glob("*.jar"))


def build(main: str = "AssignorHarness") -> list[str]:
    """Compile every ``*.java`` here (cached by sources and classpath).

    Returns the ``java`` command that runs class ``main``: ``AssignorHarness``, ``AssignorBench``
    or ``InteropConsumer``.
    """
    _require("javac", "a JDK 17+ (e.g. `apt-get install openjdk-17-jdk-headless`)")
    java = _require("java", "a JDK 17+ (e.g. `apt-get install openjdk-17-jdk-headless`)")
    classpath = os.pathsep.join(str(jar) for jar in kafka_clients_jars())
    sources = sorted(HERE.glob("*.java"))
    if not (HERE / f"{main}.java").exists():
        raise ValueError(f"no {main}.java in {HERE}")
    digest = hashlib.sha256(classpath.encode())
    for source in sources:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    classes = _cache_dir() / f"classes-{digest.hexdigest()[:16]}"
    if not (classes / ".complete").exists():
        # Compile into a fresh folder and rename it into place, so that two test processes
        # compiling at once never see each other's half-written classes.
        staging = Path(tempfile.mkdtemp(prefix=".javac-", dir=_cache_dir()))
        done = subprocess.run(
            ["javac", "-d", str(staging), "-cp", classpath, *map(str, sources)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise RuntimeError(f"javac failed ({done.returncode}):\n{done.stderr}")
        (staging / ".complete").touch()
        if classes.exists() and not (classes / ".complete").exists():
            shutil.rmtree(classes, ignore_errors=True)  # a leftover of a killed run
        try:
            staging.rename(classes)
        except OSError:  # another process got there first
            shutil.rmtree(staging, ignore_errors=True)
    return [java, "-cp", os.pathsep.join([str(classes), classpath]), main]


def run(command: list[str], stdin: str) -> str:
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"harness failed ({done.returncode}):\n{done.stderr}")
    return done.stdout
