"""Golden bytes for Java StickyAssignor user data and for our envelope."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from assignors import (
    Envelope,
    decode_envelope,
    decode_sticky_user_data,
    encode_envelope,
    encode_sticky_user_data,
)
from assignors._userdata import MAGIC, split_envelope

# V1 for owned [t0p0, t0p2, t1p1], generation 7, written out field by field.
GOLDEN_V1 = (
    b"\x00\x00\x00\x02"  # two topics
    + b"\x00\x02t0" + b"\x00\x00\x00\x02" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x02"
    + b"\x00\x02t1" + b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01"
    + b"\x00\x00\x00\x07"  # generation
)  # fmt: skip


def test_sticky_v1_golden_bytes() -> None:
    assert encode_sticky_user_data([("t1", 1), ("t0", 2), ("t0", 0)], 7) == GOLDEN_V1
    decoded = decode_sticky_user_data(GOLDEN_V1)
    assert decoded.owned_partitions == (("t0", 0), ("t0", 2), ("t1", 1))
    assert decoded.generation == 7


def test_sticky_v0_has_no_generation() -> None:
    v0 = GOLDEN_V1[:-4]
    decoded = decode_sticky_user_data(v0)
    assert decoded.owned_partitions == (("t0", 0), ("t0", 2), ("t1", 1))
    assert decoded.generation == -1


def test_unparsable_sticky_data_is_empty() -> None:
    for junk in (b"", b"\x00", b"\xff\xff\xff\xff", b"\x00\x00\x00\x05\x00\x02t0", b"hello world"):
        decoded = decode_sticky_user_data(junk)
        assert decoded.owned_partitions == ()
        assert decoded.generation == -1


def test_envelope_golden_bytes() -> None:
    payload = b"\x00\x01" + b"\x00\x05svc-0" + b"\x00\x00\x00\x03"
    expected = payload + struct.pack(">i", len(payload)) + b"\xc5SCA"
    assert encode_envelope(Envelope("svc-0", 3)) == expected
    assert decode_envelope(expected) == Envelope("svc-0", 3)
    null_id = encode_envelope(Envelope(None, -1))
    assert null_id[:4] == b"\x00\x01\xff\xff"
    assert decode_envelope(null_id) == Envelope(None, -1)


def test_envelope_after_java_body_keeps_both_readable() -> None:
    data = encode_envelope(Envelope("svc-1", 9), prefix=GOLDEN_V1)
    assert split_envelope(data) == (GOLDEN_V1, Envelope("svc-1", 9))
    assert decode_sticky_user_data(data).owned_partitions == (("t0", 0), ("t0", 2), ("t1", 1))


def test_foreign_and_malformed_envelopes_are_ignored() -> None:
    assert decode_envelope(GOLDEN_V1) is None
    assert decode_envelope(b"") is None
    assert decode_envelope(b"\x00\x00\x00\x63" + MAGIC) is None  # length beyond the data
    old_version = b"\x00\x00" + b"\xff\xff" + b"\x00\x00\x00\x01"
    assert decode_envelope(old_version + struct.pack(">i", 8) + MAGIC) is None


def test_newer_envelope_versions_are_read_forward_compatibly() -> None:
    payload = b"\x00\x02" + b"\x00\x01a" + b"\x00\x00\x00\x04" + b"extra-field"
    data = payload + struct.pack(">i", len(payload)) + MAGIC
    assert decode_envelope(data) == Envelope("a", 4)


@given(
    owned=st.lists(st.tuples(st.sampled_from(["t0", "t1", "é"]), st.integers(0, 2**31 - 1))),
    generation=st.integers(-1, 2**31 - 1),
    instance=st.none() | st.text(max_size=20),
)
def test_roundtrip(owned: list[tuple[str, int]], generation: int, instance: str | None) -> None:
    data = encode_envelope(
        Envelope(instance, generation), encode_sticky_user_data(owned, generation)
    )
    assert decode_envelope(data) == Envelope(instance, generation)
    decoded = decode_sticky_user_data(data)
    assert decoded.owned_partitions == tuple(sorted(set(owned)))
    assert decoded.generation == generation
