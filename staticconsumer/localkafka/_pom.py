"""Download Maven artifacts and their runtime closure without Maven, reading the POMs ourselves.

Used by :mod:`staticconsumer.localkafka.maven` when ``mvn`` is not on the PATH. The result matches
what ``mvn dependency:copy-dependencies -DincludeScope=runtime`` copies for a throw-away project
whose only content is the given coordinates as direct dependencies.

What is implemented, after Maven's model builder and its resolver (Maven 3, "classic" manager):

- POMs with or without the ``http://maven.apache.org/POM/4.0.0`` namespace;
- the ``<parent>`` chain: groupId, version, properties, dependencies and dependencyManagement are
  inherited, the child's entry winning; the merged model is interpolated in the child's context, so
  a parent's ``${project.version}`` means the child's version;
- ``${...}`` from properties and ``project.groupId/artifactId/version``, ``project.parent.*``;
- ``<scope>import</scope>`` BOMs: the model's own (and inherited) entries win, then the first
  import;
- a POM's dependencyManagement fills in version, scope and (if none) exclusions of its own deps;
- compile and runtime dependencies are followed; test, provided, system and optional ones are not;
- exclusions (``*`` wildcards too) apply to the whole subtree below the declaring dependency;
- conflicts: nearest wins, and at equal depth the first declaration (breadth-first order) wins.
  The losers' subtrees are never visited, as in Maven's ConflictResolver.

Not implemented: version ranges beyond taking an inclusive lower bound (Maven would read
maven-metadata.xml and take the highest match), relocations, profiles (activation may depend on the
JDK or OS), ``${env.*}``/system properties, artifact types other than jar/bundle/pom, SNAPSHOTs.

Every downloaded file is checked against the ``.sha1`` published beside it; a mismatch or a missing
checksum is a :class:`KafkaResolutionError` naming the URL.
"""

from __future__ import annotations

import hashlib
import logging
import re
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tenacity import RetryCallState

from . import _retry
from .errors import KafkaResolutionError

log = logging.getLogger(__name__)

_TIMEOUT_S = 60.0
_FOLLOWED_SCOPES = frozenset({"compile", "runtime"})
_JAR_TYPES = frozenset({"jar", "bundle"})
_PROPERTY = re.compile(r"\$\{([^}]+)\}")
_T = TypeVar("_T")

# groupId, artifactId, type, classifier: Maven's key for dependencyManagement and inheritance.
_Key = tuple[str, str, str, str]


@dataclass
class _Decl:
    """A ``<dependency>`` element: its child texts, and its exclusions as (groupId, artifactId)."""

    fields: dict[str, str]
    exclusions: list[tuple[str, str]] = field(default_factory=list)

    def get(self, name: str, default: str = "") -> str:
        return self.fields.get(name, default) or default

    def key(self) -> _Key:
        return (
            self.get("groupId"),
            self.get("artifactId"),
            self.get("type", "jar"),
            self.get("classifier"),
        )


@dataclass
class _Raw:
    """A POM merged with its parents, not yet interpolated."""

    group: str
    artifact: str
    version: str
    packaging: str
    parent: tuple[str, str, str] | None
    properties: dict[str, str]
    managed: list[_Decl]
    deps: list[_Decl]


@dataclass
class _Model:
    """An effective POM: interpolated, imports done, management applied to its dependencies."""

    packaging: str
    managed: dict[_Key, _Decl]
    deps: list[_Decl]


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(element: ET.Element, name: str) -> ET.Element | None:
    for child in element:
        if _local(child.tag) == name:
            return child
    return None


def _text(element: ET.Element, name: str) -> str:
    child = _child(element, name)
    return (child.text or "").strip() if child is not None else ""


def _decls(container: ET.Element | None) -> list[_Decl]:
    if container is None:
        return []
    decls = []
    for dep in container:
        if _local(dep.tag) != "dependency":
            continue
        fields = {
            _local(c.tag): (c.text or "").strip() for c in dep if _local(c.tag) != "exclusions"
        }
        decl = _Decl(fields)
        exclusions = _child(dep, "exclusions")
        for exclusion in exclusions if exclusions is not None else []:
            decl.exclusions.append((_text(exclusion, "groupId"), _text(exclusion, "artifactId")))
        decls.append(decl)
    return decls


def _merge(own: list[_Decl], inherited: list[_Decl]) -> list[_Decl]:
    """Maven's inheritance merge: the child's entries first, then the parent's it does not have."""
    keys = {decl.key() for decl in own}
    return own + [decl for decl in inherited if decl.key() not in keys]


def _pick_version(version: str, what: str) -> str:
    """A plain version, or the inclusive lower bound of a range such as ``[1.0,2.0)``."""
    if "${" in version or not version:
        raise KafkaResolutionError(f"cannot determine the version of {what} (got {version!r})")
    if version[0] not in "[(":
        return version
    lower = version[1:].split(",", 1)[0].strip().rstrip("])")
    if version[0] != "[" or not lower:
        raise KafkaResolutionError(
            f"version range {version!r} of {what} has no inclusive lower bound; staticconsumer "
            "takes the lower bound of ranges and cannot pick a version here"
        )
    return lower


def _url(repository: str, group: str, artifact: str, version: str, suffix: str) -> str:
    directory = f"{repository.rstrip('/')}/{group.replace('.', '/')}/{artifact}/{version}"
    return f"{directory}/{artifact}-{version}{suffix}"


def _transient(exc: BaseException) -> bool:
    """A failure that may pass: a 5xx or 429 answer, a timeout, a refused or reset connection."""
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code >= 500 or exc.code == 429
    return isinstance(exc, urllib.error.URLError | OSError)


def _retrying(url: str, action: Callable[[Any], _T]) -> _T:
    """Open ``url`` and run ``action`` on the response, retrying transient failures under the
    ``maven_download`` policy; every failure that is left becomes a KafkaResolutionError."""
    request = urllib.request.Request(url, headers={"User-Agent": "staticconsumer"})

    def once() -> _T:
        with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as response:
            return action(response)

    def before_sleep(state: RetryCallState) -> None:
        exc = _retry.failure(state)
        reason = f"HTTP {exc.code}" if isinstance(exc, urllib.error.HTTPError) else str(exc)
        log.warning("retrying %s (attempt %d failed: %s)", url, state.attempt_number, reason)

    policy = _retry.maven_download(transient=_transient, before_sleep=before_sleep)
    try:
        return policy(once)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise KafkaResolutionError(f"not found: {url}") from exc
        raise KafkaResolutionError(f"HTTP {exc.code} for {url}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise KafkaResolutionError(
            f"could not download {url} after {_retry.MAVEN_ATTEMPTS} attempts: {exc}"
        ) from exc


def _check(url: str, actual: str) -> None:
    """Compare ``actual`` with the sha1 published at ``<url>.sha1`` (``hex`` or ``hex  name``)."""
    try:
        text = _retrying(url + ".sha1", lambda r: bytes(r.read()).decode("ascii", "replace"))
    except KafkaResolutionError as exc:
        raise KafkaResolutionError(f"no usable checksum for {url}: {exc}") from exc
    expected = text.strip().split()[0].lower() if text.strip() else ""
    if not re.fullmatch(r"[0-9a-f]{40}", expected):
        raise KafkaResolutionError(f"malformed checksum {url}.sha1: {text[:80]!r}")
    if actual != expected:
        raise KafkaResolutionError(
            f"checksum mismatch for {url}: sha1 {actual}, published {expected}"
        )


def _fetch_bytes(url: str) -> bytes:
    data = _retrying(url, lambda response: bytes(response.read()))
    _check(url, hashlib.sha1(data).hexdigest())
    return data


def _fetch_file(url: str, dest: Path) -> None:
    """Stream ``url`` to a temporary name beside ``dest``; rename only once the sha1 matches."""
    partial = dest.with_name(f".{dest.name}.part")

    def save(response: Any) -> str:
        digest = hashlib.sha1()
        with partial.open("wb") as sink:
            while chunk := response.read(1 << 16):
                digest.update(chunk)
                sink.write(chunk)
        return digest.hexdigest()

    try:
        _check(url, _retrying(url, save))
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)


class _Resolver:
    """One resolution: POMs are cached in memory for its lifetime."""

    def __init__(self, repository: str) -> None:
        self.repository = repository
        self._raw: dict[tuple[str, str, str], _Raw] = {}
        self._models: dict[tuple[str, str, str], _Model] = {}
        self._building: set[tuple[str, str, str]] = set()

    def raw(self, group: str, artifact: str, version: str) -> _Raw:
        gav = (group, artifact, version)
        if gav in self._raw:
            return self._raw[gav]
        url = _url(self.repository, group, artifact, version, ".pom")
        try:
            root = ET.fromstring(_fetch_bytes(url))
        except ET.ParseError as exc:
            raise KafkaResolutionError(f"cannot parse {url}: {exc}") from exc
        log.debug("read %s", url)
        parent_element = _child(root, "parent")
        parent = None
        inherited = _Raw("", "", "", "", None, {}, [], [])
        if parent_element is not None:
            parent = (
                _text(parent_element, "groupId"),
                _text(parent_element, "artifactId"),
                _text(parent_element, "version"),
            )
            inherited = self.raw(*parent)
        properties = dict(inherited.properties)
        props_element = _child(root, "properties")
        for prop in props_element if props_element is not None else []:
            properties[_local(prop.tag)] = (prop.text or "").strip()
        dm = _child(root, "dependencyManagement")
        raw = _Raw(
            group=_text(root, "groupId") or (parent[0] if parent else ""),
            artifact=_text(root, "artifactId"),
            version=_text(root, "version") or (parent[2] if parent else ""),
            packaging=_text(root, "packaging") or "jar",
            parent=parent,
            properties=properties,
            managed=_merge(
                _decls(_child(dm, "dependencies") if dm is not None else None), inherited.managed
            ),
            deps=_merge(_decls(_child(root, "dependencies")), inherited.deps),
        )
        self._raw[gav] = raw
        return raw

    def model(self, group: str, artifact: str, version: str) -> _Model:
        gav = (group, artifact, version)
        if gav in self._models:
            return self._models[gav]
        if gav in self._building:
            raise KafkaResolutionError(f"cycle of BOM imports through {':'.join(gav)}")
        self._building.add(gav)
        try:
            model = self._build(self.raw(*gav))
        finally:
            self._building.discard(gav)
        self._models[gav] = model
        return model

    def _build(self, raw: _Raw) -> _Model:
        own = {"groupId": raw.group, "artifactId": raw.artifact, "version": raw.version}
        parent = dict(zip(own, raw.parent or ("", "", ""), strict=True))
        context = {**own, **raw.properties}  # bare ${version} is deprecated; properties win
        for prefix in ("project.", "pom."):
            context.update({prefix + name: value for name, value in own.items()})
            context.update({f"{prefix}parent.{name}": value for name, value in parent.items()})

        def interpolate(value: str) -> str:
            for _ in range(10):  # properties may refer to properties; stop on cycles
                expanded = _PROPERTY.sub(lambda m: context.get(m.group(1), m.group(0)), value)
                if expanded == value:
                    break
                value = expanded
            return value

        def resolved(decl: _Decl) -> _Decl:
            return _Decl(
                {name: interpolate(value) for name, value in decl.fields.items()},
                [(interpolate(g), interpolate(a)) for g, a in decl.exclusions],
            )

        managed: dict[_Key, _Decl] = {}
        imports = []
        for decl in map(resolved, raw.managed):
            if decl.get("scope") == "import" and decl.get("type") == "pom":
                imports.append(decl)
            else:
                managed.setdefault(decl.key(), decl)
        for bom in imports:
            what = f"BOM {bom.get('groupId')}:{bom.get('artifactId')}"
            imported = self.model(
                bom.get("groupId"), bom.get("artifactId"), _pick_version(bom.get("version"), what)
            )
            for key, decl in imported.managed.items():
                managed.setdefault(key, decl)
        # Only this POM's own dependencyManagement fills in its own dependencies. Maven would also
        # apply the *root* project's management to every transitive dependency; our root is a
        # synthetic POM with direct dependencies only and no management, so there is none to apply.
        deps = []
        for decl in map(resolved, raw.deps):
            rule = managed.get(decl.key())
            if rule is not None:
                fields = dict(decl.fields)
                for name in ("version", "scope"):
                    if not decl.get(name) and rule.get(name):
                        fields[name] = rule.get(name)
                # As Maven's management injector: managed exclusions only if it declares none.
                decl = _Decl(fields, decl.exclusions or list(rule.exclusions))
            deps.append(decl)
        return _Model(raw.packaging, managed, deps)


def _excluded(group: str, artifact: str, exclusions: frozenset[tuple[str, str]]) -> bool:
    return any(g in ("*", group) and a in ("*", artifact) for g, a in exclusions)


def download_closure(coordinates: Sequence[str], out: Path, *, repository: str) -> None:
    """Download ``coordinates`` (``group:artifact:version``) and their runtime dependencies.

    Jars land flat in ``out`` as ``artifact-version[-classifier].jar``, like Maven's
    copy-dependencies. Raises :class:`KafkaResolutionError` naming the URL of any file that is
    missing, fails its sha1 check, or cannot be downloaded.
    """
    resolver = _Resolver(repository)
    Node = tuple[_Decl, frozenset[tuple[str, str]]]
    queue: deque[Node] = deque()
    for coordinate in coordinates:
        group, artifact, version = coordinate.split(":")
        queue.append(
            (_Decl({"groupId": group, "artifactId": artifact, "version": version}), frozenset())
        )
    chosen: dict[_Key, str] = {}
    jars: dict[str, str] = {}
    while queue:
        decl, exclusions = queue.popleft()
        key = group, artifact, kind, classifier = decl.key()
        what = f"{group}:{artifact}"
        if key in chosen:  # a nearer (or earlier) declaration already won
            if chosen[key] != decl.get("version"):
                log.debug(
                    "%s:%s omitted for conflict with %s", what, decl.get("version"), chosen[key]
                )
            continue
        version = _pick_version(decl.get("version"), what)
        chosen[key] = decl.get("version")
        if kind not in _JAR_TYPES | {"pom"}:
            log.info("skipping %s:%s: type %r is not a jar", what, version, kind)
            continue
        model = resolver.model(group, artifact, version)
        if kind == "pom" or model.packaging == "pom":
            log.info("%s:%s is a POM (no jar); following its dependencies", what, version)
        else:
            suffix = f"-{classifier}.jar" if classifier else ".jar"
            name = f"{artifact}-{version}{suffix}"
            if name in jars:
                log.warning("two artifacts named %s; keeping %s", name, jars[name])
            else:
                jars[name] = _url(repository, group, artifact, version, suffix)
        for dep in model.deps:
            scope = dep.get("scope", "compile")
            if scope not in _FOLLOWED_SCOPES or dep.get("optional") == "true":
                continue
            if _excluded(dep.get("groupId"), dep.get("artifactId"), exclusions):
                continue
            queue.append((dep, exclusions | frozenset(dep.exclusions)))
    out.mkdir(parents=True, exist_ok=True)
    log.info("downloading %d jars from %s", len(jars), repository)

    def fetch(item: tuple[str, str]) -> None:
        name, url = item
        _fetch_file(url, out / name)
        log.info("downloaded %s", name)

    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="staticconsumer-pom") as pool:
        list(pool.map(fetch, sorted(jars.items())))
