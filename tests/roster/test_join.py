"""The roster barrier's runner (``staticconsumer.roster._join``) never blocks a member: when it
cannot run (here: the consumer's connection to the cluster fails), one WARNING, and the member
goes on to join."""

from __future__ import annotations

import logging

import pytest
from aiokafka.errors import KafkaConnectionError

from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer._compat.roster import PartitionLog
from staticconsumer.membership import LogIdentity
from staticconsumer.roster import JoinBarrier, roster_reader


async def _unreachable(topic: str) -> PartitionLog:
    raise KafkaConnectionError("Unable to connect to 127.0.0.1:1")


async def test_a_barrier_that_cannot_run_warns_once_and_lets_the_member_join(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="staticconsumer")
    reader = roster_reader("_rosters", "g", {"bootstrap_servers": "127.0.0.1:1"})
    assert reader is not None
    calls: list[bool] = []
    identity = LogIdentity("g", "svc-6", "c", lambda: "")
    barrier = JoinBarrier(reader, "svc-6", identity)
    assert await barrier.wait(_unreachable, None, calls.append) is None
    assert calls == [False]  # never waited; told that the wait is over
    ours = [r for r in caplog.records if r.name.startswith("staticconsumer.")]
    (warning,) = [r for r in ours if r.levelno >= logging.WARNING]
    assert warning.getMessage().startswith("[group=g instance=svc-6 member=-] joining without ")
    assert "127.0.0.1:1" in warning.getMessage()


@pytest.mark.parametrize("bad", ["yes", 1, None])
async def test_roster_barrier_must_be_a_bool(bad: object) -> None:
    with pytest.raises(ConfigurationError, match=r"roster_barrier .*KIP-469.*True or False"):
        StaticConsumer("t", group_id="g", group_instance_id="i-0", roster_barrier=bad)  # type: ignore[arg-type]


class _CountingSeam:
    def __init__(self) -> None:
        self.reads: list[str] = []

    async def read_partition_log(self, topic: str) -> PartitionLog:
        self.reads.append(topic)
        return PartitionLog(3)


async def test_a_consumer_without_roster_topic_reads_nothing_before_its_join() -> None:
    """Issue 31: the barrier hook of a consumer not configured for pre-registration sends
    nothing and logs nothing; with ``roster_topic`` it reads on the seam it is given."""
    seam = _CountingSeam()
    off = StaticConsumer("t", group_id="g", group_instance_id="svc-6")
    on = StaticConsumer("t", group_id="g", group_instance_id="svc-7", roster_topic="_rosters")
    try:
        await off._wait_at_barrier(seam)  # type: ignore[arg-type]
        assert seam.reads == []
        await on._wait_at_barrier(seam)  # type: ignore[arg-type]
        assert seam.reads == ["_rosters"]
    finally:
        await off.stop()
        await on.stop()
