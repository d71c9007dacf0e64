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
* :func:`start_consumer` and :func:`stop_consumer` are ``AIOKafkaConsumer.start`` and ``stop``
  with that seam (:mod:`.lifecycle`); our requests reach aiokafka's connection through
  :mod:`.wire`, the tooling's requests are in :mod:`.tooling`;
  the admin code's client calls are in :mod:`.admin`, small struct and metadata helpers in
  :mod:`.helpers`.
* The fetch path is a package of its own, :mod:`.fetch`: choosing a fetcher, the tap, the kept
  fetcher and its connection, the ``async for`` fast path and the compiled reader; the seam's
  lifecycle calls :func:`.fetch.make_fetcher` and the consumer :func:`.fetch.next_record`.
* :class:`RecoveringClient` is aiokafka's client going back to its bootstrap servers as Java's
  does (KIP-899, KIP-1102: :mod:`.rebootstrap`), decided by :class:`MetadataRecovery`
  (:mod:`.recovery`, no I/O); the consumer's and the admin calls' client.

What differs between the aiokafka releases we support (0.12, 0.13, 0.14) is read once, at
import, from aiokafka itself (:mod:`.features`, with the table of differences), and absorbed
here; the requests the seam sends besides the group APIs are in :mod:`.requests`.

Nothing is patched process-wide. An aiokafka upgrade that renames a base method fails mypy
(``@override``) and ``check_aiokafka_version`` refuses releases we did not test.

**The rule: where aiokafka ends.** A name is aiokafka's *public* API when one of its user-facing
modules exports it -- ``aiokafka``, ``aiokafka.abc``, ``aiokafka.admin``, ``aiokafka.helpers`` and
``aiokafka.structs`` by their ``__all__``, ``aiokafka.errors`` whole (its API reference documents
every error class, past the ``__all__`` that stops at code 44) -- reached from that module; so is
an attribute without a leading underscore of an aiokafka object (``consumer.assignment()``,
``client.cluster``). Everything else is aiokafka's *internals*: a name of any other module
(``aiokafka.client``, ``aiokafka.conn``, ``aiokafka.protocol.*``, ``aiokafka.consumer.*``, ...)
and a private attribute (``consumer._client``), read, set or overridden. Any code may use the
public API; internals are touched only here (and in ``assignors/aiokafka_adapter.py``), each one
listed below with why: :data:`AIOKAFKA_INTERNALS` and :data:`AIOKAFKA_PRIVATE`.
``tests/contract/test_aiokafka_seam.py`` reads every module and fails on an internal touch
outside the seam, or a touch the tables do not list (or a listed one no longer made);
``scripts/seam_count.py`` prints their size. Fewer is better: where a public API serves, use it.
"""

from collections.abc import Mapping
from types import MappingProxyType

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
    ClientSeam,
    CoordinatorSeam,
    Driver,
    KafkaConnectionError,
    KafkaError,
    WakeMarker,
    negotiate_versions,
)
from .features import (
    LACKING_ARGUMENTS,
    SUPPORTED_AIOKAFKA,
    check_aiokafka_version,
    consumer_default,
)
from .fetch import next_record, record_path_of
from .helpers import (
    abandon_producer,
    committed,
    kafka_tp,
    replica_racks,
    topic_partition,
)
from .lifecycle import (
    AIOKAFKA_CONSUMER_LOG,
    aiokafka_anext,
    aiokafka_consumer_parameters,
    coordinator_of,
    joins_group,
    start_consumer,
    stop_consumer,
    subscribes_topics,
    wait_for_assignment,
)
from .rebootstrap import RecoveringClient, install_recovering_client
from .recovery import MetadataRecovery, RecoverySettings

__all__ = [
    "AIOKAFKA_CONSUMER_LOG",
    "AIOKAFKA_INTERNALS",
    "AIOKAFKA_PRIVATE",
    "LACKING_ARGUMENTS",
    "SUPPORTED_AIOKAFKA",
    "AiokafkaGroupAssignor",
    "ClientSeam",
    "CoordinatorSeam",
    "Driver",
    "KafkaConnectionError",
    "KafkaError",
    "MetadataRecovery",
    "RecoveringClient",
    "RecoverySettings",
    "WakeMarker",
    "abandon_producer",
    "aiokafka_anext",
    "aiokafka_consumer_parameters",
    "any_known_node",
    "bootstrap_failure_cause",
    "check_aiokafka_version",
    "client_of",
    "client_principal",
    "close_client",
    "committed",
    "consumer_default",
    "coordinator_of",
    "ensure_node_metadata",
    "install_recovering_client",
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

_RECORDS = "the compiled record path (fetch/: tap, reader, async_for, _records.pyx): "
_ROSTER = "the roster's log, read on the consumer's own client (roster.py): "
_KEPT = "Fetch responses read into kept buffers (fetch/kept.py, frames.py; issue 43): "

#: aiokafka's internal names the seam imports, and why. (The key: module, then name.)
AIOKAFKA_INTERNALS: Mapping[str, str] = MappingProxyType({
    "aiokafka.client.ConnectionGroup": "COORDINATION: group requests on a connection of their "
    "own per node, never queued behind a long-polling Fetch (consumer, admin, roster)",
    "aiokafka.client.CoordinationType": "GROUP: the client's FindCoordinator lookup "
    "(ClientSeam.lookup_coordinator)",
    "aiokafka.cluster.ClusterMetadata": "localkafka's readiness probe reads one broker's own "
    "Metadata answer as aiokafka reads it (tooling.py); an aiokafka-style assignor's assign "
    "gets one built from the leader's partition counts (PlanCluster, assignors.py); whether "
    "a coordination connection needs a registered coordinator (0.12, 0.13: features.py)",
    "aiokafka.codec": _RECORDS + "aiokafka's decompression of each batch",
    "aiokafka.conn.CloseReason": "a JoinGroup that timed out closes its connection as "
    "AIOKafkaClient.send does (ClientSeam._send_waiting)",
    "aiokafka.conn.create_conn": "one connection per bootstrap address with the client's "
    "settings, to learn why bootstrap failed: aiokafka only logs a SASL or TLS refusal; "
    "a rebootstrap's Metadata from a bootstrap address (rebootstrap.py, KIP-899); "
    "whether it takes 0.12's version_hint, gone with 0.13's per-connection ApiVersions "
    "(features.py)",
    "aiokafka.consumer.fetcher.FetchResult": _RECORDS + "the result whose reader it replaces",
    "aiokafka.consumer.fetcher.Fetcher": _RECORDS + "FetchSeam is aiokafka's fetcher with a tap "
    "on its Fetch responses; the pure path runs it as it is; whether it takes client_rack "
    "(0.14, features.py)",
    "aiokafka.consumer.fetcher.PartitionRecords": _RECORDS + "aiokafka's reader it replaces",
    "aiokafka.consumer.fetcher.READ_COMMITTED": _RECORDS + "PartitionRecords' isolation level",
    "aiokafka.consumer.fetcher.OffsetResetStrategy": _KEPT + "NONE: an out-of-range offset is "
    "the application's error, not a reset, as in aiokafka's fetcher",
    "aiokafka.consumer.group_coordinator.BaseCoordinator": "CoordinatorSeam's base: pattern "
    "subscriptions and the metadata snapshot aiokafka's fetcher and client call on it",
    "aiokafka.consumer.group_coordinator.NoGroupCoordinator": "a consumer without group_id, "
    "as AIOKafkaConsumer.start makes it",
    "aiokafka.coordinator.assignors.abstract.AbstractPartitionAssignor": "recognises an "
    "aiokafka-style assignor (aiokafka's, faust's, a user's) to run it under StaticConsumer "
    "(AiokafkaGroupAssignor, assignors.py)",
    "aiokafka.coordinator.protocol.ConsumerProtocolMemberAssignment": "the assignors' adapters "
    "hand plain aiokafka, and an aiokafka-style assignor's on_assignment, the assignment "
    "struct aiokafka's GroupCoordinator encodes",
    "aiokafka.coordinator.protocol.ConsumerProtocolMemberMetadata": "the assignors' adapters "
    "hand plain aiokafka, and an aiokafka-style assignor's assign, the subscription struct "
    "aiokafka's GroupCoordinator encodes",
    # requests.py: one pinned version each (aiokafka 0.12 has no builders), the same struct
    # and schema in 0.12, 0.13 and 0.14
    "aiokafka.protocol.admin.ApiVersionRequest_v2": "a broker's ApiVersions, which our group "
    "API versions are negotiated from (negotiate_versions; aiokafka 0.12: ClientSeam.send)",
    "aiokafka.protocol.admin.CreateAclsRequest_v1": "localkafka grants ACLs on a secured local "
    "cluster; aiokafka's admin client has no ACL call (tooling.py)",
    "aiokafka.protocol.admin.CreateTopicsRequest_v3": "the roster topic's creation (roster.py)",
    "aiokafka.protocol.admin.DescribeConfigsRequest_v2": "the broker's group.min/max.session."
    "timeout.ms, named in the error for a session timeout it refused (broker_config.py)",
    "aiokafka.protocol.fetch.FetchRequest_v11": _ROSTER + "its records",
    "aiokafka.protocol.metadata.MetadataRequest_v5": _ROSTER + "its leader; localkafka: each "
    "broker's view of a new topic (tooling.py); a rebootstrap's metadata, which aiokafka's "
    "ClusterMetadata reads (rebootstrap.py)",
    "aiokafka.protocol.offset.OffsetRequest_v3": _ROSTER + "its log start and end",
    "aiokafka.record.control_record.ABORT_MARKER": _RECORDS + "an aborted transaction's marker",
    "aiokafka.record.control_record.ControlRecord": _RECORDS + "a control batch's record",
    "aiokafka.record.legacy_records.LegacyRecordBatch": _RECORDS + "message formats 0 and 1",
    "aiokafka.record.memory_records.MemoryRecords": _ROSTER + "its record batches",
})  # fmt: skip

#: aiokafka's private attributes the seam reads, sets or overrides, by name: whose, and why.
AIOKAFKA_PRIVATE: Mapping[str, str] = MappingProxyType({
    # AIOKafkaConsumer: start_consumer / stop_consumer stand in for its start() and stop().
    "_client": "AIOKafkaConsumer's AIOKafkaClient: replaced, before anything connects, by a "
    "RecoveringClient made with the same arguments (rebootstrap.py); bootstrapped and built "
    "on in start_consumer; "
    "the fetcher's client, which FetchSeam replaces with its tap",
    "_closed": "AIOKafkaConsumer's stopped flag (stop_consumer sets it, getone reads it); the "
    "fetcher's, read by buffered_record",
    "_coordinator": "AIOKafkaConsumer's coordinator: our CoordinatorSeam (or aiokafka's "
    "NoGroupCoordinator), installed by start_consumer",
    "_fetcher": "AIOKafkaConsumer's fetcher, installed by start_consumer (compiled or pure)",
    "_subscription": "AIOKafkaConsumer's SubscriptionState: what the member subscribed to, "
    "what it was assigned",
    "_wait_topics": "AIOKafkaConsumer.start's wait for the subscribed topics' metadata",
    # AIOKafkaClient and its connections.
    "_conns": "AIOKafkaClient's connections by (node, group): a JoinGroup's own timeout; "
    "after a rebootstrap, those to a broker that moved are closed (rebootstrap.py)",
    "_metadata_update": "AIOKafkaClient's metadata update (@override, RecoveringClient): "
    "aiokafka's, then the recovery's decision to go back to the bootstrap servers (KIP-899, "
    "KIP-1102), which aiokafka never does",
    "_request_timeout": "AIOKafkaConnection's request timeout, raised for one JoinGroup "
    "(Java's max(request.timeout.ms, rebalance timeout + 5 s))",
    "_maybe_wait_metadata": "AIOKafkaClient: the leader waits for every member's topics",
    "_partitions": "ClusterMetadata's replicas per partition, for rack-aware assignors "
    "(KIP-881): no public accessor",
    # BaseCoordinator: the leader's metadata watch, as aiokafka's GroupCoordinator keeps it.
    "_group_subscription": "BaseCoordinator: the topics whose partition counts are watched",
    "_metadata_snapshot": "BaseCoordinator: the partition counts last seen",
    "_get_metadata_snapshot": "BaseCoordinator: takes that snapshot",
    "_on_metadata_change": "BaseCoordinator's hook (@override): a count changed, re-join",
    # AIOKafkaProducer (the events producer).
    "_message_accumulator": "AIOKafkaProducer: fail what it holds so stop() does not wait for "
    "a cluster that does not answer (abandon_producer)",
    # The compiled record path (fetch/): aiokafka's Fetcher with another reader.
    "_aborted_transactions": _RECORDS + "PartitionRecords', given to the compiled reader",
    "_check_crcs": _RECORDS + "PartitionRecords', given to the compiled reader",
    "_isolation_level": _RECORDS + "PartitionRecords', given to the compiled reader",
    "_key_deserializer": _RECORDS + "PartitionRecords', given to the compiled reader",
    "_value_deserializer": _RECORDS + "PartitionRecords', given to the compiled reader",
    "_records": _RECORDS + "the Fetcher's results, PartitionRecords' batches",
    "_partition_records": _RECORDS + "FetchResult's reader, replaced",
    "_topic_partition": _RECORDS + "FetchResult's partition (getall)",
    "_update_position": _RECORDS + "FetchResult's position update (getall)",
    "_proc_fetch_request": _RECORDS + "Fetcher's Fetch handling, around which the tap clears",
    "_fetch_count": _RECORDS + "SubscriptionState's fetch context (async for, buffered)",
    "_last_fetch_ended": _RECORDS + "SubscriptionState's fetch context (async for, buffered)",
    "_notify": _RECORDS + "Fetcher: wake its fetch loop once a partition's records are taken",
    "_wait_consume_future": _RECORDS + "Fetcher: the future that wake resolves",
    "_prefetch_backoff": _RECORDS + "Fetcher: the backoff a FetchResult it stores is given",
    # Fetch responses into kept buffers (fetch/kept.py, frames.py): a fetch connection taken
    # over.
    "_get_conn": _KEPT + "AIOKafkaClient makes (TLS, SASL) and closes the fetch connection, "
    "in a connection group of its own",
    "_read_task": _KEPT + "AIOKafkaConnection's reader, cancelled when its reading is taken over",
    "_writer": _KEPT + "AIOKafkaConnection's StreamWriter: its transport gets our protocol",
    "_protocol": _KEPT + "AIOKafkaConnection's protocol: still told when the connection is lost",
    "_versions": _KEPT + "AIOKafkaConnection's ApiVersions ranges: the Fetch version to send",
    "_client_id": _KEPT + "AIOKafkaConnection's client id, written in each request header",
    "_last_action": _KEPT + "AIOKafkaConnection's idle clock, kept fresh so its idle check "
    "does not drop a busy fetch connection",
})  # fmt: skip
