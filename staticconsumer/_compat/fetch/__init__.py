"""The fetch path: how fetched records reach ``getone``, ``getmany`` and ``async for``
(issues 37 and 43), a room of its own inside the aiokafka seam.

One idea per module, each importing only those below it (no circle; ``tests/contract``)::

    choose      which fetcher a consumer runs (make_fetcher), and which it ran
    kept        KeptFetcher: Fetch responses on our wire, read into kept buffers (aiokafka 0.14)
    frames      its connection, taken over from aiokafka, and the buffers it reads into
    tap         FetchSeam: aiokafka's fetcher whose results read with the compiled reader
    async_for   async for's fast path: a buffered record without a coroutine
    reader      the compiled reader's Python side; the extension itself is _records.pyx
                (the batch CRC in _crc32c.h, its types in _records.pyi)

The rest of the seam uses :func:`make_fetcher` (``lifecycle``), :func:`next_record` and
:func:`record_path_of` (``StaticConsumer``); the other names are for the tests, the benchmarks
and ``scripts/aiokafka_suite.sh``.
"""

from .async_for import Ready, buffered_record, next_record
from .choose import (
    KEPT_FETCH_ENV,
    PURE_RECORDS_ENV,
    RecordPath,
    fetcher_path,
    kept_buffers_of,
    kept_fetch,
    make_fetcher,
    record_path,
    record_path_of,
)
from .reader import compiled_available, install_reader
from .tap import FetchSeam

__all__ = [
    "KEPT_FETCH_ENV",
    "PURE_RECORDS_ENV",
    "FetchSeam",
    "Ready",
    "RecordPath",
    "buffered_record",
    "compiled_available",
    "fetcher_path",
    "install_reader",
    "kept_buffers_of",
    "kept_fetch",
    "make_fetcher",
    "next_record",
    "record_path",
    "record_path_of",
]
