"""The compiled reader's Python side (issue 37): the extension (``_records.pyx``, with the batch
CRC in ``_crc32c.h``; its types in ``_records.pyi``) if it was built, and how a ``FetchResult``
gets it.

:class:`PartitionReader` reads a partition's fetched records in place of aiokafka's Python
generator (``PartitionRecords``); :func:`install_reader` swaps it into a result aiokafka built
(the tap's way, :mod:`.tap`), :func:`compiled_result` builds the result around it (the kept
fetcher's way, :mod:`.kept`). Without the extension (a source tree without a compiler)
:data:`COMPILED` is False and nothing here but :func:`compiled_available` is used: the consumer
runs aiokafka's own reader (:mod:`.choose`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from aiokafka.consumer.fetcher import READ_COMMITTED, FetchResult, PartitionRecords

try:
    from ._records import DecompressionBuffers as DecompressionBuffers  # for .kept
    from ._records import PartitionReader as PartitionReader
    from ._records import Ready as Ready  # for .async_for

    COMPILED = True
except ImportError:  # not built (a source tree without a compiler): the pure path
    COMPILED = False


def compiled_available() -> bool:
    """Whether the Cython extension was built and imports."""
    return COMPILED


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
