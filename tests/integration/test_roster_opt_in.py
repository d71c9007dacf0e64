"""Pre-registration is free when unused (issue 31) and, when used, read on the consumer's own
connection: on the real broker, counting every aiokafka client made and every roster read.

Before issue 31 a static member read the roster in ``start()`` and every classic leader opened a
second ``AIOKafkaConsumer`` per rebalance to read it, whether or not the group ever registered
one: the first test counted a third client, the second a client per led rebalance.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiokafka.client import AIOKafkaClient

from staticconsumer._compat import ClientSeam
from staticconsumer._compat.roster import PartitionLog

from ._group import Member, put_record, start_member, wait_stable

LONG_SESSION = {"session_timeout_ms": 60000}


#: Clients a StaticConsumer makes: aiokafka's own (in AIOKafkaConsumer.__init__, never
#: connected) and the RecoveringClient that replaces it at once (issue 51, _compat/rebootstrap.py).
CLIENTS_MADE = 2


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[str], list[str]]]:
    """``(clients, reads)``: the client id of every ``AIOKafkaClient`` made, and the topic of
    every roster read on a consumer's seam."""
    clients: list[str] = []
    reads: list[str] = []
    made = AIOKafkaClient.__init__
    read = ClientSeam.read_partition_log

    def counting_init(self: Any, *args: Any, **kwargs: Any) -> None:
        clients.append(str(kwargs.get("client_id")))
        made(self, *args, **kwargs)

    async def counting_read(self: ClientSeam, topic: str) -> PartitionLog:
        reads.append(topic)
        return await read(self, topic)

    monkeypatch.setattr(AIOKafkaClient, "__init__", counting_init)
    monkeypatch.setattr(ClientSeam, "read_partition_log", counting_read)
    yield clients, reads


async def _two_members(topic: str, bootstrap: str, group: str, **settings: Any) -> list[Member]:
    """o-0 starts and leads; o-1's join makes the group rebalance again, led by one of them."""
    first = await start_member(topic, bootstrap, group, "o-0", **LONG_SESSION, **settings)
    second = await start_member(topic, bootstrap, group, "o-1", **LONG_SESSION, **settings)
    await wait_stable([first, second], 4)
    return [first, second]


async def test_without_roster_topic_no_roster_is_read_no_client_is_added_nothing_is_logged(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    counted: tuple[list[str], list[str]], caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    caplog.set_level(logging.DEBUG, logger="staticconsumer")
    clients, reads = counted
    topic, group = topic_factory(partitions=4), unique_group_id()
    clients.clear()  # topic_factory's admin client
    members = await _two_members(topic, kafka_bootstrap, group)
    try:
        assert len(clients) == 2 * CLIENTS_MADE, f"per consumer, none for a roster: {clients}"
        assert reads == []
        said = [r.getMessage() for r in caplog.records if "roster" in r.getMessage().lower()]
        assert said == []
    finally:
        for member in members:
            await member.stop()


async def test_with_roster_topic_the_leader_reads_on_its_own_client_and_names_itself(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    counted: tuple[list[str], list[str]], caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    caplog.set_level(logging.DEBUG, logger="staticconsumer")
    clients, reads = counted
    topic, group, rosters = topic_factory(partitions=4), unique_group_id(), topic_factory(1)
    await put_record(kafka_bootstrap, rosters, group.encode(), b"not a roster")
    clients.clear()  # the producer's
    members = await _two_members(topic, kafka_bootstrap, group, roster_topic=rosters)
    try:
        assert len(clients) == 2 * CLIENTS_MADE, f"per consumer, none for a roster: {clients}"
        assert len(reads) >= 2 and set(reads) == {rosters}, "a read at each led rebalance"
        warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
                  and "planning without the group's roster" in r.getMessage()]  # fmt: skip
        assert warned, "a roster that cannot be read is one WARNING per leader"
        for line in warned:
            assert line.startswith(f"[group={group} instance=o-"), line
    finally:
        for member in members:
            await member.stop()
