"""The engine contract is typed (issue 31): each protocol's Action union is the common actions
plus its sender's, the driver has a ``case`` for every common action and each sender one for
every action of its protocol, ending in ``assert_never``; and ``mypy --strict`` fails a
dispatcher that misses one (shown on a copy of the package with one ``case`` removed)."""

from __future__ import annotations

import ast
import inspect
import shutil
import textwrap
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import staticconsumer
from staticconsumer.drivers.classic import ClassicSender
from staticconsumer.drivers.consumer_group import ConsumerGroupSender
from staticconsumer.drivers.driver import Driver
from staticconsumer.membership import (
    ClassicAction,
    ClassicInput,
    ClassicMember,
    ClassicSenderAction,
    CommonAction,
    CommonInput,
    ConsumerGroupAction,
    ConsumerGroupInput,
    ConsumerGroupSenderAction,
)

REPO = Path(__file__).resolve().parents[2]


def members(union: Any) -> set[type]:
    return set(typing.get_args(union))


@pytest.mark.parametrize(("action", "sender", "inputs"), [
    (ClassicAction, ClassicSenderAction, ClassicInput),
    (ConsumerGroupAction, ConsumerGroupSenderAction, ConsumerGroupInput),
], ids=["classic", "consumer"])  # fmt: skip
def test_each_protocols_vocabulary_is_the_common_one_plus_its_own(
    action: Any, sender: Any, inputs: Any
) -> None:
    assert members(action) == members(CommonAction) | members(sender)
    assert not members(CommonAction) & members(sender), "a common action is the driver's alone"
    assert members(CommonInput) < members(inputs), "the driver feeds every engine these"


def cases(method: Callable[..., Any]) -> tuple[set[str], bool]:
    """The classes a method's ``match`` names in its ``case`` patterns, and whether it ends in
    ``case _: assert_never(...)``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    match = next(node for node in ast.walk(tree) if isinstance(node, ast.Match))
    names = {
        node.cls.id for case in match.cases for node in ast.walk(case.pattern)
        if isinstance(node, ast.MatchClass) and isinstance(node.cls, ast.Name)
    }  # fmt: skip
    last = match.cases[-1]
    never = (
        isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None
        and "assert_never" in ast.unparse(last.body[0])
    )  # fmt: skip
    return names, never


@pytest.mark.parametrize(("method", "union"), [
    (ClassicSender.perform, ClassicSenderAction),
    (ConsumerGroupSender.perform, ConsumerGroupSenderAction),
], ids=["classic", "consumer"])  # fmt: skip
def test_each_sender_has_a_case_for_each_of_its_actions_and_ends_in_assert_never(
    method: Callable[..., Any], union: Any
) -> None:
    names, never = cases(method)
    assert names == {cls.__name__ for cls in members(union)}
    assert never, "no runtime fallback: mypy --strict proves the match complete"


def test_the_classic_engine_has_a_case_for_each_of_its_inputs_and_ends_in_assert_never() -> None:
    names, never = cases(ClassicMember.handle)
    assert names == {cls.__name__ for cls in members(ClassicInput)}
    assert never


def test_the_driver_has_a_case_for_each_common_action_and_hands_the_rest_to_its_sender() -> None:
    names, _ = cases(Driver._perform)
    assert names == {cls.__name__ for cls in members(CommonAction)}
    assert "self.sender.perform" in inspect.getsource(Driver._perform)


#: (file, the ``case`` line removed, what mypy says): senders, the classic engine, the driver.
MISSING = [
    ("drivers/classic.py", "            case SendLeaveGroup():\n",
     'Argument 1 to "assert_never" has incompatible type "SendLeaveGroup"'),
    ("drivers/consumer_group.py", "            case TakeOver():\n",
     'Argument 1 to "assert_never" has incompatible type "TakeOver"'),
    ("membership/_classic.py", "            case RequestFailed():\n",
     'Argument 1 to "assert_never" has incompatible type "RequestFailed"'),
    ("drivers/driver.py", "            case BecomeFatal():\n",
     'Argument 1 to "perform" of "Sender" has incompatible type "BecomeFatal | SenderActionT"'),
]  # fmt: skip


def without_case(source: str, case: str) -> str:
    """``source`` without the ``case`` line and its body (the lines indented deeper)."""
    lines = source.splitlines(keepends=True)
    assert lines.count(case) == 1, case
    start = lines.index(case)
    depth = len(case) - len(case.lstrip())
    end = start + 1
    while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) > depth:
        end += 1
    return "".join(lines[:start] + lines[end:])


@pytest.mark.parametrize(("path", "line", "named"), MISSING, ids=[m[0] for m in MISSING])
def test_mypy_strict_fails_a_dispatcher_that_misses_an_action(
    tmp_path: Path, path: str, line: str, named: str
) -> None:
    from mypy import api

    copy = tmp_path / "staticconsumer"
    shutil.copytree(Path(staticconsumer.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (copy / path).write_text(without_case((copy / path).read_text(), line))
    out, err, status = api.run([
        "--strict", "--no-incremental", "--follow-imports=silent", "--config-file",
        str(REPO / "pyproject.toml"), str(copy / path),
    ])  # fmt: skip
    assert status == 1 and out.count("error:") == 1 and named in out, out + err
