"""How every command that talks to a cluster names it, as Kafka's own tools do:
``--bootstrap-server HOST:PORT[,...]`` (``--bootstrap-servers`` kept as an alias) and
``--command-config FILE``, a Java client config file read into one
:class:`~staticconsumer.security.ClientConfig`: the ``client.properties`` a managed Kafka
service hands out works as it is. Its ``bootstrap.servers`` is used when no flag names the
cluster, its metadata recovery keys (``metadata.recovery.strategy``,
``metadata.recovery.rebootstrap.trigger.ms``, KIP-899) go to the admin calls; its other client
keys are ignored with one notice line naming them (never a value).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ConfigurationError
from ..security import JAVA_KEYS, ClientConfig, SecuritySettings, parse_bootstrap_servers


def bootstrap_servers_arg(value: str) -> str:
    """The argparse ``type`` of ``--bootstrap-server``: host:port pairs, checked at parse time."""
    try:
        return parse_bootstrap_servers(value)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_command_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--command-config", metavar="FILE", default=None,
        help="a Java client config file (e.g. the client.properties of a managed Kafka "
        "service), as Kafka's own tools take it: bootstrap.servers and the TLS/SASL settings "
        f"({', '.join(JAVA_KEYS)}) are used, other client keys ignored. Certificates are PEM "
        "files (JKS is not supported).",
    )  # fmt: skip


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """``--bootstrap-server`` and ``--command-config``; :func:`resolve_cluster` reads them."""
    parser.add_argument(
        "--bootstrap-server", "--bootstrap-servers", dest="bootstrap_servers", default=None,
        type=bootstrap_servers_arg, metavar="HOST:PORT[,...]",
        help="Kafka bootstrap servers (default: bootstrap.servers in --command-config)",
    )  # fmt: skip
    add_command_config(parser)
    parser.set_defaults(cluster_parser=parser)


def resolve_cluster(args: argparse.Namespace) -> None:
    """After parsing: read ``--command-config`` and settle ``args.bootstrap_servers`` and
    ``args.client_security``. A file that cannot be used, or no bootstrap servers at all, is a
    usage error (exit 2) naming the file or the flag."""
    parser: argparse.ArgumentParser = args.cluster_parser
    path = getattr(args, "command_config", None)
    try:
        config = ClientConfig.from_properties(path) if path else None
    except ConfigurationError as exc:
        parser.error(str(exc))
    ignored = list(config.ignored) if config else []
    if args.bootstrap_servers is None:
        if config is None or config.bootstrap_servers is None:
            parser.error(
                "--bootstrap-server is required (or bootstrap.servers in the --command-config file)"
            )
        args.bootstrap_servers = config.bootstrap_servers
    elif config is not None and config.bootstrap_servers is not None:
        ignored.append("bootstrap.servers (--bootstrap-server given)")
    if config is not None and ignored:
        print(
            f"staticconsumer: note: {config.source}: ignoring client keys these tools do not "
            f"use: {', '.join(ignored)}",
            file=sys.stderr, flush=True,
        )  # fmt: skip
    args.client_security = config.security if config else SecuritySettings()
    args.client_options = dict(config.options) if config else {}


def options_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The admin calls' keywords ``--command-config`` sets by Java key (metadata recovery)."""
    settled = getattr(args, "client_options", None)
    if isinstance(settled, dict):
        return settled
    path = getattr(args, "command_config", None)
    return dict(ClientConfig.from_properties(path).options) if path else {}


def security_from_args(args: argparse.Namespace) -> SecuritySettings:
    """The settings ``--command-config`` names (plaintext without it): those
    :func:`resolve_cluster` read, else the file read now (errors are ``ConfigurationError``)."""
    settled = getattr(args, "client_security", None)
    if isinstance(settled, SecuritySettings):
        return settled
    path = getattr(args, "command_config", None)
    return SecuritySettings.from_properties(path) if path else SecuritySettings()
