"""The kept-buffer fetcher (``_compat.fetch.kept.KeptFetcher``, issue 43) against aiokafka's own
``Fetcher``, by difference, without a broker: one generated Fetch response (our encoding, v11),
handed to aiokafka's fetcher decoded by aiokafka and to ours as the bytes its connection
receives (through the frame receiver, into a kept buffer). Both must then hold the same results
and errors, hand out the same records (every field) with the same positions, update the same
partition state (high watermark, LSO, awaiting reset) and KIP-392 replica, and say the same
about waking a waiting ``getmany``. Partitions draw message sets of every codec, transactional
and control batches with aborted transactions under ``read_committed``, a last batch cut short,
a lone partial batch (``RecordTooLargeError``), a corrupt CRC, and partition errors (not leader,
unknown, out of range with and without ``auto_offset_reset``, authorization, another)."""

from __future__ import annotations

import asyncio
import io
import struct
from typing import Any

import pytest
from aiokafka.consumer.fetcher import Fetcher
from aiokafka.consumer.subscription_state import SubscriptionState
from aiokafka.errors import KafkaConnectionError
from aiokafka.protocol.fetch import FetchRequest, FetchResponse_v11
from aiokafka.structs import TopicPartition
from hypothesis import given, settings
from hypothesis import strategies as st

from staticconsumer._compat import features
from staticconsumer._compat import fetch as seam
from staticconsumer.protocol.fetch import CLASSES

from ._batches import message_sets

pytestmark = [
    pytest.mark.skipif(not seam.compiled_available(), reason="extension not built"),
    # the kept path mirrors aiokafka 0.14's fetcher, this test's oracle; before 0.14 it does
    # not run (choose.kept_fetch, tests/compat/fetch/test_seam.py)
    pytest.mark.skipif(not features.KEPT_FETCH_AVAILABLE, reason="kept buffers need aiokafka 0.14"),
]
TOPIC = "orders"
#: NONE, OFFSET_OUT_OF_RANGE, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER, TOPIC_AUTHORIZATION_FAILED,
#: KAFKA_STORAGE_ERROR (logged and left)
ERRORS = [0, 0, 0, 1, 3, 6, 29, 56]


class _Transport:
    """The socket's side: a request written is answered with ``answers``' next frame, fed to the
    protocol in ``chunk``-byte pieces as a transport does."""

    def __init__(self, answers: list[bytes], chunk: int) -> None:
        self.answers, self.chunk, self.protocol = answers, chunk, None

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        (correlation_id,) = struct.unpack_from(">i", data, 8)  # size, api key, version, id
        body = self.answers.pop(0)
        frame = struct.pack(">ii", 4 + len(body), correlation_id) + body
        asyncio.get_running_loop().call_soon(self._feed, frame)

    def _feed(self, frame: bytes) -> None:
        assert self.protocol is not None
        for at in range(0, len(frame), self.chunk):
            piece = frame[at : at + self.chunk]
            while piece:
                target = self.protocol.get_buffer(-1)
                n = min(len(target), len(piece))
                target[:n] = piece[:n]
                self.protocol.buffer_updated(n)
                piece = piece[n:]


class _Conn:
    """aiokafka's connection as the frame receiver takes it over."""

    def __init__(self, transport: _Transport) -> None:
        self._read_task = asyncio.get_running_loop().create_future()  # a reader to cancel
        self._writer = type("W", (), {"transport": transport})()
        self._protocol = None
        self._versions = {1: (4, 11)}
        self._client_id = "test"
        self._request_timeout = 5
        self.closed: list[Any] = []

    def close(self, reason: Any = None, exc: Any = None) -> None:
        self.closed.append(reason)


class _Client:
    def __init__(self, decoded: Any, conn: _Conn) -> None:
        self._loop = asyncio.get_running_loop()
        self._metadata_max_age_ms = 300_000
        self.decoded, self.conn, self.metadata_updates = decoded, conn, 0

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        return self.decoded  # aiokafka's fetcher: the response as aiokafka decodes it

    async def _get_conn(self, node_id: int, group: int = 0) -> Any:
        assert group == 2
        return self.conn

    def force_metadata_update(self) -> None:
        self.metadata_updates += 1


@st.composite
def partitions(draw: Any, index: int) -> tuple[Any, ...]:
    error = draw(st.sampled_from(ERRORS))
    data = b""
    aborted: list[tuple[int, int]] | None = []
    fetch_offset = 0
    if error == 0:
        ms = draw(message_sets)
        data = ms.data
        shape = draw(st.sampled_from(["whole", "whole", "cut", "partial", "corrupt", "empty"]))
        if shape == "cut":
            data = data[: len(data) - draw(st.integers(1, 30))] or data
        elif shape == "partial":  # no whole batch: larger than the fetch size
            data = data[: draw(st.integers(1, min(len(data), 70)))]
        elif shape == "corrupt" and data[16] == 2:
            raw = bytearray(data)
            raw[draw(st.integers(21, min(len(raw), 80) - 1))] ^= 0x5A
            data = bytes(raw)
        elif shape == "empty":
            data = b""
        fetch_offset = draw(st.integers(0, ms.end_offset))
        aborted = draw(st.none() | st.lists(st.sampled_from(ms.transactions), unique=True)
                       if ms.transactions else st.just([]))  # fmt: skip
    values = (index, error, 1000 + index, 900 + index, 0, aborted,
              draw(st.sampled_from([-1, 1, 2])), data)  # fmt: skip
    return values, fetch_offset


def _state(fetcher: Any, assignment: Any, tps: list[TopicPartition]) -> Any:
    """Everything observable: per partition its position, whether it waits for a reset, its
    high watermark and LSO, the result held (records drained) or its error, the replica."""
    out = []
    for tp in tps:
        state = assignment.state_value(tp)
        held = fetcher._records.get(tp)
        drained: Any = None
        if held is not None and hasattr(held, "check_raise"):
            try:
                held.check_raise()
            except Exception as exc:
                drained = ("error", type(exc).__name__, str(exc))
        elif held is not None:
            try:
                drained = [list(vars(r).items()) for r in held.getall(None)]
            except Exception as exc:
                drained = ("raised", type(exc).__name__, str(exc))
        replica = fetcher._preferred_read_replica.get(tp, (None,))[0]
        position = state.has_valid_position and state.position
        out.append((tp.partition, position, state.awaiting_reset, state.highwater, state.lso,
                    drained, replica))  # fmt: skip
    return out


async def _run(kind: str, frame_body: bytes, offsets: dict[TopicPartition, int], settings_: Any,
               chunk: int) -> Any:  # fmt: skip
    subscription = SubscriptionState()
    subscription.assign_from_user(set(offsets))
    assignment = subscription.subscription.assignment
    for tp, offset in offsets.items():
        assignment.state_value(tp).seek(offset)
    conn = _Conn(_Transport([frame_body], chunk))
    client = _Client(FetchResponse_v11.decode(io.BytesIO(frame_body)), conn)
    if kind == "kept":
        from staticconsumer._compat.fetch.kept import KeptFetcher

        fetcher: Any = KeptFetcher(client, subscription, **settings_)
    else:
        fetcher = Fetcher(client, subscription, **settings_)
    fetcher._fetch_task.cancel()  # the test sends the one fetch itself
    try:
        request = FetchRequest(500, 1, 1 << 20, fetcher._isolation_level,
                               [(TOPIC, [(tp.partition, o, 1 << 20) for tp, o in offsets.items()])],
                               rack_id=settings_.get("client_rack") or "")  # fmt: skip
        woke = await fetcher._proc_fetch_request(assignment, 0, request)
        tps = sorted(offsets, key=lambda tp: tp.partition)
        return woke, client.metadata_updates, _state(fetcher, assignment, tps), conn.closed
    finally:
        await fetcher.close()


def _unworded(run: Any) -> Any:
    """``run`` with each CorruptRecordException's and DecompressionError's message left out.
    With no CRC check a changed byte is found by the record parser, the compiled reader's or
    aiokafka's, each in its own words (the same class, at the same position: what the fetch
    paths must agree on); and a snappy block whose changed length claims more than a block can
    hold fails before it is decoded on the kept path, where aiokafka's decoder allocates the
    claim and then fails (test_decompression)."""
    woke, metadata_updates, state, *rest = run
    state = [(*p[:5], _unworded_outcome(p[5]), *p[6:]) for p in state]
    return (woke, metadata_updates, state, *rest)


def _unworded_outcome(drained: Any) -> Any:
    worded = ("CorruptRecordException", "DecompressionError")
    if isinstance(drained, tuple) and drained[1] in worded:
        return drained[:2]
    return drained


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_the_kept_fetcher_does_what_aiokafkas_does_with_a_response(data: Any) -> None:
    count = data.draw(st.integers(1, 4))
    drawn = [data.draw(partitions(i)) for i in range(count)]
    body = CLASSES[11][1](0, 0, 0, [(TOPIC, [values for values, _ in drawn])]).encode()
    offsets = {TopicPartition(TOPIC, i): offset for i, (_, offset) in enumerate(drawn)}
    settings_ = {
        "isolation_level": data.draw(st.sampled_from(["read_uncommitted", "read_committed"])),
        "auto_offset_reset": data.draw(st.sampled_from(["earliest", "none"])),
        "client_rack": data.draw(st.sampled_from([None, "rack-a"])),
        "check_crcs": data.draw(st.booleans()),
    }
    chunk = data.draw(st.sampled_from([7, 100, 1 << 16]))
    theirs = asyncio.run(_run("aiokafka", body, offsets, settings_, chunk))
    ours = asyncio.run(_run("kept", body, offsets, settings_, chunk))
    if not settings_["check_crcs"]:  # a changed byte is met by each reader's own parse
        theirs, ours = _unworded(theirs), _unworded(ours)
    assert ours[:3] == theirs[:3]
    assert ours[3] == []  # the connection was not closed


class _Unreachable(_Client):
    """A client whose node cannot be reached: every fetch fails, then backs off."""

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        raise KafkaConnectionError("the broker is down")

    async def _get_conn(self, node_id: int, group: int = 0) -> Any:
        return None


@pytest.mark.parametrize("kind", ["fetcher", "kept"])
def test_a_fetch_cancelled_in_its_retry_backoff_returns_quietly(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``stop()`` while a fetch waits out ``retry_backoff_ms`` after a failure (a broker down:
    most of the time goes there) cancels it; the fetcher's close awaits it, so a cancellation
    that escaped would be raised by ``stop()`` itself (found by test_fetch_cluster.py). Ended
    by close or a lost assignment, the fetch returns False, as aiokafka's does when cancelled
    while it sends."""
    from staticconsumer._compat.fetch.kept import KeptFetcher

    async def run() -> Any:
        subscription = SubscriptionState()
        tp = TopicPartition(TOPIC, 0)
        subscription.assign_from_user({tp})
        assignment = subscription.subscription.assignment
        assignment.state_value(tp).seek(0)
        client = _Unreachable(None, _Conn(_Transport([], 1)))
        cls = KeptFetcher if kind == "kept" else seam.FetchSeam
        fetcher = cls(client, subscription, retry_backoff_ms=600_000)
        fetcher._fetch_task.cancel()
        try:
            request = FetchRequest(500, 1, 1 << 20, 0, [(TOPIC, [(0, 0, 1 << 20)])], rack_id="")
            task = asyncio.create_task(fetcher._proc_fetch_request(assignment, 0, request))
            for _ in range(100):  # until it logged the failure and went to sleep
                await asyncio.sleep(0)
            assert any("Failed fetch messages" in m for m in caplog.messages)
            assert not task.done()
            task.cancel()
            return await task
        finally:
            await fetcher.close()

    assert asyncio.run(run()) is False
