"""The broker a benchmark talks to: the one given, or a local one it starts and stops."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping


@contextlib.contextmanager
def bootstrap_servers(
    given: str | None, broker_config: Mapping[str, str] | None = None
) -> Iterator[str]:
    """``given`` as it is, or the address of a local Apache Kafka started for the block."""
    if given is not None:
        yield given
        return
    from staticconsumer.localkafka import cluster_from_environment

    cluster = cluster_from_environment(1, use_existing=False, broker_config=broker_config).start()
    try:
        yield cluster.bootstrap_servers
    finally:
        cluster.stop()
