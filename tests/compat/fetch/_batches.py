"""Message sets as a broker serves them, built with aiokafka's own batch builders, and the
Hypothesis strategy that draws them: record batches of format v2 (every codec, transactional
batches, commit and abort markers, log-append time, offset gaps as compaction leaves them) and
the legacy formats v0 and v1."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from aiokafka.record.default_records import DefaultRecordBatchBuilder
from aiokafka.record.legacy_records import LegacyRecordBatchBuilder
from aiokafka.record.util import calc_crc32c
from hypothesis import strategies as st

#: Codec ids (the attributes' low bits): none, gzip, snappy, lz4, zstd.
CODECS = (0, 1, 2, 3, 4)
TIMESTAMP_TYPE_BIT = 0x08
CONTROL_BIT = 0x20
ABORT, COMMIT = 0, 1


@dataclass(frozen=True)
class Record:
    offset_gap: int  # offsets skipped before this record (compaction)
    timestamp: int | None
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


@dataclass(frozen=True)
class Batch:
    magic: int
    codec: int
    records: tuple[Record, ...]
    producer_id: int = -1
    transactional: bool = False
    control: int | None = None  # ABORT or COMMIT: a control batch with that marker
    log_append_time: bool = False


@dataclass
class MessageSet:
    data: bytes
    batches: list[Batch] = field(default_factory=list)
    #: (producer id, first offset) of every transactional batch, in offset order
    transactions: list[tuple[int, int]] = field(default_factory=list)
    end_offset: int = 0


def _set_attributes(raw: bytearray, bits: int) -> None:
    """Set attribute bits of a built v2 batch and put its CRC right again."""
    (attributes,) = struct.unpack_from(">h", raw, 21)
    struct.pack_into(">h", raw, 21, attributes | bits)
    struct.pack_into(">I", raw, 17, calc_crc32c(bytes(raw[21:])))


def build_v2(batch: Batch, base_offset: int) -> tuple[bytes, int]:
    builder = DefaultRecordBatchBuilder(
        2, batch.codec, int(batch.transactional), batch.producer_id, 0, 0, 1 << 24
    )
    delta = 0
    if batch.control is not None:
        key = struct.pack(">HH", 0, batch.control)
        builder.append(0, 1_700_000_000_000, key, struct.pack(">hi", 0, 0), [])
    for record in batch.records if batch.control is None else ():
        delta += record.offset_gap
        builder.append(delta, record.timestamp, record.key, record.value, list(record.headers))
        delta += 1
    raw = builder.build()
    struct.pack_into(">q", raw, 0, base_offset)
    bits = (CONTROL_BIT if batch.control is not None else 0) | (
        TIMESTAMP_TYPE_BIT if batch.log_append_time else 0
    )
    if bits:
        _set_attributes(raw, bits)
    (last_delta,) = struct.unpack_from(">i", raw, 23)
    return bytes(raw), base_offset + last_delta + 1


def build_legacy(batch: Batch, base_offset: int) -> tuple[bytes, int]:
    builder = LegacyRecordBatchBuilder(batch.magic, batch.codec, 1 << 24)
    offset = base_offset
    for record in batch.records:
        offset += record.offset_gap
        relative = batch.codec and batch.magic == 1  # v1's inner offsets count from 0
        builder.append(
            offset - base_offset if relative else offset,
            record.timestamp if batch.magic else None,
            record.key,
            record.value,
        )
        offset += 1
    raw = builder.build()
    if batch.codec:  # the wrapper message carries the last inner offset
        struct.pack_into(">q", raw, 0, offset - 1)
    return bytes(raw), offset


def message_set(batches: list[Batch], first_offset: int = 0) -> MessageSet:
    out = MessageSet(b"", batches, [], first_offset)
    parts = []
    for batch in batches:
        build = build_v2 if batch.magic == 2 else build_legacy
        raw, next_offset = build(batch, out.end_offset)
        if batch.transactional and batch.control is None:
            out.transactions.append((batch.producer_id, out.end_offset))
        parts.append(raw)
        out.end_offset = next_offset
    out.data = b"".join(parts)
    return out


_bytes = st.one_of(st.none(), st.binary(max_size=40))
_headers = st.lists(
    st.tuples(st.text(max_size=8), st.one_of(st.none(), st.binary(max_size=12))), max_size=3
).map(tuple)
# Fixed timestamps: a None one is the builder's clock, which would make examples irreproducible.
_timestamp = st.integers(0, 2**41)


def records(legacy: bool) -> st.SearchStrategy[tuple[Record, ...]]:
    return st.lists(
        st.builds(Record, st.sampled_from([0, 0, 0, 1, 3]), _timestamp, _bytes, _bytes,
                  st.just(()) if legacy else _headers),
        min_size=1, max_size=12,
    ).map(tuple)  # fmt: skip


@st.composite
def batches(draw: st.DrawFn, magic: int) -> Batch:
    if magic < 2:
        codecs = [0, 0, 1, 2, 3] if magic == 1 else [0, 0, 1, 2]  # lz4 came with v1
        return Batch(magic, draw(st.sampled_from(codecs)), draw(records(True)))
    producer_id = draw(st.sampled_from([-1, 7, 8]))
    transactional = producer_id >= 0 and draw(st.booleans())
    control = draw(st.sampled_from([ABORT, COMMIT])) if transactional and draw(
        st.integers(0, 3)) == 0 else None  # fmt: skip
    # A broker writes its transaction markers uncompressed (aiokafka reads a compressed one's
    # marker without decompressing it: a CorruptRecordException; ours decompresses).
    codec = 0 if control is not None else draw(st.sampled_from(CODECS))
    return Batch(2, codec, draw(records(False)), producer_id, transactional, control,
                 draw(st.booleans()))  # fmt: skip


#: One format per message set: aiokafka's compiled MemoryRecords reads every batch of a fetch
#: in the first batch's format (a set mixing v1 and v2 fails there; test_mixed_formats).
message_sets = (
    st.sampled_from([2, 2, 2, 1, 0])
    .flatmap(lambda magic: st.lists(batches(magic), min_size=1, max_size=5))
    .map(message_set)
)
#: Format v2 only (the corrupt-batch test).
v2_message_sets = st.lists(batches(2), min_size=1, max_size=5).map(message_set)
