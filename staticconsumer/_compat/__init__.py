"""Every touch point with aiokafka internals, pinned to the aiokafka versions we test.

* :class:`CoordinatorSeam` is what ``AIOKafkaConsumer`` and its ``Fetcher`` see as their group
  coordinator (``consumer._coordinator``). It subclasses aiokafka's small ``BaseCoordinator`` only
  for pattern subscriptions and the topic-metadata snapshot, and forwards everything else to our
  driver (``staticconsumer.drivers``); aiokafka's own 1,500-line ``GroupCoordinator`` is
  not used.
* :class:`ClientSeam` gives the driver what it needs from aiokafka's client and subscription
  state as plain calls: send to a node, find the coordinator, hand partitions to the fetcher,
  read the roster topic's log on the consumer's own client (:mod:`.roster`).
* :func:`start_consumer` is ``AIOKafkaConsumer.start`` with that seam (:mod:`.consumer`);
  the admin code's client calls are in :mod:`.admin`, small struct and metadata helpers in
  :mod:`.helpers`.

What differs between the aiokafka releases we support (0.12, 0.13, 0.14) is read once, at
import, from aiokafka itself (:mod:`.features`, with the table of differences), and absorbed
here; the requests the seam sends besides the group APIs are in :mod:`.requests`.

Nothing is patched process-wide. An aiokafka upgrade that renames a base method fails mypy
(``@override``) and ``check_aiokafka_version`` refuses releases we did not test.
"""

from .admin import (
    any_known_node,
    bootstrap_failure_cause,
    client_of,
    client_principal,
    close_client,
    ensure_node_metadata,
    open_admin_client,
    send_to_node,
)
from .consumer import (
    ClientSeam,
    CoordinatorSeam,
    Driver,
    KafkaConnectionError,
    KafkaError,
    WakeMarker,
    client_id_of,
    coordinator_of,
    joins_group,
    negotiate_versions,
    start_consumer,
    subscribes_topics,
    wait_for_assignment,
)
from .features import (
    LACKING_ARGUMENTS,
    SUPPORTED_AIOKAFKA,
    check_aiokafka_version,
    consumer_default,
)
from .helpers import (
    abandon_producer,
    committed,
    kafka_tp,
    replica_racks,
    topic_partition,
)
from .records import next_record, record_path_of

__all__ = [
    "LACKING_ARGUMENTS",
    "SUPPORTED_AIOKAFKA",
    "ClientSeam",
    "CoordinatorSeam",
    "Driver",
    "KafkaConnectionError",
    "KafkaError",
    "WakeMarker",
    "abandon_producer",
    "any_known_node",
    "bootstrap_failure_cause",
    "check_aiokafka_version",
    "client_id_of",
    "client_of",
    "client_principal",
    "close_client",
    "committed",
    "consumer_default",
    "coordinator_of",
    "ensure_node_metadata",
    "joins_group",
    "kafka_tp",
    "negotiate_versions",
    "next_record",
    "open_admin_client",
    "record_path_of",
    "replica_racks",
    "send_to_node",
    "start_consumer",
    "subscribes_topics",
    "topic_partition",
    "wait_for_assignment",
]
