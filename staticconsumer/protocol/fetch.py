"""Fetch (api key 1) v4-v11, the versions aiokafka 0.14's fetcher sends: the request we build, and
the response read in place.

Field names are Kafka's (``FetchRequest.json`` / ``FetchResponse.json``, snake_cased): v4 adds
``isolation_level`` and the transactional fields (KIP-98), v5 ``log_start_offset``, v7 fetch
sessions (KIP-227: ``session_id``, ``session_epoch``, ``forgotten_topics_data``), v9
``current_leader_epoch`` (KIP-320), v11 ``rack_id`` and ``preferred_read_replica`` (KIP-392).
v12 is the first flexible version (and v13 names topics by id); aiokafka does not send them.

:func:`read_fetch_response` reads a response body without copying its record sets: each
partition's ``records`` is a ``memoryview`` slice of the frame it was read from (a Fetch response
is megabytes, and its records are copied once more into the records' keys and values). The
frame must therefore not be written again while any of those views is alive: who owns the
frame says how (``staticconsumer._compat.fetch.kept``). :data:`SCHEMAS` are the same layouts on our
field types, for encoding and for the tests that hold the in-place reader to them.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._types import Int8, Int16, Int32, Int64, Schema
from staticconsumer.protocol._wire import PinnedRequest, Struct, Wire, define, since

FETCH_API_KEY = 1
#: The versions implemented here: aiokafka 0.14's (v4 is the first with record format v2's
#: transactions; Kafka 4 serves v4 and later, KIP-896).
FETCH_VERSIONS = range(4, 12)
#: ``replica_id`` of a consumer (a follower sends its broker id).
CONSUMER_REPLICA_ID = -1
#: ``session_id`` / ``session_epoch`` of a full fetch outside any fetch session (KIP-227's
#: ``INVALID_SESSION_ID`` and ``FINAL_EPOCH``): what aiokafka sends.
NO_SESSION_ID = 0
FINAL_EPOCH = -1


def fetch_layout(v: int) -> tuple[Schema, Schema]:
    """The request and response schemas of Fetch ``v`` (4-11)."""
    w = Wire(flexible=False)
    request = w.schema(
        ("replica_id", Int32),
        ("max_wait_ms", Int32),
        ("min_bytes", Int32),
        ("max_bytes", Int32),
        ("isolation_level", Int8),
        *since(v, 7, ("session_id", Int32), ("session_epoch", Int32)),
        (
            "topics",
            w.array(
                ("topic", w.string),
                (
                    "partitions",
                    w.array(
                        ("partition", Int32),
                        *since(v, 9, ("current_leader_epoch", Int32)),
                        ("fetch_offset", Int64),
                        *since(v, 5, ("log_start_offset", Int64)),
                        ("partition_max_bytes", Int32),
                    ),
                ),
            ),
        ),
        *since(
            v, 7,
            ("forgotten_topics_data", w.array(("topic", w.string),
                                              ("partitions", w.array_of(Int32)))),
        ),
        *since(v, 11, ("rack_id", w.string)),
    )  # fmt: skip
    partition = w.array(
        ("partition_index", Int32),
        ("error_code", Int16),
        ("high_watermark", Int64),
        ("last_stable_offset", Int64),
        *since(v, 5, ("log_start_offset", Int64)),
        ("aborted_transactions", w.array(("producer_id", Int64), ("first_offset", Int64))),
        *since(v, 11, ("preferred_read_replica", Int32)),
        ("records", w.bytes),
    )
    response = w.schema(
        ("throttle_time_ms", Int32),
        *since(v, 7, ("error_code", Int16), ("session_id", Int32)),
        ("responses", w.array(("topic", w.string), ("partitions", partition))),
    )
    return request, response


def _declare(v: int) -> tuple[type[Struct], type[Struct]]:
    request, response = fetch_layout(v)
    return define("Fetch", FETCH_API_KEY, v, flexible=False, request=request, response=response)


#: The request and response structs per version.
CLASSES: dict[int, tuple[type[Struct], type[Struct]]] = {v: _declare(v) for v in FETCH_VERSIONS}

# (partition, fetch offset, partition max bytes) per topic: aiokafka's FetchRequest.topics
FetchTopics = Sequence[tuple[str, Sequence[tuple[int, int, int]]]]


def build_fetch(
    version: int, *, max_wait_ms: int, min_bytes: int, max_bytes: int, isolation_level: int,
    topics: FetchTopics, rack_id: str = "",
) -> PinnedRequest:  # fmt: skip
    """A full Fetch outside any fetch session, as aiokafka 0.14's fetcher sends it: leader epoch
    and log start offset unknown (-1), nothing forgotten; ``rack_id`` only from v11."""
    if version not in FETCH_VERSIONS:
        raise ValueError(f"Fetch v{version} is not implemented (staticconsumer has v4-v11)")
    parts = [
        (topic, [(p, *((-1,) if version >= 9 else ()), offset,
                  *((-1,) if version >= 5 else ()), limit) for p, offset, limit in partitions])
        for topic, partitions in topics
    ]  # fmt: skip
    values: list[Any] = [CONSUMER_REPLICA_ID, max_wait_ms, min_bytes, max_bytes, isolation_level]
    if version >= 7:
        values += [NO_SESSION_ID, FINAL_EPOCH]
    values.append(parts)
    if version >= 7:
        values.append([])
    if version >= 11:
        values.append(rack_id)
    return PinnedRequest(CLASSES[version][0](*values))


@dataclass(frozen=True, slots=True)
class FetchedPartition:
    """One partition of a Fetch response. ``records`` is a view of the frame (None: null)."""

    topic: str
    partition: int
    error_code: int
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int  # -1 before v5
    aborted_transactions: list[tuple[int, int]] | None  # (producer id, first offset)
    preferred_read_replica: int  # -1 before v11
    records: memoryview | None


@dataclass(frozen=True, slots=True)
class FetchResponse:
    throttle_time_ms: int
    error_code: int  # 0 before v7
    session_id: int  # 0 before v7
    partitions: list[FetchedPartition]


_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_ABORTED = struct.Struct(">qq")
_HEAD_V4 = struct.Struct(">ihqq")  # partition, error, high watermark, last stable offset


class _Cursor:
    """Reads Kafka's classic types from a memoryview; a short read raises ``ValueError``."""

    __slots__ = ("pos", "view")

    def __init__(self, view: memoryview) -> None:
        self.view = view
        self.pos = 0

    def take(self, layout: struct.Struct) -> tuple[Any, ...]:
        end = self.pos + layout.size
        if end > len(self.view):
            raise ValueError(f"Fetch response: {layout.size} bytes needed at {self.pos}, "
                             f"{len(self.view) - self.pos} left")  # fmt: skip
        values = layout.unpack_from(self.view, self.pos)
        self.pos = end
        return values

    def int32(self) -> int:
        value: int = self.take(_I32)[0]
        return value

    def slice(self, size: int) -> memoryview:
        end = self.pos + size
        if size < 0 or end > len(self.view):
            raise ValueError(f"Fetch response: {size} bytes needed at {self.pos}, "
                             f"{len(self.view) - self.pos} left")  # fmt: skip
        out = self.view[self.pos : end]
        self.pos = end
        return out

    def string(self) -> str:
        size = self.take(_I16)[0]
        if size < 0:
            raise ValueError("Fetch response: a null topic name")
        return str(self.slice(size), "utf-8")


def read_fetch_response(body: memoryview, version: int) -> FetchResponse:
    """Read a Fetch response body (after its header) of ``version``; the record sets are slices
    of ``body``, not copies. Malformed bytes raise ``ValueError``."""
    if version not in FETCH_VERSIONS:
        raise ValueError(f"Fetch v{version} is not implemented (staticconsumer has v4-v11)")
    cur = _Cursor(body)
    throttle = cur.int32()
    error_code, session_id = (cur.take(_I16)[0], cur.int32()) if version >= 7 else (0, 0)
    partitions: list[FetchedPartition] = []
    for _ in range(max(cur.int32(), 0)):
        topic = cur.string()
        for _ in range(max(cur.int32(), 0)):
            partitions.append(_read_partition(cur, topic, version))
    if cur.pos != len(body):
        raise ValueError(f"Fetch response: {len(body) - cur.pos} bytes left after the response")
    return FetchResponse(throttle, error_code, session_id, partitions)


def _read_partition(cur: _Cursor, topic: str, version: int) -> FetchedPartition:
    partition, error_code, high_watermark, lso = cur.take(_HEAD_V4)
    log_start = cur.take(_I64)[0] if version >= 5 else -1
    count = cur.int32()
    aborted = None if count < 0 else [cur.take(_ABORTED) for _ in range(count)]
    replica = cur.int32() if version >= 11 else -1
    size = cur.int32()
    records = None if size < 0 else cur.slice(size)
    return FetchedPartition(topic, partition, error_code, high_watermark, lso, log_start,
                            aborted, replica, records)  # fmt: skip
