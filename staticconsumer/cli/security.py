"""``--command-config FILE`` for every command that talks to a cluster: the Java client's
security properties, read into one :class:`~staticconsumer.security.SecuritySettings`."""

from __future__ import annotations

import argparse

from ..security import JAVA_KEYS, SecuritySettings


def add_command_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--command-config", metavar="FILE", default=None,
        help="Java client properties with the cluster's TLS/SASL settings, as Kafka's own tools "
        f"take them: {', '.join(JAVA_KEYS)}. Certificates are PEM files (JKS is not supported).",
    )  # fmt: skip


def security_from_args(args: argparse.Namespace) -> SecuritySettings:
    """The settings ``--command-config`` names (plaintext without it); errors are
    ``ConfigurationError`` (a ``ValueError``: the CLI exits 2) naming the file and key."""
    path = getattr(args, "command_config", None)
    return SecuritySettings.from_properties(path) if path else SecuritySettings()
