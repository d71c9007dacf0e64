"""The shell scripts CI runs import names from the package: each must still exist.

CI's image step broke once because a script imported a name a refactor had moved; this finds
such a line without Docker or a broker.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
_IMPORT = re.compile(r"from (staticconsumer[\w.]*) import ([\w, ]+?)(?: as \w+)?(?:;|$|\")", re.M)


def _script_imports() -> list[tuple[str, str, str]]:
    found = []
    for script in sorted([*_ROOT.glob("scripts/*.sh"), _ROOT / ".ci" / "run"]):
        for module, names in _IMPORT.findall(script.read_text()):
            for name in names.split(","):
                found.append((script.name, module, name.strip()))
    return found


def test_the_scripts_import_something() -> None:
    # The pattern itself can fail: the image script imports at least three names.
    assert len([f for f in _script_imports() if f[0] == "kafka_image.sh"]) >= 3


@pytest.mark.parametrize(("script", "module", "name"), _script_imports())
def test_each_name_a_script_imports_exists(script: str, module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name), f"{script}: {module}.{name} is gone"
