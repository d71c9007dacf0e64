"""Every faust name that is not faust's documented API, in one place.

``staticconsumer.faust`` touches faust (``faust-streaming``) here and nowhere else, and only on
the versions in :data:`SUPPORTED` (the ``faust`` extra pins the same range, as
``staticconsumer._compat`` pins aiokafka). ``tests/faust/test_seam.py`` checks each fact below on
the installed faust, so an upgrade that moves one fails there, by name:

* ``App._new_transport()`` builds the consumer's transport from ``conf.broker_consumer``; the
  producer has a transport of its own (``_new_producer_transport``), left alone.
* The aiokafka driver (``faust.transport.drivers.aiokafka``): ``Transport.Consumer`` is the
  consumer class, whose ``_new_consumer_thread()`` makes an ``AIOKafkaConsumerThread``; that
  thread's ``_create_worker_consumer(transport)`` builds the worker's ``AIOKafkaConsumer`` (in
  the thread's own event loop) from the settings :func:`consumer_options` reads, and its
  ``_fetch_records(consumer, ...)`` reads ``consumer._fetcher.fetched_records`` directly
  (``getmany``'s error check never runs: the fetch calls the consumer's public
  ``check_errors()`` through :func:`check_errors` first).
* faust's ``Consumer.commit()`` returns without committing when another commit is in flight
  (``maybe_wait_for_commit_to_finish``), at a revocation and at the stop too; its
  ``force_commit()`` takes the acknowledged offsets off faust's list before it awaits the
  producer's flush and the commit, so a cancelled one loses them. ``StaticFaustConsumer``
  overrides both (``tests/faust/test_app.py`` shows each loss on plain faust).
* faust's ``Consumer.on_partitions_revoked`` drops the revoked partitions' acknowledged
  offsets (``_acked``) before it calls the app's handler, which commits; after an
  assignment (``on_partitions_assigned``) faust's recovery calls ``resume_partitions()`` on
  the stream partitions before ``perform_seek()`` seeks them to their committed offsets.
  ``StaticFaustConsumer`` commits before faust forgets, and resumes the stream partitions
  after the seek. faust's fetch loop fetches through ``_getmany(active_partitions,
  timeout)`` (the consumer thread's ``getmany``), and after a seek goes on from
  :func:`read_offsets`.
* mode's ``QueueServiceThread`` (faust's ``ConsumerThread``): ``call_thread`` puts a call on
  the thread's ``method_queue`` (``MethodQueue.call(promise, fun, *args)``, the promise a
  future of ``parent_loop``, answered from the thread and skipped when cancelled) and awaits
  that promise alone; the thread stops its method queue before it stops the consumer, and
  calls ``set_shutdown()`` when it has ended. ``StaticThread.call_thread`` races the promise
  with the thread's end (:func:`queue_call`).
* ``faust.assignor.client_assignment``: ``ClientAssignment`` (``actives``/``standbys``:
  ``{topic: [partition]}``) and ``ClientMetadata`` (``assignment``, ``url``,
  ``changelog_distribution``, ``external_topic_distribution``, ``topic_groups``), faust
  ``Record``s read and written as JSON (unknown keys kept); a subscription carries the JSON, an
  assignment ``zlib`` of it (``PartitionAssignor._compress``).
* ``app.assignor`` (faust's ``PartitionAssignor``): ``_metadata`` is the member's own
  ``ClientMetadata``; ``on_assignment(assignment)`` takes an aiokafka
  ``ConsumerProtocolMemberAssignment``, reads its ``user_data`` and ``assignment`` and asserts
  that the Kafka assignment is its actives plus changelog standbys and that the URL is its own;
  the tables read their actives and standbys from it afterwards.
* Tables: ``app.tables.changelog_topics``; a table's ``is_global``,
  ``synchronize_all_active_partitions``, ``use_partitioner`` and ``changelog_topic``.
"""

from __future__ import annotations

import inspect
import json
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

import aiokafka.errors
import faust
from faust.assignor import partition_assignor
from faust.assignor.client_assignment import ClientAssignment, ClientMetadata
from faust.transport.drivers import aiokafka as driver

from ..errors import ConfigurationError
from ..integrations import check_supported, installed_version

#: faust-streaming versions this seam was checked on (``>=`` first, ``<`` second); the
#: ``faust`` extra in pyproject.toml says the same.
SUPPORTED = ((0, 15, 3), (0, 16, 0))
#: The protocol name (and version) faust's assignor sends in JoinGroup.
PROTOCOL = "faust"
VERSION = 4

App = faust.App
Transport = driver.Transport
Consumer = driver.Consumer
ConsumerThread = driver.AIOKafkaConsumerThread
#: faust's fetch loop ends quietly on it (its ``consumer_stopped_errors``).
ConsumerStoppedError = aiokafka.errors.ConsumerStoppedError


async def queue_call(thread: Any, fun: Any, *args: Any, **kwargs: Any) -> Any:
    """Put ``fun(*args, **kwargs)`` on the consumer thread's method queue, as mode's
    ``call_thread`` does: the promise (a future of the app's loop) the thread answers.
    ``RuntimeError`` when the thread's loop is closed."""
    return await thread.method_queue.call(thread.parent_loop.create_future(), fun, *args,
                                          **kwargs)  # fmt: skip


def version() -> tuple[int, ...]:
    """The installed faust-streaming's version as numbers (``0.15.3`` -> ``(0, 15, 3)``)."""
    return installed_version("faust-streaming")


def check_version() -> None:
    """Refuse a faust-streaming outside :data:`SUPPORTED`: the seam may not hold there."""
    check_supported("faust-streaming", SUPPORTED, version(), package="staticconsumer.faust",
                    extra="faust")  # fmt: skip


def consumer_options(thread: Any, transport: Any) -> dict[str, Any]:
    """The ``AIOKafkaConsumer`` keywords faust's worker consumer is built with, from the app's
    settings, less ``group_instance_id`` and ``partition_assignment_strategy`` (ours)."""
    app, conf = thread.app, thread.app.conf
    if conf.broker_session_timeout > conf.broker_request_timeout:
        raise ConfigurationError(
            f"faust setting broker_session_timeout={conf.broker_session_timeout} cannot be "
            f"greater than broker_request_timeout={conf.broker_request_timeout}"
        )
    return {
        "client_id": conf.broker_client_id,
        "group_id": conf.id,
        "bootstrap_servers": driver.server_list(transport.url, transport.default_port),
        "enable_auto_commit": False,
        "auto_offset_reset": conf.consumer_auto_offset_reset,
        "max_poll_records": conf.broker_max_poll_records,
        "max_poll_interval_ms": int((conf.broker_max_poll_interval or 0) * 1000.0),
        "max_partition_fetch_bytes": conf.consumer_max_fetch_size,
        "fetch_max_wait_ms": 1500,
        "request_timeout_ms": int(conf.broker_request_timeout * 1000.0),
        "check_crcs": conf.broker_check_crcs,
        "session_timeout_ms": int(conf.broker_session_timeout * 1000.0),
        "rebalance_timeout_ms": int(conf.broker_rebalance_timeout * 1000.0),
        "heartbeat_interval_ms": int(conf.broker_heartbeat_interval * 1000.0),
        "isolation_level": "read_committed" if app.consumer.in_transaction else "read_uncommitted",
        "metadata_max_age_ms": conf.consumer_metadata_max_age_ms,
        "connections_max_idle_ms": conf.consumer_connections_max_idle_ms,
        **driver.credentials_to_aiokafka_auth(conf.broker_credentials, conf.ssl_context),
    }


# -- faust's assignment data --------------------------------------------------------------------


def subscription_bytes(app: Any, extra: Mapping[str, Any]) -> bytes:
    """This worker's subscription user data as faust's writes it (its ``ClientMetadata``
    JSON: its URL, its last assignment), with ``extra`` keys faust ignores."""
    document = {**json.loads(bytes(app.assignor.metadata(set()).user_data)), **extra}
    return json.dumps(document, sort_keys=True).encode()


def read_subscription(user_data: bytes) -> dict[str, Any]:
    """A member's subscription user data: faust's ``ClientMetadata`` JSON (empty if none)."""
    if not user_data:
        return {}
    loaded: dict[str, Any] = json.loads(bytes(user_data))
    return loaded


def assignment_bytes(
    *,
    actives: Mapping[str, list[int]],
    standbys: Mapping[str, list[int]],
    url: str,
    changelog_distribution: Mapping[str, Mapping[str, list[int]]],
    external_topic_distribution: Mapping[str, Mapping[str, list[int]]],
    topic_groups: Mapping[str, int],
    extra: Mapping[str, Any],
) -> bytes:
    """One member's assignment user data as faust's leader writes it (``zlib`` of the
    ``ClientMetadata`` JSON), with ``extra`` keys faust ignores."""
    metadata = ClientMetadata(
        assignment=ClientAssignment(actives=dict(actives), standbys=dict(standbys)),
        url=url,
        changelog_distribution=dict(changelog_distribution),
        external_topic_distribution=dict(external_topic_distribution),
        topic_groups=dict(topic_groups),
    )
    document = {**json.loads(metadata.dumps()), **extra}
    return zlib.compress(json.dumps(document, sort_keys=True).encode())


def read_assignment(user_data: bytes) -> dict[str, Any]:
    """An assignment's user data as JSON (the inverse of :func:`assignment_bytes`)."""
    loaded: dict[str, Any] = json.loads(zlib.decompress(bytes(user_data)))
    return loaded


def hand_assignment(app: Any, partitions: list[tuple[str, int]], user_data: bytes) -> str | None:
    """Give faust's assignor the assignment, as aiokafka's coordinator would: its
    ``on_assignment`` keeps the actives and standbys the tables read. faust compares each
    topic's partition list in its own order (actives, then changelog standbys), so the lists
    are made in that order, after checking they hold what Kafka assigned.

    faust also asserts that the assignment names its own URL. A static member restarted
    without a rebalance gets its previous process's stored assignment, which names that
    process's URL: the URL is replaced by ours, and the previous one returned (None when it
    was ours)."""
    document = json.loads(zlib.decompress(bytes(user_data)))
    metadata = ClientMetadata.loads(json.dumps(document).encode())
    expected = metadata.assignment.kafka_protocol_assignment(app.tables)
    if {(t, p) for t, ps in expected for p in ps} != set(partitions):
        raise ValueError(
            f"the assignment's partitions {sorted(partitions)} are not the actives and "
            f"changelog standbys its user data names ({sorted(expected)})"
        )
    ours, previous = canonical_url(app), document.get("url")
    if previous != ours:
        user_data = zlib.compress(json.dumps({**document, "url": ours}).encode())
    app.assignor.on_assignment(
        # the assignment type faust's assignor takes (aiokafka's, as faust imports it)
        partition_assignor.ConsumerProtocolMemberAssignment(  # type: ignore[attr-defined]
            VERSION, sorted(expected), user_data
        )
    )
    return None if previous == ours else str(previous)


def canonical_url(app: Any) -> str:
    return str(app.conf.canonical_url)


def changelog_topics(app: Any) -> set[str]:
    return set(app.tables.changelog_topics)


def global_tables(app: Any) -> Iterator[tuple[str, bool]]:
    """``(changelog topic, standby on every partition)`` of each global table."""
    for table in app.tables.data.values():
        if table.is_global:
            everything = bool(table.synchronize_all_active_partitions or table.use_partitioner)
            yield table.changelog_topic.get_topic_name(), everything


def standby_replicas(app: Any) -> int:
    return int(app.conf.table_standby_replicas)


def configured_instance_id(app: Any) -> str | None:
    value = app.conf.consumer_group_instance_id
    return None if value is None else str(value)


def uses_table_assignor(app: Any) -> bool:
    """Whether faust would use its own assignor (tables or standbys), not round-robin."""
    return bool(app.conf.table_standby_replicas > 0 or app.tables.changelog_topics)


def read_offsets(consumer: Any) -> dict[Any, int | None]:
    """faust's ``Consumer._read_offset``: per partition, the offset its fetch loop goes on
    from (after a seek, the offset sought; then the last record it handed to the streams,
    which hands on only records at or past it). The dict itself."""
    offsets: dict[Any, int | None] = consumer._read_offset
    return offsets


#: The consumer options faust's settings give (:func:`consumer_options`), by the setting.
_SETTING_OF = {
    "session_timeout_ms": "broker_session_timeout",
    "heartbeat_interval_ms": "broker_heartbeat_interval",
    "rebalance_timeout_ms": "broker_rebalance_timeout",
}


def settings_at_faust_defaults(app: Any, names: Any) -> list[str]:
    """Of the consumer options ``names``, those whose faust setting holds faust's own default
    (the ``Settings`` class's ``Param.default``): not chosen by the app's author."""
    settings = type(app.conf)
    return [name for name in names if name in _SETTING_OF
            and getattr(app.conf, _SETTING_OF[name])
            == inspect.getattr_static(settings, _SETTING_OF[name]).default]  # fmt: skip


def check_errors(consumer: Any) -> None:
    """What ``AIOKafkaConsumer.getmany`` checks first: the coordinator's pending errors (a
    StaticConsumer's coordinator seam raises its fatal error or the error it holds for the
    application)."""
    consumer.check_errors()
