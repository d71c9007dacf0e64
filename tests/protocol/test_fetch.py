"""Fetch v4-v11 (``protocol.fetch``): the request's bytes, field by field and against aiokafka's
encoder; the response read in place against our schema's decoder and aiokafka's (Hypothesis).
The broker is the oracle of the whole path (tests/integration/test_record_path.py)."""

from __future__ import annotations

import inspect
import io
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from staticconsumer.protocol import fetch

try:
    from aiokafka.protocol import fetch as theirs
except ImportError:  # pragma: no cover - an aiokafka without its own Fetch structs
    theirs = None  # type: ignore[assignment]
#: aiokafka 0.14's Fetch builder (v4-v11, rack_id), the request oracle (0.12's is a list).
_builder = getattr(theirs, "FetchRequest", None)
THEIR_BUILDER = isinstance(_builder, type) and "rack_id" in inspect.signature(_builder).parameters

VERSIONS = list(fetch.FETCH_VERSIONS)
INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)


def _string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def test_a_v11_request_field_by_field() -> None:
    """Kafka's FetchRequest.json v11, written out: replica -1, wait, min, max, isolation,
    session 0 / epoch -1 (no session), topics (partition, leader epoch -1, offset, log start -1,
    max bytes), no forgotten topics, the rack."""
    expected = (
        struct.pack(">iiiib", -1, 500, 1, 52_428_800, 1)
        + struct.pack(">ii", 0, -1)
        + struct.pack(">i", 1) + _string("t") + struct.pack(">i", 2)
        + struct.pack(">iiqqi", 3, -1, 42, -1, 1_048_576)
        + struct.pack(">iiqqi", 0, -1, 7, -1, 1_048_576)
        + struct.pack(">i", 0)
        + _string("rack-a")
    )  # fmt: skip
    built = fetch.build_fetch(
        11, max_wait_ms=500, min_bytes=1, max_bytes=52_428_800, isolation_level=1,
        topics=[("t", [(3, 42, 1_048_576), (0, 7, 1_048_576)])], rack_id="rack-a",
    )  # fmt: skip
    assert built.encode() == expected
    assert (built.api_key, built.api_version, built.flexible) == (1, 11, False)


def test_a_v4_request_has_no_session_log_start_or_rack() -> None:
    expected = (
        struct.pack(">iiiib", -1, 100, 5, 1000, 0)
        + struct.pack(">i", 1) + _string("t") + struct.pack(">i", 1)
        + struct.pack(">iqi", 0, 9, 300)
    )  # fmt: skip
    built = fetch.build_fetch(
        4, max_wait_ms=100, min_bytes=5, max_bytes=1000, isolation_level=0,
        topics=[("t", [(0, 9, 300)])], rack_id="r",
    )  # fmt: skip
    assert built.encode() == expected


def test_an_unimplemented_version_is_refused() -> None:
    with pytest.raises(ValueError, match="Fetch v12 is not implemented"):
        fetch.build_fetch(12, max_wait_ms=1, min_bytes=1, max_bytes=1, isolation_level=0,
                          topics=[])  # fmt: skip
    with pytest.raises(ValueError, match="Fetch v3 is not implemented"):
        fetch.read_fetch_response(memoryview(b""), 3)


TOPICS = st.lists(
    st.tuples(
        st.text(min_size=1, max_size=12),
        st.lists(st.tuples(st.integers(0, 1000), INT64, st.integers(0, 2**31 - 1)), max_size=4),
    ),
    max_size=3,
)


@pytest.mark.skipif(
    not THEIR_BUILDER,
    reason="aiokafka's Fetch request builder for v4-v11 (the "
    "oracle) is 0.14's: 0.13's builds up to v4, 0.12 has one class per version",
)
@given(version=st.sampled_from(VERSIONS), topics=TOPICS, wait=INT32, min_bytes=INT32,
       max_bytes=INT32, isolation=st.sampled_from([0, 1]), rack=st.text(max_size=10))  # fmt: skip
def test_requests_are_aiokafkas_bytes(
    version: int, topics: Any, wait: int, min_bytes: int, max_bytes: int, isolation: int, rack: str
) -> None:
    ours = fetch.build_fetch(version, max_wait_ms=wait, min_bytes=min_bytes, max_bytes=max_bytes,
                             isolation_level=isolation, topics=topics, rack_id=rack)  # fmt: skip
    request = theirs.FetchRequest(wait, min_bytes, max_bytes, isolation, topics, rack_id=rack)
    struct_class = getattr(theirs, f"FetchRequest_v{version}")
    assert ours.encode() == request.build(struct_class).encode()


# -- responses ------------------------------------------------------------------------------------


@st.composite
def responses(draw: Any, version: int) -> tuple[Any, ...]:
    """A response's values in our schema's order (records as bytes or None)."""

    def partition() -> tuple[Any, ...]:
        aborted = draw(st.none() | st.lists(st.tuples(INT64, INT64), max_size=3))
        return (
            draw(INT32), draw(st.integers(-1, 120)), draw(INT64), draw(INT64),
            *((draw(INT64),) if version >= 5 else ()),
            aborted,
            *((draw(INT32),) if version >= 11 else ()),
            draw(st.none() | st.binary(max_size=200)),
        )  # fmt: skip

    topics = [
        (draw(st.text(max_size=10)), [partition() for _ in range(draw(st.integers(0, 3)))])
        for _ in range(draw(st.integers(0, 3)))
    ]
    head = (draw(INT32), *((draw(st.integers(-1, 120)), draw(INT32)) if version >= 7 else ()))
    return (*head, topics)


def _flat(values: tuple[Any, ...], version: int) -> list[tuple[Any, ...]]:
    """(topic, partition fields...) of every partition, records as bytes, absent fields as the
    in-place reader fills them (-1)."""
    out = []
    for topic, partitions in values[-1]:
        for p in partitions:
            p = list(p)
            if version < 5:
                p.insert(4, -1)
            aborted = None if p[5] is None else [tuple(a) for a in p[5]]
            replica = p[6] if version >= 11 else -1
            out.append((topic, *p[:5], aborted, replica, p[-1]))
    return out


@settings(max_examples=150)
@given(data=st.data(), version=st.sampled_from(VERSIONS))
def test_the_in_place_reader_reads_what_the_schema_reads(data: Any, version: int) -> None:
    values = data.draw(responses(version))
    response_class = fetch.CLASSES[version][1]
    frame = response_class(*values).encode()
    assert response_class.decode(frame).values() == values  # the schema round-trips
    read = fetch.read_fetch_response(memoryview(frame), version)
    got = [
        (p.topic, p.partition, p.error_code, p.high_watermark, p.last_stable_offset,
         p.log_start_offset, p.aborted_transactions, p.preferred_read_replica,
         None if p.records is None else bytes(p.records))
        for p in read.partitions
    ]  # fmt: skip
    assert got == _flat(values, version)
    head = values[:-1] if version >= 7 else (values[0], 0, 0)
    assert (read.throttle_time_ms, read.error_code, read.session_id) == head


@pytest.mark.skipif(theirs is None, reason="aiokafka has no Fetch structs")
@settings(max_examples=100)
@given(data=st.data(), version=st.sampled_from(VERSIONS))
def test_aiokafka_decodes_the_same_response(data: Any, version: int) -> None:
    values = data.draw(responses(version))
    frame = fetch.CLASSES[version][1](*values).encode()
    decoded = getattr(theirs, f"FetchResponse_v{version}").decode(io.BytesIO(frame))
    theirs_flat = [(topic, *p) for topic, partitions in decoded.topics for p in partitions]
    ours = fetch.read_fetch_response(memoryview(frame), version).partitions
    assert len(theirs_flat) == len(ours)
    for mine, their in zip(ours, theirs_flat, strict=True):
        assert (mine.topic, mine.partition, mine.error_code, mine.high_watermark) == their[:4]
        assert (None if mine.records is None else bytes(mine.records)) == their[-1]
        their_aborted = their[-3] if version >= 11 else their[-2]
        assert mine.aborted_transactions == (
            None if their_aborted is None else [tuple(a) for a in their_aborted]
        )


def test_records_are_views_of_the_frame_not_copies() -> None:
    partitions = [(0, 0, 10, 10, 0, None, -1, b"abc"), (1, 0, 3, 3, 0, [], -1, None)]
    values = (0, 0, 0, [("t", partitions)])
    frame = bytearray(fetch.CLASSES[11][1](*values).encode())
    read = fetch.read_fetch_response(memoryview(frame), 11)
    first, second = read.partitions
    assert first.records is not None and first.records.obj is frame
    assert second.records is None and second.aborted_transactions == []
    frame[frame.index(b"abc")] = ord("x")  # the view sees the frame's bytes
    assert bytes(first.records) == b"xbc"
    with pytest.raises(BufferError):  # a frame with a live view cannot be resized
        frame.append(0)
    del first, second, read
    frame.append(0)  # every view gone: it can


@given(data=st.data(), version=st.sampled_from(VERSIONS))
def test_a_truncated_response_raises_value_error(data: Any, version: int) -> None:
    frame = fetch.CLASSES[version][1](*data.draw(responses(version))).encode()
    cut = data.draw(st.integers(0, len(frame) - 1))
    with pytest.raises(ValueError, match="Fetch response"):
        fetch.read_fetch_response(memoryview(frame)[:cut], version)


def test_bytes_after_the_response_are_refused() -> None:
    frame = fetch.CLASSES[11][1](0, 0, 0, []).encode() + b"\x00"
    with pytest.raises(ValueError, match="1 bytes left"):
        fetch.read_fetch_response(memoryview(frame), 11)
