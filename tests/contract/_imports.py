"""The import contract of staticconsumer, read from the source with ``ast`` (nothing is imported).

Layers, top first; a module imports only its own layer and those below it (:data:`LAYERS`; the
README's "Layout" and ``staticconsumer/__init__.py`` draw the same order)::

    tooling (localkafka, analytics, _demo, streams_app, testing, cli, __main__, faststream,
             faust, integrations)
        public names only: staticconsumer, .errors, .events, .admin, .security, .protocol,
        .membership, assignors (and each other's public modules); aiokafka's internals only
        through the seam's tooling module, staticconsumer._compat.tooling
    ─────────────────────────────── the wall ───────────────────────────────
    public face     staticconsumer (its __init__), admin
    consumer        _consumer/ (StaticConsumer)
    drivers         drivers/ (the asyncio loop)
    roster          roster/ (pre-registration; record, plan and barrier are sans-IO as
                    membership is, and import no I/O module of roster)
    admin calls     _admin/ (describe, remove, reconcile, the admin coordinator)
    observability   _observability/ (events emitter and publisher, health, metrics)
    compat          _compat/ (the only reader of aiokafka internals)
    error map       _error_map
    membership      membership/ (sans-IO engines: no asyncio, no aiokafka)
    options         options (the consumer's options, one frozen value), _option_checks,
                    _streams_options
    protocol        protocol/ (wire types and structs: staticconsumer.errors only; no aiokafka)
    vocabulary      errors, events, security, _instance_id, _java_properties, _version,
                    _roster_status
    assignors       pure: the standard library only (aiokafka_adapter.py may use aiokafka)

Every SDK module is in one layer (a new one outside them all is flagged until it is placed);
lazy and ``TYPE_CHECKING`` imports count too (they are dependencies all the same).
:func:`violations` returns every forbidden arrow (a private module of ``protocol`` or
``membership`` imported from outside it among them); :func:`cycles` the strongly connected
components of the module-level import graph (or, asked, of the graph with lazy imports too).
Both take plain data, so the tests can feed them a synthetic bad module and see it flagged.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOTS = ("staticconsumer", "assignors")
TOOLING = tuple(
    f"staticconsumer.{name}"
    for name in (
        "localkafka",
        "analytics",
        "_demo",
        "streams_app",
        "testing",
        "cli",
        "__main__",
        "faststream",
        "faust",
        "integrations",
    )  # the FastStream and faust integrations and what they share: public names only, never
    # imported by the SDK
)
#: What a protocol module may import besides the standard library and protocol itself: the wire
#: is ours (issue 42), no aiokafka.
PROTOCOL_MAY_IMPORT = ("staticconsumer.errors",)
#: The one SDK private module tooling may import: aiokafka internals it needs, in the seam.
TOOLING_SEAM = "staticconsumer._compat.tooling"
#: What a membership module may never import (it is sans-IO: the drivers do the I/O).
MEMBERSHIP_MAY_NOT_IMPORT = (
    "asyncio", "aiokafka", "staticconsumer.drivers", "staticconsumer._compat",
    "staticconsumer._consumer", "staticconsumer._observability", "staticconsumer._admin",
    "staticconsumer.admin", *TOOLING,
)  # fmt: skip
#: The pre-registration modules that are sans-IO (record format, plan, barrier decision): they
#: obey :data:`MEMBERSHIP_MAY_NOT_IMPORT` and import, of their own package, only each other
#: (never the package itself, whose ``__init__`` loads the I/O modules).
ROSTER_PURE = frozenset(
    f"staticconsumer.roster.{name}" for name in ("_record", "_plan", "_barrier")
)
#: The only assignors module that may import aiokafka: the adapter for plain aiokafka.
ASSIGNORS_AIOKAFKA_ADAPTER = "assignors.aiokafka_adapter"
#: SDK -> tooling arrows that are allowed, with why. ``staticconsumer.errors`` re-exports the
#: launcher's old error names lazily (module ``__getattr__``); its TYPE_CHECKING import is for mypy.
SDK_TO_TOOLING_ALLOWED = frozenset({("staticconsumer.errors", "staticconsumer.localkafka.errors")})
#: The SDK's layers, top first, each with its modules (a package counts with everything in it;
#: ``staticconsumer`` is the package's ``__init__`` only). A module imports only from its own
#: layer and those below it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("public face", ("staticconsumer", "staticconsumer.admin")),
    ("consumer", ("staticconsumer._consumer",)),
    ("drivers", ("staticconsumer.drivers",)),
    ("roster", ("staticconsumer.roster",)),
    ("admin calls", ("staticconsumer._admin",)),
    ("observability", ("staticconsumer._observability",)),
    ("compat", ("staticconsumer._compat",)),
    ("error map", ("staticconsumer._error_map",)),
    ("membership", ("staticconsumer.membership",)),
    ("options", ("staticconsumer.options", "staticconsumer._option_checks",
                 "staticconsumer._streams_options")),
    ("protocol", ("staticconsumer.protocol",)),
    ("vocabulary", (
        "staticconsumer.errors", "staticconsumer.events", "staticconsumer.security",
        "staticconsumer._instance_id", "staticconsumer._java_properties",
        "staticconsumer._version", "staticconsumer._roster_status",
    )),
    ("assignors", ("assignors",)),
)  # fmt: skip


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (or a private name of it, e.g. ``pkg._name``)
    line: int
    module_level: bool  # executed at import time (not in a function, not under TYPE_CHECKING)

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}"


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def parse_imports(
    text: str, module: str, *, is_package: bool = False, known: Iterable[str] = ()
) -> list[Import]:
    """Every import of ``module`` (its source ``text``), relative ones resolved. ``from X import
    n`` imports ``X.n`` when that is a known module or when ``n`` is private (``_n``)."""
    modules = set(known)
    found: list[Import] = []

    def visit(node: ast.AST, module_level: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), False)
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), module_level)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(module, alias.name, child.lineno, module_level))
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(module, is_package, child.level, child.module)
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    private = alias.name.startswith("_") and alias.name != "__future__"
                    target = sub if sub in modules or private else base
                    found.append(Import(module, target, child.lineno, module_level))
            else:
                visit(child, module_level)

    visit(ast.parse(text), True)
    return found


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def read_tree(root: Path) -> dict[str, list[Import]]:
    """The imports of every module under ``root``'s :data:`ROOTS`, the Cython ones (``.pyx``)
    included: their Python imports (:func:`python_imports`)."""
    files = sorted(p for top in ROOTS for ext in ("*.py", "*.pyx") for p in (root / top).rglob(ext))
    names = {path: module_name(path, root) for path in files}
    known = {name for name, _ in names.values()}
    return {
        name: parse_imports(python_imports(path), name, is_package=package, known=known)
        for path, (name, package) in names.items()
    }


def python_imports(path: Path) -> str:
    """A module's source as ``ast`` reads it: a ``.py`` whole; of a ``.pyx`` (Cython, not Python
    syntax), its one-line ``import``/``from ... import`` statements (``cimport`` is C-level)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return text
    lines = text.splitlines()
    return "\n".join(
        line
        for line in lines
        if re.match(r"(from \S+ import|import) ", line) and " cimport " not in line
    )


def is_tooling(module: str) -> bool:
    return any(_within(module, t) for t in TOOLING)


def _tooling_root(module: str) -> str:
    return next(t for t in TOOLING if _within(module, t))


def _is_private(module: str, after: str) -> bool:
    rest = module[len(after) :].strip(".")
    return any(part.startswith("_") for part in rest.split(".") if part)


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module``'s layer (0 is the top), or None."""
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            if module == member or (member != "staticconsumer" and _within(module, member)):
                return index
    return None


def _layer_rule(source: str, target: str) -> str | None:
    """Why an SDK module may not import ``target`` by the layer order, or None."""
    here = layer_of(source)
    if here is None:  # :func:`violations` says so once, not once per import
        return None
    there = layer_of(target)
    if there is None:
        return f"{target} is in no layer of LAYERS (place it)"
    if there < here:
        return (f"layers: {LAYERS[here][0]} may import only its own layer and those below; "
                f"{LAYERS[there][0]} is above it")  # fmt: skip
    return None


def _rule(imp: Import) -> str | None:
    """Why ``imp`` is forbidden, or None."""
    source, target = imp.source, imp.target
    first_party = _within(target, "staticconsumer") or _within(target, "assignors")
    if _within(source, "staticconsumer.protocol"):
        allowed = (
            _stdlib(target)
            or _within(target, "staticconsumer.protocol")
            or any(_within(target, ok) for ok in PROTOCOL_MAY_IMPORT)
        )
        if not allowed:
            return "protocol may import only the standard library, itself, " + ", ".join(
                PROTOCOL_MAY_IMPORT
            )
    if _within(source, "assignors"):
        adapter = source == ASSIGNORS_AIOKAFKA_ADAPTER and _within(target, "aiokafka")
        if not (_stdlib(target) or _within(target, "assignors") or adapter):
            return "assignors are pure: the standard library only (aiokafka in the adapter)"
    if _within(source, "staticconsumer.membership"):
        if any(_within(target, bad) for bad in MEMBERSHIP_MAY_NOT_IMPORT):
            return "membership is sans-IO: no asyncio, aiokafka, drivers, seams or tooling"
    if source in ROSTER_PURE:
        io_of_roster = _within(target, "staticconsumer.roster") and target not in ROSTER_PURE
        if io_of_roster or any(_within(target, bad) for bad in MEMBERSHIP_MAY_NOT_IMPORT):
            return "roster's record, plan and barrier are sans-IO: no asyncio, aiokafka, I/O"
    if _within(source, "staticconsumer") and not is_tooling(source) and is_tooling(target):
        if (source, target) not in SDK_TO_TOOLING_ALLOWED:
            return "an SDK module imports a tooling package"
    if not is_tooling(source) and first_party and not is_tooling(target):
        if why := _layer_rule(source, target):
            return why
    if is_tooling(source) and first_party and not is_tooling(target) and target != TOOLING_SEAM:
        if _is_private(target, "") or _within(target, "staticconsumer.drivers"):
            return "tooling imports an SDK private module or name (use the public ones)"
    if is_tooling(source) and is_tooling(target):
        root = _tooling_root(target)
        if root != _tooling_root(source) and _is_private(target, root):
            return f"tooling imports a private module of another tooling package ({root})"
    membership = "staticconsumer.membership"
    if _within(target, membership) and not _within(source, membership):
        if _is_private(target, membership):
            return "import from the membership package, never its private modules"
    protocol = "staticconsumer.protocol"
    if _within(target, protocol) and not _within(source, protocol):
        if _is_private(target, protocol):
            return "import from the protocol package, never its private modules"
    return None


def violations(imports: Mapping[str, list[Import]]) -> list[str]:
    """Every forbidden arrow, as ``module:line imports target: rule``, and every SDK module
    that is in no layer of :data:`LAYERS`."""
    unplaced = [
        f"{name}: in no layer of LAYERS (place it)" for name in imports
        if not is_tooling(name) and layer_of(name) is None
    ]  # fmt: skip
    found = (f"{imp}: {why}" for imps in imports.values() for imp in imps if (why := _rule(imp)))
    return unplaced + list(dict.fromkeys(found))


def _graph(imports: Mapping[str, list[Import]], *, lazy: bool = False) -> dict[str, set[str]]:
    """Module-level arrows between known modules (a private name counts as its module); with
    ``lazy``, the arrows of lazy and ``TYPE_CHECKING`` imports too."""
    graph: dict[str, set[str]] = {name: set() for name in imports}
    for name, found in imports.items():
        for imp in found:
            target = imp.target
            while target and target not in imports:
                target = target.rpartition(".")[0]
            if (imp.module_level or lazy) and target and target != name:
                graph[name].add(target)
    return graph


def cycles(imports: Mapping[str, list[Import]], *, lazy: bool = False) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted; with
    ``lazy``, of the graph that counts lazy and ``TYPE_CHECKING`` imports too."""
    graph = _graph(imports, lazy=lazy)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                strongconnect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            strongconnect(node)
    return sorted(found)
