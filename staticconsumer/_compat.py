"""Every touch point with aiokafka internals lives here, pinned to the aiokafka versions we test.

aiokafka 0.14 sends Heartbeat v1 and OffsetCommit v3 (no instance id, so a replaced member gets
UNKNOWN_MEMBER_ID, re-joins and fences the other: ping-pong), one JoinGroup per assignor, and its
leader drops ``group_instance_id``. :class:`StaticGroupCoordinator` subclasses aiokafka's
``GroupCoordinator`` and replaces exactly those steps:

* join + sync: one JoinGroup (v5+, every assignor's protocol in it, a KIP-800 reason on v8+) and
  SyncGroup v3+; the leader hands instance ids to this package's assignors;
* heartbeat v3+ and OffsetCommit v7+ carrying ``group_instance_id``;
* FENCED_INSTANCE_ID from any of them is fatal and sticky (:meth:`enter_fatal`);
* LeaveGroup is never sent by a static member unless asked for explicitly.

The aiokafka objects are otherwise used as they are; nothing is patched process-wide.
:func:`start_consumer` mirrors ``AIOKafkaConsumer.start`` with our coordinator class.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

import aiokafka
import aiokafka.errors as Errors
from aiokafka.consumer.fetcher import Fetcher
from aiokafka.consumer.group_coordinator import GroupCoordinator, NoGroupCoordinator
from aiokafka.coordinator.protocol import ConsumerProtocolMemberMetadata
from aiokafka.protocol.admin import ApiVersionRequest
from aiokafka.util import create_future

from . import _membership as m
from ._broker_config import session_timeout_bounds
from ._events import EventEmitter
from ._reasons import (
    JOIN_REASON_ENFORCED_PREFIX,
    JOIN_REASON_GROUP_REBALANCING,
    JOIN_REASON_INITIAL,
    JOIN_REASON_MEMBER_ID_REQUIRED,
    JOIN_REASON_METADATA_CHANGED,
    JOIN_REASON_REJOIN_AFTER_ERROR,
    LEAVE_REASON_PREFIX,
)
from .errors import (
    FencedInstanceIdError,
    ProtocolError,
    SessionTimeoutOutOfRangeError,
    StaticConsumerError,
    UnsupportedBrokerError,
)
from .events import (
    REVOKED_CLOSE,
    REVOKED_REBALANCE,
    EnforceRebalanceRequested,
    GroupJoined,
    GroupLeft,
    InstanceFenced,
    JoinGroupReason,
    MembershipEvent,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from .protocol import (
    CONSUMER_PROTOCOL_TYPE,
    UNKNOWN_MEMBER_ID,
    CommitOffset,
    ErrorCode,
    GroupApiVersions,
    MemberIdentity,
    api_versions_from_response,
    build_describe_groups,
    build_heartbeat,
    build_join_group,
    build_leave_group,
    build_offset_commit,
    build_sync_group,
    decode_assignment,
    decode_subscription,
    error_name,
    negotiate,
    parse_describe_groups,
    parse_heartbeat,
    parse_join_group,
    parse_leave_group,
    parse_offset_commit,
    parse_sync_group,
    truncate_reason,
)

log = logging.getLogger("staticconsumer")

#: aiokafka versions whose internals this module was written against (see pyproject.toml).
SUPPORTED_AIOKAFKA = ("0.14.",)
#: How long a fenced member may spend asking the coordinator who holds its instance id.
FENCE_DIAGNOSIS_S = 0.5


def check_aiokafka_version() -> None:
    if not aiokafka.__version__.startswith(SUPPORTED_AIOKAFKA):
        raise StaticConsumerError(
            f"staticconsumer supports aiokafka {', '.join(SUPPORTED_AIOKAFKA)}x; "
            f"aiokafka {aiokafka.__version__} is installed"
        )


class Fatal(Errors.KafkaError):  # type: ignore[misc]
    """Carries a fatal staticconsumer error through aiokafka's coordination routine, which only
    forwards ``KafkaError``s to the user."""

    def __init__(self, error: StaticConsumerError) -> None:
        super().__init__(str(error))
        self.error = error


async def negotiate_versions(client: Any) -> GroupApiVersions:
    """Ask one broker for its ApiVersions and pick our group API versions (or raise)."""
    node_id = next(iter(b.nodeId for b in client.cluster.brokers()))
    response = await client.send(node_id, ApiVersionRequest())
    return negotiate(api_versions_from_response(response))


class StaticGroupCoordinator(GroupCoordinator):  # type: ignore[misc]
    """aiokafka's coordinator with the static-membership steps replaced (module docstring)."""

    def __init__(
        self,
        client: Any,
        subscription: Any,
        *,
        versions: GroupApiVersions,
        client_id: str,
        client_rack: str | None,
        on_fatal: Callable[[StaticConsumerError], None],
        events: EventEmitter | None = None,
        **kwargs: Any,
    ) -> None:
        # Set before the parent constructor: it starts the coordination task.
        self._events = events
        #: Partitions handed to the application by the last join, until they are revoked.
        self._handed_out: list[tuple[str, int]] | None = None
        self._versions = versions
        self._client_id = client_id
        self._client_rack = client_rack
        self._on_fatal = on_fatal
        self.fatal_error: StaticConsumerError | None = None
        self._owned: list[tuple[str, int]] = []
        self._join_reason = JOIN_REASON_INITIAL
        self.leave_reason: str | None = None
        self._enforced: list[str] = []
        self.is_leader = False
        self.member_id: str = UNKNOWN_MEMBER_ID
        self.generation: int = -1
        super().__init__(client, subscription, **kwargs)

    # -- fatal state -----------------------------------------------------------------------------

    def _ctx(self) -> m.MemberContext:
        return m.MemberContext(
            self.group_id, self._group_instance_id, self.member_id, self._client_id
        )

    def _emit(self, cls: type[MembershipEvent], **fields: Any) -> None:
        """The one exit of membership events (``staticconsumer.events``): this member's identity
        and generation as they are now, plus the event's own ``fields``. Never raises."""
        if self._events is not None:
            self._events.emit(
                cls, group_id=self.group_id, client_id=self._client_id,
                group_instance_id=self._group_instance_id,
                member_id=self.member_id or None, generation_id=max(self.generation, -1),
                **fields,
            )  # fmt: skip

    def enter_fatal(self, error: StaticConsumerError) -> None:
        """Terminal: no heartbeat, re-join, commit or LeaveGroup from now on (STYLE rule 7)."""
        if self.fatal_error is not None:
            return
        self.fatal_error = error
        log.error("%s", error)
        # aiokafka's fetcher only tolerates KafkaError from these waiters.
        self._subscription.abort_waiters(Fatal(error))
        if self._heartbeat_task is not None and not self._heartbeat_task.done():
            self._heartbeat_task.cancel()
        self._on_fatal(error)

    def _raise_if_fatal(self) -> None:
        if self.fatal_error is not None:
            raise Fatal(self.fatal_error)

    def _push_error_to_user(self, exc: Exception) -> Any:
        if isinstance(exc, Fatal):
            return self._fatal_then_park(exc.error)
        return super()._push_error_to_user(exc)

    async def _become_fatal(self, error: StaticConsumerError) -> StaticConsumerError:
        """Every fatal path ends here: name the holder of a fenced id, then go terminal."""
        if isinstance(error, FencedInstanceIdError) and self.fatal_error is None:
            error, holder_id = await self._with_holder(error)
            if self.fatal_error is None:  # another path may have gone fatal meanwhile
                self._emit(InstanceFenced, api=error.api, other_holder=holder_id)
        self.enter_fatal(error)
        assert self.fatal_error is not None
        return self.fatal_error

    async def _fatal_then_park(self, error: StaticConsumerError) -> None:
        await self._become_fatal(error)
        # Park the coordination routine until close(): never re-join.
        await asyncio.wait([self._closing])

    async def _with_holder(
        self, error: FencedInstanceIdError
    ) -> tuple[FencedInstanceIdError, str | None]:
        """Best effort, bounded: ask our coordinator (DescribeGroups on the open coordination
        connection) which member now holds our instance id. Returns the error (naming the holder
        when found) and the holder's member id."""
        request = build_describe_groups(self._versions.describe_groups, group_ids=[self.group_id])
        try:
            response = await asyncio.wait_for(self._send_req(request), FENCE_DIAGNOSIS_S)
            groups = parse_describe_groups(response).groups
        except Exception as exc:  # diagnosis must never hide the fence itself
            log.debug("could not describe group %s after the fence: %r", self.group_id, exc)
            return error, None
        for group in groups:
            for member in group.members:
                if member.group_instance_id == error.group_instance_id and (
                    member.member_id != error.member_id
                ):
                    # After a static replacement Kafka keeps the replaced member's client id and
                    # host until the next rebalance; we report what the coordinator says.
                    holder = (
                        f"member {member.member_id} (client id {member.client_id!r}, "
                        f"host {member.client_host}, as reported by the coordinator)"
                    )
                    return m.fenced_error(self._ctx(), error.api, holder), member.member_id
        return error, None

    def check_errors(self) -> None:
        if self.fatal_error is not None:
            raise self.fatal_error
        super().check_errors()

    def _fatal_for(self, api: str) -> Fatal:
        return Fatal(m.fenced_error(self._ctx(), api))

    # -- join and sync ---------------------------------------------------------------------------

    def enforce_rebalance(self, reason: str) -> None:
        """Re-join with ``reason`` on the next JoinGroup (see StaticConsumer.enforce_rebalance)."""
        self._emit(EnforceRebalanceRequested, reason=reason)
        if reason not in self._enforced:
            self._enforced.append(reason)
        self._join_reason = f"{JOIN_REASON_ENFORCED_PREFIX}: {'; '.join(self._enforced)}"
        self.request_rejoin()

    def _on_metadata_change(self) -> None:
        self._join_reason = JOIN_REASON_METADATA_CHANGED
        super()._on_metadata_change()

    def reset_generation(self) -> None:
        self._join_reason = JOIN_REASON_REJOIN_AFTER_ERROR
        super().reset_generation()

    async def _on_join_prepare(self, previous_assignment: Any) -> None:
        self._owned = sorted(
            (tp.topic, tp.partition)
            for tp in (previous_assignment.tps if previous_assignment else ())
        )
        if previous_assignment is not None:  # before aiokafka runs on_partitions_revoked
            self._handed_out = None
            self._emit(PartitionsRevoked, partitions=self._owned, reason=REVOKED_REBALANCE)
        await super()._on_join_prepare(previous_assignment)

    async def _on_join_complete(
        self, generation: int, member_id: str, protocol: str, assignment_bytes: bytes
    ) -> None:
        """Report the join, and the assignment before aiokafka runs on_partitions_assigned."""
        self._emit(GroupJoined, leader=self.is_leader, protocol=protocol)
        try:
            self._handed_out = list(decode_assignment(assignment_bytes).topic_partitions)
            self._emit(PartitionsAssigned, partitions=self._handed_out)
        except ProtocolError:
            pass  # aiokafka's decoding below raises it to the user
        await super()._on_join_complete(generation, member_id, protocol, assignment_bytes)

    async def close(self) -> None:
        """aiokafka's close, after reporting the partitions that stopping gives up (a fenced
        member reports none: they were no longer its own)."""
        if not self._closing.done() and self.fatal_error is None and self._handed_out is not None:
            self._emit(PartitionsRevoked, partitions=self._handed_out, reason=REVOKED_CLOSE)
            self._handed_out = None
        await super().close()

    async def _do_rejoin_group(self, subscription: Any) -> bool:
        self._raise_if_fatal()
        joined = await self._join_and_sync(subscription)
        if not subscription.active:
            return False
        if joined is None:
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            return False
        protocol, assignment_bytes = joined
        await self._on_join_complete(self.generation, self.member_id, protocol, assignment_bytes)
        return True

    def _protocols(self, topics: Any) -> list[tuple[str, bytes]]:
        generation = max(self.generation, -1)
        return [
            (
                assignor.name,
                m.subscription_bytes(
                    topics,
                    m.user_data_for(assignor, topics, self._owned, generation),
                    self._owned,
                    generation,
                    self._client_rack,
                ),
            )
            for assignor in self._assignors
        ]

    async def _join_and_sync(self, subscription: Any) -> tuple[str, bytes] | None:
        """One JoinGroup then one SyncGroup. None means: try again (after the backoff)."""
        protocols = self._protocols(subscription.topics)
        for _ in range(2):  # a second round only for MEMBER_ID_REQUIRED (KIP-394, dynamic)
            reason = self._join_reason
            self._enforced.clear()  # enforce_rebalance calls from now on make another join
            request = build_join_group(
                self._versions.join_group,
                group_id=self.group_id,
                session_timeout_ms=self._session_timeout_ms,
                rebalance_timeout_ms=self._rebalance_timeout_ms,
                member_id=self.member_id,
                group_instance_id=self._group_instance_id,
                protocol_type=CONSUMER_PROTOCOL_TYPE,
                protocols=protocols,
                reason=reason,
            )
            self._emit(JoinGroupReason, reason=truncate_reason(reason) or reason)
            log.info("(Re-)joining group %s (reason: %s)", self.group_id, reason)
            try:
                response = await self._send_req(request)
            except Errors.KafkaError:
                return None
            if not subscription.active:
                return None
            joined = parse_join_group(response)
            if joined.error_code == ErrorCode.MEMBER_ID_REQUIRED:
                self.member_id = joined.member_id
                self._join_reason = JOIN_REASON_MEMBER_ID_REQUIRED
                continue
            break
        if joined.error_code != ErrorCode.NONE:
            await self._on_group_error("JoinGroup", joined.error_code)
            return None
        self.member_id = joined.member_id
        self.generation = joined.generation_id
        self._join_reason = JOIN_REASON_GROUP_REBALANCING
        self.is_leader = joined.is_leader
        log.info(
            "Joined group %r (generation %s) as member %s%s",
            self.group_id, joined.generation_id, joined.member_id,
            " (leader)" if joined.is_leader else "",
        )  # fmt: skip
        assignments: list[tuple[str, bytes]] = []
        if joined.is_leader:
            planned = await self._perform_static_assignment(joined)
            assignments = list(planned.items())
        return await self._sync(joined.protocol_name or "", assignments)

    async def _perform_static_assignment(self, joined: Any) -> dict[str, bytes]:
        """The leader's step. With JoinGroup v9 a leader that re-joined a stable group is told
        to skip it (``skip_assignment``); it still watches every member's topics."""
        decoded = {
            member.member_id: (member.group_instance_id, decode_subscription(member.metadata))
            for member in joined.members
        }
        topics: set[str] = set()
        for _instance_id, sub in decoded.values():
            topics.update(sub.topics)
        self._group_subscription = topics
        if not self._subscription.subscribed_pattern:
            self._client.set_topics(topics)
        await self._client._maybe_wait_metadata()
        self._metadata_snapshot = self._get_metadata_snapshot()
        if joined.skip_assignment:
            return {}
        assignor = self._lookup_assignor(joined.protocol_name)
        if assignor is None:
            raise Errors.KafkaError(
                f"the coordinator chose unknown protocol {joined.protocol_name}"
            )
        if hasattr(assignor, "assign_group"):
            known = {t: self._cluster.partitions_for_topic(t) for t in topics}
            partitions = {t: len(ps) for t, ps in known.items() if ps}
            racks = replica_racks(self._cluster, partitions) if m.any_member_rack(decoded) else None
            return m.plan_with_group_assignor(assignor, decoded, partitions, partition_racks=racks)
        # An aiokafka-style assignor: it sees member ids and subscriptions only.
        metadata = {
            member_id: ConsumerProtocolMemberMetadata(0, list(sub.topics), sub.user_data or b"")
            for member_id, (_iid, sub) in decoded.items()
        }
        planned = assignor.assign(self._cluster, metadata)
        return {
            member_id: a if isinstance(a, bytes) else a.encode() for member_id, a in planned.items()
        }

    async def _sync(
        self, protocol: str, assignments: list[tuple[str, bytes]]
    ) -> tuple[str, bytes] | None:
        request = build_sync_group(
            self._versions.sync_group,
            group_id=self.group_id,
            generation_id=self.generation,
            member_id=self.member_id,
            group_instance_id=self._group_instance_id,
            protocol_type=CONSUMER_PROTOCOL_TYPE,
            protocol_name=protocol,
            assignments=assignments,
        )
        # As aiokafka does: changes seen from here on need another join.
        self._rejoin_needed_fut = create_future()
        generation, member_id = self.generation, self.member_id
        try:
            response = await self._send_req(request)
        except Errors.KafkaError:
            self.request_rejoin()
            return None
        synced = parse_sync_group(response)
        if synced.error_code != ErrorCode.NONE:
            self.request_rejoin()
            await self._on_group_error("SyncGroup", synced.error_code)
            return None
        self.generation, self.member_id = generation, member_id
        return protocol, synced.assignment

    async def _on_group_error(self, api: str, error_code: int) -> None:
        """The single translation point of group error codes (see :func:`m.classify`)."""
        action = m.classify(error_code)
        self._join_reason = JOIN_REASON_REJOIN_AFTER_ERROR
        log.warning(
            "%s for group %s failed: %s -> %s",
            api,
            self.group_id,
            error_name(error_code),
            action.value,
        )
        if action is m.Action.FATAL:
            raise self._fatal_for(api)
        if error_code == ErrorCode.INVALID_SESSION_TIMEOUT:
            raise Fatal(await self._session_timeout_error())
        if action is m.Action.COORDINATOR_DEAD:
            self.coordinator_dead()
        elif action is m.Action.RESET:
            if self.member_id != UNKNOWN_MEMBER_ID:  # once per loss, not once per API
                self._emit(SessionExpired, api=api)
            self.reset_generation()
        elif action is m.Action.REJOIN:
            self.request_rejoin()
        elif action is m.Action.RAISE:
            error_type = Errors.for_code(error_code)
            raise (
                error_type(self.group_id)
                if error_type is Errors.GroupAuthorizationFailedError
                else error_type()
            )

    async def _session_timeout_error(self) -> SessionTimeoutOutOfRangeError:
        bounds = await session_timeout_bounds(self._client, self.coordinator_id)
        where = (
            f"the broker allows group.min.session.timeout.ms={bounds[0]} to "
            f"group.max.session.timeout.ms={bounds[1]}"
            if bounds
            else "outside the broker's group.min.session.timeout.ms/group.max.session.timeout.ms"
        )
        return SessionTimeoutOutOfRangeError(
            f"session_timeout_ms={self._session_timeout_ms} (Java: session.timeout.ms) was "
            f"rejected by the group coordinator: {where}. Static members usually want a long "
            "timeout (KIP-345 raised the broker's cap to 30 minutes)."
        )

    # -- heartbeat, commit, leave ----------------------------------------------------------------

    async def _do_heartbeat(self) -> bool:
        self._raise_if_fatal()
        request = build_heartbeat(
            self._versions.heartbeat,
            group_id=self.group_id,
            generation_id=self.generation,
            member_id=self.member_id,
            group_instance_id=self._group_instance_id,
        )
        try:
            response = await self._send_req(request)
        except Errors.KafkaError as err:
            log.error("Heartbeat send request failed: %s. Will retry.", err)
            return False
        code = parse_heartbeat(response).error_code
        if code == ErrorCode.NONE:
            return True
        if code == ErrorCode.REBALANCE_IN_PROGRESS:
            self.request_rejoin()
            return True  # keep heartbeating while the group rebalances
        await self._on_group_error("Heartbeat", code)
        return False

    async def commit_offsets(self, assignment: Any, offsets: Any) -> None:
        if self.fatal_error is not None:
            raise self.fatal_error
        try:
            await super().commit_offsets(assignment, offsets)
        except Fatal as fatal:
            raise await self._become_fatal(fatal.error) from None

    async def _maybe_do_last_autocommit(self, assignment: Any) -> None:
        if self.fatal_error is None:
            await super()._maybe_do_last_autocommit(assignment)

    async def _do_commit_offsets(self, assignment: Any, offsets: Any) -> None:
        self._raise_if_fatal()
        if not offsets:
            return
        request = build_offset_commit(
            self._versions.offset_commit,
            group_id=self.group_id,
            generation_id=self.generation,
            member_id=self.member_id,
            group_instance_id=self._group_instance_id,
            offsets=[
                CommitOffset(tp.topic, tp.partition, meta.offset, metadata=meta.metadata or "")
                for tp, meta in offsets.items()
            ],
        )
        response = await self._send_req(request)
        failed = parse_offset_commit(response).failed
        if not failed:
            return
        code = failed[0].error_code
        await self._on_group_error("OffsetCommit", code)
        # Let aiokafka's commit loop retry or turn this into CommitFailedError.
        raise Errors.for_code(code)()

    async def _maybe_leave_group(self) -> None:
        """A static member stays in the group on stop (KIP-345) unless :attr:`leave_reason` was
        set by an explicit leave; a fenced member never sends anything."""
        dynamic = self._group_instance_id is None
        if self.fatal_error is None and self.generation > 0 and (dynamic or self.leave_reason):
            reason = self.leave_reason or LEAVE_REASON_PREFIX
            request = build_leave_group(
                self._versions.leave_group,
                group_id=self.group_id,
                members=[MemberIdentity(self.member_id, self._group_instance_id, reason)],
            )
            try:
                result = parse_leave_group(await self._send_req(request))
                codes = [result.error_code, *(x.error_code for x in result.members)]
                if any(codes):
                    log.warning("LeaveGroup for group %s answered %s", self.group_id, codes)
                else:
                    log.info("Left group %s (reason: %s)", self.group_id, self.leave_reason)
                    self._emit(GroupLeft, reason=truncate_reason(reason) or reason)
            except Errors.KafkaError as err:
                log.error("LeaveGroup request failed: %s", err)
        GroupCoordinator.reset_generation(self)


def replica_racks(cluster: Any, topics: Iterable[str]) -> dict[tuple[str, int], frozenset[str]]:
    """KIP-881: ``{(topic, partition): racks of the partition's replicas}`` from aiokafka's
    ``ClusterMetadata``. aiokafka 0.14 has no public accessor for replicas: they sit in
    ``cluster._partitions[topic][partition].replicas`` (``PartitionMetadata``); broker racks come
    from ``broker_metadata(node_id).rack`` (Metadata v1+). As in Java, every replica counts, in
    sync or not, and a replica whose broker is unknown or has no ``broker.rack`` adds no rack."""
    racks: dict[tuple[str, int], frozenset[str]] = {}
    for topic in topics:
        for partition, metadata in cluster._partitions.get(topic, {}).items():
            brokers = (cluster.broker_metadata(node_id) for node_id in metadata.replicas)
            racks[(topic, partition)] = frozenset(
                b.rack for b in brokers if b is not None and b.rack is not None
            )
    return racks


def abandon_producer(producer: Any) -> None:
    """Fail every record an ``AIOKafkaProducer`` still holds (aiokafka 0.14 accumulator), so that
    its ``stop()`` does not wait for a cluster that does not answer."""
    producer._message_accumulator.fail_all(
        Errors.KafkaTimeoutError("abandoned: not delivered before the consumer stopped")
    )


async def start_consumer(consumer: Any, coordinator_kwargs: dict[str, Any]) -> None:
    """``AIOKafkaConsumer.start`` with :class:`StaticGroupCoordinator` (aiokafka 0.14 layout)."""
    check_aiokafka_version()
    if consumer._fetcher is not None:
        raise StaticConsumerError("start() was called twice")
    await consumer._client.bootstrap()
    await consumer._wait_topics()
    consumer._fetcher = Fetcher(
        consumer._client, consumer._subscription,
        key_deserializer=consumer._key_deserializer,
        value_deserializer=consumer._value_deserializer,
        fetch_min_bytes=consumer._fetch_min_bytes, fetch_max_bytes=consumer._fetch_max_bytes,
        fetch_max_wait_ms=consumer._fetch_max_wait_ms,
        max_partition_fetch_bytes=consumer._max_partition_fetch_bytes,
        check_crcs=consumer._check_crcs, fetcher_timeout=consumer._consumer_timeout,
        retry_backoff_ms=consumer._retry_backoff_ms,
        auto_offset_reset=consumer._auto_offset_reset,
        isolation_level=consumer._isolation_level, client_rack=consumer._client_rack,
    )  # fmt: skip
    if consumer._group_id is None:
        consumer._coordinator = NoGroupCoordinator(
            consumer._client, consumer._subscription,
            exclude_internal_topics=consumer._exclude_internal_topics,
        )  # fmt: skip
        sub = consumer._subscription.subscription
        if sub is not None and consumer._subscription.partitions_auto_assigned():
            await consumer._client.force_metadata_update()
            consumer._coordinator.assign_all_partitions(check_unknown=True)
        return
    try:
        versions = await negotiate_versions(consumer._client)
    except UnsupportedBrokerError:
        if consumer._group_instance_id is not None:
            raise
        versions = None  # a dynamic member on an old broker: plain aiokafka behaviour
    common = dict(
        group_id=consumer._group_id,
        group_instance_id=consumer._group_instance_id,
        heartbeat_interval_ms=consumer._heartbeat_interval_ms,
        session_timeout_ms=consumer._session_timeout_ms,
        retry_backoff_ms=consumer._retry_backoff_ms,
        enable_auto_commit=consumer._enable_auto_commit,
        auto_commit_interval_ms=consumer._auto_commit_interval_ms,
        assignors=consumer._partition_assignment_strategy,
        exclude_internal_topics=consumer._exclude_internal_topics,
        rebalance_timeout_ms=consumer._rebalance_timeout_ms,
        max_poll_interval_ms=consumer._max_poll_interval_ms,
    )
    if versions is None:
        consumer._coordinator = GroupCoordinator(consumer._client, consumer._subscription, **common)
    else:
        consumer._coordinator = StaticGroupCoordinator(
            consumer._client, consumer._subscription, versions=versions,
            client_id=consumer._client._client_id, client_rack=consumer._client_rack,
            **coordinator_kwargs, **common,
        )  # fmt: skip
    sub = consumer._subscription.subscription
    if sub is not None:
        if consumer._subscription.partitions_auto_assigned():
            try:
                await consumer._subscription.wait_for_assignment()
            except Fatal as fatal:
                raise fatal.error from None
        else:
            consumer._coordinator.start_commit_offsets_refresh_task(sub.assignment)


def coordinator_of(consumer: Any) -> Any:
    return consumer._coordinator


# --- Admin-client seams ------------------------------------------------------------------------
# staticconsumer.admin and staticconsumer._admin_coordinator talk to brokers through a bare
# aiokafka client. Everything they need from it goes through the functions below, so the admin
# modules treat the client as an opaque handle. (Imports are local: this section is appended to
# the module and must not disturb the coordinator's imports above.)


async def open_admin_client(
    bootstrap_servers: str | list[str], *, request_timeout_ms: int, client_id: str,
    security: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    """A bootstrapped ``aiokafka.AIOKafkaClient`` (metadata loaded); closed again if bootstrap
    fails. ``security``: aiokafka's TLS/SASL keyword arguments. aiokafka errors propagate
    unchanged (the caller translates them), with :func:`bootstrap_failure_cause` attached as
    ``__cause__`` when bootstrap failed for an authentication or TLS reason."""
    from aiokafka.client import AIOKafkaClient

    client = AIOKafkaClient(
        bootstrap_servers=bootstrap_servers,
        request_timeout_ms=request_timeout_ms,
        client_id=client_id,
        **(security or {}),
    )
    try:
        await client.bootstrap()
    except BaseException:
        await client.close()
        raise
    return client


async def bootstrap_failure_cause(client: Any) -> BaseException | None:
    """Why ``client.bootstrap()`` failed, when it was not the network: aiokafka logs a SASL or
    TLS failure and raises only ``KafkaConnectionError``. Connects once to each bootstrap
    address with the client's own settings (each try bounded by its request timeout) and returns
    the first error that is not a plain connection failure, else None."""
    import ssl

    from aiokafka.conn import create_conn
    from aiokafka.errors import KafkaConnectionError

    if client._security_protocol == "PLAINTEXT":
        return None
    for host, port, _family in client.hosts:
        try:
            conn = await asyncio.wait_for(create_conn(
                host, port, client_id=client._client_id,
                request_timeout_ms=client._request_timeout_ms,
                ssl_context=client._ssl_context, security_protocol=client._security_protocol,
                sasl_mechanism=client._sasl_mechanism,
                sasl_plain_username=client._sasl_plain_username,
                sasl_plain_password=client._sasl_plain_password,
                sasl_kerberos_service_name=client._sasl_kerberos_service_name,
                sasl_kerberos_domain_name=client._sasl_kerberos_domain_name,
                sasl_oauth_token_provider=client._sasl_oauth_token_provider,
            ), client._request_timeout_ms / 1000)  # fmt: skip
        except (OSError, TimeoutError, KafkaConnectionError) as exc:
            if isinstance(exc, ssl.SSLError):
                return exc
            continue
        except Exception as exc:  # the SASL errors: SaslAuthenticationFailed, ...
            return exc
        conn.close()
    return None


def client_of(consumer: Any) -> Any:
    """The consumer's ``AIOKafkaClient`` (for :func:`bootstrap_failure_cause`)."""
    return consumer._client


def client_principal(client: Any) -> tuple[str | None, str | None]:
    """The SASL username and mechanism ``client`` logs in with (None, None without SASL)."""
    if not str(client._security_protocol).startswith("SASL_"):
        return None, None
    return client._sasl_plain_username, client._sasl_mechanism


async def close_client(client: Any) -> None:
    await client.close()


async def send_to_node(client: Any, node_id: int, request: Any, *, coordination: bool) -> Any:
    """Send ``request`` to ``node_id`` and return the response. ``coordination=True`` uses the
    node's separate coordination connection, as aiokafka's own GroupCoordinator does, so a slow
    group request never queues behind fetches on the default connection."""
    from aiokafka.client import ConnectionGroup

    group = ConnectionGroup.COORDINATION if coordination else ConnectionGroup.DEFAULT
    return await client.send(node_id, request, group=group)


def any_known_node(client: Any) -> int | None:
    """The id of some broker from the client's metadata (bootstrap nodes included), or None."""
    node_id: int | None = client.get_random_node()
    return node_id


async def ensure_node_metadata(client: Any, node_id: int) -> None:
    """Refresh metadata once when the client has no address for ``node_id`` (e.g. a coordinator
    that FindCoordinator named but the last metadata did not list), so a send can connect."""
    if client.cluster.broker_metadata(node_id) is None:
        await client.force_metadata_update()

