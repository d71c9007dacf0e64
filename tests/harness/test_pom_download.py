"""The Maven-less resolver (``localkafka._pom``) against a fake Maven repository on loopback.

The repository is built in a temporary directory and served by ``http.server``; nothing here
touches the internet.

The graph the tests resolve, rooted at ``com.ex:app:1.0`` (``->`` is a compile dependency)::

    parent:1 (pom)   properties lib.version=2.0, bom.version=1; imports bom:${bom.version};
                     manages carrier:1.0 excluding dropped
    bom:1 (pom)      manages managed:3.0
    app:1.0          parent parent:1, groupId inherited
      -> mid:1.0 excluding excluded      mid -> lib:1.0 (loses to lib:2.0, nearer)
                                         mid -> excluded:1.0 (excluded; not published)
                                         mid -> deep:1.0 (packaging bundle)
      -> lib:${lib.version}              2.0 from the parent's property
      -> managed (no version)            3.0 from the imported BOM
      -> carrier (no version)            1.0 and the exclusion from the parent's management;
                                         carrier -> dropped:1.0 (excluded; not published)
      -> sibling:${project.version}      1.0
      -> left:1.0 -> shared:1.0          equal depth: the first declaration wins
      -> right:1.0 -> shared:2.0
      -> aggregate:1.0 (type pom)        no jar, but its dependency viapom:1.0 is followed
      -> ranged:[1.5,2.0)                the inclusive lower bound
      -> testonly (test), prov (provided), opt (optional), war (type war): not followed,
         and not published, so following them would fail
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from staticconsumer.errors import KafkaResolutionError
from staticconsumer.localkafka import _pom, _retry, maven
from staticconsumer.localkafka._pom import download_closure

GROUP = "com.ex"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class FakeRepository:
    """A Maven repository layout on disk, served over HTTP on 127.0.0.1."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/maven2"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._server.server_close()
            self._thread.join()

    def path(self, artifact: str, version: str, suffix: str, group: str = GROUP) -> Path:
        base = self.root / "maven2" / group.replace(".", "/") / artifact / version
        return base / f"{artifact}-{version}{suffix}"

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.with_name(path.name + ".sha1").write_text(hashlib.sha1(data).hexdigest() + "\n")

    def publish(
        self,
        artifact: str,
        version: str,
        body: str = "",
        *,
        packaging: str = "jar",
        group: str = GROUP,
        namespace: bool = True,
    ) -> None:
        """Write the POM (``body`` goes inside ``<project>``) and, unless a pom, a jar."""
        xmlns = ' xmlns="http://maven.apache.org/POM/4.0.0"' if namespace else ""
        coordinates = "" if "<parent>" in body else f"<groupId>{group}</groupId>"
        pom = (
            f"<?xml version='1.0'?><project{xmlns}><modelVersion>4.0.0</modelVersion>"
            f"{coordinates}<artifactId>{artifact}</artifactId><version>{version}</version>"
            f"<packaging>{packaging}</packaging>{body}</project>"
        )
        self._write(self.path(artifact, version, ".pom", group), pom.encode())
        if packaging != "pom":
            jar = f"jar of {group}:{artifact}:{version}".encode()
            self._write(self.path(artifact, version, ".jar", group), jar)


def dep(artifact: str, version: str | None = None, extra: str = "") -> str:
    version_element = f"<version>{version}</version>" if version else ""
    return (
        f"<dependency><groupId>{GROUP}</groupId><artifactId>{artifact}</artifactId>"
        f"{version_element}{extra}</dependency>"
    )


def deps(*items: str) -> str:
    return "<dependencies>" + "".join(items) + "</dependencies>"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[FakeRepository]:
    repository = FakeRepository(tmp_path / "repo")
    r = repository
    r.publish(
        "parent",
        "1",
        "<properties><lib.version>2.0</lib.version><bom.version>1</bom.version></properties>"
        "<dependencyManagement>"
        + deps(
            dep("bom", "${bom.version}", "<type>pom</type><scope>import</scope>"),
            dep(
                "carrier",
                "1.0",
                f"<exclusions><exclusion><groupId>{GROUP}</groupId>"
                "<artifactId>dropped</artifactId></exclusion></exclusions>",
            ),
        )
        + "</dependencyManagement>",
        packaging="pom",
    )
    r.publish(
        "bom",
        "1",
        "<dependencyManagement>" + deps(dep("managed", "3.0")) + "</dependencyManagement>",
        packaging="pom",
    )
    r.publish(
        "app",
        "1.0",
        f"<parent><groupId>{GROUP}</groupId><artifactId>parent</artifactId>"
        "<version>1</version></parent>"
        + deps(
            dep(
                "mid",
                "1.0",
                f"<exclusions><exclusion><groupId>{GROUP}</groupId>"
                "<artifactId>excluded</artifactId></exclusion></exclusions>",
            ),
            dep("lib", "${lib.version}"),
            dep("managed"),
            dep("carrier"),
            dep("sibling", "${project.version}"),
            dep("left", "1.0"),
            dep("right", "1.0"),
            dep("aggregate", "1.0", "<type>pom</type>"),
            dep("ranged", "[1.5,2.0)"),
            dep("testonly", "1.0", "<scope>test</scope>"),
            dep("prov", "1.0", "<scope>provided</scope>"),
            dep("opt", "1.0", "<optional>true</optional>"),
            dep("war", "1.0", "<type>war</type>"),
        ),
    )
    r.publish("mid", "1.0", deps(dep("lib", "1.0"), dep("excluded", "1.0"), dep("deep", "1.0")))
    r.publish("deep", "1.0", packaging="bundle", namespace=False)
    for artifact, version in [("lib", "1.0"), ("lib", "2.0"), ("managed", "3.0"),
                              ("sibling", "1.0"), ("shared", "1.0"), ("shared", "2.0"),
                              ("viapom", "1.0"), ("ranged", "1.5")]:  # fmt: skip
        r.publish(artifact, version)
    r.publish("left", "1.0", deps(dep("shared", "1.0")))
    r.publish("right", "1.0", deps(dep("shared", "2.0")))
    r.publish("carrier", "1.0", deps(dep("dropped", "1.0")))
    r.publish("aggregate", "1.0", deps(dep("viapom", "1.0")), packaging="pom")
    yield repository
    repository.stop()


EXPECTED = {
    "app-1.0.jar",
    "mid-1.0.jar",
    "deep-1.0.jar",
    "lib-2.0.jar",
    "managed-3.0.jar",
    "sibling-1.0.jar",
    "left-1.0.jar",
    "right-1.0.jar",
    "shared-1.0.jar",
    "viapom-1.0.jar",
    "ranged-1.5.jar",
    "carrier-1.0.jar",
}


def jar_names(directory: Path) -> set[str]:
    return {path.name for path in directory.iterdir()}


def test_closure_follows_maven_rules(repo: FakeRepository, tmp_path: Path) -> None:
    out = tmp_path / "out"
    download_closure([f"{GROUP}:app:1.0"], out, repository=repo.url)
    # Nothing else: no temporary files, no POM-only artifacts, nothing test/provided/optional.
    assert jar_names(out) == EXPECTED
    assert (out / "lib-2.0.jar").read_bytes() == b"jar of com.ex:lib:2.0"
    assert (out / "shared-1.0.jar").read_bytes() == b"jar of com.ex:shared:1.0"


def test_direct_dependency_is_nearer_than_transitive(repo: FakeRepository, tmp_path: Path) -> None:
    # Declared directly (depth 1), shared:2.0 beats the shared:1.0 that app reaches at depth 2.
    out = tmp_path / "out"
    download_closure([f"{GROUP}:shared:2.0", f"{GROUP}:app:1.0"], out, repository=repo.url)
    names = jar_names(out)
    assert "shared-2.0.jar" in names and "shared-1.0.jar" not in names


def test_checksum_mismatch_names_the_file(repo: FakeRepository, tmp_path: Path) -> None:
    repo.path("deep", "1.0", ".jar").write_bytes(b"tampered")
    out = tmp_path / "out"
    with pytest.raises(KafkaResolutionError, match=r"checksum mismatch for .*deep-1\.0\.jar"):
        download_closure([f"{GROUP}:app:1.0"], out, repository=repo.url)
    assert not (out / "deep-1.0.jar").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_missing_checksum_is_an_error(repo: FakeRepository, tmp_path: Path) -> None:
    repo.path("lib", "2.0", ".pom.sha1").unlink()
    with pytest.raises(KafkaResolutionError, match=r"lib-2\.0\.pom"):
        download_closure([f"{GROUP}:app:1.0"], tmp_path / "out", repository=repo.url)


def test_missing_artifact_is_an_error(repo: FakeRepository, tmp_path: Path) -> None:
    with pytest.raises(KafkaResolutionError, match=r"not found: .*nothere-9\.pom"):
        download_closure([f"{GROUP}:nothere:9"], tmp_path / "out", repository=repo.url)


def test_resolve_jars_without_mvn_downloads_then_caches(
    repo: FakeRepository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("staticconsumer.localkafka.maven.shutil.which", lambda _name: None)
    monkeypatch.setattr(maven, "MAVEN_CENTRAL", repo.url)
    cache = tmp_path / "cache"
    first = maven.resolve_jars([f"{GROUP}:app:1.0"], cache_dir=cache)
    assert {path.name for path in first} == EXPECTED
    repo.stop()
    assert maven.resolve_jars([f"{GROUP}:app:1.0"], cache_dir=cache) == first


class _FlakyServer:
    """Answers ``status`` to the first ``failures`` GETs, then 200 with ``b"payload"``."""

    def __init__(self, failures: int, status: int) -> None:
        self.calls = 0
        outer = self

        class Handler(_QuietHandler):
            def do_GET(self) -> None:
                outer.calls += 1
                code = status if outer.calls <= failures else 200
                self.send_response(code)
                self.send_header("Content-Length", "7")
                self.end_headers()
                self.wfile.write(b"payload")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/x.jar"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def __enter__(self) -> _FlakyServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _read(response: Any) -> bytes:
    return bytes(response.read())


def test_transient_answers_are_retried_by_the_maven_download_policy() -> None:
    with _FlakyServer(failures=2, status=503) as server:
        assert _pom._retrying(server.url, _read) == b"payload"
        assert server.calls == 3


def test_maven_download_policy_gives_up_after_its_attempts() -> None:
    with _FlakyServer(failures=99, status=502) as server:
        with pytest.raises(KafkaResolutionError, match="HTTP 502"):
            _pom._retrying(server.url, _read)
        assert server.calls == _retry.MAVEN_ATTEMPTS


def test_a_client_error_is_not_retried() -> None:
    with _FlakyServer(failures=99, status=403) as server:
        with pytest.raises(KafkaResolutionError, match="HTTP 403"):
            _pom._retrying(server.url, _read)
        assert server.calls == 1
