"""The wheel is the product: build it from this tree, install it into a fresh virtualenv outside the
repository, and use it there as a new user would (``staticconsumer demo`` against the test broker,
``mypy --strict`` on a small program that uses the installed package).

The wheel and the venv are built once per session (module fixture). pip installs the wheel's
dependencies from the package index through pip's own cache, so a rerun downloads nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: What the wheel is built from: the package sources and the project metadata, nothing else.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "staticconsumer", "assignors")

USER_PROGRAM = '''\
"""A user's program: typed use of the installed package's public API."""

from assignors import RangeAssignor
from staticconsumer import InstanceId, StaticConsumer
from staticconsumer.errors import FencedInstanceIdError, StaticConsumerError


def build(bootstrap: str) -> StaticConsumer:
    instance: str = InstanceId.for_thread("billing-0", 1)
    return StaticConsumer(
        "orders",
        bootstrap_servers=bootstrap,
        group_id="billing",
        group_instance_id=instance,
        partition_assignment_strategy=(RangeAssignor(),),
    )


def is_fatal(exc: StaticConsumerError) -> bool:
    return isinstance(exc, FencedInstanceIdError) or exc.fatal
'''


def _clean_env() -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH into this checkout, no active venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        cmd, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv (outside the repository) with the wheel built from this tree installed."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    for name in SOURCES:
        if (REPO / name).is_dir():
            skip = shutil.ignore_patterns("__pycache__")
            shutil.copytree(REPO / name, source / name, ignore=skip)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
         cwd=base)  # fmt: skip
    (wheel,) = dist.glob("staticconsumer-*.whl")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=base)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], cwd=base)
    yield venv


def test_wheel_ships_the_demo_app_and_the_type_markers(installed: Path) -> None:
    (wheel,) = (installed.parent / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("app", "stream_thread", "store", "aggregate", "config", "status", "__main__"):
        assert f"staticconsumer/streams_app/{module}.py" in names
    assert {"staticconsumer/py.typed", "assignors/py.typed"} <= names
    assert not any(n.startswith(("examples/", "tests/")) for n in names)


def test_wheel_carries_the_compiled_record_path(installed: Path) -> None:
    """The wheel holds the Cython record reader built from its .pyx (issue 37), and the installed
    package runs it; the environment variable still forces aiokafka's own path."""
    (wheel,) = (installed.parent / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert [n for n in names if n.startswith("staticconsumer/_compat/fetch/_records.")
            and n.endswith(".so")], names  # fmt: skip
    probe = "from staticconsumer._compat.fetch import record_path; print(record_path())"
    python = str(installed / "bin" / "python")
    assert _run([python, "-c", probe], cwd=installed.parent).stdout.strip() == "compiled"
    forced = subprocess.run([python, "-c", probe], cwd=installed.parent, capture_output=True,
                            text=True, env={**_clean_env(), "STATICCONSUMER_PURE_RECORDS": "1"},
                            timeout=60, check=True)  # fmt: skip
    assert forced.stdout.strip() == "pure"


def test_wheel_metadata_license_and_no_pytest_plugin(installed: Path) -> None:
    (wheel,) = (installed.parent / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (info,) = {n.split("/")[0] for n in archive.namelist() if ".dist-info/" in n}
        metadata = archive.read(f"{info}/METADATA").decode()
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        license_text = archive.read(f"{info}/licenses/LICENSE").decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "Apache License" in license_text and "Version 2.0" in license_text
    # The fixtures are opt-in: the wheel registers the CLI and no pytest11 plugin.
    assert "[console_scripts]" in entry_points and "pytest11" not in entry_points
    built = info.removesuffix(".dist-info").split("-")[1]
    version = _run([str(installed / "bin" / "staticconsumer"), "--version"], cwd=installed.parent)
    assert version.stdout.split() == ["staticconsumer", built]


def test_demo_runs_from_the_installed_wheel(installed: Path, kafka_bootstrap: str) -> None:
    workdir = installed.parent / "user"
    workdir.mkdir()
    probe = "import staticconsumer; print(staticconsumer.__file__)"
    where = _run([str(installed / "bin" / "python"), "-c", probe], cwd=workdir).stdout.strip()
    assert Path(where).is_relative_to(installed), f"imported {where}, not the installed wheel"
    done = _run(
        [str(installed / "bin" / "staticconsumer"), "demo", "--json",
         "--bootstrap-servers", kafka_bootstrap, "--records", "600"],
        cwd=workdir, timeout=300,
    )  # fmt: skip
    doc = json.loads(done.stdout)
    assert doc["mode"] == "static" and doc["ok"], done.stderr[-3000:]
    assert doc["check"]["passed"], doc["check"]
    assert doc["records_processed"] == doc["records_produced"] == 1200
    assert doc["rebalances_seen"] == 0
    assert doc["partitions_after"] == doc["partitions_before"]


def test_user_program_type_checks_strictly_against_the_installed_package(installed: Path) -> None:
    workdir = installed.parent / "typed"
    workdir.mkdir()
    (workdir / "user_app.py").write_text(USER_PROGRAM)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
            "--python-executable", str(installed / "bin" / "python"), "user_app.py"]  # fmt: skip
    done = _run(mypy, cwd=workdir)
    assert "Success" in done.stdout
    # The check is real: a type error in the same program is reported.
    wrong = "\nwrong: int = InstanceId.for_thread('a', 1)\n"
    (workdir / "user_app.py").write_text(USER_PROGRAM + wrong)
    bad = subprocess.run(mypy, cwd=workdir, env=_clean_env(), capture_output=True, text=True,
                         timeout=600, check=False)  # fmt: skip
    assert bad.returncode == 1 and "user_app.py" in bad.stdout, bad.stdout
