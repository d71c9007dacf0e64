"""A griffe extension for the API reference: our docstrings are reStructuredText-flavoured prose
(Sphinx roles, ``literal`` spans, ``::`` literal blocks, ``>>>`` examples, lists right under a
paragraph); mkdocstrings renders docstrings as Markdown. This rewrites those few constructs so
they render as meant, without touching the source:

* ``:class:`~pkg.mod.Name``` (any role) becomes a code span, ``Name`` (``pkg.mod.Name`` without
  the ``~``, the title of ``:attr:`title <target>```);
* a paragraph ending in ``::`` ends in ``:`` and the indented block under it becomes a fenced
  code block;
* a run of ``>>>``/``...`` lines (and the output under them) becomes a fenced ``pycon`` block;
* a ``*``/``-`` list right under a paragraph line gets the blank line Markdown needs.

Loaded by mkdocs.yml (``extensions: [docs/_griffe_rst.py:RstToMarkdown]``); the site is built
and checked by tests/docs/test_site.py.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")
BULLET = re.compile(r"^\s*[*-] ")


def _role(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    if target.endswith(">") and " <" in target:  # :attr:`title <target>`: the title
        return f"`{target.split(' <', 1)[0]}`"
    name = target.rsplit(".", 1)[-1] if tilde else target.lstrip(".")
    return f"`{name}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _literal_block(lines: list[str], start: int, base: int) -> tuple[list[str], int]:
    """The fenced form of the indented block from ``lines[start]`` on (blank lines first)."""
    end = start
    while end < len(lines) and not lines[end].strip():
        end += 1
    body_start = end
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > base):
        end += 1
    while end > body_start and not lines[end - 1].strip():
        end -= 1
    body = lines[body_start:end]
    if not body:
        return [], start
    cut = min(_indent(line) for line in body if line.strip())
    pad = " " * base
    return [pad + "```text", *(pad + line[cut:] for line in body), pad + "```"], end


def _doctest_block(lines: list[str], start: int) -> tuple[list[str], int]:
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    base = _indent(lines[start])
    pad = " " * base
    body = [pad + line[base:] for line in lines[start:end]]
    return [pad + "```pycon", *body, pad + "```"], end


def _fence(out: list[str], block: list[str], lines: list[str], end: int) -> None:
    """Append a fenced block with the blank lines Markdown needs around it."""
    if out and out[-1].strip():
        out.append("")
    out.extend(block)
    if end >= len(lines) or lines[end].strip():
        out.append("")


def convert(text: str) -> str:
    """The Markdown rendering of one reStructuredText-flavoured docstring."""
    lines = ROLE.sub(_role, text).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.rstrip()
        if stripped.lstrip().startswith(">>>"):
            block, i = _doctest_block(lines, i)
            _fence(out, block, lines, i)
            continue
        if stripped.endswith("::"):
            head = stripped[:-2].rstrip()
            if head.strip():
                out.append(head if stripped[:-2].endswith(" ") else head + ":")
            block, i = _literal_block(lines, i + 1, _indent(line))
            if block:
                _fence(out, block, lines, i)
            continue
        if BULLET.match(line) and out and out[-1].strip() and not BULLET.match(out[-1]):
            if _indent(out[-1]) <= _indent(line):  # not a list item's continuation line
                out.append("")
        out.append(line)
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring griffe loads (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value)
