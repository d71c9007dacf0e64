"""Where staticconsumer touches aiokafka outside its public API, read from the source with ``ast``
(nothing of ours is imported; aiokafka is, to know its public names and its private ones).

The rule (``staticconsumer/_compat/__init__.py`` states it for the reader):

* **Public** is a name that one of aiokafka's user-facing modules exports -- :data:`PUBLIC_MODULES`,
  each by its ``__all__``, and ``aiokafka.errors`` whole (every name without a leading
  underscore: aiokafka's API reference documents that module ignoring its ``__all__``, which
  stops at error code 44) -- reached from that module; and any attribute without a leading
  underscore of an aiokafka object (``consumer.assignment()``, ``client.cluster``).
* **Internal** is any other aiokafka module's name (``aiokafka.client.ConnectionGroup``,
  ``aiokafka.protocol.admin.ApiVersionRequest``, ``aiokafka.consumer.fetcher.Fetcher``), also a
  public class imported from its internal module (``aiokafka.client.AIOKafkaClient``).
* **Private** is an attribute with a leading underscore that aiokafka's own code defines or uses
  (``consumer._client``, ``client._conns``): read on an object, or set, used or overridden on
  ``self`` in a class deriving from an aiokafka class. ``self._x`` in a class of our own is ours.

Internal and private touches belong to the seam (:data:`SEAM`) only, and the seam lists each one
it makes in ``staticconsumer._compat.AIOKAFKA_INTERNALS`` / ``AIOKAFKA_PRIVATE``.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: The seam: the only places where aiokafka's internals may be touched.
SEAM = ("staticconsumer/_compat/", "assignors/aiokafka_adapter.py")
#: aiokafka's user-facing modules (their public names: the module docstring's rule).
PUBLIC_MODULES = (
    "aiokafka", "aiokafka.abc", "aiokafka.admin", "aiokafka.errors", "aiokafka.helpers",
    "aiokafka.structs",
)  # fmt: skip
#: Whole-module public: every name without a leading underscore.
PUBLIC_WHOLE = ("aiokafka.errors",)
ROOTS = ("staticconsumer", "assignors")


@dataclass(frozen=True, order=True)
class Touch:
    """One touch of aiokafka beyond its public API: ``kind`` is ``internal`` (``name`` is
    ``module.Name``) or ``private`` (``name`` is ``_attribute``)."""

    path: str
    line: int
    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind} {self.name}"


def in_seam(path: str) -> bool:
    return any(path == s or (s.endswith("/") and path.startswith(s)) for s in SEAM)


@cache
def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


@cache
def public_names(module: str) -> frozenset[str]:
    loaded = importlib.import_module(module)
    if module in PUBLIC_WHOLE:
        return frozenset(n for n in vars(loaded) if not n.startswith("_"))
    return frozenset(getattr(loaded, "__all__", ()))


def is_public(module: str, name: str) -> bool:
    if name.startswith("__") and name.endswith("__"):  # __version__
        return module in PUBLIC_MODULES
    return module in PUBLIC_MODULES and name in public_names(module)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@cache
def aiokafka_private_names() -> frozenset[str]:
    """Every private attribute and method name aiokafka's own source defines or uses."""
    root = Path(importlib.import_module("aiokafka").__file__ or "").parent
    names: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        names.add(item.name)
        names = {n for n in names if _private(n)}
    return frozenset(names)


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _split(dotted: str) -> tuple[str, str | None]:
    """``aiokafka.errors.KafkaError`` -> (``aiokafka.errors``, ``KafkaError``): the longest
    module prefix, and the name after it (None when the whole is a module)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if _is_module(module):
            return module, parts[cut] if cut < len(parts) else None
    return parts[0], parts[1] if len(parts) > 1 else None


class _Reader(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.aliases: dict[str, str] = {}  # local name -> aiokafka dotted name
        self.found: set[Touch] = set()
        self.classes: list[bool] = []  # per enclosing class: does it derive from aiokafka's?
        self.derived: set[str] = set()  # classes of this module deriving from aiokafka's

    def _touch_name(self, dotted: str, line: int) -> None:
        module, name = _split(dotted)
        if name is None:
            if module not in PUBLIC_MODULES:  # an internal module bound to a name
                self.found.add(Touch(self.path, line, "internal", module))
            return
        if not is_public(module, name):
            self.found.add(Touch(self.path, line, "internal", f"{module}.{name}"))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] != "aiokafka":
                continue
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                self.aliases["aiokafka"] = "aiokafka"
            self._touch_name(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or module.split(".")[0] != "aiokafka":
            return
        for alias in node.names:
            dotted = f"{module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = dotted
            self._touch_name(dotted, node.lineno)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _dotted(node)
        if chain and chain[0] in self.aliases:  # the whole chain at once, not its inner parts
            self._touch_name(".".join([self.aliases[chain[0]], *chain[1:]]), node.lineno)
            return
        if _private(node.attr) and node.attr in aiokafka_private_names():
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not own or (self.classes and self.classes[-1]):
                self.found.add(Touch(self.path, node.lineno, "private", node.attr))
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        derived = False
        for base in node.bases:
            chain = _dotted(base)
            if chain and (chain[0] in self.aliases or chain[0] in self.derived):
                derived = True
        if derived:
            self.derived.add(node.name)
            for item in node.body:
                name = getattr(item, "name", "")
                if _private(name) and name in aiokafka_private_names():
                    self.found.add(Touch(self.path, item.lineno, "private", name))
        self.classes.append(derived)
        self.generic_visit(node)
        self.classes.pop()


def _source(path: Path) -> str:
    """A module's source as ``ast`` reads it: a ``.pyx`` (Cython) by its one-line imports."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return text
    return "\n".join(
        line if re.match(r"(from \S+ import|import) ", line) and " cimport " not in line else ""
        for line in text.splitlines()
    )


def touches_in(path: str, source: str) -> list[Touch]:
    reader = _Reader(path)
    reader.visit(ast.parse(source))
    return sorted(reader.found)


def read_tree(repo: Path) -> list[Touch]:
    """Every internal or private aiokafka touch in the SDK and the assignors."""
    found: list[Touch] = []
    for path in sorted(
        p for top in ROOTS for ext in ("*.py", "*.pyx") for p in (repo / top).rglob(ext)
    ):
        relative = path.relative_to(repo).as_posix()
        found += touches_in(relative, _source(path))
    return found


def outside_seam(found: Iterable[Touch]) -> list[Touch]:
    return [t for t in found if not in_seam(t.path)]


def seam_names(found: Iterable[Touch]) -> tuple[frozenset[str], frozenset[str]]:
    """The internal names and the private attributes the seam's code touches."""
    inside = [t for t in found if in_seam(t.path)]
    return (
        frozenset(t.name for t in inside if t.kind == "internal"),
        frozenset(t.name for t in inside if t.kind == "private"),
    )


def counted(found: Iterable[Touch]) -> Iterator[tuple[str, int]]:
    internal, private = seam_names(found)
    yield "internal", len(internal)
    yield "private", len(private)
