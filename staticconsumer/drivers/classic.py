"""The classic group protocol's sender (JoinGroup / SyncGroup / Heartbeat / LeaveGroup, KIP-345
static membership, KIP-429 cooperative rebalancing): builds each request with the negotiated
version (``staticconsumer.protocol``), sends it through the aiokafka seam, and feeds the parsed
answer back to :class:`~staticconsumer.membership.ClassicMember`. The leader's assignment runs
here too: the engine only says *that* the leader must plan (``membership._plan`` plans).

:func:`classic_driver` builds the :class:`~.driver.Driver` that holds this sender and its engine.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any, assert_never

from assignors import AssignmentReceiver, GroupAssignor

from .. import _compat
from .._error_map import fatal_error, fenced_error
from .._observability.emitter import EventEmitter
from .._observability.metrics import ConsumerMetrics
from ..errors import StaticConsumerError
from ..events import InstanceFenced
from ..membership import (
    JOIN_REASON_METADATA_CHANGED,
    JOIN_REASON_SUBSCRIPTION_CHANGED,
    OWN_LEAVE_REASONS,
    Api,
    AssignmentComputed,
    AssignmentFailed,
    BecomeFatal,
    ClassicAction,
    ClassicMember,
    ClassicSenderAction,
    ComputeAssignment,
    DeliverAssignment,
    Emit,
    HeartbeatAnswered,
    JoinGroupAnswered,
    JoinRequested,
    LeaveGroupAnswered,
    MemberConfig,
    RebalanceProtocol,
    RecordRebalance,
    RequestFailed,
    Revoke,
    SendHeartbeat,
    SendJoinGroup,
    SendLeaveGroup,
    SendSyncGroup,
    SyncGroupAnswered,
    any_member_rack,
    subscription_bytes,
    user_data_for,
)
from ..options import ConsumerOptions
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
from ..roster import RosterGate, RosterSource
from .driver import Driver, FatalCallback
from .fence_diagnosis import holder_of_instance_id, session_timeout_error

log = logging.getLogger(__name__)
#: How long a join with a pattern subscription waits for fresh metadata (``before_poll``) before
#: it joins with the topics already known: the coordinator waits for every member's JoinGroup
#: up to the rebalance timeout, so a few seconds cost nothing, and a broker that does not answer
#: does not hold the join back for aiokafka's request timeout (40 s).
PATTERN_METADATA_TIMEOUT_S = 5.0
#: What a JoinGroup waits for its answer beyond the rebalance timeout: the coordinator holds a
#: join until every known member re-joined or the rebalance timeout passed (a stopped static
#: member holds it for its session), so a JoinGroup waits ``max(request_timeout_ms,
#: rebalance_timeout_ms + 5 s)``, as Java's ``AbstractCoordinator.JOIN_GROUP_TIMEOUT_LAPSE``.
#: Shorter, its timeout read as a dead coordinator and the join started over.
JOIN_GROUP_TIMEOUT_LAPSE_MS = 5_000


def classic_driver(
    seam: _compat.ClientSeam, versions: GroupApiVersions, options: ConsumerOptions, *,
    on_fatal: FatalCallback, events: EventEmitter | None,
    metrics: ConsumerMetrics | None = None, roster: RosterSource | None = None,
) -> Driver[ClassicSenderAction]:  # fmt: skip
    """A driver holding a :class:`ClassicMember` and its :class:`ClassicSender`, built from the
    consumer's options value. ``roster`` reads the group's roster when this member leads
    (``staticconsumer.roster``); None: never."""
    engine = ClassicMember(MemberConfig.of(options))

    def sender(driver: Driver[ClassicSenderAction]) -> ClassicSender:
        return ClassicSender(driver, engine, roster=roster)

    return Driver[ClassicSenderAction](engine, sender, seam, versions, options,
                                       on_fatal=on_fatal, events=events,
                                       metrics=metrics)  # fmt: skip


_MEMBER_ID_SUFFIX = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def replaced_leader(answer: Any, group_instance_id: str | None) -> bool:
    """A JoinGroup answer that names as leader a former member id of this static member
    (``<group.instance.id>-<uuid>``, the form the coordinator gives), not the current one: the
    pre-KIP-814 answer to a static leader that re-joined (``ClassicSender._lead_unannounced``)."""
    if group_instance_id is None or answer.leader == answer.member_id or answer.members:
        return False
    prefix, suffix = (
        answer.leader[: len(group_instance_id)],
        answer.leader[len(group_instance_id) :],
    )
    return prefix == group_instance_id and _MEMBER_ID_SUFFIX.fullmatch(suffix) is not None


#: What a classic request's answer is to the engine.
Answer = JoinGroupAnswered | SyncGroupAnswered | HeartbeatAnswered | LeaveGroupAnswered


class ClassicSender:
    """Performs the classic engine's sends (module docstring)."""

    def __init__(
        self, driver: Driver[ClassicSenderAction], engine: ClassicMember, *,
        roster: RosterSource | None = None,
    ) -> None:  # fmt: skip
        self._driver = driver
        self._engine = engine
        self._log = engine.identity.logger(log)
        self._seam = driver.seam
        self._versions = driver.versions
        self._options = driver.options  # read where used, not copied
        self._roster = RosterGate(roster, self._log, self._roster_wait_ended)
        self._reason_dropped_told = False
        self._refreshed_for_join = False  # before_poll fetched metadata for the join now due

    @property
    def is_leader(self) -> bool:
        return self._engine.is_leader

    async def perform(self, action: ClassicSenderAction) -> Sequence[ClassicAction]:
        """Perform one of the classic engine's sends (``mypy --strict`` proves each has its
        case); the actions the answer calls for."""
        match action:
            case SendJoinGroup():
                return await self._join(action)
            case ComputeAssignment():
                return await self._leader_step(action)
            case SendSyncGroup():
                return await self._sync(action)
            case SendHeartbeat():
                return await self._heartbeat(action)
            case SendLeaveGroup():
                return await self._leave(action)
            case DeliverAssignment():
                return self._deliver(action)
            case _:
                assert_never(action)

    # -- what the driver asks of the protocol ------------------------------------------------------

    def stops_fetching(self, action: Revoke) -> bool:
        """Eager revocation (and lost partitions): the fetcher hands out nothing until the next
        assignment; a cooperative one keeps fetching what stays."""
        return action.lost or self._engine.rebalance_protocol is RebalanceProtocol.EAGER

    def after_revoke(self, action: Revoke) -> None:
        """Nothing more: the next assignment replaces the fetcher's."""

    def request_join(self, reason: str, *, enforced: bool = False) -> None:
        self._driver.run_now(self._engine.handle(JoinRequested(reason, enforced=enforced)))
        self._driver.wake()

    def enforce_rebalance(self, reason: str) -> None:
        if not self._versions.join_group_carries_reason:
            self._reason_dropped("JoinGroup", self._versions.join_group, reason)
        self.request_join(reason, enforced=True)

    def _reason_dropped(self, api: str, version: int, reason: str) -> None:
        """An application's reason this broker cannot carry (before Kafka 3.1): one WARNING per
        consumer, so that nobody looks for it in the coordinator's log."""
        if self._reason_dropped_told:
            return
        self._reason_dropped_told = True
        self._log.warning(
            "the broker takes %s v%d, which carries no reason (KIP-800 needs Kafka 3.1): %r and "
            "any later reason of this consumer do not reach the coordinator's log", api, version,
            reason,
        )  # fmt: skip

    def on_metadata_change(self) -> None:
        self.request_join(JOIN_REASON_METADATA_CHANGED)

    def subscription_changed(self) -> None:
        self._engine.handle(JoinRequested(JOIN_REASON_SUBSCRIPTION_CHANGED))

    async def before_poll(self) -> bool:
        """Before a join with a pattern subscription, the cluster's metadata is fetched and the
        pattern matched again (Java's ``ConsumerCoordinator.poll``, aiokafka's
        ``ensure_active_group``): a member that joins a rebalance another member started for a
        new topic joins with that topic, instead of starting one more rebalance for it once
        its own metadata catches up. Once per join sent; True when it fetched."""
        engine = self._engine
        if (
            self._refreshed_for_join or not engine.join_due or engine.coordinator is None
            or not self._seam.subscribed_by_pattern()
        ):  # fmt: skip
            return False
        self._refreshed_for_join = True
        if not await self._seam.refresh_metadata(PATTERN_METADATA_TIMEOUT_S):
            self._log.info("no metadata within %.0f s before joining: joining with the topics "
                           "known", PATTERN_METADATA_TIMEOUT_S)  # fmt: skip
        return True

    def _roster_wait_ended(self, reason: str) -> None:
        """The deadline of a roster hold passed: the leader starts the rebalance that plans
        without the missing members (KIP-800 reason). Not once it closes or no longer leads."""
        if self._driver.closing or not self.is_leader or self._engine.terminal:
            return
        self._log.info("%s: rebalancing", reason)
        self.request_join(reason)

    # -- join, sync, heartbeat, leave --------------------------------------------------------------

    async def _send(
        self, api: Api, request: Any, parse: Any, make: Any, *,
        timeout_at_least_ms: int | None = None,
    ) -> Sequence[ClassicAction]:  # fmt: skip
        """Send to the coordinator; feed ``make(parse(response))`` or "no answer" to the engine."""
        metrics = self._driver.metrics
        sent_at = metrics.now()
        try:
            response = await self._driver.to_coordinator(
                request, timeout_at_least_ms=timeout_at_least_ms
            )
        except _compat.KafkaError as exc:
            self._log.warning("%s to the coordinator failed: %r", api.value, exc)
            metrics.answered(api, sent_at, None)
            return self._engine.handle(RequestFailed(api))
        answer: Answer = make(parse(response))
        metrics.answered(api, sent_at, answer.error_code)
        return self._engine.handle(answer)

    async def _join(self, action: SendJoinGroup) -> Sequence[ClassicAction]:
        cfg = self._engine.config
        topics = sorted(self._seam.current_subscription().topics)
        generation = max(action.generation_id, -1)
        protocols = [
            (a.name, subscription_bytes(topics, user_data_for(a, topics, action.owned, generation),
                                        action.owned, generation, self._options.client_rack))
            for a in self._options.partition_assignment_strategy
        ]  # fmt: skip
        request = build_join_group(
            self._versions.join_group, group_id=cfg.group_id,
            session_timeout_ms=self._options.session_timeout_ms,
            rebalance_timeout_ms=self._options.rebalance_timeout_ms, member_id=action.member_id,
            group_instance_id=cfg.group_instance_id, protocol_type=CONSUMER_PROTOCOL_TYPE,
            protocols=protocols, reason=action.reason,
        )  # fmt: skip
        self._engine.join_sent()
        self._refreshed_for_join = False

        def answer(r: Any) -> JoinGroupAnswered:
            if r.error_code == ErrorCode.NONE and replaced_leader(r, cfg.group_instance_id):
                self._lead_unannounced(r.leader, topics)
            return JoinGroupAnswered(r.error_code, r.generation_id, r.member_id, r.protocol_name,
                                     r.leader, r.skip_assignment, r.members)  # fmt: skip

        wait_ms = self._options.rebalance_timeout_ms + JOIN_GROUP_TIMEOUT_LAPSE_MS
        return await self._send(Api.JOIN_GROUP, request, parse_join_group, answer,
                                timeout_at_least_ms=wait_ms)  # fmt: skip

    def _lead_unannounced(self, old_leader: str, topics: Sequence[str]) -> None:
        """Before Kafka 3.2 (KIP-814) the coordinator answers a static leader that re-joined a
        stable group with its *previous* member id as leader: it makes this member the leader
        without saying so, and then nobody watches the group's partition counts (measured on
        2.8.2: partitions added later stay unassigned). Do what the leader would for this
        member's own topics: a change of their partition counts re-joins, and the coordinator,
        for which this member leads, rebalances and names it leader with every member's
        subscription. Topics only other members subscribe to stay unwatched until then."""
        self._log.info(
            "the coordinator names %s, this instance's previous member id, as leader (a broker "
            "before Kafka 3.2, KIP-814): this member leads; watching the partition counts of "
            "%s", old_leader, ", ".join(topics) or "its topics",
        )  # fmt: skip
        self._seam.watch_partition_counts(topics)

    async def _leader_step(self, action: ComputeAssignment) -> Sequence[ClassicAction]:
        """Plan; an assignor that raises is the application's error (raised once, as Java's
        poll() raises it), and the member re-joins."""
        try:
            planned = await self._plan(action)
        except Exception as exc:
            self._log.exception("assignor %r failed", action.protocol)
            error = StaticConsumerError(f"the {action.protocol!r} assignor failed: {exc!r}")
            error.__cause__ = exc
            actions = self._engine.handle(AssignmentFailed())
            # The engine's count of the failed rebalance is recorded before the application is
            # told (its poll raises the error); its backoff follows.
            self._driver.run_now(a for a in actions if isinstance(a, RecordRebalance))
            await self._driver.raise_to_user(error)
            return [a for a in actions if not isinstance(a, RecordRebalance)]
        return self._engine.handle(AssignmentComputed(planned))

    async def _plan(self, action: ComputeAssignment) -> tuple[tuple[str, bytes], ...]:
        """The leader's step: watch every member's topics, then (unless told to skip) plan."""
        decoded = {
            m.member_id: (m.group_instance_id, decode_subscription(m.metadata))
            for m in action.members
        }
        topics: set[str] = set()
        for _instance_id, sub in decoded.values():
            topics.update(sub.topics)
        self._seam.watch_topics(topics)
        await self._seam.wait_metadata()
        self._seam.watch_partition_counts(topics)
        if action.skip:
            return ()
        assignor = self._assignor(action.protocol)
        if assignor is None:
            raise StaticConsumerError(f"the coordinator chose unknown protocol {action.protocol}")
        partitions = self._seam.partitions_per_topic(topics)
        racks = (
            self._seam.replica_racks(partitions)
            if any_member_rack(decoded) else None
        )  # fmt: skip
        cooperative = self._engine.rebalance_protocol is RebalanceProtocol.COOPERATIVE
        planned = await self._roster.plan(
            assignor, decoded, partitions, cooperative=cooperative, partition_racks=racks
        )
        return tuple(planned.items())

    def _assignor(self, protocol: str) -> GroupAssignor | None:
        """The configured assignor the coordinator chose (by its protocol name)."""
        strategies = self._options.partition_assignment_strategy
        return next((a for a in strategies if a.name == protocol), None)

    def _deliver(self, action: DeliverAssignment) -> Sequence[ClassicAction]:
        """This member's own assignment to its assignor's optional ``on_assignment`` hook
        (``assignors.AssignmentReceiver``). A hook that raises does not stop the assignment
        (Java's ``invokeOnAssignment``): its error reaches the application's next poll once,
        and the member goes on (it is in a generation: it must heartbeat)."""
        assignor = self._assignor(action.protocol)
        if not isinstance(assignor, AssignmentReceiver):
            return []
        try:
            assignor.on_assignment(action.assignment, action.generation_id)
        except Exception as exc:
            self._log.exception("assignor %r failed in on_assignment", action.protocol)
            error = StaticConsumerError(
                f"the {action.protocol!r} assignor's on_assignment failed: {exc!r}"
            )
            error.__cause__ = exc
            self._driver.mailbox.post_nowait(error)
        return []

    async def _sync(self, action: SendSyncGroup) -> Sequence[ClassicAction]:
        cfg = self._engine.config
        request = build_sync_group(
            self._versions.sync_group, group_id=cfg.group_id, generation_id=action.generation_id,
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

    async def _heartbeat(self, action: SendHeartbeat) -> Sequence[ClassicAction]:
        cfg = self._engine.config
        request = build_heartbeat(
            self._versions.heartbeat, group_id=cfg.group_id, generation_id=action.generation_id,
            member_id=action.member_id, group_instance_id=cfg.group_instance_id,
        )  # fmt: skip
        loop = asyncio.get_running_loop()
        return await self._send(
            Api.HEARTBEAT,
            request,
            parse_heartbeat,
            lambda r: HeartbeatAnswered(r.error_code, loop.time()),
        )

    async def _leave(self, action: SendLeaveGroup) -> Sequence[ClassicAction]:
        cfg = self._engine.config
        given = action.reason not in OWN_LEAVE_REASONS  # the application's
        if given and not self._versions.leave_group_carries_reason:
            self._reason_dropped("LeaveGroup", self._versions.leave_group, action.reason)
        request = build_leave_group(
            self._versions.leave_group, group_id=cfg.group_id,
            members=[MemberIdentity(action.member_id, cfg.group_instance_id, action.reason)],
        )  # fmt: skip

        def answer(result: Any) -> LeaveGroupAnswered:
            codes = [result.error_code, *(m.error_code for m in result.members)]
            return LeaveGroupAnswered(next((c for c in codes if c), ErrorCode.NONE))

        return await self._send(Api.LEAVE_GROUP, request, parse_leave_group, answer)

    # -- fatal errors ------------------------------------------------------------------------------

    async def fatal_error(self, action: BecomeFatal) -> StaticConsumerError:
        """The error for the engine's fatal verdict, diagnosed: a fence names the member holding
        our instance id now (best effort), a bad session timeout the broker's bounds."""
        engine = self._engine
        if action.error_code == ErrorCode.INVALID_SESSION_TIMEOUT:
            return await session_timeout_error(
                self._seam, engine.coordinator, self._options.session_timeout_ms
            )
        context = self._driver.context()
        if not action.fenced:
            return fatal_error(context, action.api.value, action.error_code)
        holder = await holder_of_instance_id(self._seam, self._versions, engine)
        fields = {"api": action.api.value, "other_holder": holder and holder[0]}
        self._driver.emit(Emit(InstanceFenced, engine.member_id, engine.generation_id, fields))
        return fenced_error(context, action.api.value, holder and holder[1])
