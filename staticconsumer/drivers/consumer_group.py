"""The consumer group protocol's sender (``group_protocol="consumer"``, KIP-848): the heartbeat,
the names of topics by id (Metadata v12, KIP-516; aiokafka's metadata has no ids), and the
takeover of a stale instance id. It feeds the answers back to
:class:`~staticconsumer.membership._consumer_group.ConsumerGroupMember`, which decides the rest.

:func:`consumer_group_driver` builds the :class:`~.driver.Driver` that holds this sender and its
engine; every version it sends was chosen by ``protocol.negotiate``
(:meth:`~staticconsumer.protocol.GroupApiVersions.for_consumer_protocol`).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import uuid
from collections.abc import Iterable, Sequence
from typing import assert_never

from .. import _compat
from .._error_map import fatal_error, fenced_error
from .._observability.emitter import EventEmitter
from .._observability.metrics import ConsumerMetrics
from ..errors import StaticConsumerError
from ..events import InstanceFenced
from ..membership import (
    ADMIN_REMOVE_REASON,
    Api,
    BecomeFatal,
    ConsumerGroupAction,
    ConsumerGroupConfig,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupHeartbeatFailed,
    ConsumerGroupMember,
    ConsumerGroupSenderAction,
    Emit,
    LogIdentity,
    Partitions,
    Revoke,
    SendConsumerGroupHeartbeat,
    TakeOver,
)
from ..options import ConsumerOptions
from ..protocol import (
    ErrorCode,
    GroupApiVersions,
    MemberIdentity,
    TopicIdPartitions,
    build_consumer_group_heartbeat,
    build_leave_group,
    build_metadata,
    error_name,
    parse_consumer_group_heartbeat,
    parse_leave_group,
    parse_metadata,
)
from .driver import Driver, FatalCallback
from .fence_diagnosis import consumer_group_holder

log = logging.getLogger(__name__)


def new_member_id() -> str:
    """A member id made by the client (KIP-1082), in the form Kafka prints a Uuid."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


def consumer_group_driver(
    seam: _compat.ClientSeam, versions: GroupApiVersions, options: ConsumerOptions, *,
    on_fatal: FatalCallback, events: EventEmitter | None,
    metrics: ConsumerMetrics | None = None,
) -> Driver[ConsumerGroupSenderAction]:  # fmt: skip
    """A driver holding a :class:`ConsumerGroupMember` and its :class:`ConsumerGroupSender`,
    built from the consumer's options value;
    :class:`~staticconsumer.errors.UnsupportedBrokerError` for a broker that cannot serve a
    consumer-protocol member."""
    chosen = versions.for_consumer_protocol()
    engine = ConsumerGroupMember(ConsumerGroupConfig.of(options, new_member_id()))

    def sender(driver: Driver[ConsumerGroupSenderAction]) -> ConsumerGroupSender:
        return ConsumerGroupSender(
            driver, engine, heartbeat_version=chosen.consumer_group_heartbeat,
            metadata_version=chosen.metadata,
        )  # fmt: skip

    return Driver[ConsumerGroupSenderAction](engine, sender, seam, versions, options,
                                             on_fatal=on_fatal, events=events,
                                             metrics=metrics)  # fmt: skip


class ConsumerGroupSender:
    """Performs the KIP-848 engine's sends (module docstring)."""

    def __init__(
        self, driver: Driver[ConsumerGroupSenderAction], engine: ConsumerGroupMember, *,
        heartbeat_version: int, metadata_version: int,
    ) -> None:  # fmt: skip
        self._driver = driver
        self._engine = engine
        self._log = engine.identity.logger(log)
        self._seam = driver.seam
        self._heartbeat_version = heartbeat_version
        self._topics = TopicIds(driver, metadata_version, engine.identity)

    @property
    def is_leader(self) -> bool:
        return False  # the coordinator assigns (KIP-848): no member leads

    async def perform(self, action: ConsumerGroupSenderAction) -> Sequence[ConsumerGroupAction]:
        """Perform one of the KIP-848 engine's sends (``mypy --strict`` proves each has its
        case); the actions the answer calls for."""
        match action:
            case SendConsumerGroupHeartbeat():
                return await self._heartbeat(action)
            case TakeOver():
                await self._take_over(action)
                return []
            case _:
                assert_never(action)

    # -- what the driver asks of the protocol ------------------------------------------------------

    def stops_fetching(self, action: Revoke) -> bool:
        return action.lost

    def after_revoke(self, action: Revoke) -> None:
        """Lost partitions also leave the fetcher's assignment at once (the member owns nothing
        until the coordinator assigns again)."""
        if action.lost:
            self._seam.assign(())

    def enforce_rebalance(self, reason: str) -> None:
        """The consumer protocol has no rebalance a member can trigger: the coordinator alone
        decides assignments. Java's consumer logs "Operation not supported in new consumer group
        protocol" and returns; so does this one, naming the reason and the way out."""
        self._log.warning(
            "enforce_rebalance(%r) is not supported by group_protocol='consumer' "
            "(KIP-848: the coordinator assigns, no member can trigger a rebalance); nothing "
            "happens. Use group_protocol='classic' to force rebalances", reason,
        )  # fmt: skip

    def on_metadata_change(self) -> None:
        """A pattern subscription may match other topics now: the loop sends them."""
        self._driver.wake()

    def subscription_changed(self) -> None:
        """The next heartbeat carries the new subscription (the engine compares it)."""

    async def before_poll(self) -> bool:
        """Nothing: a heartbeat carries the subscription whenever it changes (no join)."""
        return False

    # -- the heartbeat ----------------------------------------------------------------------------

    async def _heartbeat(self, action: SendConsumerGroupHeartbeat) -> list[ConsumerGroupAction]:
        cfg, options = self._engine.config, self._driver.options
        loop = asyncio.get_running_loop()
        sent_at = self._driver.metrics.now()
        try:
            owned = None if action.owned is None else await self._topics.by_id(action.owned)
            request = build_consumer_group_heartbeat(
                self._heartbeat_version, group_id=cfg.group_id, member_id=cfg.member_id,
                member_epoch=action.member_epoch, instance_id=cfg.group_instance_id,
                rack_id=options.client_rack if action.full else None,
                # Java sends max.poll.interval.ms as the rebalance timeout
                rebalance_timeout_ms=options.max_poll_interval_ms if action.full else -1,
                subscribed_topic_names=action.topics,
                server_assignor=options.group_remote_assignor if action.full else None,
                owned=owned,
            )  # fmt: skip
            result = parse_consumer_group_heartbeat(await self._driver.to_coordinator(request))
            assignment = None
            if result.assignment is not None and result.error_code == ErrorCode.NONE:
                assignment = await self._topics.by_name(result.assignment)
        except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
            raise
        except _compat.KafkaError as exc:
            self._log.warning("ConsumerGroupHeartbeat to the coordinator failed: %r", exc)
            self._driver.metrics.answered(Api.CONSUMER_GROUP_HEARTBEAT, sent_at, None)
            return list(self._engine.handle(ConsumerGroupHeartbeatFailed(loop.time())))
        self._driver.metrics.answered(Api.CONSUMER_GROUP_HEARTBEAT, sent_at, result.error_code)
        if result.error_code != ErrorCode.NONE and result.error_message:
            self._log.info("ConsumerGroupHeartbeat: %s (%s)", error_name(result.error_code),
                           result.error_message)  # fmt: skip
        return list(self._engine.handle(ConsumerGroupHeartbeatAnswered(
            result.error_code, loop.time(), result.member_epoch, result.heartbeat_interval_ms,
            assignment,
        )))  # fmt: skip

    # -- takeover, fatal errors -------------------------------------------------------------------

    async def _take_over(self, action: TakeOver) -> None:
        """Remove the stale holder of our instance id (LeaveGroup by instance id, as an admin's
        ``remove_members``); the next heartbeat joins in its place."""
        cfg = self._engine.config
        request = build_leave_group(
            self._driver.versions.leave_group, group_id=cfg.group_id,
            members=[MemberIdentity("", action.group_instance_id,
                                    f"{ADMIN_REMOVE_REASON}: takeover by a replacement")],
        )  # fmt: skip
        try:
            result = parse_leave_group(await self._driver.to_coordinator(request))
        except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
            raise
        except _compat.KafkaError as exc:
            self._log.warning("removing the stale holder of instance id %s got no answer: %r",
                              action.group_instance_id, exc)  # fmt: skip
            return
        codes = [result.error_code, *(m.error_code for m in result.members)]
        code = next((c for c in codes if c), ErrorCode.NONE)
        self._log.warning("takeover removed the previous holder of instance id %s: %s",
                          action.group_instance_id, error_name(code))  # fmt: skip

    async def fatal_error(self, action: BecomeFatal) -> StaticConsumerError:
        """The error for the engine's fatal verdict; a fence names the member holding our
        instance id now (best effort)."""
        engine = self._engine
        if not action.fenced:
            return fatal_error(self._driver.context(), action.api.value, action.error_code)
        holder = await consumer_group_holder(self._seam, self._driver.versions, engine)
        fields = {"api": action.api.value, "other_holder": holder and holder[0]}
        self._driver.emit(Emit(InstanceFenced, engine.member_id, engine.member_epoch, fields))
        return fenced_error(self._driver.context(), action.api.value, holder and holder[1])


class TopicIds:
    """Topic names by id and ids by name (KIP-516), learnt from Metadata v12 on the coordinator
    connection (aiokafka's metadata has no ids)."""

    def __init__(
        self, driver: Driver[ConsumerGroupSenderAction], metadata_version: int,
        identity: LogIdentity,
    ) -> None:  # fmt: skip
        self._driver = driver
        self._metadata_version = metadata_version
        self._log = identity.logger(log)
        self._ids: dict[str, uuid.UUID] = {}
        self._names: dict[uuid.UUID, str] = {}

    async def by_id(self, partitions: Partitions) -> list[TopicIdPartitions]:
        topics: dict[str, list[int]] = {}
        for topic, partition in partitions:
            topics.setdefault(topic, []).append(partition)
        missing = [t for t in topics if t not in self._ids]
        if missing:
            await self._resolve(missing)
        return [TopicIdPartitions(self._ids[t], tuple(ps))
                for t, ps in topics.items() if t in self._ids]  # fmt: skip

    async def by_name(self, assignment: Iterable[TopicIdPartitions]) -> Partitions:
        assignment = tuple(assignment)
        if any(t.topic_id not in self._names for t in assignment):
            current = self._driver.seam.current_subscription()
            await self._resolve(sorted(current.topics) if current is not None else None)
        if any(t.topic_id not in self._names for t in assignment):
            await self._resolve(None)  # a topic outside the subscription: ask for all
        unknown = [str(t.topic_id) for t in assignment if t.topic_id not in self._names]
        if unknown:
            self._log.error("the coordinator assigned topics no broker names (ids %s): they are "
                            "left out", unknown)  # fmt: skip
        return tuple((self._names[t.topic_id], p) for t in assignment
                     if t.topic_id in self._names for p in t.partitions)  # fmt: skip

    async def _resolve(self, topics: list[str] | None) -> None:
        """Learn topic ids from Metadata v12/v13 (aiokafka's metadata has none). v13's top-level
        error goes to the client: REBOOTSTRAP_REQUIRED makes it go back to its bootstrap
        servers (KIP-1102)."""
        request = build_metadata(self._metadata_version, topics)
        result = parse_metadata(await self._driver.to_coordinator(request))
        if result.error_code != ErrorCode.NONE:
            self._log.warning("Metadata answered %s", error_name(result.error_code))
            self._driver.seam.request_rebootstrap(result.error_code)
        for topic in result.topics:
            if topic.error_code == ErrorCode.NONE and topic.name and topic.topic_id.int:
                self._ids[topic.name] = topic.topic_id
                self._names[topic.topic_id] = topic.name
