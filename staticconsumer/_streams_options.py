"""The checks of a streams-group member's options (``group_protocol="streams"``, KIP-1071), as
pure functions: the topology it declares, the process id its threads share, the endpoint it
serves queries on (Java's ``application.server``). Each :class:`ConfigurationError` names the
field, the Java key (or why there is none) and the KIP.

The broker refuses what these refuse too, but later and in fewer words: a topology without
sources (STREAMS_INVALID_TOPOLOGY), a changelog with a partition count (the broker gives it the
source's), regular-expression sources (not supported by Kafka's streams groups yet).
"""

from __future__ import annotations

from typing import Any

from .errors import ConfigurationError
from .options import BY_NAME, STREAMS
from .protocol import Endpoint, StreamsTopology

_STREAMS_ROWS = ("streams_topology", "streams_process_id", "streams_application_server")


def streams_options(values: dict[str, Any]) -> None:
    """Check the streams rows of ``values`` (the constructor's, with defaults): they apply only
    to ``group_protocol="streams"``, which needs a topology."""
    if values["group_protocol"] != STREAMS:
        given = [name for name in _STREAMS_ROWS if values[name] is not None]
        if given:
            raise ConfigurationError(
                f"{BY_NAME[given[0]].named} applies only to group_protocol='streams' (a member "
                f"of a streams group, KIP-1071), got group_protocol={values['group_protocol']!r}"
            )
        return
    check_topology(values["streams_topology"])
    process_id = values["streams_process_id"]
    if process_id is not None and (not isinstance(process_id, str) or not process_id.strip()):
        raise ConfigurationError(
            f"{BY_NAME['streams_process_id'].named} must be a non-empty string (the id every "
            f"thread of this process shares, kept across restarts), got {process_id!r}"
        )
    application_endpoint(values["streams_application_server"])


def check_topology(topology: object) -> StreamsTopology:
    """The topology, checked as the broker will (its words, earlier)."""
    named = BY_NAME["streams_topology"].named
    if topology is None:
        raise ConfigurationError(
            f"group_protocol='streams' (KIP-1071) needs {named}: the topology this thread "
            "processes, whose tasks the broker assigns"
        )
    if not isinstance(topology, StreamsTopology):
        raise ConfigurationError(
            f"{named} must be a staticconsumer.protocol.StreamsTopology, got "
            f"{type(topology).__name__}"
        )
    if not topology.subtopologies:
        raise ConfigurationError(f"{named} has no subtopology: there is nothing to assign")
    for sub in topology.subtopologies:
        where = f"{named}: subtopology {sub.subtopology_id!r}"
        if sub.source_topic_regex:
            raise ConfigurationError(
                f"{where} reads topics by regular expression, which Kafka's streams groups do "
                "not support yet; name the topics"
            )
        if not (sub.source_topics or sub.repartition_source_topics):
            raise ConfigurationError(f"{where} has no source topic")
        for changelog in sub.state_changelog_topics:
            if changelog.partitions != 0:
                raise ConfigurationError(
                    f"{where}: changelog {changelog.name!r} must leave its partition count to "
                    f"the broker (0: the source's), got {changelog.partitions}"
                )
    return topology


def application_endpoint(value: object) -> Endpoint | None:
    """``"host:port"`` (Java's ``application.server``) as the wire's endpoint; None for None."""
    if value is None:
        return None
    named = BY_NAME["streams_application_server"].named
    host, _, port = str(value).rpartition(":") if isinstance(value, str) else ("", "", "")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigurationError(f"{named} must be 'host:port' with a port of 0 to 65535, "
                                 f"got {value!r}")  # fmt: skip
    return Endpoint(host, int(port))


def source_topics(topology: StreamsTopology) -> tuple[str, ...]:
    """What a thread of ``topology`` subscribes to: every source and repartition-source topic."""
    names = {t for s in topology.subtopologies for t in s.source_topics}
    names |= {t.name for s in topology.subtopologies for t in s.repartition_source_topics}
    return tuple(sorted(names))
