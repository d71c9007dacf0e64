"""The package as a legal review and a new user meet it: one version, a license, metadata that
names the Python versions CI tests, and pytest fixtures that load only when asked for.

No broker: the plugin checks run pytest in a subprocess on a test that needs only
``unique_group_id`` (a name generator).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import staticconsumer
from staticconsumer.cli import main

REPO = Path(__file__).resolve().parents[2]
PLUGIN = "staticconsumer.testing.pytest_plugin"
#: The minor versions CI runs the tests on; the classifiers name exactly these.
TESTED_PYTHONS = ("3.11", "3.12", "3.13", "3.14", "3.15")


def _pyproject() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def test_the_version_is_written_once_and_the_metadata_reads_it() -> None:
    project = _pyproject()
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "staticconsumer._version.__version__"
    assert importlib.metadata.version("staticconsumer") == staticconsumer.__version__


def test_no_other_file_writes_the_version() -> None:
    written = re.compile(rf"(?<![\d.]){re.escape(staticconsumer.__version__)}(?![\d.])")
    files = [REPO / "pyproject.toml", REPO / "README.md", *(REPO / "docs").rglob("*.md"),
             *(REPO / "staticconsumer").rglob("*.py")]  # fmt: skip
    again = [f.relative_to(REPO) for f in files
             if f.name != "_version.py" and written.search(f.read_text())]  # fmt: skip
    assert not again, f"the version is written in {again}: use staticconsumer.__version__"


def test_cli_prints_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"staticconsumer {staticconsumer.__version__}\n"


def test_license_is_the_apache_2_text_and_an_spdx_expression() -> None:
    text = (REPO / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    # An SPDX expression replaces the License :: classifiers (setuptools refuses both).
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


def test_classifiers_name_the_tested_pythons_and_requires_python_agrees() -> None:
    project = _pyproject()["project"]
    prefix = "Programming Language :: Python :: 3."
    named = sorted(c.removeprefix("Programming Language :: Python :: ")
                   for c in project["classifiers"] if c.startswith(prefix))  # fmt: skip
    assert named == list(TESTED_PYTHONS)
    assert project["requires-python"] == f">={TESTED_PYTHONS[0]}"
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in TESTED_PYTHONS


def test_installing_registers_no_pytest_plugin() -> None:
    assert "pytest11" not in _pyproject()["project"].get("entry-points", {})
    # Every installed distribution, as pytest loads them (a stale install may sit beside this one).
    registered = [
        (str(dist.locate_file("")), ep.value)
        for dist in importlib.metadata.distributions()
        for ep in dist.entry_points
        if ep.group == "pytest11" and ep.value.startswith("staticconsumer")
    ]
    assert not registered, f"reinstall the project (pip install -e .): {registered}"


USER_TEST = """\
def test_names(unique_group_id):
    assert unique_group_id("billing").startswith("billing-")
"""


def _user_pytest(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a user's project dir of its own (its own rootdir, plugin autoload on)."""
    (workdir / "pytest.ini").write_text("[pytest]\n")
    (workdir / "test_user.py").write_text(USER_TEST)
    unset = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_fixtures_are_not_there_unless_asked_for(tmp_path: Path) -> None:
    done = _user_pytest(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fixture 'unique_group_id' not found" in done.stdout, done.stdout


def test_fixtures_load_with_dash_p(tmp_path: Path) -> None:
    done = _user_pytest(tmp_path, "-p", PLUGIN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_fixtures_load_from_pytest_plugins_in_conftest(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(f"pytest_plugins = [{PLUGIN!r}]\n")
    done = _user_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_readme_install_section_uses_extras_that_exist() -> None:
    readme = (REPO / "README.md").read_text()
    assert "\n## Install\n" in readme
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    assert "pip install .\n" in section and "pip install dist/staticconsumer-*.whl" in section
    # '.[spark]' from the checkout, "$(ls dist/...whl)[spark]" from the wheel.
    extras = set(re.findall(r"(?:\.|\))\[([a-z-]+)\]", section))
    assert {"spark", "docker", "secure-broker"} <= extras, section
    assert extras <= set(_pyproject()["project"]["optional-dependencies"])


def test_ci_runs_every_python_the_classifiers_name() -> None:
    """The main run is on the machine's python3 (the oldest, 3.11); .ci/run loops over the others:
    pyenv's 3.12 and 3.13, Debian sid's 3.14 and 3.15 (scripts/sid_python.sh, issue 35), whose
    root must hold each of them (``sid_python.sh each 3.14,3.15 ...``, or a loop calling it per
    version). pyenv's may instead be the Pythons of the aiokafka releases
    ``scripts/aiokafka_versions.sh RELEASE:PYTHON ...`` runs (issue 42), named in the call."""
    ci = (REPO / ".ci" / "run").read_text()
    loops = [line.split()[3:-1] for line in ci.splitlines()
             if line.startswith("for version in ") and line.endswith("; do")]  # fmt: skip
    loops = [[version.rstrip(";") for version in loop] for loop in loops]
    for call in re.findall(r"^\s*bash scripts/aiokafka_versions\.sh((?: [0-9.]+:[0-9.]+)+)\s*$",
                           ci, flags=re.MULTILINE):  # fmt: skip
        loops.append([pair.split(":")[1] for pair in call.split()])
    sid_calls = re.findall(r"^\s*bash scripts/sid_python\.sh each ([0-9.,]+) -m pytest ", ci,
                           flags=re.MULTILINE)  # fmt: skip
    loops.extend(call.split(",") for call in sid_calls)
    assert sorted(version for loop in loops for version in loop) == list(TESTED_PYTHONS[1:])
    sid_loop = next(loop for loop in loops if "3.14" in loop)
    sid_script = (REPO / "scripts" / "sid_python.sh").read_text()
    for version in sid_loop:
        assert f"python{version} python{version}-venv python{version}-dev" in sid_script
    assert sid_calls or 'bash scripts/sid_python.sh "$version" -m pytest' in ci
