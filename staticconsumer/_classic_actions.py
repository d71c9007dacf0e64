"""How the classic driver performs each action of the membership engine: build the request with
the negotiated version (``staticconsumer.protocol``), send it through the aiokafka seam, feed the
parsed answer back to the engine, and run whatever that calls for in turn.

The leader's assignment and the application's rebalance listener run here too: the engine only
says *that* the leader must plan and *which* partitions are revoked or assigned.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from . import _compat
from ._error_map import MemberContext, fenced_error, kafka_error
from ._events import EventEmitter
from ._fence_diagnosis import holder_of_instance_id, session_timeout_error
from ._membership import (
    any_member_rack,
    plan_with_group_assignor,
    subscription_bytes,
    user_data_for,
)
from .errors import StaticConsumerError
from .events import InstanceFenced
from .membership import (
    Action,
    Api,
    Assign,
    AssignmentComputed,
    AssignmentFailed,
    Backoff,
    BecomeFatal,
    ClassicMember,
    ComputeAssignment,
    Emit,
    FindCoordinator,
    HeartbeatAnswered,
    Input,
    JoinGroupAnswered,
    LeaveGroupAnswered,
    RaiseError,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
)
from .protocol import (
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

log = logging.getLogger("staticconsumer")



class ActionRunner:
    """Performs engine actions; :class:`~staticconsumer._classic_driver.ClassicDriver` adds the
    loop, commits and the fatal path."""

    def __init__(
        self, member: ClassicMember, seam: _compat.ClientSeam, versions: GroupApiVersions, *,
        client_id: str, client_rack: str | None, assignors: Sequence[Any],
        session_timeout_ms: int, rebalance_timeout_ms: int, events: EventEmitter | None,
    ) -> None:  # fmt: skip
        self.member = member
        self.seam = seam
        self.versions = versions
        self.client_id = client_id
        self._client_rack = client_rack
        self._assignors = list(assignors)
        self._session_timeout_ms = session_timeout_ms
        self._rebalance_timeout_ms = rebalance_timeout_ms
        self._events = events

    # Provided by the driver.
    async def find_coordinator(self) -> None: ...
    async def backoff(self) -> None: ...
    async def raise_to_user(self, error: Exception) -> None: ...
    def fail(self, error: StaticConsumerError) -> None: ...
    def context(self) -> MemberContext:
        raise NotImplementedError

    def start_commit_offsets_refresh_task(self, assignment: Any) -> None:
        raise NotImplementedError

    async def commit_consumed(self, partitions: Sequence[tuple[str, int]] | None) -> None: ...

    def run_now(self, actions: Iterable[Action]) -> None:
        """Perform actions that need no I/O (events) at once."""
        for action in actions:
            assert isinstance(action, Emit), f"{action!r} needs the event loop"
            self._emit(action)

    async def run(self, actions: Iterable[Action]) -> None:
        """Perform ``actions`` in order, and the actions their answers call for."""
        queue = list(actions)
        while queue:
            action = queue.pop(0)
            queue[:0] = await self._perform(action)

    async def _perform(self, action: Action) -> list[Action]:
        if isinstance(action, Emit):
            self._emit(action)
        elif isinstance(action, FindCoordinator):
            await self.find_coordinator()
        elif isinstance(action, Backoff):
            await self.backoff()
        elif isinstance(action, SendJoinGroup):
            return await self._join(action)
        elif isinstance(action, ComputeAssignment):
            return await self._leader_step(action)
        elif isinstance(action, SendSyncGroup):
            return await self._sync(action)
        elif isinstance(action, SendHeartbeat):
            return await self._heartbeat(action)
        elif isinstance(action, SendLeaveGroup):
            return await self._leave(action)
        elif isinstance(action, Revoke):
            await self._revoke(action)
        elif isinstance(action, Assign):
            await self._assign(action)
        elif isinstance(action, BecomeFatal):
            self.fail(await self._fatal_error(action))
        elif isinstance(action, RaiseError):
            error = kafka_error(action.error_code, group_id=self.member.config.group_id,
                                detail=action.detail)  # fmt: skip
            await self.raise_to_user(error)
        return []

    async def to_coordinator(self, request: Any) -> Any:
        """Send ``request`` to the coordinator; aiokafka's ``KafkaError`` when there is no
        answer (or no known coordinator)."""
        node = self.member.coordinator
        if node is None:
            raise _compat.KafkaError("the coordinator is not known")
        return await self.seam.send(node, request)

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

    # -- partitions to and from the application ---------------------------------------------------

    async def _revoke(self, action: Revoke) -> None:
        if not action.lost:  # commit on revoke; never for partitions of a lost generation
            try:
                await self.commit_consumed(action.partitions)
            except Exception as exc:
                log.error("OffsetCommit before revoking %s failed, ignoring: %r",
                          list(action.partitions), exc)  # fmt: skip
        if self.member.rebalance_protocol.value == "eager" or action.lost:
            self.seam.begin_reassignment()
        log.info("Revoking previously assigned partitions %s for group %s (%s)",
                 list(action.partitions), self.member.config.group_id, action.reason)  # fmt: skip
        await self._call_listener("on_partitions_revoked", action.partitions)

    async def _assign(self, action: Assign) -> None:
        assignment = self.seam.assign(action.assigned)
        self.start_commit_offsets_refresh_task(assignment)
        log.info("Setting newly assigned partitions %s for group %s",
                 list(action.assigned), self.member.config.group_id)  # fmt: skip
        await self._call_listener("on_partitions_assigned", action.added)

    async def _call_listener(self, method: str, partitions: Iterable[tuple[str, int]]) -> None:
        listener = self.seam.listener()
        if listener is None:
            return
        tps = {_compat.kafka_tp(t, p) for t, p in partitions}
        try:
            result = getattr(listener, method)(tps)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("rebalance listener %s.%s failed for group %s", listener, method,
                          self.member.config.group_id)  # fmt: skip

    # -- fatal errors -------------------------------------------------------------------------

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

    def _emit(self, action: Emit) -> None:
        if self._events is None:
            return
        cfg = self.member.config
        self._events.emit(
            action.kind, group_id=cfg.group_id, client_id=self.client_id,
            group_instance_id=cfg.group_instance_id, member_id=action.member_id or None,
            generation_id=max(action.generation_id, -1), **action.fields,
        )  # fmt: skip
