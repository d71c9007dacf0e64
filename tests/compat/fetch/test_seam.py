"""The seam around the compiled reader, without a broker: which path runs (and says so), the
fetcher's tap and result buffer fed a real Fetch response (the same records and positions as
aiokafka's own fetcher fed the same bytes), and ``async for``'s buffered record."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any

import pytest
from aiokafka.consumer.fetcher import Fetcher, FetchError, FetchResult
from aiokafka.consumer.subscription_state import SubscriptionState
from aiokafka.errors import RecordTooLargeError
from aiokafka.protocol.fetch import FetchRequest_v4, FetchResponse_v4
from aiokafka.structs import TopicPartition

from staticconsumer._compat import features
from staticconsumer._compat import fetch as seam
from staticconsumer._compat.fetch import choose

from ._batches import Batch, Record, message_set

TP = TopicPartition("orders", 0)
OTHER = TopicPartition("orders", 1)
compiled_only = pytest.mark.skipif(not seam.compiled_available(), reason="extension not built")


class _Client:
    """What aiokafka's Fetcher reads of its client, answering every send with ``answer``."""

    def __init__(self, answer: Any) -> None:
        self._loop = asyncio.get_running_loop()
        self._metadata_max_age_ms = 300_000
        self.api_version = (2, 8, 0)  # aiokafka 0.12's Fetcher picks its Fetch version by it
        self.answer = answer
        self.sent: list[Any] = []

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        self.sent.append(request)
        return self.answer

    def force_metadata_update(self) -> None:
        pass


def _response(sets: dict[TopicPartition, bytes], aborted: list[Any] | None = None) -> Any:
    partitions = [(tp.partition, 0, 100, 100, aborted or [], data) for tp, data in sets.items()]
    return FetchResponse_v4(0, [(TP.topic, partitions)])


def _request(offsets: dict[TopicPartition, int]) -> Any:
    partitions = [(tp.partition, offset, 1 << 20) for tp, offset in offsets.items()]
    # the v4 struct (0.12 has no builder): replica id, max wait, min bytes, max bytes, isolation
    return FetchRequest_v4(-1, 500, 1, 1 << 20, 0, [(TP.topic, partitions)])


@pytest.fixture
async def fetchers() -> AsyncIterator[Callable[..., Any]]:
    made: list[Any] = []

    async def make(kind: type[Any], answer: Any, offsets: dict[TopicPartition, int]) -> Any:
        subscription = SubscriptionState()
        subscription.assign_from_user(set(offsets))
        assignment = subscription.subscription.assignment
        for tp, offset in offsets.items():
            assignment.state_value(tp).seek(offset)
        fetcher = kind(_Client(answer), subscription)
        fetcher._fetch_task.cancel()  # the test sends the one fetch itself
        made.append(fetcher)
        await fetcher._proc_fetch_request(assignment, 0, _request(offsets))
        return fetcher, assignment

    yield make
    for fetcher in made:
        await fetcher.close()


def _values(drained: dict[Any, list[Any]]) -> dict[Any, list[Any]]:
    return {tp: [vars(r) for r in records] for tp, records in drained.items()}


@pytest.mark.skipif(
    os.environ.get("STATICCONSUMER_REQUIRE_COMPILED") != "1",
    reason="STATICCONSUMER_REQUIRE_COMPILED=1 (set by .ci/run) asks for the extension",
)
def test_the_extension_is_built_where_ci_requires_it() -> None:
    """CI builds every venv with a C compiler: an extension that failed to build (it is
    optional, so pip says nothing) would turn every compiled-path test into a skip."""
    assert seam.compiled_available(), "the compiled record path was not built (a C compiler?)"


def test_the_environment_variable_forces_the_pure_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seam.PURE_RECORDS_ENV, raising=False)
    assert seam.record_path() == ("compiled" if seam.compiled_available() else "pure")
    for value in ("1", "true", " YES "):
        monkeypatch.setenv(seam.PURE_RECORDS_ENV, value)
        assert seam.record_path() == "pure"
    monkeypatch.setenv(seam.PURE_RECORDS_ENV, "0")
    assert seam.record_path() == ("compiled" if seam.compiled_available() else "pure")


async def test_make_fetcher_logs_the_path_it_runs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=seam.__name__)
    monkeypatch.delenv(seam.KEPT_FETCH_ENV, raising=False)
    monkeypatch.setenv(seam.PURE_RECORDS_ENV, "1")
    pure = seam.make_fetcher(_Client(None), SubscriptionState())
    monkeypatch.delenv(seam.PURE_RECORDS_ENV)
    default = seam.make_fetcher(_Client(None), SubscriptionState())
    try:
        assert type(pure) is Fetcher
        assert seam.fetcher_path(pure) == "pure"
        assert seam.fetcher_path(default) == seam.record_path()
        messages = [r.getMessage() for r in caplog.records]
        built = "" if seam.compiled_available() else " (extension not built)"
        assert messages[0] == "record path: pure" + (
            f" ({seam.PURE_RECORDS_ENV} is set)" if seam.compiled_available() else built
        )
        if not seam.compiled_available():
            assert messages[1] == f"record path: pure{built}"
        elif features.KEPT_FETCH_AVAILABLE:  # the default on aiokafka 0.14 (issue 43)
            assert seam.kept_fetch()
            assert type(default).__name__ == "KeptFetcher"
            assert messages[1] == "record path: compiled, Fetch responses read into kept buffers"
        else:
            assert type(default) is seam.FetchSeam
            assert messages[1].startswith("record path: compiled (aiokafka's fetcher: kept buf")
    finally:
        await pure.close()
        await default.close()


async def _the_fetcher_and_its_start_line(caplog: pytest.LogCaptureFixture) -> tuple[type, str]:
    """The class of the fetcher a consumer started now gets (closed again) and its start line."""
    fetcher = seam.make_fetcher(_Client(None), SubscriptionState())
    await fetcher.close()
    [message] = [r.getMessage() for r in caplog.records]
    return type(fetcher), message


@compiled_only
@pytest.mark.parametrize("value", ["0", "false", " Off ", "no"])
async def test_the_environment_variable_switches_back_to_aiokafkas_fetcher(
    value: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """STATICCONSUMER_KEPT_FETCH=0: the compiled reader over aiokafka's own fetcher and
    connection, on every aiokafka release; the start line says so."""
    caplog.set_level(logging.INFO, logger=seam.__name__)
    monkeypatch.delenv(seam.PURE_RECORDS_ENV, raising=False)
    monkeypatch.setenv(seam.KEPT_FETCH_ENV, value)
    assert not seam.kept_fetch()
    assert await _the_fetcher_and_its_start_line(caplog) == (
        seam.FetchSeam,
        f"record path: compiled (aiokafka's fetcher: {seam.KEPT_FETCH_ENV} switches kept "
        "buffers off)",
    )


@compiled_only
async def test_kept_buffers_on_an_aiokafka_without_connection_versions_say_why_not(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The kept path (the default) mirrors aiokafka 0.14's fetcher and reads its connections'
    ApiVersions: with 0.12 or 0.13 the compiled path runs on aiokafka's fetcher, by default and
    with STATICCONSUMER_KEPT_FETCH=1, and the start line says why."""
    caplog.set_level(logging.INFO, logger=seam.__name__)
    monkeypatch.delenv(seam.PURE_RECORDS_ENV, raising=False)
    for value in (None, "1"):
        if value is None:
            monkeypatch.delenv(seam.KEPT_FETCH_ENV, raising=False)
        else:
            monkeypatch.setenv(seam.KEPT_FETCH_ENV, value)
        assert seam.kept_fetch() is features.KEPT_FETCH_AVAILABLE
    release = features.release(features.AIOKAFKA_VERSION)
    assert release is not None
    assert features.KEPT_FETCH_AVAILABLE is (release >= (0, 14))
    monkeypatch.setattr(choose, "KEPT_FETCH_AVAILABLE", False)
    assert not seam.kept_fetch()
    assert await _the_fetcher_and_its_start_line(caplog) == (
        seam.FetchSeam,
        "record path: compiled (aiokafka's fetcher: kept buffers need aiokafka 0.14, whose "
        "fetcher they mirror and whose connections keep the broker's ApiVersions; "
        f"aiokafka {features.AIOKAFKA_VERSION} is installed)",
    )


@compiled_only
async def test_a_fetch_response_reads_the_same_on_both_fetchers(fetchers: Any) -> None:
    sets = {
        TP: message_set([Batch(2, 1, tuple(Record(0, i, b"k", b"%d" % i) for i in range(7)))]).data,
        OTHER: message_set([Batch(2, 0, (Record(0, 1, None, b"x", (("h", None),)),))]).data,
    }
    offsets = {TP: 2, OTHER: 0}
    drained = []
    for kind in (Fetcher, seam.FetchSeam):
        fetcher, assignment = await fetchers(kind, _response(sets), offsets)
        readers = {type(r._partition_records).__name__ for r in fetcher._records.values()}
        first = await fetcher.fetched_records((), 0, max_records=3)
        rest = await fetcher.fetched_records((), 0)
        one = await fetcher.fetched_records((), 0)
        positions = {tp: assignment.state_value(tp).position for tp in offsets}
        drained.append((_values(first), _values(rest), one, positions))
        assert readers == ({"PartitionRecords"} if kind is Fetcher else {"PartitionReader"})
        assert not fetcher._tap.message_sets if kind is seam.FetchSeam else True
    assert drained[0] == drained[1]
    assert [r["offset"] for r in drained[1][0][TP]] == [2, 3, 4]
    assert drained[1][3] == {TP: 7, OTHER: 1}


@compiled_only
async def test_a_result_the_tap_has_no_bytes_for_keeps_aiokafkas_reader(fetchers: Any) -> None:
    data = message_set([Batch(2, 0, (Record(0, 1, None, b"x"),))]).data
    fetcher, _ = await fetchers(seam.FetchSeam, _response({TP: data}), {TP: 0})
    result = fetcher._records[TP]
    assert type(result._partition_records).__name__ == "PartitionReader"
    del fetcher._records[TP]
    fetcher._records[TP] = result  # stored again, with no response in between: left as it is
    other = FetchResult(OTHER, assignment=result._assignment, partition_records=None, backoff=0)
    fetcher._records[OTHER] = other
    assert other._partition_records is None and "getall" not in vars(other)
    assert not seam.install_reader(result, TP, data)  # it has the compiled reader already
    fresh = await fetchers(Fetcher, _response({TP: data}), {TP: 0})
    assert not seam.install_reader(fresh[0]._records[TP], TP, data + b"\0")  # not its bytes


# -- async for ------------------------------------------------------------------------------


def _consumer(fetcher: Any, **overrides: Any) -> Any:
    checked: list[int] = []
    consumer = SimpleNamespace(
        _fetcher=fetcher, _closed=False, _subscription=fetcher._subscriptions,
        _coordinator=SimpleNamespace(check_errors=lambda: checked.append(1)), checked=checked,
    )  # fmt: skip
    vars(consumer).update(overrides)
    return consumer


@pytest.mark.parametrize("kind", ["pure", "compiled"])
async def test_buffered_records_come_without_waiting_then_the_coroutine_takes_over(
    fetchers: Any, kind: str
) -> None:
    if kind == "compiled" and not seam.compiled_available():
        pytest.skip("extension not built")
    data = message_set([Batch(2, 4, tuple(Record(0, i, None, b"%d" % i) for i in range(3)))]).data
    fetcher, assignment = await fetchers(
        Fetcher if kind == "pure" else seam.FetchSeam, _response({TP: data}), {TP: 0}
    )
    consumer = _consumer(fetcher)
    waited: list[int] = []

    async def wait() -> str:
        waited.append(1)
        return "waited"

    got = [await seam.next_record(consumer, wait) for _ in range(4)]
    assert [r.value for r in got[:3]] == [b"0", b"1", b"2"] and got[3] == "waited"
    assert waited == [1] and consumer.checked == [1] * 4
    assert assignment.state_value(TP).position == 3
    assert TP not in fetcher._records  # the drained result went, as getone drops it


async def test_no_buffered_record_when_getone_would_stop_wait_or_raise(fetchers: Any) -> None:
    data = message_set([Batch(2, 0, (Record(0, 1, None, b"x"),))]).data
    fetcher, _ = await fetchers(Fetcher, _response({TP: data}), {TP: 0})
    assert seam.buffered_record(_consumer(fetcher, _closed=True)) is None
    assert seam.buffered_record(_consumer(SimpleNamespace(_closed=False, _subscriptions=None),
                                          _fetcher=None)) is None  # fmt: skip
    rebalancing = SimpleNamespace(reassignment_in_progress=True)
    assert seam.buffered_record(_consumer(fetcher, _subscription=rebalancing)) is None
    fetcher._records.clear()
    fetcher._records[TP] = FetchError(error=RecordTooLargeError(), backoff=0)
    assert seam.buffered_record(_consumer(fetcher)) is None  # getone raises it
    assert TP in fetcher._records


async def test_the_coordinators_error_is_raised_by_the_buffered_path(fetchers: Any) -> None:
    data = message_set([Batch(2, 0, (Record(0, 1, None, b"x"),))]).data
    fetcher, _ = await fetchers(Fetcher, _response({TP: data}), {TP: 0})

    def check_errors() -> None:
        raise RuntimeError("pending for the application")

    consumer = _consumer(fetcher, _coordinator=SimpleNamespace(check_errors=check_errors))
    with pytest.raises(RuntimeError, match="pending"):
        seam.buffered_record(consumer)


async def test_ready_is_an_awaitable_that_never_suspends() -> None:
    assert await seam.Ready(5) == 5
    if seam.compiled_available():
        from staticconsumer._compat.fetch import _records

        assert await _records.Ready("x") == "x"
