"""Kafka's field types (the ``"type"`` of a field in Kafka's JSON message specs), sans-IO.

Each type is a value with ``encode(value) -> bytes``, ``decode(buffer) -> value`` and
``repr(value)`` (what a log line shows). The classic forms and the compact ones that flexible
versions use (KIP-482)::

    Kafka type     classic                             compact (flexible versions)
    int8..int64    big-endian two's complement         the same
    bool           one byte, 0 is false                the same
    uuid           16 bytes, most significant first    the same
    string         int16 length (-1: null), UTF-8      unsigned varint length + 1 (0: null)
    bytes          int32 length (-1: null)             unsigned varint length + 1 (0: null)
    []T            int32 count (-1: null), the items   unsigned varint count + 1 (0: null)
    struct         its fields in order                 ... then its tagged fields
    tagged fields  -                                   unsigned varint count, then per field:
                                                       tag (ascending), size, the bytes

(Kafka's ``ByteUtils`` and ``protocol/types``.) A struct's value is a tuple in field order, an
array's a list (None for null). Malformed bytes raise ``ValueError``: a short read is never
taken as data.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Mapping, Sequence
from io import BytesIO
from typing import Any


def _read(data: BytesIO, size: int, what: str) -> bytes:
    raw = data.read(size)
    if len(raw) != size:
        raise ValueError(f"{what}: {size} bytes needed, {len(raw)} left")
    return raw


class WireType:
    """A field type: ``encode``, ``decode`` and ``repr`` of its values."""

    def encode(self, value: Any) -> bytes:
        raise NotImplementedError

    def decode(self, data: BytesIO) -> Any:
        raise NotImplementedError

    def repr(self, value: Any) -> str:
        return repr(value)


class FixedInt(WireType):
    """int8, int16, int32, int64: big-endian two's complement."""

    def __init__(self, name: str, fmt: str) -> None:
        self.name = name
        self._struct = struct.Struct(fmt)

    def encode(self, value: int) -> bytes:
        try:
            return self._struct.pack(value)
        except struct.error as exc:
            raise ValueError(f"{self.name}: {value!r} does not fit") from exc

    def decode(self, data: BytesIO) -> int:
        value: int = self._struct.unpack(_read(data, self._struct.size, self.name))[0]
        return value

    def __repr__(self) -> str:
        return self.name


class _Boolean(WireType):
    def encode(self, value: bool) -> bytes:
        return b"\x01" if value else b"\x00"

    def decode(self, data: BytesIO) -> bool:
        return _read(data, 1, "bool") != b"\x00"

    def __repr__(self) -> str:
        return "bool"


class _Uuid(WireType):
    """Topic ids (KIP-516)."""

    def encode(self, value: uuid.UUID) -> bytes:
        return value.bytes

    def decode(self, data: BytesIO) -> uuid.UUID:
        return uuid.UUID(bytes=_read(data, 16, "uuid"))

    def __repr__(self) -> str:
        return "uuid"


class _UnsignedVarInt(WireType):
    """Kafka's unsigned varint (``ByteUtils.writeUnsignedVarint``): 7 bits a byte, least
    significant first, the high bit set on every byte but the last; at most 5 bytes."""

    def encode(self, value: int) -> bytes:
        if not 0 <= value <= 0xFFFFFFFF:
            raise ValueError(f"unsigned varint: {value!r} is not a 32-bit unsigned value")
        out = bytearray()
        while value > 0x7F:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
        return bytes(out)

    def decode(self, data: BytesIO) -> int:
        value = 0
        for shift in range(0, 35, 7):
            byte = _read(data, 1, "unsigned varint")[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
        raise ValueError("unsigned varint: longer than 5 bytes")

    def __repr__(self) -> str:
        return "uvarint"


Int8 = FixedInt("int8", ">b")
Int16 = FixedInt("int16", ">h")
Int32 = FixedInt("int32", ">i")
Int64 = FixedInt("int64", ">q")
Boolean = _Boolean()
Uuid = _Uuid()
UnsignedVarInt32 = _UnsignedVarInt()


class _Sized(WireType):
    """A length-prefixed value (string or bytes): int16/int32 length or compact, -1/0 is null."""

    def __init__(self, name: str, length: FixedInt | None) -> None:
        self.name = name
        self._length = length  # None: compact

    @property
    def compact(self) -> bool:
        return self._length is None

    def _encode_raw(self, raw: bytes | None) -> bytes:
        if self._length is None:
            size = UnsignedVarInt32.encode(0 if raw is None else len(raw) + 1)
        else:
            size = self._length.encode(-1 if raw is None else len(raw))
        return size if raw is None else size + raw

    def _decode_raw(self, data: BytesIO) -> bytes | None:
        if self._length is None:
            size = UnsignedVarInt32.decode(data) - 1
        else:
            size = self._length.decode(data)
        return None if size < 0 else _read(data, size, self.name)

    def __repr__(self) -> str:
        return self.name


class Text(_Sized):
    """``string``: UTF-8; null is None."""

    def encode(self, value: str | None) -> bytes:
        return self._encode_raw(None if value is None else str(value).encode("utf-8"))

    def decode(self, data: BytesIO) -> str | None:
        raw = self._decode_raw(data)
        return None if raw is None else raw.decode("utf-8")


class Blob(_Sized):
    """``bytes``; null is None. Shown in a log line cut to its first 100 bytes."""

    def encode(self, value: bytes | None) -> bytes:
        return self._encode_raw(None if value is None else bytes(value))

    def decode(self, data: BytesIO) -> bytes | None:
        return self._decode_raw(data)

    def repr(self, value: bytes | None) -> str:
        return repr(value[:100] + b"..." if value is not None and len(value) > 100 else value)


String = Text("string", Int16)
CompactString = Text("compact string", None)
Bytes = Blob("bytes", Int32)
CompactBytes = Blob("compact bytes", None)


class _TaggedFields(WireType):
    """The tagged fields that end every flexible struct: ``{tag: bytes}``. We send none and
    keep those a newer peer sends without reading them (Kafka skips unknown tags too)."""

    def encode(self, value: Mapping[int, bytes]) -> bytes:
        out = [UnsignedVarInt32.encode(len(value))]
        for tag in sorted(value):
            raw = bytes(value[tag])
            out += [UnsignedVarInt32.encode(tag), UnsignedVarInt32.encode(len(raw)), raw]
        return b"".join(out)

    def decode(self, data: BytesIO) -> dict[int, bytes]:
        fields: dict[int, bytes] = {}
        last = -1
        for _ in range(UnsignedVarInt32.decode(data)):
            tag = UnsignedVarInt32.decode(data)
            if tag <= last:
                raise ValueError(f"tagged fields: tag {tag} after tag {last}")
            fields[tag] = _read(data, UnsignedVarInt32.decode(data), f"tagged field {tag}")
            last = tag
        return fields

    def __repr__(self) -> str:
        return "tagged fields"


TaggedFields = _TaggedFields()

Field = tuple[str, WireType]


class Schema(WireType):
    """A struct: named fields in order; its value is a tuple of theirs."""

    def __init__(self, *fields: Field) -> None:
        self.names: tuple[str, ...] = tuple(name for name, _ in fields)
        self.fields: tuple[WireType, ...] = tuple(kind for _, kind in fields)

    def encode(self, value: Sequence[Any]) -> bytes:
        if len(value) != len(self.fields):
            raise ValueError(f"struct of {len(self.fields)} fields given {len(value)} values")
        return b"".join(kind.encode(v) for kind, v in zip(self.fields, value, strict=True))

    def decode(self, data: BytesIO) -> tuple[Any, ...]:
        return tuple(kind.decode(data) for kind in self.fields)

    def repr(self, value: Sequence[Any]) -> str:
        shown = (f"{n}={k.repr(v)}" for n, k, v in zip(self.names, self.fields, value, strict=True))
        return "(" + ", ".join(shown) + ")"

    def __repr__(self) -> str:
        shown = (f"{n}: {k!r}" for n, k in zip(self.names, self.fields, strict=True))
        return "Schema(" + ", ".join(shown) + ")"


class Array(WireType):
    """``[]T``: an int32 count (-1: null), then the items; ``array_of`` is T."""

    compact = False

    def __init__(self, array_of: WireType) -> None:
        self.array_of = array_of

    def encode(self, value: Sequence[Any] | None) -> bytes:
        if self.compact:
            count = UnsignedVarInt32.encode(0 if value is None else len(value) + 1)
        else:
            count = Int32.encode(-1 if value is None else len(value))
        return count + b"".join(self.array_of.encode(item) for item in value or ())

    def decode(self, data: BytesIO) -> list[Any] | None:
        count = UnsignedVarInt32.decode(data) - 1 if self.compact else Int32.decode(data)
        if count < 0:
            return None
        return [self.array_of.decode(data) for _ in range(count)]

    def repr(self, value: Sequence[Any] | None) -> str:
        if value is None:
            return "NULL"
        return "[" + ", ".join(self.array_of.repr(item) for item in value) + "]"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.array_of!r})"


class CompactArray(Array):
    """``[]T`` in a flexible version: an unsigned varint count + 1 (0: null), then the items."""

    compact = True


class NullableStruct(WireType):
    """A struct field that may be null (``"nullableVersions"`` on a struct in the JSON specs):
    int8 -1 for null, 1 then the struct."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def encode(self, value: Sequence[Any] | None) -> bytes:
        if value is None:
            return Int8.encode(-1)
        return Int8.encode(1) + self.schema.encode(value)

    def decode(self, data: BytesIO) -> tuple[Any, ...] | None:
        return None if Int8.decode(data) < 0 else self.schema.decode(data)

    def repr(self, value: Sequence[Any] | None) -> str:
        return "None" if value is None else self.schema.repr(value)
