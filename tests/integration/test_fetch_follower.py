"""Fetching from the follower in the client's rack (``client_rack``, KIP-392) on both fetch
paths (issue 43 item 2), on a 3-node cluster of its own: one ``broker.rack`` per node, the
rack-aware replica selector, and a broker session long enough (10 min) that a broker stopped with
SIGSTOP stays the leader for the whole test. (No broker of this cluster can restart within that
session, so the leader change is in test_fetch_cluster.py.)"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from aiokafka import TopicPartition

from staticconsumer._compat import features
from staticconsumer.localkafka import LocalKafkaCluster
from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG

from ._fetch_paths import (
    fetch_path,
    new_topic,
    placement,
    produce,
    read,
    read_kept_frames,
    start_consumer,
    started_cluster,
)

__all__ = ["fetch_path"]  # a fixture, used by name

RACKS = {1: "rack-a", 2: "rack-b", 3: "rack-c"}
# client_rack is refused at construction before aiokafka 0.14 (docs/compatibility.md)
pytestmark = pytest.mark.skipif(not features.CLIENT_RACK, reason="client_rack needs aiokafka 0.14")


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalKafkaCluster]:
    config = {
        **DEFAULT_TEST_BROKER_CONFIG,
        "replica.selector.class": "org.apache.kafka.common.replica.RackAwareReplicaSelector",
        "broker.session.timeout.ms": "600000",  # a SIGSTOPped leader is not fenced meanwhile
    }
    yield from started_cluster(config, {node: {"broker.rack": r} for node, r in RACKS.items()})


async def test_a_consumer_with_client_rack_reads_from_the_follower_in_its_rack(
    fetch_path: str, cluster: LocalKafkaCluster
) -> None:
    """KIP-392: the leader names the replica in the client's rack (a follower's) and the
    consumer fetches from it. Shown by stopping the leader (SIGSTOP: no
    controlled shutdown, and no fencing within the broker session) after the first records:
    a consumer fetching from the leader would wait for ever; one reading the follower reads on."""
    bootstrap = cluster.bootstrap_servers
    topic = await new_topic(cluster, [1, 2, 3])
    tp = TopicPartition(topic, 0)
    values = [b"%03d" % n + bytes(500) for n in range(40)]
    # the 41st, acknowledged by every replica, means each follower knows the 40 are committed
    await produce(bootstrap, topic, [*values, b"end"])
    leader, followers = await placement(bootstrap, topic)
    assert followers, "a follower in sync"
    consumer = await start_consumer(fetch_path, bootstrap, [tp], client_rack=RACKS[followers[0]],
                                    max_partition_fetch_bytes=1024)  # fmt: skip
    leader_pid = cluster.broker(leader).pid
    assert leader_pid is not None
    try:
        got = await read(consumer, 3, max_records=3)
        os.kill(leader_pid, signal.SIGSTOP)
        try:
            got += await read(consumer, 37)
        finally:
            os.kill(leader_pid, signal.SIGCONT)
        assert [r.value for r in got] == values
        read_kept_frames(consumer, fetch_path)
    finally:
        await consumer.stop()
