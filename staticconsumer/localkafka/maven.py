"""Resolve Java artifacts (Apache Kafka's broker, kafka-clients) from Maven Central into a cache.

Two ways, tried in this order:

1. ``mvn`` on the PATH: a throw-away POM lists the artifacts and ``dependency:copy-dependencies``
   copies them with their runtime dependencies. Maven honours the machine's own settings (mirrors,
   proxies, ``~/.m2/settings.xml``).
2. No ``mvn``: the jars are downloaded from Maven Central directly. The transitive closure is read
   from the POMs (see :mod:`staticconsumer.localkafka._pom`) and every file is checked against the
   ``.sha1`` that Maven Central publishes beside it.

Each set of coordinates is resolved once into ``<cache>/jars/<key>/``; a ``.complete`` marker makes
a half-finished resolution (killed process, full disk) count as absent.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .errors import KafkaResolutionError

log = logging.getLogger(__name__)

MAVEN_CENTRAL = os.environ.get(
    "STATICCONSUMER_MAVEN_REPOSITORY", "https://repo.maven.apache.org/maven2"
)
_COMPLETE = ".complete"


def cache_root() -> Path:
    """The per-user cache: ``$STATICCONSUMER_CACHE_DIR`` or ``$XDG_CACHE_HOME/staticconsumer``."""
    explicit = os.environ.get("STATICCONSUMER_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "staticconsumer"


def _key(coordinates: Sequence[str]) -> str:
    joined = "\n".join(sorted(coordinates))
    readable = coordinates[0].replace(":", "_") if coordinates else "empty"
    return f"{readable}-{hashlib.sha256(joined.encode()).hexdigest()[:12]}"


def resolve_jars(coordinates: Sequence[str], *, cache_dir: Path | None = None) -> list[Path]:
    """Return the jars of ``coordinates`` (``group:artifact:version``) and their runtime deps.

    Raises :class:`KafkaResolutionError` with the tail of Maven's output when resolution fails.
    """
    for coordinate in coordinates:
        if len(coordinate.split(":")) != 3:
            raise ValueError(f"Maven coordinate must be group:artifact:version, got {coordinate!r}")
    root = (cache_dir or cache_root()) / "jars"
    target = root / _key(coordinates)
    if (target / _COMPLETE).exists():
        return sorted(target.glob("*.jar"))
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
    try:
        if shutil.which("mvn"):
            _resolve_with_maven(coordinates, staging)
        else:
            from ._pom import download_closure

            download_closure(coordinates, staging, repository=MAVEN_CENTRAL)
        (staging / _COMPLETE).write_text("\n".join(coordinates) + "\n")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    log.info("resolved %s into %s", ", ".join(coordinates), target)
    return sorted(target.glob("*.jar"))


def _pom(coordinates: Sequence[str]) -> str:
    deps = []
    for coordinate in coordinates:
        group, artifact, version = coordinate.split(":")
        deps.append(
            f"    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
            f"<version>{version}</version></dependency>"
        )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        "  <modelVersion>4.0.0</modelVersion>\n"
        "  <groupId>staticconsumer.local</groupId><artifactId>resolve</artifactId>"
        "<version>1</version>\n"
        "  <dependencies>\n" + "\n".join(deps) + "\n  </dependencies>\n</project>\n"
    )


def _resolve_with_maven(coordinates: Sequence[str], out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="staticconsumer-mvn-") as work:
        pom = Path(work) / "pom.xml"
        pom.write_text(_pom(coordinates))
        command = [
            "mvn", "-B", "-q", "-f", str(pom),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={out}",
            "-DincludeScope=runtime",
        ]  # fmt: skip
        log.info("resolving %s with Maven (first run only; this can take a minute)", coordinates)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired as exc:
            raise KafkaResolutionError(
                f"Maven did not resolve {', '.join(coordinates)} within 15 minutes"
            ) from exc
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
            raise KafkaResolutionError(
                f"Maven could not resolve {', '.join(coordinates)} (exit {done.returncode}). "
                f"Last lines of its output:\n{tail}"
            )
