"""A member's roster read (``roster/_reader.py``): opt-in, over the consumer's own seam, bounded,
and every failure translated once to a typed error; the log is scanned as compaction keeps it."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka.errors import KafkaConnectionError

from staticconsumer._compat.roster import PartitionLog
from staticconsumer.errors import RosterAuthorizationError, RosterFormatError, RosterUnreadableError
from staticconsumer.roster import (
    Roster,
    RosterReader,
    arrival_key,
    arrival_value,
    roster_reader,
    scan_log,
)
from staticconsumer.roster import _reader as reader_module

GROUP, TOPIC = "orders", "_rosters"
OLD = Roster.create(GROUP, ["orders-4"], now_ms=1_000, wait_ms=60_000)
NEW = Roster.create(GROUP, ["orders-4", "orders-5"], now_ms=2_000, wait_ms=60_000)


def reader() -> RosterReader:
    made = roster_reader(TOPIC, GROUP, {"bootstrap_servers": "b:9092", "group_id": GROUP,
                                        "sasl_plain_username": "app"})  # fmt: skip
    assert made is not None
    return made


def answering(log: PartitionLog, asked: list[str] | None = None):  # type: ignore[no-untyped-def]
    async def read_log(topic: str) -> PartitionLog:
        if asked is not None:
            asked.append(topic)
        return log

    return read_log


def test_no_roster_topic_or_no_group_means_no_reader_at_all() -> None:
    assert roster_reader(None, GROUP, {}) is None
    assert roster_reader(TOPIC, None, {}) is None
    assert roster_reader(TOPIC, "", {}) is None


async def test_the_last_value_under_the_group_wins_and_reads_the_roster_topic() -> None:
    asked: list[str] = []
    log = PartitionLog(0, ((GROUP.encode(), OLD.to_json()), (b"other", b"{}"),
                           (GROUP.encode(), NEW.to_json())))  # fmt: skip
    assert await reader().read(answering(log, asked)) == (NEW, {})
    assert asked == [TOPIC]


async def test_a_tombstone_deletes_the_roster() -> None:
    log = PartitionLog(0, ((GROUP.encode(), OLD.to_json()), (GROUP.encode(), None)))
    assert await reader().read(answering(log)) == (None, {})


async def test_arrivals_are_read_beside_the_roster_for_the_barrier_only() -> None:
    arrival = (arrival_key(GROUP, "orders-5"), arrival_value(GROUP, "orders-5", 2_500))
    bad = (arrival_key(GROUP, "orders-6"), b'{"version": 9}')
    log = PartitionLog(0, ((GROUP.encode(), NEW.to_json()), arrival))
    assert await reader().read(answering(log)) == (NEW, {"orders-5": 2_500})
    leader = reader().source(answering(PartitionLog(0, (*log.records, bad))))
    assert await leader() == NEW, "the leader never looks at arrivals"
    with pytest.raises(RosterUnreadableError, match="not version 1"):
        await reader().read(answering(PartitionLog(0, (*log.records, bad))))


async def test_no_topic_is_no_roster() -> None:
    assert await reader().read(answering(PartitionLog(3))) == (None, {})


async def test_a_missing_acl_is_a_roster_authorization_error_naming_the_principal() -> None:
    with pytest.raises(RosterAuthorizationError) as caught:
        await reader().read(answering(PartitionLog(29)))
    assert caught.value.topic == TOPIC and caught.value.error_name == "TOPIC_AUTHORIZATION_FAILED"
    assert "'app'" in str(caught.value)


async def test_another_error_code_is_unreadable_with_its_name() -> None:
    with pytest.raises(RosterUnreadableError) as caught:
        await reader().read(answering(PartitionLog(5)))
    assert not isinstance(caught.value, RosterAuthorizationError)
    assert caught.value.error_name == "LEADER_NOT_AVAILABLE"


async def test_a_newer_format_is_unreadable_with_the_format_error_as_cause() -> None:
    newer = b'{"version": 99, "group_id": "orders"}'
    with pytest.raises(RosterUnreadableError) as caught:
        await reader().read(answering(PartitionLog(0, ((GROUP.encode(), newer),))))
    assert isinstance(caught.value.__cause__, RosterFormatError)


async def test_no_answer_in_time_is_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_module, "ROSTER_READ_TIMEOUT_S", 0.01)

    async def silent(topic: str) -> PartitionLog:
        await asyncio.sleep(5)
        raise AssertionError("unreachable")

    with pytest.raises(RosterUnreadableError, match=r"no answer in 0.01s"):
        await reader().read(silent)


async def test_a_lost_connection_is_unreadable_with_the_cause_kept() -> None:
    async def lost(topic: str) -> PartitionLog:
        raise KafkaConnectionError("Unable to connect to b:9092")

    with pytest.raises(RosterUnreadableError, match="Unable to connect") as caught:
        await reader().read(lost)
    assert isinstance(caught.value.__cause__, KafkaConnectionError)


def test_scan_log_reads_records_oldest_first() -> None:
    records = [(GROUP.encode(), NEW.to_json()), (b"orders-x", OLD.to_json()), (None, b"x")]
    assert scan_log(records, GROUP) == (NEW, {})
    assert scan_log([], GROUP) == (None, {})
