"""The consumer-protocol driver (``group_protocol="consumer"``, KIP-848): performs what
:class:`~staticconsumer.membership._consumer_group.ConsumerGroupMember` asks over aiokafka's
connections and feeds the answers back. The shared part (partitions to and from the application,
the fatal path, commits) is ``_driver_base`` and ``_offsets``; this module adds the heartbeat,
the names of topics by id (Metadata v12, KIP-516), and the takeover of a stale instance id.

One coordination task per consumer: find the coordinator, heartbeat when the engine says one is
due (at once for a join, an acknowledgement or a new subscription, else at the interval the
coordinator sent), auto-commit on its interval, sleep until the next of those or a wake-up.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import uuid
from collections.abc import Iterable
from typing import Any

from typing_extensions import override

from .. import _compat
from .._error_map import fenced_error
from ..errors import StaticConsumerError
from ..events import InstanceFenced
from ..membership import BecomeFatal, Emit, MembershipState, Partitions, Revoke
from ..membership._consumer_group import (
    ConsumerGroupConfig,
    ConsumerGroupHeartbeatAnswered,
    ConsumerGroupMember,
    SendConsumerGroupHeartbeat,
    TakeOver,
    consumer_group_state,
)
from ..membership._reasons import ADMIN_REMOVE_REASON
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
from ._base import DriverBase
from .fence_diagnosis import consumer_group_holder

log = logging.getLogger("staticconsumer")


def new_member_id() -> str:
    """A member id made by the client (KIP-1082), in the form Kafka prints a Uuid."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


def consumer_group_versions(versions: GroupApiVersions) -> tuple[int, int]:
    """(ConsumerGroupHeartbeat, Metadata) versions to send; :class:`UnsupportedBrokerError` for a
    broker that cannot serve a consumer-protocol member (``protocol.versions`` has the rules)."""
    chosen = versions.for_consumer_protocol()
    return chosen.consumer_group_heartbeat, chosen.metadata


class ConsumerGroupDriver(DriverBase):
    """Drives one :class:`ConsumerGroupMember` (module docstring)."""

    member: ConsumerGroupMember

    def __init__(
        self, seam: _compat.ClientSeam, versions: GroupApiVersions, *, group_id: str,
        group_instance_id: str | None, client_rack: str | None, server_assignor: str | None,
        max_poll_interval_ms: int, takeover: bool, unreleased_wait_ms: int, **common: Any,
    ) -> None:  # fmt: skip
        self._heartbeat_version, self._metadata_version = consumer_group_versions(versions)
        member = ConsumerGroupMember(ConsumerGroupConfig(
            group_id, new_member_id(), group_instance_id,
            rebalance_timeout_ms=max_poll_interval_ms, server_assignor=server_assignor,
            rack_id=client_rack, unreleased_wait_ms=unreleased_wait_ms,
            max_poll_interval_ms=max_poll_interval_ms, takeover=takeover,
        ))  # fmt: skip
        self._topic_ids: dict[str, uuid.UUID] = {}
        self._topic_names: dict[uuid.UUID, str] = {}
        super().__init__(member, seam, versions, **common)

    @property
    def is_leader(self) -> bool:
        return False  # the coordinator assigns (KIP-848): no member leads

    def membership_state(self) -> MembershipState:
        if self._loop_failed():
            return MembershipState.FAILED
        current = self.seam.current_subscription()
        return consumer_group_state(
            self.member.state,
            subscribed=current is not None and current.active and self.seam.auto_assigned(),
            handing_over=self._handing_over, fenced=self._fenced,
        )  # fmt: skip

    @override
    def _coordinator_found(self, node_id: int) -> None:
        self.member.coordinator_found(node_id)

    def on_metadata_change(self) -> None:
        """A pattern subscription may match other topics now: the loop sends them."""
        self._wake.set()

    def enforce_rebalance(self, reason: str) -> None:
        """The consumer protocol has no rebalance a member can trigger: the coordinator alone
        decides assignments. Java's consumer logs "Operation not supported in new consumer group
        protocol" and returns; so does this one, naming the reason and the way out."""
        log.warning(
            "group %s: enforce_rebalance(%r) is not supported by group_protocol='consumer' "
            "(KIP-848: the coordinator assigns, no member can trigger a rebalance); nothing "
            "happens. Use group_protocol='classic' to force rebalances",
            self.member.config.group_id, reason,
        )  # fmt: skip

    # -- the coordination loop --------------------------------------------------------------------

    @override
    def _poll_engine(self, now: float, topics: Any) -> list[Any]:
        return list(self.member.poll(now, topics, self.seam.idle_seconds()))

    @override
    async def _perform(self, action: Any) -> list[Any]:
        if isinstance(action, SendConsumerGroupHeartbeat):
            return await self._heartbeat(action)
        if isinstance(action, TakeOver):
            await self._take_over(action)
            return []
        return await super()._perform(action)

    @override
    async def _revoke(self, action: Revoke) -> None:
        """As every driver; lost partitions also leave the fetcher's assignment at once (the
        member owns nothing until the coordinator assigns again)."""
        await super()._revoke(action)
        if action.lost:
            self.seam.assign(())

    # -- the heartbeat ----------------------------------------------------------------------------

    async def _heartbeat(self, action: SendConsumerGroupHeartbeat) -> list[Any]:
        cfg = self.member.config
        loop = asyncio.get_running_loop()
        try:
            owned = None if action.owned is None else await self._by_id(action.owned)
            request = build_consumer_group_heartbeat(
                self._heartbeat_version, group_id=cfg.group_id, member_id=cfg.member_id,
                member_epoch=action.member_epoch, instance_id=cfg.group_instance_id,
                rack_id=cfg.rack_id if action.full else None,
                rebalance_timeout_ms=cfg.rebalance_timeout_ms if action.full else -1,
                subscribed_topic_names=action.topics,
                server_assignor=cfg.server_assignor if action.full else None, owned=owned,
            )  # fmt: skip
            result = parse_consumer_group_heartbeat(await self.to_coordinator(request))
            assignment = None
            if result.assignment is not None and result.error_code == ErrorCode.NONE:
                assignment = await self._by_name(result.assignment)
        except _compat.KafkaError as exc:
            log.warning("ConsumerGroupHeartbeat to the coordinator failed: %r", exc)
            return list(self.member.no_answer(loop.time()))
        if result.error_code != ErrorCode.NONE and result.error_message:
            log.info("ConsumerGroupHeartbeat for group %s: %s (%s)", cfg.group_id,
                     error_name(result.error_code), result.error_message)  # fmt: skip
        return list(self.member.handle(ConsumerGroupHeartbeatAnswered(
            result.error_code, loop.time(), result.member_epoch, result.heartbeat_interval_ms,
            assignment,
        )))  # fmt: skip

    # -- topic ids (KIP-516) ----------------------------------------------------------------------

    async def _by_id(self, partitions: Partitions) -> list[TopicIdPartitions]:
        topics: dict[str, list[int]] = {}
        for topic, partition in partitions:
            topics.setdefault(topic, []).append(partition)
        missing = [t for t in topics if t not in self._topic_ids]
        if missing:
            await self._resolve(missing)
        return [TopicIdPartitions(self._topic_ids[t], tuple(ps))
                for t, ps in topics.items() if t in self._topic_ids]  # fmt: skip

    async def _by_name(self, assignment: Iterable[TopicIdPartitions]) -> Partitions:
        assignment = tuple(assignment)
        if any(t.topic_id not in self._topic_names for t in assignment):
            current = self.seam.current_subscription()
            await self._resolve(sorted(current.topics) if current is not None else None)
        if any(t.topic_id not in self._topic_names for t in assignment):
            await self._resolve(None)  # a topic outside the subscription: ask for all
        unknown = [str(t.topic_id) for t in assignment if t.topic_id not in self._topic_names]
        if unknown:
            log.error("group %s: the coordinator assigned topics no broker names (ids %s): "
                      "they are left out", self.member.config.group_id, unknown)  # fmt: skip
        return tuple((self._topic_names[t.topic_id], p) for t in assignment
                     if t.topic_id in self._topic_names for p in t.partitions)  # fmt: skip

    async def _resolve(self, topics: list[str] | None) -> None:
        """Learn topic ids from Metadata v12 (aiokafka's metadata has none)."""
        request = build_metadata(self._metadata_version, topics)
        result = parse_metadata(await self.to_coordinator(request))
        for topic in result.topics:
            if topic.error_code == ErrorCode.NONE and topic.name and topic.topic_id.int:
                self._topic_ids[topic.name] = topic.topic_id
                self._topic_names[topic.topic_id] = topic.name

    # -- takeover, fatal errors, the end ----------------------------------------------------------

    async def _take_over(self, action: TakeOver) -> None:
        """Remove the stale holder of our instance id (LeaveGroup by instance id, as an admin's
        ``remove_members``); the next heartbeat joins in its place."""
        cfg = self.member.config
        request = build_leave_group(
            self.versions.leave_group, group_id=cfg.group_id,
            members=[MemberIdentity("", action.group_instance_id,
                                    f"{ADMIN_REMOVE_REASON}: takeover by a replacement")],
        )  # fmt: skip
        try:
            result = parse_leave_group(await self.to_coordinator(request))
        except _compat.KafkaError as exc:
            log.warning("group %s: removing the stale holder of instance id %s got no answer: %r",
                        cfg.group_id, action.group_instance_id, exc)  # fmt: skip
            return
        codes = [result.error_code, *(m.error_code for m in result.members)]
        code = next((c for c in codes if c), ErrorCode.NONE)
        log.warning("group %s: takeover removed the previous holder of instance id %s: %s",
                    cfg.group_id, action.group_instance_id, error_name(code))  # fmt: skip

    @override
    async def _fatal_error(self, action: BecomeFatal) -> StaticConsumerError:
        if action.error_code != ErrorCode.FENCED_INSTANCE_ID:
            return StaticConsumerError(
                f"{action.api.value} for group {self.member.config.group_id!r} failed fatally: "
                f"{error_name(action.error_code)}"
            )
        holder = await consumer_group_holder(self.seam, self.versions, self.member)
        fields = {"api": action.api.value, "other_holder": holder and holder[0]}
        self._emit(Emit(InstanceFenced, self.member.member_id, self.member.member_epoch, fields))
        return fenced_error(self.context(), action.api.value, holder and holder[1])

    @override
    def _leave_actions(self) -> list[Any]:
        return list(self.member.close(self.leave_reason is not None, self.leave_reason))
