"""The aiokafka seam (issue 42): outside ``staticconsumer._compat`` (and the assignors' adapter)
nothing of staticconsumer needs aiokafka's wire, ``aiokafka.protocol``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

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
