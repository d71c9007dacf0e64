"""Both record paths on the real broker (issue 37): the compiled reader and aiokafka's own hand
out the same records through ``getmany(max_records)``, ``getone``, ``seek`` and ``pause`` in the
middle of a batch, and ``async for``; each consumer says which path it runs. The batches are lz4,
snappy or zstd, with keys, headers and null values; a deserializer runs on the keys. ``kept``:
the compiled reader over Fetch responses read into kept buffers on our own wire, its batches
decompressed into kept buffers too (issue 43)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition

from staticconsumer import StaticConsumer
from staticconsumer._compat import features
from staticconsumer._compat import fetch as seam

PATHS = ["compiled", "kept", "pure"] if seam.compiled_available() else ["pure"]
RECORDS = 60


async def _produce(bootstrap: str, topic: str, codec: str) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, compression_type=codec, linger_ms=50)
    await producer.start()
    try:
        sent = [
            producer.send(
                topic,
                None if n % 7 == 0 else b"v%d" % n,
                key=b"k%d" % n,
                partition=n % 2,
                headers=[("n", b"%d" % n)] if n % 3 else [],
            )
            for n in range(RECORDS)
        ]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


def _fields(record: Any) -> tuple[Any, ...]:
    return tuple(vars(record).values())


async def _read(bootstrap: str, topic: str, path: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    if path == "pure":
        monkeypatch.setenv(seam.PURE_RECORDS_ENV, "1")
    else:
        monkeypatch.delenv(seam.PURE_RECORDS_ENV, raising=False)
    # kept: the default on aiokafka 0.14 (issue 43); compiled: switched back to aiokafka's fetcher
    monkeypatch.setenv(seam.KEPT_FETCH_ENV, "1" if path == "kept" else "0")
    consumer = StaticConsumer(
        topic, bootstrap_servers=bootstrap, group_id=f"rp-{uuid.uuid4().hex[:8]}",
        group_instance_id="rp-0", auto_offset_reset="earliest", enable_auto_commit=False,
        key_deserializer=lambda k: k.decode(),
    )  # fmt: skip
    await consumer.start()
    try:
        assert consumer.record_path == ("compiled" if path == "kept" else path)
        tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
        seen: list[Any] = []
        first = await consumer.getmany(tp0, timeout_ms=10_000, max_records=3)
        seen.append(("getmany", [_fields(r) for r in first[tp0]]))
        consumer.seek(tp0, 10)  # inside the batch just read from
        seen.append(("getone", _fields(await asyncio.wait_for(consumer.getone(tp0), 10))))
        consumer.pause(tp0)
        batch = await consumer.getmany(timeout_ms=10_000, max_records=5)
        seen.append(("paused", sorted(tp.partition for tp in batch)))
        consumer.resume(tp0)
        seen.append(("positions", [await consumer.position(tp) for tp in (tp0, tp1)]))
        rest = []
        async for record in consumer:
            rest.append(_fields(record))
            positions = [await consumer.position(tp) for tp in (tp0, tp1)]
            if positions == [RECORDS // 2, RECORDS // 2]:
                break
        seen.append(("async for", sorted(rest)))
        buffers = seam.kept_buffers_of(consumer)
        # aiokafka 0.12 and 0.13: the compiled path instead (records.kept_fetch)
        kept = path == "kept" and features.KEPT_FETCH_AVAILABLE
        assert (buffers is not None and buffers.allocated > 0) == kept
        decompression = getattr(consumer._fetcher, "decompression", None)
        assert (decompression is not None and decompression.allocated > 0) == kept
        return seen
    finally:
        await consumer.stop()


@pytest.mark.parametrize("codec", ["lz4", "snappy", "zstd"])
async def test_both_paths_hand_out_the_same_records(
    kafka_bootstrap: str, topic_factory: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
    codec: str,
) -> None:  # fmt: skip
    topic = topic_factory(partitions=2)
    await _produce(kafka_bootstrap, topic, codec)
    seen = {path: await _read(kafka_bootstrap, topic, path, monkeypatch) for path in PATHS}
    reference = seen["pure"]
    assert [len(x[1]) for x in reference if x[0] == "getmany"] == [3]
    assert reference[1][1][2] == 10 and reference[1][1][5] == "k20"  # seek inside the batch
    assert reference[2] == ("paused", [1])
    assert seen.get("compiled", reference) == reference
    assert seen.get("kept", reference) == reference
    assert len(PATHS) == 3, "the extension is not built: only aiokafka's path ran"
