"""``read_partition_log`` (``_compat/roster.py``): the roster read on the consumer's own client,
over a fake client that answers Metadata, ListOffsets and Fetch as a broker does, with record
batches built by aiokafka's own builder."""

from __future__ import annotations

import struct
from types import SimpleNamespace
from typing import Any

import pytest
from aiokafka.client import ConnectionGroup
from aiokafka.cluster import ClusterMetadata
from aiokafka.errors import KafkaError
from aiokafka.record.default_records import DefaultRecordBatchBuilder

from staticconsumer._compat import ClientSeam
from staticconsumer._compat.features import COORDINATORS_REGISTERED
from staticconsumer._compat.roster import PartitionLog, decode_records, read_partition_log
from tests._fake_client import metadata

TOPIC = "_rosters"
Record = tuple[bytes | None, bytes | None]


def batch(base_offset: int, records: list[Record]) -> bytes:
    """A v2 record batch at ``base_offset`` (the base offset is outside the batch's CRC)."""
    builder = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 20)
    for delta, (key, value) in enumerate(records):
        builder.append(delta, timestamp=1, key=key, value=value, headers=[])
    data = builder.build()
    struct.pack_into(">q", data, 0, base_offset)
    return bytes(data)


class FakeBroker:
    """Answers like a broker holding ``log`` (batches by base offset) in ``TOPIC``-0, with
    ``high_watermark``; ``metadata_error``/``fetch_error`` make it refuse."""

    def __init__(
        self, batches: dict[int, bytes], *, start: int = 0, high_watermark: int = 0,
        metadata_error: int = 0, fetch_error: int = 0, leader: int = 7,
    ) -> None:  # fmt: skip
        self.batches, self.start, self.high_watermark = batches, start, high_watermark
        self.metadata_error, self.fetch_error, self.leader = metadata_error, fetch_error, leader
        self.sent: list[tuple[int, str, Any]] = []
        self.cluster = ClusterMetadata()  # brokers 1 and the leader (aiokafka's real metadata)
        self.cluster.update_metadata(metadata(sorted({1, max(leader, 1)})))

    def get_random_node(self) -> int:
        return 1

    async def send(self, node_id: int, request: Any, *, group: Any = None) -> Any:
        struct = request.pinned.struct  # aiokafka's struct of one version (_compat.requests)
        kind = type(struct).__name__
        self.sent.append((node_id, kind, group))
        if kind == "MetadataRequest_v5":
            assert struct.allow_auto_topic_creation is False
            return self._metadata()
        if kind == "OffsetRequest_v3":
            stamp = struct.topics[0][1][0][1]
            offset = self.start if stamp == -2 else self.high_watermark
            return SimpleNamespace(
                to_object=lambda: {
                    "topics": [
                        {
                            "topic": TOPIC,
                            "partitions": [
                                {"partition": 0, "error_code": 0, "timestamp": -1, "offset": offset}
                            ],
                        }
                    ]
                }
            )
        assert kind == "FetchRequest_v11"
        [(topic, [(partition, _epoch, offset, _log_start, _max_bytes)])] = struct.topics
        assert (topic, partition) == (TOPIC, 0)
        data = b"".join(b for base, b in sorted(self.batches.items()) if base >= offset)
        row = (0, self.fetch_error, self.high_watermark, self.high_watermark, [], data)
        return SimpleNamespace(topics=[(TOPIC, [row])])

    def _metadata(self) -> Any:
        partitions = [{"error_code": 0, "partition": 0, "leader": self.leader}]
        topics = [{"topic": TOPIC, "error_code": self.metadata_error, "partitions": partitions}]
        return SimpleNamespace(to_object=lambda: {"topics": topics})


async def test_reads_every_record_from_the_log_start_to_the_high_watermark() -> None:
    broker = FakeBroker({4: batch(4, [(b"g", b"r1"), (b"h", b"x")]), 6: batch(6, [(b"g", None)]),
                         7: batch(7, [(b"g", b"late")])}, start=4, high_watermark=7)  # fmt: skip
    log = await read_partition_log(broker, TOPIC)
    assert log == PartitionLog(0, ((b"g", b"r1"), (b"h", b"x"), (b"g", None)))


async def test_it_asks_metadata_then_the_leader_on_coordination_connections() -> None:
    broker = FakeBroker({0: batch(0, [(b"g", b"r")])}, high_watermark=1)
    await read_partition_log(broker, TOPIC)
    kinds = [(node, kind) for node, kind, _ in broker.sent]
    assert kinds == [(1, "MetadataRequest_v5"), (7, "OffsetRequest_v3"), (7, "OffsetRequest_v3"),
                     (7, "FetchRequest_v11")]  # fmt: skip
    assert {group for _, _, group in broker.sent} == {ConnectionGroup.COORDINATION}
    if COORDINATORS_REGISTERED:  # aiokafka 0.12 and 0.13 connect only to a known coordinator
        assert {n for n in (1, 7) if broker.cluster.coordinator_metadata(n)} == {1, 7}


async def test_an_empty_log_fetches_nothing() -> None:
    broker = FakeBroker({}, start=3, high_watermark=3)
    assert await read_partition_log(broker, TOPIC) == PartitionLog(0, ())
    assert "FetchRequest_v11" not in [kind for _, kind, _ in broker.sent]


@pytest.mark.parametrize("code", [3, 29])
async def test_a_metadata_error_is_answered_as_its_code_and_nothing_more_is_sent(code: int) -> None:
    broker = FakeBroker({}, high_watermark=1, metadata_error=code)
    assert await read_partition_log(broker, TOPIC) == PartitionLog(code)
    assert [kind for _, kind, _ in broker.sent] == ["MetadataRequest_v5"]


async def test_a_partition_without_a_leader_is_leader_not_available() -> None:
    broker = FakeBroker({}, high_watermark=1, leader=-1)
    assert await read_partition_log(broker, TOPIC) == PartitionLog(5)


async def test_a_fetch_error_is_answered_as_its_code() -> None:
    broker = FakeBroker({0: batch(0, [(b"g", b"r")])}, high_watermark=1, fetch_error=29)
    assert await read_partition_log(broker, TOPIC) == PartitionLog(29)


async def test_a_fetch_that_makes_no_progress_raises_rather_than_loops() -> None:
    broker = FakeBroker({}, high_watermark=5)
    with pytest.raises(KafkaError, match="no progress at offset 0"):
        await read_partition_log(broker, TOPIC)


def test_decode_records_keeps_the_records_in_range_and_says_where_to_go_on() -> None:
    data = batch(10, [(b"a", b"1"), (b"b", b"2"), (b"c", b"3")])
    assert decode_records(data, 11, 12) == ([(b"b", b"2")], 13)
    assert decode_records(None, 5, 9) == ([], 5)


async def test_the_seam_reads_with_the_consumers_own_client() -> None:
    broker = FakeBroker({0: batch(0, [(b"g", b"r")])}, high_watermark=1)
    seam = ClientSeam(broker, SimpleNamespace())
    assert await seam.read_partition_log(TOPIC) == PartitionLog(0, ((b"g", b"r"),))
    assert len(broker.sent) == 4
