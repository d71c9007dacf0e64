"""The docs site (mkdocs.yml, docs/): ``mkdocs build --strict`` succeeds, so no page links to a
file outside the site, no page is left out of the nav and every API reference object resolves;
and docs/_griffe_rst.py renders our reStructuredText-flavoured docstrings as Markdown.

CI installs the ``docs`` extra, so a missing mkdocs fails here (it is never skipped)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
NEEDS = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "griffe")


def _require_docs_extra() -> None:
    missing = [name for name in NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.fail(f"the docs site needs the docs extra: pip install .[docs] "
                    f"(missing: {', '.join(missing)})", pytrace=False)  # fmt: skip


def _extension() -> ModuleType:
    _require_docs_extra()
    spec = importlib.util.spec_from_file_location("_griffe_rst", REPO / "docs" / "_griffe_rst.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    _require_docs_extra()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr}"
    api = (tmp_path / "api" / "staticconsumer" / "index.html").read_text()
    # The reference is generated from the docstrings, roles rendered as code.
    assert 'id="staticconsumer.StaticConsumer.enforce_rebalance"' in api
    assert "Make the group rebalance now" in api
    assert ":class:" not in api and ":meth:" not in api
    # The quickstart shows examples/quickstart.py whole (pymdownx.snippets), the tested script.
    quickstart = (tmp_path / "quickstart" / "index.html").read_text()
    assert "add_signal_handler" in quickstart and "max_records" in quickstart
    for page in ("quickstart", "kubernetes", "security", "api/assignors"):
        assert (tmp_path / page / "index.html").is_file(), page


@pytest.mark.parametrize(
    ("rst", "markdown"),
    [
        ("raises :class:`~staticconsumer.errors.FencedInstanceIdError`",
         "raises `FencedInstanceIdError`"),
        ("see :meth:`SecuritySettings.from_properties` and :mod:`._io`",
         "see `SecuritySettings.from_properties` and `_io`"),
        ("what :attr:`membership.state <Membership.state>` says",
         "what `membership.state` says"),
        ("Like this::\n\n    a = 1\n      b\n\nAfter.",
         "Like this:\n\n```text\na = 1\n  b\n```\n\nAfter."),
        ("Tree ::\n\n    A\n    └── B", "Tree\n\n```text\nA\n└── B\n```\n"),
        (">>> x = 1\n>>> x\n1\n\nText.", "```pycon\n>>> x = 1\n>>> x\n1\n```\n\nText."),
        ("Two kinds:\n* one\n  more\n* two", "Two kinds:\n\n* one\n  more\n* two"),
        ("Plain ``code`` stays.", "Plain ``code`` stays."),
    ],
)  # fmt: skip
def test_rst_docstrings_become_markdown(rst: str, markdown: str) -> None:
    assert _extension().convert(rst) == markdown
