"""Our field types (``protocol._types``): Kafka's encodings, and the same bytes as aiokafka's
``aiokafka.protocol.types`` wherever that module still has the type (differential, Hypothesis;
aiokafka PR #1139 removes the compact ones: their comparisons then skip, ours stay).

aiokafka's own bugs are not the oracle: its ``TaggedFields.encode`` writes no size before each
field's bytes (Kafka's does), so for tagged fields only the empty section (all we send) is
compared byte for byte, and aiokafka must read back what we write."""

from __future__ import annotations

import io
import struct
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from staticconsumer.protocol import _types as ours

try:  # aiokafka's codec, while it has one; None after aiokafka PR #1139 removes a type
    import aiokafka.protocol.types as theirs
except ImportError:  # pragma: no cover - an aiokafka without the module
    theirs = None  # type: ignore[assignment]

TEXT = st.none() | st.text(max_size=40)
BLOB = st.none() | st.binary(max_size=60)
UINT32 = st.integers(0, 2**32 - 1)


def aiokafkas(name: str) -> Any:
    """aiokafka's type of that name (an instance where it takes arguments), or a skip."""
    found = getattr(theirs, name, None)
    if found is None:
        pytest.skip(f"aiokafka.protocol.types has no {name} (aiokafka PR #1139 removed it)")
    return found("utf-8") if name in ("String", "CompactString") else found


def decoded(kind: Any, data: bytes) -> Any:
    buffer = io.BytesIO(data)
    value = kind.decode(buffer)
    assert buffer.read() == b"", "bytes left unread"
    return value


# -- the same bytes as aiokafka's codec -----------------------------------------------------------

INTS = [("Int8", 8), ("Int16", 16), ("Int32", 32), ("Int64", 64)]


@pytest.mark.parametrize(("name", "bits"), INTS)
@given(data=st.data())
def test_fixed_ints_match_aiokafkas(name: str, bits: int, data: st.DataObject) -> None:
    mine, its = getattr(ours, name), aiokafkas(name)
    value = data.draw(st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1))
    assert mine.encode(value) == its.encode(value)
    assert decoded(mine, its.encode(value)) == value
    too_big = data.draw(st.integers(2 ** (bits - 1), 2**70))
    with pytest.raises(ValueError):
        mine.encode(too_big)
    with pytest.raises(ValueError):
        its.encode(too_big)


@given(value=st.booleans(), raw=st.binary(min_size=1, max_size=1))
def test_boolean_matches_aiokafkas(value: bool, raw: bytes) -> None:
    its = aiokafkas("Boolean")
    assert ours.Boolean.encode(value) == its.encode(value)
    assert decoded(ours.Boolean, raw) == its.decode(io.BytesIO(raw)), "any non-zero byte is true"


@pytest.mark.parametrize(
    ("name", "values"),
    [("String", TEXT), ("CompactString", TEXT), ("Bytes", BLOB), ("CompactBytes", BLOB)],
)
@given(data=st.data())
def test_strings_and_bytes_match_aiokafkas(name: str, values: Any, data: st.DataObject) -> None:
    mine, its = getattr(ours, name), aiokafkas(name)
    value = data.draw(values)
    assert mine.encode(value) == its.encode(value)
    assert decoded(mine, mine.encode(value)) == its.decode(io.BytesIO(mine.encode(value))) == value


@given(value=UINT32)
def test_unsigned_varint_matches_aiokafkas(value: int) -> None:
    its = aiokafkas("UnsignedVarInt32")
    assert ours.UnsignedVarInt32.encode(value) == its.encode(value)
    assert decoded(ours.UnsignedVarInt32, its.encode(value)) == value


@given(fields=st.dictionaries(st.integers(0, 2**31 - 1), st.binary(max_size=20), max_size=5))
def test_tagged_fields_aiokafka_reads_what_we_write(fields: dict[int, bytes]) -> None:
    its = aiokafkas("TaggedFields")
    assert ours.TaggedFields.encode({}) == its.encode({}) == b"\x00"
    encoded = ours.TaggedFields.encode(fields)
    assert its.decode(io.BytesIO(encoded)) == fields == decoded(ours.TaggedFields, encoded)


@pytest.mark.parametrize("compact", [False, True], ids=["classic", "compact"])
@given(data=st.data())
def test_arrays_and_structs_match_aiokafkas(compact: bool, data: st.DataObject) -> None:
    array, string = ("CompactArray", "CompactString") if compact else ("Array", "String")
    its_array, its_string = aiokafkas(array), aiokafkas(string)
    mine_array, mine_string = getattr(ours, array), getattr(ours, string)
    ints = data.draw(st.none() | st.lists(st.integers(-(2**31), 2**31 - 1), max_size=8))
    assert mine_array(ours.Int32).encode(ints) == its_array(theirs.Int32).encode(ints)
    rows = data.draw(st.none() | st.lists(st.tuples(TEXT, st.integers(-(2**15), 2**15 - 1)),
                                          max_size=5))  # fmt: skip
    mine = mine_array(ours.Schema(("name", mine_string), ("index", ours.Int16)))
    its = its_array(("name", its_string), ("index", theirs.Int16))
    assert mine.encode(rows) == its.encode(rows)
    expected = None if rows is None else [tuple(row) for row in rows]
    assert decoded(mine, mine.encode(rows)) == expected
    assert its.decode(io.BytesIO(mine.encode(rows))) == expected


# -- Kafka's encodings (no aiokafka) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(0, "00"), (1, "01"), (127, "7f"), (128, "8001"), (300, "ac02"), (16383, "ff7f"),
     (16384, "808001"), (2**31 - 1, "ffffffff07"), (2**32 - 1, "ffffffff0f")],
)  # fmt: skip
def test_unsigned_varints_as_kafkas_byte_utils_writes_them(value: int, encoded: str) -> None:
    assert ours.UnsignedVarInt32.encode(value).hex() == encoded
    assert decoded(ours.UnsignedVarInt32, bytes.fromhex(encoded)) == value


@pytest.mark.parametrize(
    ("kind", "raw"),
    [
        (ours.Int32, b"\x00\x01"),  # two bytes short
        (ours.String, struct.pack(">h", 5) + b"abc"),  # a length past the end
        (ours.CompactBytes, b"\x06abc"),
        (ours.Array(ours.Int32), struct.pack(">i", 2) + struct.pack(">i", 7)),
        (ours.UnsignedVarInt32, b"\x80\x80"),  # a varint cut short
        (ours.UnsignedVarInt32, b"\xff\xff\xff\xff\xff\x01"),  # longer than 5 bytes
        (ours.TaggedFields, b"\x02\x05\x00\x03\x00"),  # tags out of order
        (ours.Uuid, b"\x00" * 15),
    ],
)
def test_malformed_bytes_raise_value_error(kind: Any, raw: bytes) -> None:
    with pytest.raises(ValueError):
        kind.decode(io.BytesIO(raw))


@given(value=st.none() | st.tuples(st.uuids(), st.integers(-(2**31), 2**31 - 1)))
def test_a_nullable_struct_round_trips(value: tuple[uuid.UUID, int] | None) -> None:
    kind = ours.NullableStruct(ours.Schema(("topic_id", ours.Uuid), ("partition", ours.Int32)))
    encoded = kind.encode(value)
    assert encoded[:1] == (b"\xff" if value is None else b"\x01")
    assert decoded(kind, encoded) == value


def test_tagged_fields_are_written_in_tag_order_with_their_sizes() -> None:
    assert ours.TaggedFields.encode({5: b"\xab\xcd", 1: b""}).hex() == "02" + "0100" + "0502abcd"
