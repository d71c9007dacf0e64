"""User-data codecs: Java's StickyAssignor data and our own envelope.

All integers are big-endian, as everywhere in the Kafka protocol.

**Java StickyAssignor** (``org.apache.kafka.clients.consumer.StickyAssignor``, no version prefix)::

    V0 := previous_assignment: int32 count, count * { topic: int16 length + UTF-8,
                                                      partitions: int32 count, count * int32 }
    V1 := V0  generation: int32

Java writes V1 and reads V1, falling back to V0; bytes it cannot parse mean "no previous assignment,
generation -1". Java's reader stops after the last field, so bytes after a valid V1 body are
ignored. We rely on that below.

**Our envelope** rides at the *end* of the user data, so it can follow a Java body::

    user_data := [prefix]  payload  payload_length: int32  magic: b"\\xc5SCA"
    payload   := version: int16 (= 1)
                 group_instance_id: int16 length + UTF-8 (length -1 means null)
                 generation: int32

* ``prefix`` is empty for "range" and "roundrobin" (Java's range and round-robin assignors ignore
  user data, so any bytes are safe). For "sticky" and "roster" it is a Java StickyAssignor V1 body,
  so a Java StickyAssignor leader reads our members' owned partitions and generation unchanged.
* The magic starts with byte 0xC5, so read as an int32 it is negative and not -1. A Java V0 body
  ends with a partition number (>= 0) and a V1 body with a generation (>= -1), so Java bytes never
  end in the magic: the envelope is detected reliably, and foreign user data is ignored.
* Readers accept any ``version >= 1`` and ignore bytes after the fields they know, so later versions
  may append fields. A ``version < 1`` or a malformed payload means "no envelope".
* Why carry the instance id: aiokafka's leader drops ``group_instance_id`` from the JoinGroup
  response, so a member built on plain aiokafka says who it is here.
* In an *assignment* (leader to member) the envelope has no prefix; its ``generation`` tells an
  aiokafka-based member which generation to report next time (aiokafka does not give assignors the
  generation id).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby

from ._member import TopicPartition

MAGIC = b"\xc5SCA"
ENVELOPE_VERSION = 1
NO_GENERATION = -1

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")


class _Truncated(Exception):
    """Internal: the bytes end before the structure does."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def _take(self, size: int) -> bytes:
        end = self._pos + size
        if size < 0 or end > len(self._data):
            raise _Truncated
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def int16(self) -> int:
        value: int = _INT16.unpack(self._take(2))[0]
        return value

    def int32(self) -> int:
        value: int = _INT32.unpack(self._take(4))[0]
        return value

    def string(self) -> str | None:
        length = self.int16()
        if length < 0:
            return None
        # Java decodes leniently (malformed bytes become U+FFFD); so do we.
        return self._take(length).decode("utf-8", "replace")


def _string(value: str | None) -> bytes:
    if value is None:
        return _INT16.pack(-1)
    raw = value.encode("utf-8")
    if len(raw) > 0x7FFF:
        raise ValueError(f"string of {len(raw)} bytes does not fit an int16 length: {value[:40]!r}")
    return _INT16.pack(len(raw)) + raw


# --- Java StickyAssignor user data -----------------------------------------------------------


@dataclass(frozen=True)
class StickyUserData:
    """Decoded Java StickyAssignor user data."""

    owned_partitions: tuple[TopicPartition, ...]
    generation: int = NO_GENERATION


def encode_sticky_user_data(owned: Iterable[TopicPartition], generation: int) -> bytes:
    """Java StickyAssignor V1 bytes: owned partitions grouped by topic, then the generation."""
    pairs = sorted(set(owned))
    groups = [
        (topic, [p for _, p in items]) for topic, items in groupby(pairs, key=lambda tp: tp[0])
    ]
    out = [_INT32.pack(len(groups))]
    for topic, partitions in groups:
        out.append(_string(topic))
        out.append(_INT32.pack(len(partitions)))
        out.extend(_INT32.pack(p) for p in partitions)
    out.append(_INT32.pack(generation))
    return b"".join(out)


def encode_generation(generation: int) -> bytes:
    """Java CooperativeStickyAssignor user data: the generation as one int32."""
    return _INT32.pack(generation)


def _read_v0(reader: _Reader) -> list[TopicPartition]:
    owned: list[TopicPartition] = []
    count = reader.int32()
    if count < 0:  # a null array: Java's reader yields null and then fails on it
        raise _Truncated
    for _ in range(count):
        topic = reader.string()
        if topic is None:
            raise _Truncated
        n = reader.int32()
        if n < 0:
            raise _Truncated
        owned.extend((topic, reader.int32()) for _ in range(n))
    return owned


def decode_sticky_user_data(data: bytes) -> StickyUserData:
    """Parse Java StickyAssignor user data as Java does: V1, else V0, else empty with -1.

    Our envelope, when present at the end, is stripped first.
    """
    body = split_envelope(data)[0]
    if not body:
        return StickyUserData(())
    reader = _Reader(body)
    try:
        owned = _read_v0(reader)
    except _Truncated:
        return StickyUserData(())
    try:
        generation = reader.int32()
    except _Truncated:
        generation = NO_GENERATION  # V0: no generation field
    return StickyUserData(tuple(owned), generation)


# --- our envelope ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Envelope:
    """The fields of our user-data envelope (version 1)."""

    group_instance_id: str | None
    generation: int = NO_GENERATION


def encode_envelope(envelope: Envelope, prefix: bytes = b"") -> bytes:
    payload = (
        _INT16.pack(ENVELOPE_VERSION)
        + _string(envelope.group_instance_id)
        + _INT32.pack(envelope.generation)
    )
    return prefix + payload + _INT32.pack(len(payload)) + MAGIC


def split_envelope(data: bytes) -> tuple[bytes, Envelope | None]:
    """Split user data into (prefix, envelope); foreign or malformed data gives (data, None)."""
    data = bytes(data)
    tail = len(MAGIC) + 4
    if len(data) < tail or data[-len(MAGIC) :] != MAGIC:
        return data, None
    length: int = _INT32.unpack(data[-tail : -len(MAGIC)])[0]
    start = len(data) - tail - length
    if length < 0 or start < 0:
        return data, None
    reader = _Reader(data[start : len(data) - tail])
    try:
        version = reader.int16()
        if version < ENVELOPE_VERSION:
            return data, None
        envelope = Envelope(reader.string(), reader.int32())
    except _Truncated:
        return data, None
    return data[:start], envelope


def decode_envelope(data: bytes) -> Envelope | None:
    """The envelope at the end of ``data``, or ``None`` when there is none."""
    return split_envelope(data)[1]
