"""The public surface and the layering rules of the assignors package."""

from __future__ import annotations

import ast
from pathlib import Path

import assignors

PACKAGE = Path(assignors.__file__).resolve().parent


def test_all_is_sorted_and_exported() -> None:
    assert assignors.__all__ == sorted(assignors.__all__)
    for name in assignors.__all__:
        assert hasattr(assignors, name), name
    required = {
        "Member",
        "MemberAssignment",
        "GroupAssignor",
        "assign_range",
        "assign_roundrobin",
        "assign_sticky",
        "assign_roster",
        "RangeAssignor",
        "RoundRobinAssignor",
        "StickyAssignor",
        "RosterAssignor",
    }
    assert required <= set(assignors.__all__)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_layering() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 8
    for path in modules:
        imported = _imports(path)
        assert "staticconsumer" not in imported, f"{path.name} imports staticconsumer"
        if path.name != "aiokafka_adapter.py":
            assert "aiokafka" not in imported, f"{path.name} imports aiokafka"
        assert len(path.read_text().splitlines()) <= 500, f"{path.name} is too long"


def test_importing_assignors_does_not_import_aiokafka() -> None:
    import subprocess
    import sys

    code = "import sys, assignors; print('aiokafka' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert callable(assignors.for_aiokafka)  # loaded on first use


def test_protocol_names_match_java() -> None:
    assert assignors.RangeAssignor.name == "range"
    assert assignors.RoundRobinAssignor.name == "roundrobin"
    assert assignors.StickyAssignor.name == "sticky"
    assert assignors.RosterAssignor.name == "roster"


def test_assignors_satisfy_group_assignor() -> None:
    objects: list[assignors.GroupAssignor] = [
        assignors.RangeAssignor(),
        assignors.RoundRobinAssignor.for_instance("a"),
        assignors.StickyAssignor.for_instance("a"),
        assignors.RosterAssignor.for_instance("a"),
    ]
    member = assignors.Member("m", "a", ["t"])
    for obj in objects:
        plan = obj.assign_group([member], {"t": 2})
        assert plan == {"m": assignors.MemberAssignment((("t", 0), ("t", 1)), plan["m"].user_data)}
        assert isinstance(obj.subscription_user_data(["t"], [], -1), bytes)
