"""Compressed batches decompressed into buffers the consumer keeps (issue 43,
``_records.DecompressionBuffers``): the same records as aiokafka's reader, a buffer reused from
reader to reader, never shared by two readers at once, and bounded in number and size.
``test_differential`` compares the records over generated message sets of every codec."""

from __future__ import annotations

from typing import Any

import pytest
from aiokafka.consumer.fetcher import READ_UNCOMMITTED, PartitionRecords
from aiokafka.record.memory_records import MemoryRecords
from aiokafka.structs import TopicPartition

from staticconsumer._compat.fetch import reader as seam

from ._batches import Batch, Record, message_set

pytestmark = pytest.mark.skipif(
    not seam.compiled_available(), reason="the extension is not built (pip install -e .)"
)
TP = TopicPartition("orders", 0)
GZIP, SNAPPY, LZ4, ZSTD = 1, 2, 3, 4


def _value(batch: int, i: int, size: int) -> bytes:
    return (b"%d-%d|" % (batch, i)).ljust(size, b"abcdefgh"[i % 8 : i % 8 + 1])


def _set(codec: int, batches: int = 2, records: int = 60, size: int = 1024) -> bytes:
    """``batches`` batches of ``records`` records each (1 KiB values that differ: a snappy batch
    this large is written in several xerial blocks of 32 KiB)."""
    return message_set([
        Batch(2, codec, tuple(Record(0, 1_700_000_000_000 + i, b"k%d" % i, _value(b, i, size))
                              for i in range(records)))
        for b in range(batches)
    ]).data  # fmt: skip


def _reader(data: bytes | memoryview, pool: Any, check_crcs: bool = True) -> Any:
    return seam.PartitionReader(TP, data, [], 0, None, None, check_crcs, False, pool)


def _fields(records: list[Any]) -> list[Any]:
    return [list(vars(r).items()) for r in records]


def _aiokafkas(data: bytes, check_crcs: bool = True) -> list[Any]:
    reader = PartitionRecords(TP, MemoryRecords(data), [], 0, None, None, check_crcs,
                              READ_UNCOMMITTED)  # fmt: skip
    return _fields(list(reader))


@pytest.mark.parametrize("codec", [SNAPPY, LZ4, ZSTD])
def test_one_buffer_serves_reader_after_reader(codec: int) -> None:
    pool = seam.DecompressionBuffers()
    for round_ in range(3):
        data = _set(codec, records=40 + round_ * 10)
        reader = _reader(data, pool)
        got, done = reader.take(None)
        assert done and _fields(got) == _aiokafkas(data)
        assert reader.released
        assert (pool.allocated, pool.free) == (1, 1)  # taken back: the next reader reuses it


def test_gzip_batches_stay_with_aiokafkas_decoder() -> None:
    """gzip is decoded by aiokafka's ``gzip_decode`` (Python's gzip module) into new bytes."""
    pool = seam.DecompressionBuffers()
    data = _set(GZIP)
    got, _ = _reader(data, pool).take(None)
    assert _fields(got) == _aiokafkas(data)
    assert (pool.allocated, pool.free) == (0, 0)


def test_readers_read_side_by_side_each_in_its_own_buffer() -> None:
    """Two readers interleaved record by record (getmany over several partitions): neither
    overwrites the batch the other is reading."""
    pool = seam.DecompressionBuffers()
    first, second = _set(ZSTD, records=30), _set(SNAPPY, records=50)
    readers = [_reader(first, pool), _reader(second, pool)]
    got: list[list[Any]] = [[], []]
    while not all(r.released for r in readers):
        for i, reader in enumerate(readers):
            taken, _ = reader.take(1)
            got[i] += taken
    assert _fields(got[0]) == _aiokafkas(first)
    assert _fields(got[1]) == _aiokafkas(second)
    assert (pool.allocated, pool.free) == (2, 2)


def test_records_do_not_change_when_the_buffer_is_written_again() -> None:
    """Keys and values are bytes of their own, not views of the buffer."""
    pool = seam.DecompressionBuffers(keep_free=1)
    first = _set(LZ4, records=10)
    got, _ = _reader(first, pool).take(None)
    expected = _fields(got)
    _reader(_set(LZ4, records=10, size=2000), pool).take(None)  # the same buffer, other bytes
    assert pool.allocated == 1
    assert _fields(got) == expected == _aiokafkas(first)


def test_the_free_buffers_kept_are_bounded_in_number_and_size() -> None:
    pool = seam.DecompressionBuffers(keep_free=1, max_kept_bytes=100_000)
    readers = [_reader(_set(ZSTD, records=20), pool) for _ in range(3)]
    for reader in readers:
        reader.take(1)  # each holds a buffer now
    for reader in readers:
        reader.take(None)
    assert (pool.allocated, pool.free) == (3, 1)
    big = _reader(_set(ZSTD, batches=2, records=200), pool)  # 200 KiB decompressed, then 200
    big.take(None)
    assert pool.free == 0  # grown past max_kept_bytes: dropped, not kept for the consumer's life
    pool = seam.DecompressionBuffers(keep_free=1, max_kept_bytes=100_000)
    grown = _reader(_set(ZSTD, batches=1, records=200) + _set(ZSTD, batches=1, records=5), pool)
    grown.take(None)  # a large batch, then a small one: the buffer still holds what it grew to
    assert pool.free == 0


def test_a_reader_dropped_unfinished_leaves_the_pool_working() -> None:
    """A result dropped unread (seek, pause, revocation) keeps its buffer; it is freed with it
    and the next reader gets another."""
    pool = seam.DecompressionBuffers()
    reader = _reader(_set(SNAPPY), pool)
    reader.take(1)
    del reader
    data = _set(SNAPPY)
    got, _ = _reader(data, pool).take(None)
    assert _fields(got) == _aiokafkas(data)
    assert (pool.allocated, pool.free) == (2, 1)


@pytest.mark.parametrize("codec", [SNAPPY, LZ4, ZSTD])
def test_a_corrupt_compressed_batch_fails_as_with_new_bytes(codec: int) -> None:
    """CRCs not checked, a byte of the compressed records changed: the reader over kept buffers
    fails, or reads, as the reader decompressing into new bytes does (the same decoder)."""
    data = bytearray(_set(codec, batches=1, records=20))
    for at in (61 + 12, 61 + 40, len(data) // 2, len(data) - 3):
        corrupt = bytearray(data)
        corrupt[at] ^= 0x5A
        outcomes = []
        for pool in (None, seam.DecompressionBuffers()):
            try:
                outcomes.append(_fields(_reader(bytes(corrupt), pool, False).take(None)[0]))
            except Exception as exc:
                outcomes.append(type(exc))
        assert outcomes[0] == outcomes[1], at


def test_a_snappy_block_claiming_more_than_it_can_hold_fails_without_allocating_it() -> None:
    """A changed length byte (CRCs not checked) makes a snappy block claim up to 4 GiB. aiokafka's
    decoder allocates the claim before it fails; the kept buffer is not grown to it: the same
    error class, at once."""
    import cramjam

    data = bytearray(_set(SNAPPY, batches=1, records=40))
    first_block = 61 + 16 + 4  # the batch header, the xerial header, the block's size
    data[first_block : first_block + 5] = b"\xff\xff\xff\xff\x0f"  # its varint: 4 GiB - 1
    pool = seam.DecompressionBuffers()
    with pytest.raises(cramjam.DecompressionError, match="claim"):
        _reader(bytes(data), pool, check_crcs=False).take(None)
    assert pool.free == 1  # the reader gave its buffers back, not grown
