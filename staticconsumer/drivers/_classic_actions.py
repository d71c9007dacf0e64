"""How the classic driver performs each send of the membership engine: build the request with
the negotiated version (``staticconsumer.protocol``), send it through the aiokafka seam, feed the
parsed answer back to the engine, and run whatever that calls for in turn.

The leader's assignment runs here too: the engine only says *that* the leader must plan. What
every engine asks for (events, partitions to and from the application) is ``_driver_base``'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from typing_extensions import override

from .. import _compat
from .._error_map import fenced_error
from ..errors import StaticConsumerError
from ..events import InstanceFenced
from ..membership import (
    Action,
    Api,
    AssignmentComputed,
    AssignmentFailed,
    BecomeFatal,
    ClassicMember,
    ComputeAssignment,
    Emit,
    HeartbeatAnswered,
    Input,
    JoinGroupAnswered,
    LeaveGroupAnswered,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
)
from ..membership._plan import (
    any_member_rack,
    plan_with_group_assignor,
    subscription_bytes,
    user_data_for,
)
from ..protocol import (
    CONSUMER_PROTOCOL_TYPE,
    ErrorCode,
    GroupApiVersions,
    MemberIdentity,
    build_heartbeat,
    build_join_group,
    build_leave_group,
    build_sync_group,
    decode_subscription,
    parse_heartbeat,
    parse_join_group,
    parse_leave_group,
    parse_sync_group,
)
from ._base import DriverBase
from .fence_diagnosis import holder_of_instance_id, session_timeout_error

log = logging.getLogger("staticconsumer")


class ClassicActions(DriverBase):
    """Performs the classic engine's sends; :class:`~staticconsumer._classic_driver.ClassicDriver`
    adds the loop."""

    member: ClassicMember

    def __init__(
        self, member: ClassicMember, seam: _compat.ClientSeam, versions: GroupApiVersions, *,
        client_rack: str | None, assignors: Sequence[Any], session_timeout_ms: int,
        rebalance_timeout_ms: int, **common: Any,
    ) -> None:  # fmt: skip
        self._client_rack = client_rack
        self._assignors = list(assignors)
        self._session_timeout_ms = session_timeout_ms
        self._rebalance_timeout_ms = rebalance_timeout_ms
        super().__init__(member, seam, versions, **common)

    @override
    async def _perform(self, action: Any) -> list[Any]:
        if isinstance(action, SendJoinGroup):
            return await self._join(action)
        if isinstance(action, ComputeAssignment):
            return await self._leader_step(action)
        if isinstance(action, SendSyncGroup):
            return await self._sync(action)
        if isinstance(action, SendHeartbeat):
            return await self._heartbeat(action)
        if isinstance(action, SendLeaveGroup):
            return await self._leave(action)
        return await super()._perform(action)

    @override
    def _revoke_stops_fetching(self, action: Revoke) -> bool:
        return action.lost or self.member.rebalance_protocol.value == "eager"

    async def _send(self, api: Api, request: Any, parse: Any, make: Any) -> list[Action]:
        """Send to the coordinator; feed ``make(parse(response))`` or "no answer" to the engine."""
        try:
            response = await self.to_coordinator(request)
        except _compat.KafkaError as exc:
            log.warning("%s to the coordinator failed: %r", api.value, exc)
            return self.member.handle(RequestFailed(api))
        answer: Input = make(parse(response))
        return self.member.handle(answer)

    # -- join, sync, heartbeat, leave ------------------------------------------------------------

    async def _join(self, action: SendJoinGroup) -> list[Action]:
        cfg = self.member.config
        topics = sorted(self.seam.current_subscription().topics)
        generation = max(action.generation_id, -1)
        protocols = [
            (a.name, subscription_bytes(topics, user_data_for(a, topics, action.owned, generation),
                                        action.owned, generation, self._client_rack))
            for a in self._assignors
        ]  # fmt: skip
        request = build_join_group(
            self.versions.join_group, group_id=cfg.group_id,
            session_timeout_ms=self._session_timeout_ms,
            rebalance_timeout_ms=self._rebalance_timeout_ms, member_id=action.member_id,
            group_instance_id=cfg.group_instance_id, protocol_type=CONSUMER_PROTOCOL_TYPE,
            protocols=protocols, reason=action.reason,
        )  # fmt: skip
        self.member.join_sent()

        def answer(r: Any) -> JoinGroupAnswered:
            return JoinGroupAnswered(r.error_code, r.generation_id, r.member_id, r.protocol_name,
                                     r.leader, r.skip_assignment, r.members)  # fmt: skip

        return await self._send(Api.JOIN_GROUP, request, parse_join_group, answer)

    async def _leader_step(self, action: ComputeAssignment) -> list[Action]:
        """Plan; an assignor that raises is the application's error (raised once, as Java's
        poll() raises it), and the member re-joins."""
        try:
            planned = await self._plan(action)
        except Exception as exc:
            log.exception("assignor %r failed for group %s", action.protocol,
                          self.member.config.group_id)  # fmt: skip
            error = StaticConsumerError(f"the {action.protocol!r} assignor failed: {exc!r}")
            error.__cause__ = exc
            actions = self.member.handle(AssignmentFailed())
            await self.raise_to_user(error)
            return actions
        return self.member.handle(AssignmentComputed(planned))

    async def _plan(self, action: ComputeAssignment) -> tuple[tuple[str, bytes], ...]:
        """The leader's step: watch every member's topics, then (unless told to skip) plan."""
        decoded = {
            m.member_id: (m.group_instance_id, decode_subscription(m.metadata))
            for m in action.members
        }
        topics: set[str] = set()
        for _instance_id, sub in decoded.values():
            topics.update(sub.topics)
        self.seam.watch_topics(topics)
        await self.seam.wait_metadata()
        assert self.seam.coordinator is not None
        self.seam.coordinator.watch_topics(topics)
        if action.skip:
            return ()
        assignor = next((a for a in self._assignors if a.name == action.protocol), None)
        if assignor is None:
            raise StaticConsumerError(f"the coordinator chose unknown protocol {action.protocol}")
        partitions = self.seam.partitions_per_topic(topics)
        racks = (
            _compat.replica_racks(self.seam.client.cluster, partitions)
            if any_member_rack(decoded) else None
        )  # fmt: skip
        planned = plan_with_group_assignor(assignor, decoded, partitions, partition_racks=racks)
        return tuple(planned.items())

    async def _sync(self, action: SendSyncGroup) -> list[Action]:
        cfg = self.member.config
        request = build_sync_group(
            self.versions.sync_group, group_id=cfg.group_id, generation_id=action.generation_id,
            member_id=action.member_id, group_instance_id=cfg.group_instance_id,
            protocol_type=CONSUMER_PROTOCOL_TYPE, protocol_name=action.protocol,
            assignments=list(action.assignments),
        )  # fmt: skip
        return await self._send(
            Api.SYNC_GROUP,
            request,
            parse_sync_group,
            lambda r: SyncGroupAnswered(r.error_code, r.assignment),
        )

    async def _heartbeat(self, action: SendHeartbeat) -> list[Action]:
        cfg = self.member.config
        request = build_heartbeat(
            self.versions.heartbeat, group_id=cfg.group_id, generation_id=action.generation_id,
            member_id=action.member_id, group_instance_id=cfg.group_instance_id,
        )  # fmt: skip
        loop = asyncio.get_running_loop()
        return await self._send(
            Api.HEARTBEAT,
            request,
            parse_heartbeat,
            lambda r: HeartbeatAnswered(r.error_code, loop.time()),
        )

    async def _leave(self, action: SendLeaveGroup) -> list[Action]:
        cfg = self.member.config
        request = build_leave_group(
            self.versions.leave_group, group_id=cfg.group_id,
            members=[MemberIdentity(action.member_id, cfg.group_instance_id, action.reason)],
        )  # fmt: skip

        def answer(result: Any) -> LeaveGroupAnswered:
            codes = [result.error_code, *(m.error_code for m in result.members)]
            return LeaveGroupAnswered(next((c for c in codes if c), ErrorCode.NONE))

        return await self._send(Api.LEAVE_GROUP, request, parse_leave_group, answer)

    # -- fatal errors -------------------------------------------------------------------------

    @override
    async def _fatal_error(self, action: BecomeFatal) -> StaticConsumerError:
        if action.error_code == ErrorCode.INVALID_SESSION_TIMEOUT:
            return await session_timeout_error(
                self.seam.client, self.member.coordinator, self._session_timeout_ms
            )
        if action.error_code != ErrorCode.FENCED_INSTANCE_ID:
            return StaticConsumerError(
                f"{action.api.value} failed fatally: code {action.error_code}"
            )
        error = fenced_error(self.context(), action.api.value)
        holder = await holder_of_instance_id(self.seam, self.versions, self.member)
        if holder is not None:
            error = fenced_error(self.context(), action.api.value, holder[1])
        self._emit(
            Emit(
                InstanceFenced,
                self.member.member_id,
                self.member.generation_id,
                {"api": action.api.value, "other_holder": holder and holder[0]},
            )
        )
        return error
