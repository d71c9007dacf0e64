"""How a stream thread joins its group, per group protocol (``--group-protocol``):

* ``classic`` (the default): a consumer-group member with ``<base>-thread-<n>`` as its
  ``group.instance.id``, the app's session and heartbeat, and the instance-id-first range
  assignor;
* ``consumer`` (KIP-848): the same ids, the coordinator assigns;
* ``streams`` (KIP-1071): a member of a streams group, ``<base>-<n>`` for n from 1 as Java's
  Kafka Streams names its threads (Kafka 4.4 static members). The app declares its topology:
  one subtopology reading the input topic, whose aggregate store's changelog is an internal
  topic the broker creates (its partition count left to the broker, 0: the input's). Every
  thread of the process joins with one process id kept in ``--state-dir/process-id``, so a
  restarted process is the same process to the broker (a new one would move its tasks).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from assignors import RangeAssignor
from staticconsumer.protocol import StreamsTopology, Subtopology, TopicInfo

from .config import AppConfig

#: The file in ``--state-dir`` that keeps the process id across restarts.
PROCESS_ID_FILE = "process-id"
#: The changelog the broker creates for a streams group: compacted, as Kafka Streams' are.
CHANGELOG_CONFIGS = (("cleanup.policy", "compact"),)


def app_topology(config: AppConfig) -> StreamsTopology:
    """The app's topology: subtopology ``0`` reads the input; its store's changelog is
    ``--changelog-topic``, created by the broker with as many partitions as the input."""
    changelog = TopicInfo(config.changelog_topic, topic_configs=CHANGELOG_CONFIGS)
    return StreamsTopology(0, (Subtopology("0", source_topics=(config.input_topic,),
                                           state_changelog_topics=(changelog,)),))  # fmt: skip


def process_id(state_dir: Path) -> str:
    """The process id kept in ``state_dir`` (made once: a changed one bumps the group epoch)."""
    path = state_dir / PROCESS_ID_FILE
    if path.exists():
        kept = path.read_text().strip()
        if kept:
            return kept
    state_dir.mkdir(parents=True, exist_ok=True)
    made = str(uuid.uuid4())
    path.write_text(made + "\n")
    return made


def consumer_options(config: AppConfig, n: int) -> dict[str, Any]:
    """StaticConsumer's keywords for thread ``n`` under ``config.group_protocol``."""
    options: dict[str, Any] = {
        "bootstrap_servers": config.bootstrap_servers,
        "group_id": config.group,
        "group_instance_id": config.instance_id(n),
        "client_id": config.thread_name(n),
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
    }
    if config.events_topic is not None:
        options["events_topic"] = config.events_topic
    if config.group_protocol == "classic":
        options.update(session_timeout_ms=config.session_timeout_ms,
                       heartbeat_interval_ms=config.heartbeat_interval_ms,
                       partition_assignment_strategy=(RangeAssignor(),))  # fmt: skip
    elif config.group_protocol == "consumer":
        options.update(group_protocol="consumer")
    else:
        options.update(group_protocol="streams", streams_topology=app_topology(config),
                       streams_process_id=process_id(config.state_dir))  # fmt: skip
    return options
