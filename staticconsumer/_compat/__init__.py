"""Every touch point with aiokafka internals, pinned to the aiokafka versions we test.

* :class:`CoordinatorSeam` is what ``AIOKafkaConsumer`` and its ``Fetcher`` see as their group
  coordinator (``consumer._coordinator``). It subclasses aiokafka's small ``BaseCoordinator`` only
  for pattern subscriptions and the topic-metadata snapshot, and forwards everything else to our
  driver (``staticconsumer.drivers``); aiokafka's own 1,500-line ``GroupCoordinator`` is
  not used.
* :class:`ClientSeam` gives the driver what it needs from aiokafka's client and subscription
  state as plain calls: send to a node, find the coordinator, hand partitions to the fetcher,
  read the roster topic's log on the consumer's own client (:mod:`.roster`).
* :class:`AiokafkaGroupAssignor` runs an aiokafka-style assignor (``AbstractPartitionAssignor``:
  aiokafka's, faust's, a user's) as an ``assignors.GroupAssignor``, members in instance-id order
  (:mod:`.assignors`).
* :func:`start_consumer` is ``AIOKafkaConsumer.start`` with that seam (:mod:`.consumer`);
  the admin code's client calls are in :mod:`.admin`, small struct and metadata helpers in
  :mod:`.helpers`.

Nothing is patched process-wide. An aiokafka upgrade that renames a base method fails mypy
(``@override``) and ``check_aiokafka_version`` refuses versions we did not test.
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
from .assignors import AiokafkaGroupAssignor, is_aiokafka_assignor, unusable_reason
from .consumer import (
    AIOKAFKA_CONSUMER_LOG,
    SUPPORTED_AIOKAFKA,
    ClientSeam,
    CoordinatorSeam,
    Driver,
    KafkaConnectionError,
    KafkaError,
    WakeMarker,
    aiokafka_anext,
    aiokafka_consumer_parameters,
    check_aiokafka_version,
    client_id_of,
    coordinator_of,
    joins_group,
    negotiate_versions,
    start_consumer,
    stop_consumer,
    subscribes_topics,
    wait_for_assignment,
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
    "AIOKAFKA_CONSUMER_LOG",
    "SUPPORTED_AIOKAFKA",
    "AiokafkaGroupAssignor",
    "ClientSeam",
    "CoordinatorSeam",
    "Driver",
    "KafkaConnectionError",
    "KafkaError",
    "WakeMarker",
    "abandon_producer",
    "aiokafka_anext",
    "aiokafka_consumer_parameters",
    "any_known_node",
    "bootstrap_failure_cause",
    "check_aiokafka_version",
    "client_id_of",
    "client_of",
    "client_principal",
    "close_client",
    "committed",
    "coordinator_of",
    "ensure_node_metadata",
    "is_aiokafka_assignor",
    "joins_group",
    "kafka_tp",
    "negotiate_versions",
    "next_record",
    "open_admin_client",
    "record_path_of",
    "replica_racks",
    "send_to_node",
    "start_consumer",
    "stop_consumer",
    "subscribes_topics",
    "topic_partition",
    "unusable_reason",
    "wait_for_assignment",
]
