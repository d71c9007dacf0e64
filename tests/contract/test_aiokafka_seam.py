"""The aiokafka seam (issue 42): outside ``staticconsumer._compat`` (and the assignors' adapter)
nothing of staticconsumer touches aiokafka beyond its public API (the rule:
``staticconsumer/_compat/__init__.py``, read by ``_aiokafka_seam.py``), the seam lists every
touch it makes with why, and ``import staticconsumer`` needs nothing of ``aiokafka.protocol``
outside the seam."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from staticconsumer import _compat
from staticconsumer._compat.fetch import kept, tap

from . import _aiokafka_seam as seam
from ._aiokafka_seam import Touch, touches_in

REPO = Path(__file__).resolve().parents[2]


def test_no_module_outside_the_seam_touches_aiokafkas_internals() -> None:
    found = seam.outside_seam(seam.read_tree(REPO))
    assert found == [], "aiokafka internals outside the seam:\n" + "\n".join(map(str, found))


def test_the_seams_tables_list_exactly_what_the_seam_touches() -> None:
    internal, private = seam.seam_names(seam.read_tree(REPO))
    listed_internal, listed_private = set(_compat.AIOKAFKA_INTERNALS), set(_compat.AIOKAFKA_PRIVATE)
    assert (internal - listed_internal, private - listed_private) == (set(), set()), "unlisted"
    assert (listed_internal - internal, listed_private - private) == (set(), set()), (
        "listed but no longer touched: drop them from the tables"
    )
    for name, why in {**_compat.AIOKAFKA_INTERNALS, **_compat.AIOKAFKA_PRIVATE}.items():
        assert len(why.split()) >= 4, f"{name}: say why it is needed"


def test_every_aiokafka_method_the_seam_overrides_is_marked_override() -> None:
    """An aiokafka upgrade that renames a method the seam overrides fails loudly (mypy's
    ``@override`` check, and this test on the installed version)."""
    unmarked = []
    for module in (_compat.consumer, tap, kept):
        for cls in (c for c in vars(module).values() if inspect.isclass(c)):
            if cls.__module__ != module.__name__:
                continue
            bases = [b for b in cls.__mro__[1:] if b.__module__.startswith("aiokafka")]
            for name, value in vars(cls).items():
                overrides = name != "__init__" and any(name in vars(b) for b in bases)
                if (
                    overrides
                    and inspect.isfunction(value)
                    and not getattr(value, "__override__", False)
                ):
                    unmarked.append(f"{cls.__name__}.{name}")
    assert unmarked == []


# -- every rule can fail: synthetic sources ------------------------------------------------------

RULES = [
    ("staticconsumer/drivers/x.py", "from aiokafka.client import ConnectionGroup",
     [("internal", "aiokafka.client.ConnectionGroup")]),
    ("staticconsumer/drivers/x.py", "from aiokafka.client import AIOKafkaClient",
     [("internal", "aiokafka.client.AIOKafkaClient")]),  # public, but from its internal module
    ("staticconsumer/drivers/x.py", "from aiokafka import AIOKafkaClient, TopicPartition", []),
    ("staticconsumer/drivers/x.py", "import aiokafka.errors as E\nE.for_code(82)", []),
    ("staticconsumer/drivers/x.py", "import aiokafka\nv = aiokafka.__version__", []),
    ("staticconsumer/drivers/x.py", "import aiokafka\naiokafka.conn.create_conn",
     [("internal", "aiokafka.conn.create_conn")]),
    ("staticconsumer/protocol/x.py", "from aiokafka.protocol.types import Int32",
     [("internal", "aiokafka.protocol.types.Int32")]),
    ("staticconsumer/drivers/x.py", "def f(consumer):\n    return consumer._client",
     [("private", "_client")]),
    ("staticconsumer/drivers/x.py",
     "class Mine:\n    def __init__(self):\n        self._client = None", []),  # ours
    ("staticconsumer/_consumer/x.py",
     "from aiokafka import AIOKafkaConsumer\nclass C(AIOKafkaConsumer):\n"
     "    def f(self):\n        return self._fetcher", [("private", "_fetcher")]),
    ("staticconsumer/_consumer/x.py",
     "from aiokafka import AIOKafkaConsumer\nclass C(AIOKafkaConsumer):\n"
     "    def _wait_topics(self):\n        pass", [("private", "_wait_topics")]),  # overridden
    ("staticconsumer/drivers/x.py", "def f(o):\n    return o._not_aiokafkas_name", []),
]  # fmt: skip


@pytest.mark.parametrize(("path", "source", "expected"), RULES)
def test_each_rule_flags_what_it_should(
    path: str, source: str, expected: list[tuple[str, str]]
) -> None:
    assert [(t.kind, t.name) for t in touches_in(path, source)] == expected
    assert seam.outside_seam(touches_in(path, source)) == touches_in(path, source)


def test_inside_the_seam_a_touch_is_counted_not_refused() -> None:
    found = touches_in("staticconsumer/_compat/x.py", "def f(c):\n    return c._conns")
    assert found == [Touch("staticconsumer/_compat/x.py", 2, "private", "_conns")]
    assert seam.outside_seam(found) == []


#: Every import statement runs through this hook (also of a module already loaded): one of
#: ``aiokafka.protocol`` by a staticconsumer module outside the seam is refused.
BLOCK = textwrap.dedent("""
    import builtins, importlib.util, sys

    real_import = builtins.__import__
    refused = []

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        importer = (globals or {}).get("__name__", "")
        target = name
        if level:
            target = importlib.util.resolve_name("." * level + name, globals["__package__"])
        wanted = [target, *(f"{target}.{item}" for item in fromlist or ())]
        outside = importer.startswith("staticconsumer") and not importer.startswith(
            "staticconsumer._compat")
        if outside and any(w == "aiokafka.protocol" or w.startswith("aiokafka.protocol.")
                           for w in wanted):
            refused.append(f"{importer} imports {target}")
            raise ImportError(f"{importer} may not import {target} (outside the seam)")
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded
""")


def test_staticconsumer_imports_with_aiokafkas_wire_blocked_outside_the_seam() -> None:
    code = BLOCK + textwrap.dedent("""
        import staticconsumer, staticconsumer.admin, staticconsumer.protocol
        import staticconsumer.localkafka._acls, staticconsumer.localkafka._probe
        import staticconsumer.roster, staticconsumer.membership
        loaded = sorted(m for m in sys.modules if m.startswith("aiokafka.protocol"))
        print(refused, bool(loaded))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Nothing refused, and the hook saw aiokafka.protocol loaded (by aiokafka and the seam).
    assert done.stdout.strip() == "[] True"


def test_the_block_refuses_a_module_outside_the_seam() -> None:
    """The hook itself can fail: a staticconsumer module importing aiokafka's types."""
    code = BLOCK + textwrap.dedent("""
        import types
        module = types.ModuleType("staticconsumer.protocol._bad")
        try:
            exec("from aiokafka.protocol.types import Int32", module.__dict__)
        except ImportError as exc:
            print("refused:", exc)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, check=True)  # fmt: skip
    assert "refused: staticconsumer.protocol._bad may not import aiokafka.protocol.types" in (
        done.stdout
    )
