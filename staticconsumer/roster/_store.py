"""Reading and writing rosters in their compacted topic from the admin's side (the record format
is :mod:`._record`; a *member* reads with its own client, :mod:`._reader`).

* Reading (:func:`read_roster`, the admin's bounded read): the member's read (:mod:`._reader`:
  partition 0 from the log start to the high watermark, the last value under the group's key
  wins, a tombstone deletes; the same typed errors) on an admin client. Bounded by a timeout.
  No topic → no roster (None); anything else that stops the read →
  :class:`~staticconsumer.errors.RosterUnreadableError` (a missing ACL:
  :class:`~staticconsumer.errors.RosterAuthorizationError`).
* Writing: the topic is created on first use (``cleanup.policy=compact``, 1 partition,
  replication factor ``min(3, brokers)``; TOPIC_ALREADY_EXISTS is fine), then one record is
  produced with ``acks=all`` by an idempotent producer. A registered member at the join barrier
  writes its arrival the same way (:func:`write_arrival`): a write needs a producer, and only a
  member configured for pre-registration, registered and new to its group, ever writes one.

Internal: the public faces are :mod:`staticconsumer.roster` and :mod:`staticconsumer.admin`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import aiokafka.errors as Errors
from aiokafka import AIOKafkaProducer

from .._admin.client import open_client
from .._compat import close_client
from .._compat.auth import who
from .._compat.roster import (
    broker_count,
    create_topic,
    prepare_security_logs,
    read_partition_log,
    topic_error_code,
)
from ..errors import GroupAdminError, RosterUnreadableError, StaticConsumerError
from ..protocol import ErrorCode, error_name
from ..security import SecuritySettings
from ._barrier import arrival_key, arrival_value
from ._reader import RosterReader, _denied, _unreadable
from ._record import DEFAULT_ROSTER_TOPIC, Roster, check_roster_topic

log = logging.getLogger(__name__)

#: The default bound on one roster read (the leader reads while it plans an assignment).
DEFAULT_READ_TIMEOUT_S = 2.0
_TOPIC_ALREADY_EXISTS = 36
_CLIENT_ID = "staticconsumer-roster"
_ARRIVAL_CLIENT_ID = "staticconsumer-roster-barrier"


@asynccontextmanager
async def roster_client(
    bootstrap_servers: str | list[str], settings: SecuritySettings, timeout_s: float
) -> AsyncIterator[Any]:
    """A bootstrapped admin client, closed on exit. A refused login is an AuthenticationError;
    an unreachable cluster a GroupAdminError (``_admin.client.open_client``)."""
    prepare_security_logs(settings.aiokafka_kwargs())
    client = await open_client(bootstrap_servers, timeout_s, settings)
    try:
        yield client
    finally:
        await close_client(client)


async def topic_exists(client: Any, group_id: str, topic: str, principal: str) -> bool:
    """Whether the roster topic exists; a missing DESCRIBE ACL or another error raises."""
    code = await topic_error_code(client, topic)
    if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        return False
    if code == ErrorCode.TOPIC_AUTHORIZATION_FAILED:
        raise _denied(group_id, topic, "reading", error_name(code), principal)
    if code != ErrorCode.NONE:
        name = error_name(code)
        raise _unreadable(group_id, topic, f"Metadata answered {name}", name)
    return True


async def read_with(
    client: Any, group_id: str, topic: str, principal: str, timeout_s: float
) -> Roster | None:
    """:func:`read_roster` with a bootstrapped client: the member's read (:mod:`._reader`, the
    same log read and the same typed errors) on the admin's client."""
    reader = RosterReader(group_id, topic, {}, principal)
    roster, _ = await reader.read(
        partial(read_partition_log, client), arrivals=False, timeout_s=timeout_s
    )
    return roster


async def read_roster(
    bootstrap_servers: str | list[str],
    group_id: str,
    *,
    security: SecuritySettings | None = None,
    roster_topic: str = DEFAULT_ROSTER_TOPIC,
    timeout_s: float = DEFAULT_READ_TIMEOUT_S,
) -> Roster | None:
    """``group_id``'s roster, or None when it has none (no roster topic, no record, or a
    tombstone). Everything is bounded by ``timeout_s`` (connecting included).

    Raises :class:`~staticconsumer.errors.RosterUnreadableError` for anything else: the read did
    not finish in time, the cluster could not be reached or refused the login, the record is not
    a roster this version reads (a newer ``version``: the RosterFormatError is its
    ``__cause__``), or the principal lacks DESCRIBE/READ on the topic
    (:class:`~staticconsumer.errors.RosterAuthorizationError`). A member treats it as "no
    roster" and logs a WARNING: a roster nobody can read never blocks a group.
    """
    check_roster_topic(roster_topic)
    settings = security if security is not None else SecuritySettings()
    principal = who(settings)

    async def read() -> Roster | None:
        async with roster_client(bootstrap_servers, settings, timeout_s) as client:
            return await read_with(client, group_id, roster_topic, principal, timeout_s)

    try:
        return await asyncio.wait_for(read(), timeout_s)
    except TimeoutError:
        raise _unreadable(group_id, roster_topic, f"no answer in {timeout_s:g}s") from None
    except RosterUnreadableError:
        raise
    except (StaticConsumerError, Errors.KafkaError) as exc:
        raise _unreadable(group_id, roster_topic, str(exc) or type(exc).__name__) from exc


async def ensure_topic(
    client: Any, group_id: str, topic: str, timeout_s: float, principal: str
) -> None:
    """Create the compacted roster topic unless it exists (TOPIC_ALREADY_EXISTS is fine)."""
    code = await topic_error_code(client, topic)
    if code == ErrorCode.NONE:
        return
    if code != ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
        raise _topic_error(group_id, topic, "describing", code, None, principal)
    replicas = min(3, broker_count(client))
    code, message = await create_topic(
        client, topic, partitions=1, replication_factor=replicas,
        configs={"cleanup.policy": "compact"}, timeout_ms=int(timeout_s * 1000),
    )  # fmt: skip
    if code not in (ErrorCode.NONE, _TOPIC_ALREADY_EXISTS):
        raise _topic_error(group_id, topic, "creating the topic for", code, message, principal)
    log.info("created roster topic %r (compacted, replication factor %d)", topic, replicas)


def _topic_error(
    group_id: str, topic: str, what: str, code: int, message: str | None, principal: str
) -> GroupAdminError:
    name = error_name(code)
    if code in (ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED):
        return _denied(group_id, topic, what, name, principal)
    detail = f": {message}" if message else ""
    return GroupAdminError(
        f"{what} the roster of group {group_id!r} in topic {topic!r} failed: {name}{detail}"
    )


async def write_value(
    bootstrap_servers: str | list[str], settings: SecuritySettings, topic: str, group_id: str,
    value: bytes | None, timeout_s: float,
) -> None:  # fmt: skip
    """Produce ``value`` (None: a tombstone) under ``group_id`` with acks=all, idempotent."""
    kwargs = settings.aiokafka_kwargs()
    prepare_security_logs(kwargs)
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap_servers, client_id=_CLIENT_ID, acks="all",
        enable_idempotence=True, request_timeout_ms=max(1, int(timeout_s * 1000)), **kwargs,
    )  # fmt: skip
    try:
        await producer.start()
        await asyncio.wait_for(
            producer.send_and_wait(topic, value, key=group_id.encode(), partition=0), timeout_s
        )
    except TimeoutError:
        raise GroupAdminError(
            f"writing the roster of group {group_id!r} to topic {topic!r}: no answer in "
            f"{timeout_s:g}s"
        ) from None
    except (Errors.TopicAuthorizationFailedError, Errors.ClusterAuthorizationFailedError) as exc:
        name = "TOPIC_AUTHORIZATION_FAILED"
        if isinstance(exc, Errors.ClusterAuthorizationFailedError):
            name = "CLUSTER_AUTHORIZATION_FAILED"
        raise _denied(group_id, topic, "writing", name, who(settings)) from None
    except Errors.KafkaError as exc:
        raise GroupAdminError(
            f"writing the roster of group {group_id!r} to topic {topic!r} failed: {exc!r}"
        ) from exc
    finally:
        await producer.stop()


async def write_arrival(
    client_kwargs: Mapping[str, Any], principal: str, group_id: str, instance_id: str,
    topic: str, arrived_at_ms: int, timeout_s: float,
) -> None:  # fmt: skip
    """Produce ``instance_id``'s arrival in ``group_id`` (acks=all), bounded by ``timeout_s``."""
    kwargs = dict(client_kwargs)
    prepare_security_logs(kwargs)
    kwargs.update(client_id=_ARRIVAL_CLIENT_ID, acks="all",
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
