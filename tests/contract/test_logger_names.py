"""Every logger of the package is named by its module (``logging.getLogger(__name__)``), so it
sits under the ``staticconsumer`` parent logger and a line says where it came from
(``docs/logging.md``). A table: one row per module of the package."""

from __future__ import annotations

import importlib
import logging
import pkgutil

import pytest

import staticconsumer

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(staticconsumer.__path__, "staticconsumer.")
    if not m.name.endswith("__main__")  # runs the CLI when imported
)  # fmt: skip
#: The module-level attributes that hold a module's logger.
NAMES = ("log", "logger")


def _loggers(module: str) -> dict[str, str]:
    mod = importlib.import_module(module)
    found = {attr: getattr(mod, attr, None) for attr in NAMES}
    return {attr: value.name for attr, value in found.items()
            if isinstance(value, logging.Logger | logging.LoggerAdapter)}  # fmt: skip


@pytest.mark.parametrize("module", MODULES)
def test_a_module_logger_is_named_by_its_module(module: str) -> None:
    for attr, name in _loggers(module).items():
        assert name == module, f"{module}.{attr} logs as {name!r}: use logging.getLogger(__name__)"


def test_the_table_covers_the_modules_that_log() -> None:
    logging_modules = [m for m in MODULES if _loggers(m)]
    assert len(logging_modules) >= 30, logging_modules
    assert {"staticconsumer.drivers.driver", "staticconsumer.membership._classic",
            "staticconsumer.streams_app.app"} <= set(logging_modules)  # fmt: skip
    assert all(logging.getLogger(m).parent is not None for m in logging_modules)
    assert logging.getLogger("staticconsumer.drivers.driver").parent is not logging.root
