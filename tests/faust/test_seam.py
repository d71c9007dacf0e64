"""Every faust name ``staticconsumer/faust/_seam.py`` relies on, checked on the installed
faust: an upgrade that moves one fails here, by name, not in production."""

from __future__ import annotations

import inspect
import json
import zlib

import aiokafka
import faust
import pytest
from aiokafka.coordinator.protocol import ConsumerProtocolMemberAssignment
from faust.assignor.partition_assignor import PartitionAssignor
from faust.transport.drivers import aiokafka as driver

from staticconsumer.errors import ConfigurationError
from staticconsumer.faust import StaticApp, _seam
from staticconsumer.faust._app import StaticThread, StaticTransport


def _app(**settings: object) -> faust.App:
    options: dict[str, object] = {"canonical_url": "http://w0:6066", **settings}
    app = faust.App("seam", broker="kafka://host-a:9092", store="memory://", **options)
    app.Table("counts", default=int, partitions=4)
    return app


def test_the_installed_faust_is_a_supported_one() -> None:
    low, high = _seam.SUPPORTED
    assert low <= _seam.version() < high
    _seam.check_version()


def test_a_faust_outside_the_pin_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_seam, "version", lambda: (0, 16, 0))
    with pytest.raises(ConfigurationError, match=r"faust-streaming>=0\.15\.3,<0\.16\.0"):
        _seam.check_version()


def test_the_app_builds_its_consumer_transport_in_new_transport() -> None:
    source = inspect.getsource(faust.App._new_transport)
    assert "broker_consumer" in source
    assert "_new_producer_transport" in dir(faust.App)  # the producer's is another
    app = StaticApp("seam", broker="kafka://host-a:9092", store="memory://")
    assert isinstance(app.transport, StaticTransport)
    assert isinstance(app.consumer._thread, StaticThread)


def test_the_consumer_thread_builds_the_worker_consumer_and_fetches_from_the_fetcher() -> None:
    assert driver.Transport.Consumer is driver.Consumer
    thread_source = inspect.getsource(driver.Consumer._new_consumer_thread)
    assert "AIOKafkaConsumerThread(" in thread_source
    create = inspect.getsource(driver.AIOKafkaConsumerThread._create_consumer)
    assert "self._create_worker_consumer(transport)" in create
    worker = inspect.getsource(driver.AIOKafkaConsumerThread._create_worker_consumer)
    assert "aiokafka.AIOKafkaConsumer(" in worker
    fetch = inspect.getsource(driver.AIOKafkaConsumerThread._fetch_records)
    assert "fetcher.fetched_records(" in fetch and "consumer._fetcher" in fetch
    assert list(inspect.signature(driver.AIOKafkaConsumerThread._fetch_records).parameters) == [
        "self", "consumer", "active_partitions", "timeout", "max_records"]  # fmt: skip


def test_consumer_options_are_the_settings_faust_passes() -> None:
    worker = inspect.getsource(driver.AIOKafkaConsumerThread._create_worker_consumer)
    ours = set(_seam.consumer_options.__code__.co_consts) | {
        "group_instance_id",
        "partition_assignment_strategy",
    }
    for keyword in ("client_id", "group_id", "bootstrap_servers", "enable_auto_commit",
                    "auto_offset_reset", "max_poll_records", "max_poll_interval_ms",
                    "max_partition_fetch_bytes", "fetch_max_wait_ms", "request_timeout_ms",
                    "check_crcs", "session_timeout_ms", "rebalance_timeout_ms",
                    "heartbeat_interval_ms", "isolation_level", "metadata_max_age_ms",
                    "connections_max_idle_ms", "group_instance_id",
                    "partition_assignment_strategy"):  # fmt: skip
        assert f"{keyword}=" in worker, keyword
        assert keyword in ours, keyword


def test_client_metadata_is_json_keeping_unknown_keys_and_the_assignment_is_zlib_of_it() -> None:
    app = _app()
    raw = _seam.subscription_bytes(app, {"staticconsumer": {"roster": ["w-0"]}})
    document = json.loads(raw)
    assert document["url"] == "http://w0:6066" and document["staticconsumer"]["roster"] == ["w-0"]
    assert (
        PartitionAssignor._get_client_metadata(
            aiokafka.coordinator.protocol.ConsumerProtocolMemberMetadata(4, ["t"], raw)
        ).url
        == "http://w0:6066"
    )  # faust's leader reads ours
    assert PartitionAssignor._decompress(PartitionAssignor._compress(b"x")) == b"x"
    assert PartitionAssignor._compress(b"abc") == zlib.compress(b"abc")
    assert app.assignor.name == _seam.PROTOCOL and app.assignor.version == _seam.VERSION


def test_faust_takes_the_assignment_we_write() -> None:
    app = _app()
    changelog = next(iter(_seam.changelog_topics(app)))
    data = _seam.assignment_bytes(
        actives={"orders": [1], changelog: [1]}, standbys={"orders": [2], changelog: [2]},
        url="http://w0:6066", changelog_distribution={"http://w0:6066": {changelog: [1]}},
        external_topic_distribution={"http://w0:6066": {"orders": [1]}},
        topic_groups={"orders": 0, changelog: 0}, extra={"staticconsumer": {"version": 1}},
    )  # fmt: skip
    _seam.hand_assignment(app, [("orders", 1), (changelog, 1), (changelog, 2)], data)
    assert {(tp.topic, tp.partition) for tp in app.assignor.assigned_actives()} == {
        ("orders", 1), (changelog, 1)}  # fmt: skip
    assert {(tp.topic, tp.partition) for tp in app.assignor.assigned_standbys()} == {
        ("orders", 2), (changelog, 2)}  # fmt: skip
    assert _seam.read_assignment(data)["staticconsumer"] == {"version": 1}
    other = _app(canonical_url="http://w9:6066")
    with pytest.raises(AssertionError):  # faust asserts the URL is its own...
        other.assignor.on_assignment(ConsumerProtocolMemberAssignment(
            _seam.VERSION, [(changelog, [1, 2]), ("orders", [1])], data))  # fmt: skip
    tps = [("orders", 1), (changelog, 1), (changelog, 2)]
    assert _seam.hand_assignment(other, tps, data) == "http://w0:6066"  # ...so ours goes in
    assert _seam.hand_assignment(app, tps, data) is None


def test_table_settings_and_global_tables_are_read() -> None:
    app = _app(table_standby_replicas=2, consumer_group_instance_id="w-3")
    app.GlobalTable("everywhere", default=int, partitions=4)
    assert _seam.standby_replicas(app) == 2
    assert _seam.configured_instance_id(app) == "w-3"
    assert _seam.uses_table_assignor(app)
    assert list(_seam.global_tables(app)) == [("seam-everywhere-changelog", False)]
    assert not _seam.uses_table_assignor(faust.App("bare", table_standby_replicas=0))


def test_getmany_checks_the_coordinators_errors_first_as_our_fetch_does() -> None:
    source = inspect.getsource(aiokafka.AIOKafkaConsumer.getmany)
    assert source.index("self._coordinator.check_errors()") < source.index("fetched_records")
    assert "consumer.check_errors()" in inspect.getsource(_seam.check_errors)


def test_a_commit_made_while_another_is_in_flight_commits_nothing() -> None:
    """Why StaticApp's consumer overrides ``commit()`` (test_app.py shows the loss)."""
    commit = inspect.getsource(faust.transport.consumer.Consumer.commit)
    assert commit.index("maybe_wait_for_commit_to_finish()") < commit.index("force_commit(")
    assert "return False" in commit and "self.app.client_only" in commit  # ours checks it too
    on_stop = inspect.getsource(faust.transport.consumer.Consumer.on_stop)
    assert "wait_empty()" in on_stop and "commit_and_end_transactions()" in on_stop
    assert inspect.iscoroutinefunction(faust.transport.consumer.Consumer.force_commit)


def test_a_revocation_forgets_the_acknowledged_offsets_before_the_app_commits() -> None:
    """Why StaticApp's consumer commits in ``on_partitions_revoked`` before faust's."""
    revoked = inspect.getsource(faust.transport.consumer.Consumer.on_partitions_revoked)
    assert revoked.index("self._acked.pop(") < revoked.index("self._on_partitions_revoked")


def test_recovery_resumes_the_streams_before_it_seeks_them() -> None:
    """Why StaticApp's consumer resumes the stream partitions after the seek."""
    from faust.tables.recovery import Recovery

    for step in (Recovery._resume_streams, Recovery.on_recovery_completed):
        source = inspect.getsource(step)
        assert source.index("consumer.resume_partitions(") < source.index("perform_seek()")
    assigned = inspect.getsource(faust.transport.consumer.Consumer.on_partitions_assigned)
    assert "self._on_partitions_assigned" in assigned


def test_the_fetch_loop_fetches_through_getmany_and_goes_on_from_the_read_offsets() -> None:
    """Why StaticApp's consumer drops a fetch that spans a seek (``_getmany``)."""
    consumer = faust.transport.consumer.Consumer
    assert list(inspect.signature(driver.Consumer._getmany).parameters) == [
        "self", "active_partitions", "timeout"]  # fmt: skip
    assert "self._getmany(" in inspect.getsource(consumer._wait_next_records)
    drain = inspect.getsource(consumer._drain_messages)
    assert "get_read_offset = self._read_offset.__getitem__" in drain
    assert "offset >= r_offset" in drain
    app = faust.App("seam", broker="kafka://host-a:9092")
    assert _seam.read_offsets(app.consumer) is app.consumer._read_offset


def test_a_call_into_the_thread_waits_on_its_promise_alone() -> None:
    """Why StaticThread races ``call_thread`` with the thread's end (issue 52): mode's awaits
    the promise the method queue answers, and the thread stops that queue before the consumer."""
    from mode.threads import MethodQueue, QueueServiceThread, ServiceThread

    call = inspect.getsource(QueueServiceThread.call_thread)
    assert "self.method_queue.call(" in call and "self.parent_loop.create_future()" in call
    assert "await promise" in call
    assert "if not promise.cancelled()" in inspect.getsource(MethodQueue._process_enqueued)
    assert "await thread.method_queue.call(" in inspect.getsource(_seam.queue_call)
    thread_stop = inspect.getsource(driver.AIOKafkaConsumerThread.on_thread_stop)
    assert thread_stop.index("super().on_thread_stop()") < thread_stop.index("consumer.stop()")
    assert "self.set_shutdown()" in inspect.getsource(ServiceThread._shutdown_thread)
    assert issubclass(StaticThread, QueueServiceThread)
    assert _seam.ConsumerStoppedError in driver.Consumer.consumer_stopped_errors
