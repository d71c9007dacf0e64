"""The optional dependencies of :mod:`staticconsumer.analytics` (the ``spark`` extra)."""

from __future__ import annotations

import importlib.util

EXTRA_HINT = "pip install 'staticconsumer[spark]'"


def require_spark() -> None:
    """Raise :class:`ImportError` naming the extra when pyspark or matplotlib is missing."""
    missing = [name for name in ("pyspark", "matplotlib") if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(
            f"the report pipeline needs {' and '.join(missing)} (the 'spark' extra): {EXTRA_HINT}"
        )
