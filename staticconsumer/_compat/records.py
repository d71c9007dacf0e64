"""The record path: how a partition's fetched records become the ``ConsumerRecord`` objects
``getone``, ``getmany`` and ``async for`` hand out (issue 37).

aiokafka's ``Fetcher`` keeps fetching; only the per-record work changes. Two paths:

* ``compiled``: :class:`FetchSeam`, aiokafka's ``Fetcher`` whose buffered ``FetchResult`` objects
  read their records with :class:`._records.PartitionReader` (Cython, built by ``pip install``)
  instead of aiokafka's Python generator (``PartitionRecords``). The reader needs the fetched
  bytes, which aiokafka wraps in an opaque ``MemoryRecords``: :class:`_FetchTap` (the fetcher's
  client) keeps each Fetch response's message sets for the few lines between the response and the
  ``FetchResult`` aiokafka builds from it, and :class:`_ResultBuffer` (the fetcher's ``_records``)
  swaps the reader in as aiokafka stores the result. A result the tap has no bytes for keeps
  aiokafka's own reader. With aiokafka 0.14 its fetches are :class:`.fetch.KeptFetcher`'s:
  Fetch responses read into buffers the consumer keeps, on our own wire (issue 43; the
  default, :data:`KEPT_FETCH_ENV` switches back to aiokafka's fetcher and connection).
* ``pure``: aiokafka's ``Fetcher`` as it is. It runs when the extension is not built, or when
  ``STATICCONSUMER_PURE_RECORDS=1``.

The consumer logs which one it runs at start; :func:`record_path` says it. Nothing is patched:
both are attributes of one fetcher instance. ``tests/compat/records`` proves, by difference over
generated batches, that both hand out the same records, positions and errors.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import time
import weakref
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Literal

from aiokafka.consumer.fetcher import READ_COMMITTED, Fetcher, FetchResult, PartitionRecords
from aiokafka.structs import TopicPartition
from typing_extensions import override

from .features import AIOKAFKA_VERSION, KEPT_FETCH_AVAILABLE

try:
    from ._records import DecompressionBuffers as DecompressionBuffers  # for .fetch
    from ._records import PartitionReader
    from ._records import Ready as CompiledReady

    COMPILED = True
except ImportError:  # not built (a source tree without a compiler): the pure path
    COMPILED = False

log = logging.getLogger(__name__)
#: Set to 1 (or true/yes/on) to run aiokafka's own record path though the extension is built.
PURE_RECORDS_ENV = "STATICCONSUMER_PURE_RECORDS"
RecordPath = Literal["compiled", "pure"]
#: The Fetch API's key (Kafka's ApiKeys.FETCH).
FETCH_API_KEY = 1
#: Fetch responses are read into buffers the consumer keeps, on our own wire (issue 43:
#: ``.fetch``), on the compiled path with aiokafka 0.14. Set to 0 (or false/no/off) to fetch with
#: aiokafka's own fetcher and connection instead (the compiled reader over its responses).
KEPT_FETCH_ENV = "STATICCONSUMER_KEPT_FETCH"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def compiled_available() -> bool:
    """Whether the Cython extension was built and imports."""
    return COMPILED


def record_path() -> RecordPath:
    """The record path a consumer started now runs: ``compiled`` unless the extension is not
    built or :data:`PURE_RECORDS_ENV` asks for ``pure``."""
    forced = os.environ.get(PURE_RECORDS_ENV, "").strip().lower() in _TRUE
    return "compiled" if compiled_available() and not forced else "pure"


def _kept_fetch_switched_off() -> bool:
    return os.environ.get(KEPT_FETCH_ENV, "").strip().lower() in _FALSE


def kept_fetch() -> bool:
    """Whether a consumer started now reads Fetch responses into kept buffers: on the compiled
    path, with aiokafka 0.14 (``features``), unless :data:`KEPT_FETCH_ENV` switches it off."""
    return not _kept_fetch_switched_off() and record_path() == "compiled" and KEPT_FETCH_AVAILABLE


def make_fetcher(client: Any, subscription: Any, **settings: Any) -> Any:
    """aiokafka's ``Fetcher`` on the :func:`record_path` in force (logged once per start)."""
    path = record_path()
    why = "" if path == "compiled" else (
        f" ({PURE_RECORDS_ENV} is set)" if compiled_available() else " (extension not built)"
    )  # fmt: skip
    if path == "pure":
        log.info("record path: %s%s", path, why)
        return Fetcher(client, subscription, **settings)
    if kept_fetch():
        from .fetch import KeptFetcher  # imports this module

        log.info("record path: compiled, Fetch responses read into kept buffers")
        return KeptFetcher(client, subscription, **settings)
    if _kept_fetch_switched_off():
        why = f" (aiokafka's fetcher: {KEPT_FETCH_ENV} switches kept buffers off)"
    else:
        why = (" (aiokafka's fetcher: kept buffers need aiokafka 0.14, whose fetcher they mirror "
               "and whose connections keep the broker's ApiVersions; aiokafka "
               f"{AIOKAFKA_VERSION} is installed)")  # fmt: skip
    log.info("record path: %s%s", path, why)
    return FetchSeam(client, subscription, **settings)


class _FetchTap:
    """The fetcher's client: every call goes to aiokafka's client; a Fetch response's message
    sets are kept, per partition, until the fetcher has stored its results."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.message_sets: dict[TopicPartition, bytes] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        response = await self._client.send(node_id, request, **kwargs)
        if request.API_KEY == FETCH_API_KEY:
            # No await from here to the fetcher's loop over this response (aiokafka 0.14's
            # _proc_fetch_request): what is kept is this response's, read at once.
            self.message_sets.clear()
            for topic, partitions in response.topics:
                for partition, error_code, _highwater, *data in partitions:
                    if error_code == 0 and type(data[-1]) is bytes:
                        self.message_sets[TopicPartition(topic, partition)] = data[-1]
        return response


class _ResultBuffer(collections.OrderedDict):  # type: ignore[type-arg]
    """The fetcher's ``_records``: a ``FetchResult`` stored gets the compiled reader."""

    def __init__(self, tap: _FetchTap) -> None:
        super().__init__()
        self._tap = tap

    def __setitem__(self, tp: Any, result: Any) -> None:
        if type(result) is FetchResult:
            message_set = self._tap.message_sets.pop(tp, None)
            if message_set is not None:
                install_reader(result, tp, message_set)
        super().__setitem__(tp, result)


def install_reader(
    result: Any, tp: Any, message_set: bytes | memoryview, decompression: Any = None
) -> bool:
    """Give ``result`` (a ``FetchResult`` not read yet) the compiled reader of ``message_set``,
    the bytes its aiokafka ``PartitionRecords`` was made from (or a view of them in the frame
    they were fetched in: the reader lets go of it once done); False (the reader stays) when
    it has no aiokafka reader or they are not the same size. ``decompression``: the
    ``DecompressionBuffers`` its compressed batches go into (None: new ``bytes``)."""
    records = result._partition_records
    if type(records) is not PartitionRecords:
        return False
    if len(message_set) != records._records.size_in_bytes():
        return False
    result._partition_records = PartitionReader(
        tp, message_set, records._aborted_transactions, records.next_fetch_offset,
        records._key_deserializer, records._value_deserializer, records._check_crcs,
        records._isolation_level == READ_COMMITTED, decompression,
    )  # fmt: skip
    result.getall = _getall_of(weakref.ref(result))
    return True


def compiled_result(
    fetcher: Any, tp: Any, assignment: Any, message_set: bytes | memoryview,
    aborted_transactions: Any, fetch_offset: int, decompression: Any = None,
) -> Any:  # fmt: skip
    """A ``FetchResult`` of ``fetcher``'s whose records the compiled reader reads from
    ``message_set``, as aiokafka's fetcher makes one from a partition's fetched data;
    compressed batches decompressed into ``decompression``'s buffers (None: new ``bytes``)."""
    reader = PartitionReader(
        tp, message_set, aborted_transactions, fetch_offset, fetcher._key_deserializer,
        fetcher._value_deserializer, fetcher._check_crcs,
        fetcher._isolation_level == READ_COMMITTED, decompression,
    )  # fmt: skip
    result = FetchResult(tp, assignment=assignment, partition_records=reader,
                         backoff=fetcher._prefetch_backoff)  # fmt: skip
    result.getall = _getall_of(weakref.ref(result))
    return result


def _getall_of(ref: weakref.ref[Any]) -> Callable[[int | None], list[Any]]:
    """``FetchResult.getall`` taking the reader's records in one compiled call (set on the
    instance; aiokafka's fetcher checks ``type(result) is FetchResult``). A weak reference:
    the result owns this function, which must not keep it alive."""

    def getall(max_records: int | None = None) -> list[Any]:
        result = ref()
        if result is None or not result.check_assignment(result._topic_partition):
            return []
        if not result.has_more():
            return []
        records, done = result._partition_records.take(max_records)
        result._update_position()
        if done:
            result._partition_records = None
        return records  # type: ignore[no-any-return]

    return getall


class FetchSeam(Fetcher):  # type: ignore[misc]  # aiokafka is untyped
    """aiokafka's ``Fetcher`` on the compiled record path (see the module docstring)."""

    def __init__(self, client: Any, subscriptions: Any, **settings: Any) -> None:
        super().__init__(client, subscriptions, **settings)
        self._tap = _FetchTap(client)
        self._client = self._tap
        self._records = _ResultBuffer(self._tap)

    @override
    async def _proc_fetch_request(self, assignment: Any, node_id: int, request: Any) -> bool:
        try:
            return bool(await super()._proc_fetch_request(assignment, node_id, request))
        except asyncio.CancelledError:  # in aiokafka's retry backoff: see backoff()
            return False
        finally:
            self._tap.message_sets.clear()  # a response's sets are read or dropped by now


async def backoff(seconds: float) -> bool:
    """A failed fetch's wait before the next (``retry_backoff_ms``); False. A fetch is cancelled
    only by the fetcher's close or a lost assignment, and its result is then of no interest:
    aiokafka's fetcher returns False when cancelled while it sends, but not while it backs off,
    and its close awaits the fetch, so ``stop()`` raised the cancellation (a broker down: most
    of the time goes to backing off)."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        pass
    return False


def fetcher_path(fetcher: Any) -> RecordPath:
    """The path ``fetcher`` (a started consumer's) runs."""
    return "compiled" if isinstance(fetcher, FetchSeam) else "pure"


def kept_buffers_of(consumer: Any) -> Any:
    """The ``FrameBuffers`` a started consumer reads Fetch responses into; None when it runs
    aiokafka's connection (or has not started)."""
    return getattr(consumer._fetcher, "buffers", None)


def record_path_of(consumer: Any) -> RecordPath | None:
    """The path ``consumer`` runs; None before it started (it has no fetcher yet)."""
    fetcher = consumer._fetcher
    return None if fetcher is None else fetcher_path(fetcher)


# -- async for: a record already buffered, without a coroutine -----------------------------------


def buffered_record(consumer: Any) -> Any:
    """The record ``consumer.getone()`` would return without waiting, taken exactly as it takes
    it (aiokafka 0.14's ``getone`` and ``Fetcher.next_record``); None when it would wait, stop
    or raise a fetch error, where the caller awaits ``getone`` instead. The coordinator's
    pending error is raised here, as ``getone`` raises it."""
    fetcher = consumer._fetcher
    if consumer._closed or fetcher is None or fetcher._closed:
        return None
    consumer._coordinator.check_errors()
    subscription = consumer._subscription
    if subscription.reassignment_in_progress:
        return None
    buffered = fetcher._records
    for tp in list(buffered):
        result = buffered[tp]
        if type(result) is not FetchResult:
            return None  # an error to raise: getone's
        record = result.getone()
        if record is not None:
            if subscription._fetch_count == 0:  # getone's fetch_context, as it ends
                subscription._last_fetch_ended = time.monotonic()
            return record
        del buffered[tp]
        fetcher._notify(fetcher._wait_consume_future)
    return None


class Ready:
    """An awaitable that is already done: ``await Ready(x)`` is ``x`` and never suspends."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        return self.value
        yield  # a generator function: the return above is its result


def next_record(consumer: Any, wait: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
    """``async for``'s next record: a buffered one at once, else ``wait()`` (the coroutine)."""
    record = buffered_record(consumer)
    if record is None:
        return wait()
    return (CompiledReady if COMPILED else Ready)(record)
