"""The roster barrier's records (``membership._barrier``): reading a group's roster and its
members' arrivals in one pass over the roster topic, and writing an arrival.

Both run on a consumer the caller started (``roster_store.client_consumer``) with the member's own
cluster and security settings; a member needs DESCRIBE and READ on the roster topic to read, and
WRITE to arrive (``docs/scaling.md``). Errors are the roster reader's:
:class:`~staticconsumer.errors.RosterUnreadableError`, :class:`~staticconsumer.errors.
RosterAuthorizationError`. Internal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import aiokafka.errors as Errors
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from .._compat.roster import prepare_security_logs
from ..errors import RosterFormatError
from ..membership import Roster, arrival_key, arrival_value, read_arrival
from .roster_store import _denied, _unreadable, scan_records, topic_exists

_CLIENT_ID = "staticconsumer-roster-barrier"


async def read_roster_and_arrivals(
    consumer: AIOKafkaConsumer, group_id: str, topic: str, principal: str
) -> tuple[Roster | None, dict[str, int]]:
    """``group_id``'s roster (None: none) and its arrivals (instance id -> arrived_at_ms), read
    from the log start of partition 0 to its high watermark (not bounded here)."""
    if not await topic_exists(consumer, group_id, topic, principal):
        return None, {}
    roster_key = group_id.encode()
    value: bytes | None = None
    arrivals: dict[str, int] = {}
    try:
        async for record in scan_records(consumer, topic):
            if record.key == roster_key:
                value = record.value
                continue
            arrival = read_arrival(record.key, record.value, group_id)
            if arrival is not None:
                arrivals[arrival[0]] = arrival[1]
    except Errors.TopicAuthorizationFailedError:
        raise _denied(group_id, topic, "reading", "TOPIC_AUTHORIZATION_FAILED", principal) from None
    except RosterFormatError as exc:
        raise _unreadable(group_id, topic, str(exc)) from exc
    if value is None:
        return None, arrivals
    try:
        return Roster.from_json(value, group_id=group_id), arrivals
    except RosterFormatError as exc:
        raise _unreadable(group_id, topic, str(exc)) from exc


async def write_arrival(
    client_kwargs: Mapping[str, Any], principal: str, group_id: str, instance_id: str,
    topic: str, arrived_at_ms: int, timeout_s: float,
) -> None:  # fmt: skip
    """Produce ``instance_id``'s arrival in ``group_id`` (acks=all), bounded by ``timeout_s``."""
    kwargs = dict(client_kwargs)
    prepare_security_logs(kwargs)
    kwargs.update(client_id=_CLIENT_ID, acks="all",
                  request_timeout_ms=max(1, int(timeout_s * 1000)))  # fmt: skip
    producer = AIOKafkaProducer(**kwargs)
    try:
        async with asyncio.timeout(timeout_s):
            await producer.start()
            await producer.send_and_wait(
                topic, arrival_value(group_id, instance_id, arrived_at_ms),
                key=arrival_key(group_id, instance_id), partition=0,
            )  # fmt: skip
    except TimeoutError:
        why = f"writing an arrival: no answer in {timeout_s:g}s"
        raise _unreadable(group_id, topic, why) from None
    except (Errors.TopicAuthorizationFailedError, Errors.ClusterAuthorizationFailedError):
        raise _denied(
            group_id, topic, "writing an arrival to", "TOPIC_AUTHORIZATION_FAILED", principal
        ) from None
    finally:
        await producer.stop()
