"""The package version, written here only: pyproject.toml reads it (``[tool.setuptools.dynamic]``)
and ``staticconsumer.__version__`` re-exports it."""

__version__ = "0.1.0"
