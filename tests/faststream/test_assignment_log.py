"""AssignmentLog logs what FastStream's logging listener logs, through FastStream's logger with
the subscriber's context, each line naming the instance id; its second warning is a task the
consumer's stop ends."""

from __future__ import annotations

import asyncio
import logging
from unittest import mock

import pytest
from aiokafka.structs import TopicPartition

from staticconsumer.faststream import ServiceConsumer
from staticconsumer.faststream._assignment_log import AssignmentLog
from staticconsumer.faststream._seam import ListenerLog

EXTRA = {"topic": "orders", "group_id": "ship"}


def _consumer() -> ServiceConsumer:
    return ServiceConsumer("orders", group_id="ship", group_instance_id="svc-0-ship-orders-3",
                           report=lambda error: None, start_wait_s=None)  # fmt: skip


def _lines(logger: mock.Mock, level: int) -> list[str]:
    return [c.args[1] for c in logger.log.call_args_list if c.args[0] == level]


async def test_an_assignment_is_logged_with_the_instance_id_and_the_users_listener_runs() -> None:
    logger, user = mock.Mock(), mock.AsyncMock()
    consumer = _consumer()
    listener = AssignmentLog(consumer, user, ListenerLog(logger, EXTRA, 120))
    await listener.on_partitions_assigned({TopicPartition("orders", 1)})
    (line,) = _lines(logger, logging.INFO)
    assert "(group.instance.id svc-0-ship-orders-3) assigned to partitions" in line
    assert all(c.kwargs == {"extra": EXTRA} for c in logger.log.call_args_list)
    assert _lines(logger, logging.WARNING) == []
    user.on_partitions_assigned.assert_awaited_once()
    await consumer.stop()


async def test_a_worker_without_partitions_is_warned_of_twice_as_faststream_does() -> None:
    logger = mock.Mock()
    consumer = _consumer()
    listener = AssignmentLog(consumer, None, ListenerLog(logger, EXTRA, 0))
    await listener.on_partitions_assigned(set())  # 3 workers, 2 partitions: one gets none
    await asyncio.sleep(0.01)
    first, second = _lines(logger, logging.WARNING)
    assert "Consumer in group ship has no partition assignments" in first
    assert "has had no partition assignments for 0 seconds" in second
    assert "svc-0-ship-orders-3" in second
    await consumer.stop()


@pytest.mark.parametrize("end", ["partitions came", "the consumer stopped"])
async def test_the_second_warning_ends_with_partitions_or_the_stop(end: str) -> None:
    logger = mock.Mock()
    consumer = _consumer()
    where = ListenerLog(logger, EXTRA, 0.2)
    listener = AssignmentLog(consumer, None, where)
    consumer._assignment_log = listener  # as subscribe() does with FastStream's listener
    await listener.on_partitions_assigned(set())
    if end == "partitions came":
        await listener.on_partitions_assigned({TopicPartition("orders", 0)})
    await consumer.stop()
    await asyncio.sleep(0.3)
    assert len(_lines(logger, logging.WARNING)) == 1, _lines(logger, logging.WARNING)
