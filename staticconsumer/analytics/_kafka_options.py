"""Spark's Kafka source options from the SDK's security settings (no pyspark needed here)."""

from __future__ import annotations

from ..security import SecuritySettings


def spark_options(security: SecuritySettings | None) -> dict[str, str]:
    """``security.java_properties()`` with Spark's ``kafka.`` prefix, for ``.option(...)``; none
    without settings. Raises :class:`~staticconsumer.errors.ConfigurationError` for what a Java
    client cannot be given (see :meth:`SecuritySettings.java_properties`)."""
    if security is None:
        return {}
    return {f"kafka.{key}": value for key, value in security.java_properties().items()}
