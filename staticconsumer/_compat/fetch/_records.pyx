# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled record path: one partition's fetched message set to the ``ConsumerRecord``
objects aiokafka's ``PartitionRecords`` hands out, with the same semantics, step for step.

:class:`PartitionReader` stands in for ``aiokafka.consumer.fetcher.PartitionRecords`` inside
aiokafka's ``FetchResult`` (``_compat.fetch.reader`` puts it there). It reads the v2 record batches
(KIP-98's format: every broker since 0.11 writes it) itself, from the fetch response's bytes:
varints, keys, values and headers straight into the record objects, one C loop per batch.
Legacy batches (magic 0 and 1) go through aiokafka's own ``LegacyRecordBatch``.

What aiokafka's generator does, this does in the same order, so ``next_fetch_offset`` (which
``FetchResult`` turns into the partition's position) moves exactly as it does there: a batch's
``next_offset`` is taken only when the record after its last one is asked for; a CRC error, a
deserializer's error or a corrupt record ends the reader with nothing more to hand out.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.object cimport PyObject, PyTypeObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t, uint32_t, uint64_t

import struct

from aiokafka import codec
from aiokafka.errors import CorruptRecordException, KafkaError, UnsupportedCodecError
from aiokafka.record.control_record import ABORT_MARKER, ControlRecord
from aiokafka.record.legacy_records import LegacyRecordBatch
from aiokafka.structs import ConsumerRecord

cdef extern from "_crc32c.h" nogil:
    void sc_crc32c_init()
    int sc_crc32c_hardware
    uint32_t sc_crc32c(const unsigned char* p, size_t n, int hardware)

sc_crc32c_init()


def crc32c(bytes data, int hardware=-1):
    """CRC-32C of ``data``, as a v2 batch's CRC field holds it. ``hardware``: 1 the CPU's
    instruction (when it has one), 0 the table, -1 whichever this machine runs (the tests
    compare both with aiokafka's ``calc_crc32c``)."""
    return sc_crc32c(<const unsigned char*>data, len(data), hardware)


def crc32c_implementation():
    """``"sse4.2"`` when batches are checked with the CPU's CRC32 instruction, else
    ``"software"``."""
    return "sse4.2" if sc_crc32c_hardware else "software"


cdef object _record_class = ConsumerRecord
#: The dataclass's own __init__: its attribute stores are specialized bytecode (each a cached
#: slot of the instance's shared keys), where a store from C looks every name up again.
cdef object _record_init = ConsumerRecord.__init__
cdef tuple _no_args = ()


cdef inline object _new_instance(object cls):
    """``object.__new__(cls)`` without the Python-level call (cls's own tp_new: object's)."""
    return (<PyTypeObject*>cls).tp_new(cls, <PyObject*>_no_args, NULL)

# The v2 batch header (DefaultRecordBatch in Kafka's clients): byte offsets of its fields.
DEF BASE_OFFSET = 0
DEF LENGTH = 8
DEF MAGIC = 16
DEF CRC = 17
DEF ATTRIBUTES = 21
DEF LAST_OFFSET_DELTA = 23
DEF FIRST_TIMESTAMP = 27
DEF MAX_TIMESTAMP = 35
DEF PRODUCER_ID = 43
DEF RECORD_COUNT = 57
DEF HEADER_SIZE = 61
DEF LOG_OVERHEAD = 12
# MemoryRecords refuses a batch shorter than this (the v0 record overhead after the log overhead).
DEF MIN_SLICE = 26
DEF CODEC_MASK = 0x07
DEF TIMESTAMP_TYPE_MASK = 0x08
DEF TRANSACTIONAL_MASK = 0x10
DEF CONTROL_MASK = 0x20
DEF LOG_APPEND_TIME = 1

cdef dict _CODECS = {
    1: ("gzip", codec.has_gzip, codec.gzip_decode),
    2: ("snappy", codec.has_snappy, codec.snappy_decode),
    3: ("lz4", codec.has_lz4, codec.lz4_decode),
    4: ("zstd", codec.has_zstd, codec.zstd_decode),
}


cdef inline int64_t _int64(const unsigned char* p) noexcept nogil:
    cdef uint64_t v = 0
    cdef int i
    for i in range(8):
        v = (v << 8) | p[i]
    return <int64_t>v


cdef inline int _int32(const unsigned char* p) noexcept nogil:
    return <int>((<unsigned int>p[0] << 24) | (<unsigned int>p[1] << 16)
                 | (<unsigned int>p[2] << 8) | <unsigned int>p[3])


cdef inline unsigned int _uint32(const unsigned char* p) noexcept nogil:
    return (<unsigned int>p[0] << 24) | (<unsigned int>p[1] << 16) | (<unsigned int>p[2] << 8) \
        | <unsigned int>p[3]


# -- decompression into kept buffers (issue 43) ---------------------------------------------------

try:
    import cramjam as _cramjam  # aiokafka's codec library (its snappy, lz4 and zstd decoders)
except ImportError:  # then aiokafka's codecs say a batch's codec is not available
    _cramjam = None

#: xerial's snappy stream header (aiokafka's codec._detect_xerial_stream): marker, "SNAPPY\0",
#: version 1, compatible version 1; Java's producer writes snappy batches in this framing.
cdef object _INT32 = struct.Struct("!i")
cdef bytes _XERIAL_HEADER = b"\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01"


#: A snappy block decodes to at most about 22 times its size (its densest copy op: 3 bytes for
#: 64); blocks that claim more are corrupt, and fail as decoding them would (cramjam's
#: DecompressionError) without the claimed size allocated first (aiokafka's decoder allocates
#: it: up to 4 GiB for one changed byte when CRCs are not checked).
DEF SNAPPY_MAX_EXPANSION = 32


cdef inline bint _reusable(int codec_id):
    """Whether ``codec_id``'s batches are decompressed into a kept buffer: snappy, lz4 and zstd
    (cramjam's). gzip is left to aiokafka's ``gzip_decode`` (Python's gzip module: its errors
    and its reading of concatenated members stay aiokafka's)."""
    return _cramjam is not None and 2 <= codec_id <= 4


cdef class _Scratch:
    """One reader's kept decompression buffers: a cramjam ``Buffer`` that zstd and lz4 stream
    into (their output's length is not known ahead; it grows, and keeps what it grew to), and a
    ``bytearray`` that snappy's blocks are decoded into in place (each says its length)."""

    cdef object stream
    cdef Py_ssize_t stream_peak  # the most written into stream: it keeps that much memory
    cdef bytearray blocks

    def __init__(self):
        self.stream = _cramjam.Buffer()
        self.stream_peak = 0
        self.blocks = bytearray()

    cdef Py_ssize_t size(self):
        return self.stream_peak + len(self.blocks)


cdef object _decompress_into(int codec_id, object payload, _Scratch scratch):
    """``payload`` decompressed into ``scratch`` with the decoder aiokafka's ``codec`` uses
    for it (the same output, the same errors); the buffer object holding the records."""
    if codec_id == 2:
        return _snappy_into(memoryview(payload), scratch)
    out = scratch.stream
    out.seek(0)
    out.truncate()
    if codec_id == 4:
        _cramjam.zstd.decompress_into(payload, out)
    else:
        _cramjam.lz4.decompress_into(payload, out)
    scratch.stream_peak = max(scratch.stream_peak, out.len())
    return out


cdef object _snappy_into(object view, _Scratch scratch):
    """aiokafka's ``snappy_decode`` into ``scratch.blocks``: xerial's blocks one after another
    (each a big-endian int32 size, then a raw snappy block), or one raw block; a view of the
    records decoded."""
    cdef list blocks = []
    cdef Py_ssize_t cursor = 0, end, length, total = 0, at = 0
    if len(view) <= 16 or view[:16] != _XERIAL_HEADER:
        blocks.append(view)
    else:
        view = view[16:]
        length = len(view)
        while cursor < length:
            (block_size,) = _INT32.unpack_from(view[cursor:])  # aiokafka's call, its error
            cursor += 4
            end = cursor + block_size
            blocks.append(view[cursor:end])  # past the end: the bytes there are (and fails)
            cursor = end
    sizes = [_cramjam.snappy.decompress_raw_len(block) for block in blocks]
    total = sum(sizes)
    if total > SNAPPY_MAX_EXPANSION * len(view) + 4096:
        raise _cramjam.DecompressionError(
            f"snappy: corrupt input (blocks of {len(view)} bytes claim {total} decoded)"
        )
    if len(scratch.blocks) < total:
        scratch.blocks = bytearray(total)  # no view of the old one is alive: the reader let go
    out = memoryview(scratch.blocks)
    for block, size in zip(blocks, sizes):
        _cramjam.snappy.decompress_raw_into(block, out[at : at + size])
        at += size
    return out[:total]


cdef class DecompressionBuffers:
    """The buffers one consumer decompresses compressed batches into, kept for its life (issue
    43): a partition reader takes one set (:class:`_Scratch`) at its first compressed batch,
    decompresses each batch into it, and gives it back once done; the next reader finds the
    memory already grown. At most ``keep_free`` free sets are kept; one that grew past
    ``max_kept_bytes`` (a batch far larger than the rest) is dropped when given back rather
    than held for the consumer's life."""

    cdef list _free
    cdef public Py_ssize_t keep_free, max_kept_bytes
    cdef public Py_ssize_t allocated  # sets made so far (a steady read makes a few, then none)

    def __init__(self, Py_ssize_t keep_free=8, Py_ssize_t max_kept_bytes=16 << 20):
        self._free = []
        self.keep_free = keep_free
        self.max_kept_bytes = max_kept_bytes
        self.allocated = 0

    cdef _Scratch take(self):
        if self._free:
            return self._free.pop()
        self.allocated += 1
        return _Scratch()

    cdef void give_back(self, _Scratch scratch):
        if len(self._free) < self.keep_free and scratch.size() <= self.max_kept_bytes:
            self._free.append(scratch)

    @property
    def free(self):
        """How many free sets are kept."""
        return len(self._free)


cdef class PartitionReader:
    """One partition's fetched records, handed out as aiokafka's ``PartitionRecords`` does:
    iterate it (``FetchResult.getone``), or :meth:`take` up to ``max_records`` at once."""

    cdef int64_t _next_fetch_offset
    cdef object _tp, _topic, _partition
    # The partition's message set as fetched: bytes, or a view of the Fetch response's frame
    # (_compat.fetch.kept), held (an export of it) until the reader is done, then released.
    cdef object _buffer
    cdef const unsigned char[::1] _view
    cdef const unsigned char* _base
    cdef Py_ssize_t _size
    cdef Py_ssize_t _pos        # where the next batch starts in _buffer
    cdef object _key_deserializer, _value_deserializer
    cdef bint _check_crcs, _read_committed, _done
    cdef list _aborted_transactions
    cdef set _aborted_producers
    # the batch being read (v2): its records area, and where the next record starts
    cdef bint _in_batch
    # the batch's decompressed records (None: read in place): new bytes, or the kept buffer
    # (DecompressionBuffers) it was decompressed into; and a view of them while the batch is
    # read (released before a kept buffer is written again)
    cdef object _data
    cdef const unsigned char[::1] _data_view
    cdef DecompressionBuffers _pool
    cdef _Scratch _scratch
    cdef const unsigned char* _p
    cdef Py_ssize_t _rpos, _rend
    cdef int _remaining
    cdef int64_t _base_offset, _first_timestamp, _max_timestamp
    cdef int64_t _batch_next_offset
    # the record just read (_read_record)
    cdef int64_t _r_offset, _last_timestamp
    cdef Py_ssize_t _last_value_size
    cdef object _value_size   # the int object of _last_value_size (records often share sizes)
    cdef object _r_timestamp, _r_timestamp_type, _r_key, _r_value, _r_headers, _r_checksum
    cdef int _timestamp_type
    cdef object _legacy        # the legacy batch's record iterator (aiokafka's), or None

    def __init__(self, tp, buffer, aborted_transactions, fetch_offset,
                 key_deserializer, value_deserializer, bint check_crcs, bint read_committed,
                 DecompressionBuffers decompression=None):
        """``buffer``: the message set, any contiguous bytes-like object (bytes, or a
        memoryview of the frame it was fetched in); only read, never kept past the reader's
        end: once done (every record handed out, or an error) the reader releases it.
        ``decompression``: the consumer's kept buffers that compressed batches are decompressed
        into (None: into new ``bytes``, as aiokafka does); the reader holds one from its first
        compressed batch and gives it back once done."""
        self._pool = decompression
        self._scratch = None
        self._tp = tp
        self._topic = tp.topic
        self._partition = tp.partition
        self._buffer = buffer
        self._view = buffer
        self._size = self._view.shape[0]
        self._base = &self._view[0] if self._size else NULL
        self._pos = 0
        self._aborted_transactions = sorted(aborted_transactions or [], key=lambda x: x[1])
        self._aborted_producers = set()
        self._key_deserializer = key_deserializer if key_deserializer else None
        self._value_deserializer = value_deserializer if value_deserializer else None
        self._check_crcs = check_crcs
        self._read_committed = read_committed
        self._next_fetch_offset = fetch_offset
        self._in_batch = False
        self._legacy = None
        self._done = False
        self._r_timestamp = None
        self._value_size = -1
        self._last_value_size = -1

    @property
    def next_fetch_offset(self):
        """The offset after the last record handed out or batch passed (aiokafka's name)."""
        return self._next_fetch_offset

    def __iter__(self):
        return self

    def __next__(self):
        record = self._next_or_none()
        if record is None:
            raise StopIteration
        return record

    def take(self, max_records):
        """Up to ``max_records`` records (every one left when None), and whether the reader
        is done: ``FetchResult.getall``'s loop. An error loses the records taken by this call,
        as it does there."""
        cdef list out = []
        cdef Py_ssize_t limit = -1 if max_records is None else max_records
        cdef object record
        while limit < 0 or len(out) < limit:
            record = self._next_or_none()
            if record is None:
                return out, True
            out.append(record)
        return out, False

    @property
    def released(self):
        """Whether the reader has let go of its buffer (it is done)."""
        return self._buffer is None

    cdef object _next_or_none(self):
        if self._done:
            return None
        try:
            record = self._advance()
        except BaseException:
            self._finish()  # a generator that raised is finished
            raise
        if record is None:
            self._finish()
        return record

    cdef void _finish(self):
        """Done: nothing more to hand out; let go of the buffer (a frame's owner may reuse it
        once no reader holds a view of it)."""
        self._done = True
        self._in_batch = False
        self._legacy = None
        self._drop_data()
        if self._scratch is not None:
            self._pool.give_back(self._scratch)
            self._scratch = None
        self._p = NULL
        self._base = NULL
        self._view = None
        self._buffer = None

    cdef object _advance(self):
        cdef object record
        while True:
            if self._in_batch:
                record = self._next_legacy() if self._legacy is not None else self._next_v2()
                if record is not None:
                    return record
                self._in_batch = False
                self._legacy = None
                self._drop_data()
                self._next_fetch_offset = self._batch_next_offset
            if not self._open_batch():
                return None

    # -- batches ----------------------------------------------------------------------------

    cdef bint _open_batch(self) except -1:
        """Find the next batch that hands out records (MemoryRecords and the generator's batch
        loop); False when the message set has no further whole batch."""
        cdef const unsigned char* buf
        cdef Py_ssize_t start, end, size = self._size
        cdef int length
        while True:
            start = self._pos
            if size - start < LOG_OVERHEAD:
                return False
            buf = self._base
            length = _int32(buf + start + LENGTH)
            end = start + LOG_OVERHEAD + length
            if end > size:
                return False
            self._pos = end
            if end - start < MIN_SLICE:
                raise CorruptRecordException(
                    "Record size is less than the minimum record overhead "
                    f"({MIN_SLICE - LOG_OVERHEAD})"
                )
            if buf[start + MAGIC] < 2:
                if self._open_legacy(start, end, buf[start + MAGIC]):
                    return True
            elif self._open_v2(start, end):
                return True

    cdef bint _open_v2(self, Py_ssize_t start, Py_ssize_t end) except -1:
        cdef const unsigned char* b = self._base + start
        cdef int attributes = (b[ATTRIBUTES] << 8) | b[ATTRIBUTES + 1]
        cdef int64_t base_offset = _int64(b + BASE_OFFSET)
        cdef int64_t next_offset = base_offset + _int32(b + LAST_OFFSET_DELTA) + 1
        cdef object producer_id
        if self._check_crcs:
            # in place, without a copy of the batch (aiokafka slices it out first)
            if sc_crc32c(b + ATTRIBUTES, end - start - ATTRIBUTES, -1) != _uint32(b + CRC):
                raise CorruptRecordException(f"Invalid CRC - {self._tp}")
        if self._read_committed:
            producer_id = _int64(b + PRODUCER_ID)
            self._consume_aborted_up_to(base_offset)
            if attributes & CONTROL_MASK and self._is_abort_marker(start, end, attributes):
                self._aborted_producers.discard(producer_id)
            if attributes & TRANSACTIONAL_MASK and producer_id in self._aborted_producers:
                self._next_fetch_offset = next_offset
                return False
        if attributes & CONTROL_MASK:
            self._next_fetch_offset = next_offset
            return False
        self._enter_v2(start, end, attributes)
        self._batch_next_offset = next_offset
        return True

    cdef int _enter_v2(self, Py_ssize_t start, Py_ssize_t end, int attributes) except -1:
        cdef const unsigned char* b = self._base + start
        cdef int codec_id = attributes & CODEC_MASK
        self._base_offset = _int64(b + BASE_OFFSET)
        self._first_timestamp = _int64(b + FIRST_TIMESTAMP)
        self._max_timestamp = _int64(b + MAX_TIMESTAMP)
        self._timestamp_type = 1 if attributes & TIMESTAMP_TYPE_MASK else 0
        self._remaining = _int32(b + RECORD_COUNT)
        self._drop_data()
        if codec_id == 0:
            self._p = self._base
            self._rpos = start + HEADER_SIZE
            self._rend = end
            self._in_batch = True
            return 0
        payload = self._buffer[start + HEADER_SIZE:end]
        if self._pool is not None and _reusable(codec_id):
            if self._scratch is None:
                self._scratch = self._pool.take()
            self._data = _decompress_into(codec_id, payload, self._scratch)
        else:
            self._data = _decompress(codec_id, payload)
        self._data_view = self._data
        self._rpos = 0
        self._rend = self._data_view.shape[0]
        self._p = &self._data_view[0] if self._rend else NULL
        self._in_batch = True
        return 0

    cdef inline void _drop_data(self):
        """The batch's decompressed records are no longer read: let go of them (and of the
        view of the kept buffer, which may be written again)."""
        self._data = None
        self._data_view = None

    cdef bint _is_abort_marker(self, Py_ssize_t start, Py_ssize_t end, int attributes) except -1:
        """The control batch's first record says ABORT (the generator's _contains_abort_marker)."""
        cdef bytes key
        self._enter_v2(start, end, attributes)
        self._legacy = None
        if self._remaining <= 0:
            self._in_batch = False
            if self._rpos != self._rend:
                raise CorruptRecordException(
                    f"{self._rend - self._rpos} unconsumed bytes after all records consumed"
                )
            raise KafkaError("Control batch did not contain any records")
        self._read_record()
        key = self._r_key
        self._r_key = self._r_value = self._r_headers = None
        self._in_batch = False
        self._drop_data()
        return ControlRecord.parse(key) == ABORT_MARKER

    cdef int _consume_aborted_up_to(self, int64_t batch_offset) except -1:
        cdef list aborted = self._aborted_transactions
        while aborted:
            producer_id, first_offset = aborted[0]
            if first_offset <= batch_offset:
                self._aborted_producers.add(producer_id)
                aborted.pop(0)
            else:
                break
        return 0

    cdef bint _open_legacy(self, Py_ssize_t start, Py_ssize_t end, int magic) except -1:
        """A magic 0 or 1 batch (no transactions, no control batches): aiokafka's reader."""
        batch = LegacyRecordBatch(memoryview(self._buffer)[start:end], magic)
        if self._check_crcs and not batch.validate_crc():
            raise CorruptRecordException(f"Invalid CRC - {self._tp}")
        self._legacy = iter(batch)
        self._batch_next_offset = batch.next_offset
        self._in_batch = True
        return True

    # -- records ----------------------------------------------------------------------------

    cdef object _next_v2(self):
        while True:
            if self._remaining <= 0:
                if self._rpos != self._rend:
                    raise CorruptRecordException(
                        f"{self._rend - self._rpos} unconsumed bytes after all records consumed"
                    )
                return None
            self._read_record()
            if self._r_offset < self._next_fetch_offset:
                continue  # before the fetch position (a compressed set read from its start)
            return self._consumer_record()

    cdef int _read_record(self) except -1:
        """Read the next record into the _r_ fields; the record's layout is Kafka's
        DefaultRecord (KIP-98): varints, then key, value and headers."""
        cdef int64_t length, offset_delta, key_len, value_len, count, h_len
        cdef int64_t timestamp
        cdef Py_ssize_t start
        cdef object h_value
        cdef list headers
        length = self._varint()
        start = self._rpos
        self._varint()  # the record's attributes: unused
        timestamp = self._varint()
        if self._timestamp_type == LOG_APPEND_TIME:
            timestamp = self._max_timestamp
        else:
            timestamp = self._first_timestamp + timestamp
        offset_delta = self._varint()
        key_len = self._varint()
        self._r_key = self._bytes(key_len)
        value_len = self._varint()
        self._r_value = self._bytes(value_len)
        count = self._varint()
        if count < 0:
            raise CorruptRecordException(f"Found invalid number of record headers {count}")
        headers = [] if count else None
        while count > 0:
            h_len = self._varint()
            if h_len < 0:
                raise CorruptRecordException(f"Invalid negative header key size {h_len}")
            self._need(h_len)
            h_key = PyUnicode_DecodeUTF8(<const char*>(self._p + self._rpos), h_len, NULL)
            self._rpos += h_len
            h_value = self._bytes(self._varint())
            headers.append((h_key, h_value))
            count -= 1
        if self._rpos - start != length:
            raise CorruptRecordException(
                f"Invalid record size: expected to read {length} bytes in record "
                f"payload, but instead read {self._rpos - start}"
            )
        self._remaining -= 1
        self._r_offset = self._base_offset + offset_delta
        if self._r_timestamp is None or timestamp != self._last_timestamp:
            # records of a batch often share a timestamp: one int object for them all
            self._r_timestamp = timestamp
            self._last_timestamp = timestamp
        self._r_timestamp_type = self._timestamp_type
        self._r_checksum = None
        self._r_headers = () if headers is None else tuple(headers)
        return 0

    cdef object _consumer_record(self):
        """The record as ``Fetcher._consumer_record`` builds it: the instance made by its type's
        tp_new and filled by the dataclass's own ``__init__``, as ``ConsumerRecord(...)`` does
        (the same attributes in the same order, so instances share their keys) without
        ``type.__call__``'s argument tuple. Measured (records_hot_bench.py): ~30 % faster than
        setting the eleven attributes from C, which looks each name up in the shared keys."""
        cdef object record, key = self._r_key, value = self._r_value
        cdef int64_t offset = self._r_offset
        cdef Py_ssize_t size = -1 if value is None else len(value)
        key_size = -1 if key is None else len(key)
        if size != self._last_value_size:
            self._value_size = size
            self._last_value_size = size
        value_size = self._value_size
        if self._key_deserializer is not None:
            key = self._key_deserializer(key)
        if self._value_deserializer is not None:
            value = self._value_deserializer(value)
        record = _new_instance(_record_class)
        _record_init(record, self._topic, self._partition, offset, self._r_timestamp,
                     self._r_timestamp_type, key, value, self._r_checksum, key_size, value_size,
                     self._r_headers)
        self._r_key = self._r_value = self._r_headers = None
        self._next_fetch_offset = offset + 1
        return record

    cdef object _next_legacy(self):
        cdef object record
        for record in self._legacy:
            if record.offset < self._next_fetch_offset:
                continue
            self._r_offset = record.offset
            self._r_timestamp = record.timestamp
            self._r_timestamp_type = record.timestamp_type
            self._r_key = record.key
            self._r_value = record.value
            self._r_checksum = record.checksum
            self._r_headers = tuple(record.headers)
            out = self._consumer_record()
            self._r_timestamp = None  # not a v2 batch's: not reused
            return out
        return None

    # -- primitives -------------------------------------------------------------------------

    cdef inline int _need(self, int64_t n) except -1:
        if n < 0 or self._rpos + n > self._rend:
            raise CorruptRecordException(
                "Found invalid record structure: the record runs past its batch"
            )
        return 0

    cdef inline object _bytes(self, int64_t n):
        cdef object out
        if n < 0:
            return None
        self._need(n)
        out = PyBytes_FromStringAndSize(<const char*>(self._p + self._rpos), n)
        self._rpos += n
        return out

    cdef inline int64_t _varint(self) except? -1:
        """A zigzag varint (up to 64 bits), Kafka's ByteUtils.readVarlong."""
        cdef uint64_t value = 0
        cdef int shift = 0
        cdef unsigned char b
        while True:
            if self._rpos >= self._rend:
                raise CorruptRecordException(
                    "Found invalid record structure: a varint runs past its batch"
                )
            b = self._p[self._rpos]
            self._rpos += 1
            value |= (<uint64_t>(b & 0x7F)) << shift
            if not (b & 0x80):
                break
            shift += 7
            if shift > 63:
                raise CorruptRecordException("Found invalid record structure: varint too long")
        return <int64_t>((value >> 1) ^ (-(value & 1)))


cdef bytes _decompress(int codec_id, object payload):
    found = _CODECS.get(codec_id)
    if found is None:
        raise UnsupportedCodecError(f"Unknown compression codec {codec_id:#04x}")
    name, available, decode = found
    if not available():
        raise UnsupportedCodecError(f"Libraries for {name} compression codec not found")
    return bytes(decode(payload))


cdef class Ready:
    """An awaitable that is already done: ``await Ready(x)`` is ``x`` and never suspends
    (``async for`` over records already buffered, without a coroutine per record)."""

    cdef object value

    def __init__(self, value):
        self.value = value

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        raise StopIteration(self.value)
