"""The consumer's seam: what ``AIOKafkaConsumer`` sees as its group coordinator, what the driver
needs from aiokafka's client and subscription state, and ``AIOKafkaConsumer.start`` with both."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

import aiokafka.errors as Errors
from aiokafka.client import ConnectionGroup, CoordinationType
from aiokafka.conn import CloseReason
from aiokafka.consumer.group_coordinator import BaseCoordinator
from aiokafka.structs import OffsetAndMetadata, TopicPartition
from typing_extensions import override

from .._version import __version__
from ..errors import ClusterUnavailableError, ProtocolError
from ..membership import LogIdentity
from ..protocol import (
    FEATURES_API_VERSION,
    NO_COMMITTED_OFFSET,
    ApiKey,
    FinalizedFeatures,
    GroupApiVersions,
    PinnedRequest,
    api_versions_from_response,
    build_api_versions,
    negotiate,
    parse_finalized_features,
)
from .broker_config import session_timeout_bounds
from .features import CONNECTION_PICKS_VERSIONS
from .helpers import open_coordination_to, replica_racks
from .rebootstrap import RecoveringClient
from .requests import api_versions_request
from .roster import PartitionLog, read_partition_log
from .wire import aiokafka_request

#: aiokafka's error base class, for the driver's "no answer" handling.
KafkaError = Errors.KafkaError
#: What aiokafka raises when bootstrap reached no server.
KafkaConnectionError = Errors.KafkaConnectionError
TP = tuple[str, int]
log = logging.getLogger(__name__)


class WakeMarker(Errors.KafkaError):
    """Wakes a blocked ``start``/``getone``/``getmany`` (aiokafka's waiters) when the member
    turns fatal or has an error for the application; the consumer raises that error in its
    place. aiokafka's fetcher tolerates only ``KafkaError`` from those waiters."""


async def negotiate_versions(
    client: Any, timeout_s: float, backoff_s: float, identity: LogIdentity | None = None,
    *, static_member: bool = True, features: bool = False,
) -> GroupApiVersions:  # fmt: skip
    """Ask a broker that answers for its ApiVersions and pick our group API versions (for a
    member with or without ``group_instance_id``: :func:`~staticconsumer.protocol.negotiate`).

    The metadata may still list a broker that just died (a coordinator failing over: KRaft fences
    it only after ``broker.session.timeout.ms``), so every known broker is tried in turn, and
    the round repeated with fresh metadata, for up to ``timeout_s``; then
    :class:`ClusterUnavailableError`. A broker that answers with versions too old for static
    membership raises :class:`UnsupportedBrokerError` at once."""
    deadline = time.monotonic() + timeout_s
    failures: dict[int, str] = {}
    while True:
        brokers = sorted(client.cluster.brokers(), key=lambda b: (b.nodeId in failures, b.nodeId))
        for broker in brokers:
            try:
                response = await client.send(broker.nodeId, api_versions_request())
            except Errors.KafkaError as exc:
                if not (exc.retriable or isinstance(exc, Errors.KafkaTimeoutError)):
                    raise
                failures[broker.nodeId] = repr(exc)
                (identity.logger(log) if identity else log).info(
                    "ApiVersions from node %s failed (%r): trying another broker",
                    broker.nodeId, exc)  # fmt: skip
                continue
            versions = negotiate(api_versions_from_response(response),
                                 static_member=static_member)  # fmt: skip
            if features:  # the consumer and streams protocols: is the coordinator's on?
                found = await _finalized_features(client, broker.nodeId, versions, identity)
                versions = dataclasses.replace(versions, features=found)
            return versions
        if time.monotonic() >= deadline:
            raise ClusterUnavailableError(
                f"no broker answered ApiVersions within {timeout_s:g}s "
                f"(request_timeout_ms): {failures}"
            )
        await asyncio.sleep(backoff_s)
        with contextlib.suppress(Errors.KafkaError):
            await client.force_metadata_update()


async def _finalized_features(
    client: Any, node_id: int, versions: GroupApiVersions, identity: LogIdentity | None
) -> FinalizedFeatures | None:
    """The cluster's finalized features from ``node_id`` (ApiVersions v3, Kafka 2.4+), or None
    when the broker is older or does not answer (then nothing is concluded from them)."""
    low, high = versions.broker.get(ApiKey.API_VERSIONS, (0, -1))
    if not low <= FEATURES_API_VERSION <= high:
        return None
    request = aiokafka_request(build_api_versions(__version__))
    try:
        return parse_finalized_features(await client.send(node_id, request))
    except (Errors.KafkaError, ProtocolError) as exc:
        (identity.logger(log) if identity else log).info(
            "ApiVersions v3 from node %s failed (%r): the cluster's features stay unknown",
            node_id, exc)  # fmt: skip
        return None


class Driver(Protocol):
    """What :class:`CoordinatorSeam` forwards to (``staticconsumer.drivers.Driver``)."""

    @property
    def member_id(self) -> str: ...
    @property
    def generation(self) -> int: ...

    def start(self) -> None: ...
    def check_errors(self) -> None: ...
    async def close(self) -> None: ...
    async def commit_offsets(self, assignment: Any, offsets: Any) -> None: ...
    async def fetch_committed_offsets(self, partitions: Any) -> Any: ...
    def start_commit_offsets_refresh_task(self, assignment: Any) -> None: ...
    def maybe_leave_group(self) -> Any: ...
    def on_metadata_change(self) -> None: ...


class CoordinatorSeam(BaseCoordinator):  # type: ignore[misc]
    """``consumer._coordinator``: aiokafka calls these; each forwards to the driver."""

    def __init__(self, client: Any, subscription: Any, driver: Driver, **kwargs: Any) -> None:
        self.driver = driver
        # aiokafka calls check_errors() once per getone/getmany: bind the driver's directly.
        self.check_errors = driver.check_errors
        #: Topics whose partition counts the leader watches (aiokafka reads it on metadata).
        self._group_subscription: set[str] | None = None
        super().__init__(client, subscription, **kwargs)

    @override
    def _on_metadata_change(self) -> None:
        self.driver.on_metadata_change()

    def watch_topics(self, topics: set[str]) -> None:
        self._group_subscription = topics
        self._metadata_snapshot = self._get_metadata_snapshot()

    # aiokafka's GroupCoordinator has these two; code written against it reads them (FastStream's
    # rebalance logging listener reads ``consumer._coordinator.member_id``).
    @property
    def member_id(self) -> str:
        return self.driver.member_id

    @property
    def generation(self) -> int:
        return self.driver.generation

    # The interface AIOKafkaConsumer 0.14 uses (duck-typed there, not a base-class method).
    async def close(self) -> None:
        await self.driver.close()

    async def commit_offsets(self, assignment: Any, offsets: Any) -> None:
        await self.driver.commit_offsets(assignment, offsets)

    async def fetch_committed_offsets(self, partitions: Any) -> Any:
        return await self.driver.fetch_committed_offsets(partitions)

    def start_commit_offsets_refresh_task(self, assignment: Any) -> None:
        self.driver.start_commit_offsets_refresh_task(assignment)

    def maybe_leave_group(self) -> Any:
        return self.driver.maybe_leave_group()


class ClientSeam:
    """aiokafka's client and subscription state, as the driver needs them."""

    def __init__(self, client: Any, subscription: Any) -> None:
        self._client = client
        self._subscription = subscription
        self._coordinator: CoordinatorSeam | None = None
        self._pending_revocation: set[TopicPartition] = set()  # paused by us, not by the user
        self._all_revoked = False  # begin_reassignment: the next assignment keeps nothing
        self._polls_from: float | None = None  # when the application could first poll
        #: aiokafka 0.12 only: each node's ApiVersions, asked before its first group request.
        self._node_versions: dict[int, dict[int, tuple[int, int]]] = {}

    async def send(
        self, node_id: int, request: Any, *, timeout_at_least_ms: int | None = None
    ) -> Any:
        """Send on the node's coordination connection (group requests never queue behind
        fetches). aiokafka's ``KafkaError`` (no answer) propagates.

        ``timeout_at_least_ms``: this request waits for its answer ``max(request_timeout_ms,
        timeout_at_least_ms)``, not the connection's ``request_timeout_ms`` alone (JoinGroup:
        the coordinator holds it for up to the rebalance timeout, Java's
        ``AbstractCoordinator.sendJoinGroupRequest``).

        aiokafka 0.13 and 0.14's connection refuses a :class:`PinnedRequest` whose version its
        broker does not serve (``UnsupportedBrokerError``, before anything is sent); 0.12's
        reads no ApiVersions and would send it, and the broker would close the connection,
        retried forever. On 0.12 the seam asks the node's ApiVersions once (again after its
        connection broke: it may be another broker version by then) and refuses the same way."""
        # aiokafka 0.12/0.13: a node found otherwise than by lookup_coordinator is registered
        open_coordination_to(self._client, node_id)
        try:
            if not CONNECTION_PICKS_VERSIONS and isinstance(request, PinnedRequest):
                request.check_broker(await self._node_api_versions(node_id))
            sent = aiokafka_request(request)
            if timeout_at_least_ms is None:
                return await self._client.send(node_id, sent, group=ConnectionGroup.COORDINATION)
            return await self._send_waiting(node_id, sent, timeout_at_least_ms / 1000)
        except Errors.KafkaConnectionError:
            self._node_versions.pop(node_id, None)
            raise

    async def _node_api_versions(self, node_id: int) -> dict[int, tuple[int, int]]:
        """aiokafka 0.12: the ApiVersions ``node_id`` answered on its coordination connection."""
        versions = self._node_versions.get(node_id)
        if versions is None:
            answer = await self._client.send(node_id, api_versions_request(),
                                             group=ConnectionGroup.COORDINATION)  # fmt: skip
            versions = self._node_versions[node_id] = api_versions_from_response(answer)
        return versions

    async def _send_waiting(self, node_id: int, request: Any, at_least_s: float) -> Any:
        """``AIOKafkaClient.send`` with a longer timeout for this one request. aiokafka's client
        times every request out after its connection's ``request_timeout_ms``, read when the
        connection writes the request (``AIOKafkaConnection.send``, synchronously): the
        connection's timeout is raised for that one call, then set back, so no other request
        on the connection waits longer. A timeout closes the connection and raises
        ``RequestTimedOutError``, as ``AIOKafkaClient.send`` does."""
        group = ConnectionGroup.COORDINATION
        if not await self._client.ready(node_id, group=group):
            raise Errors.NodeNotReadyError(
                f"Attempt to send a request to node which is not ready (node id {node_id})."
            )
        conn = self._client._conns[(node_id, group)]
        usual = conn._request_timeout
        conn._request_timeout = max(usual, at_least_s)
        try:
            answer = conn.send(request)
        finally:
            conn._request_timeout = usual
        try:
            return await answer
        except TimeoutError as exc:
            conn.close(reason=CloseReason.CONNECTION_TIMEOUT)
            raise Errors.RequestTimedOutError() from exc

    def request_rebootstrap(self, error_code: int) -> None:
        """A Metadata answer's top-level error (v13+) read by the protocol layer: the client
        goes back to its bootstrap servers when it is REBOOTSTRAP_REQUIRED and its
        ``metadata_recovery_strategy`` says so (KIP-1102, :mod:`.rebootstrap`)."""
        if isinstance(self._client, RecoveringClient):
            self._client.request_rebootstrap(error_code)

    async def read_partition_log(self, topic: str) -> PartitionLog:
        """Every record of ``topic``'s partition 0 up to its high watermark, read with this
        consumer's own client (:func:`.roster.read_partition_log`; the roster's read)."""
        return await read_partition_log(self._client, topic)

    async def lookup_coordinator(self, group_id: str) -> int | None:
        """The coordinator's node id once a connection to it is ready, or None (retry later).
        GroupAuthorizationFailedError and non-retriable errors propagate."""
        try:
            node_id = await self._client.coordinator_lookup(CoordinationType.GROUP, group_id)
        except Errors.GroupAuthorizationFailedError as err:
            raise Errors.GroupAuthorizationFailedError(group_id) from err
        except Errors.KafkaError as err:
            if not err.retriable:
                raise
            await self._client.force_metadata_update()
            return None
        ready = await self._client.ready(node_id, group=ConnectionGroup.COORDINATION)
        return int(node_id) if ready else None

    # -- subscription state ---------------------------------------------------------------------

    def current_subscription(self) -> Any:
        return self._subscription.subscription

    def auto_assigned(self) -> bool:
        return bool(self._subscription.partitions_auto_assigned())

    def idle_seconds(self) -> float:
        """How long the application has not polled, for ``max_poll_interval_ms``: aiokafka's
        fetcher idle time, which counts from the consumer's construction, counted only from
        :meth:`start_poll_timer` (Java's poll timer starts with the first poll; here the member
        joins in ``start()``, and the application cannot poll before it returns). Zero before."""
        if self._polls_from is None:
            return 0.0
        since = time.monotonic() - self._polls_from
        return min(float(self._subscription.fetcher_idle_time), since)

    def start_poll_timer(self) -> None:
        """``start()`` returned: the application can poll from now on (the first call counts)."""
        if self._polls_from is None:
            self._polls_from = time.monotonic()

    def listener(self) -> Any:
        return self._subscription.listener

    def begin_reassignment(self) -> None:
        """Eager revocation (or lost partitions): the fetcher hands out nothing until the next
        assignment, which keeps nothing of this one (its positions start from the committed
        offsets again)."""
        self._subscription.begin_reassignment()
        self._all_revoked = True

    def mark_pending_revocation(self, partitions: Iterable[TP]) -> None:
        """A revocation that keeps the rest fetching (cooperative, KIP-848), before its commit
        and ``on_partitions_revoked``: the fetcher fetches ``partitions`` no more and hands out
        none of what it already fetched for them, so nothing consumed after the commit goes to
        the next owner again (Java's ``SubscriptionState.markPendingRevocation``; Java's poll
        thread cannot consume during the listener, an asyncio application can). Positions stay,
        so the listener can still commit them. aiokafka's one flag for it is pause: ``paused()``
        lists them until the next assignment drops them."""
        assignment = self.assignment()
        if assignment is None:
            return
        for tp in (TopicPartition(t, p) for t, p in partitions):
            if tp in assignment.tps and not assignment.state_value(tp).paused:
                assignment.state_value(tp).pause()
                self._pending_revocation.add(tp)

    def assign(self, partitions: Iterable[TP]) -> Any:
        """Hand ``partitions`` to the fetcher. A partition it kept keeps its position and the
        application's pause (a cooperative rebalance keeps fetching it from where it was, as
        Java's ``assignFromSubscribed`` keeps its state). Returns the assignment."""
        old = self._subscription.subscription.assignment
        kept: dict[TopicPartition, tuple[int | None, bool]] = {}
        if old is not None and not self._all_revoked:
            for tp in old.tps:
                state = old.state_value(tp)
                position = state.position if state.has_valid_position else None
                kept[tp] = (position, state.paused and tp not in self._pending_revocation)
        self._pending_revocation.clear()
        self._all_revoked = False
        self._subscription.assign_from_subscribed({TopicPartition(t, p) for t, p in partitions})
        assignment = self._subscription.subscription.assignment
        for tp, (position, paused) in kept.items():
            if tp in assignment.tps:
                if position is not None:
                    assignment.state_value(tp).seek(position)
                if paused:
                    assignment.state_value(tp).pause()
        return assignment

    def consumed_offsets(self, partitions: Iterable[TP] | None = None) -> dict[Any, Any]:
        assignment = self.assignment()
        if assignment is None:
            return {}
        offsets = assignment.all_consumed_offsets()
        if partitions is None:
            return dict(offsets)
        wanted = {TopicPartition(t, p) for t, p in partitions}
        return {tp: o for tp, o in offsets.items() if tp in wanted}

    def assignment(self) -> Any:
        sub = self._subscription.subscription
        return None if sub is None else sub.assignment

    def abort_waiters(self, exc: Exception) -> None:
        self._subscription.abort_waiters(exc)

    def watch_topics(self, topics: set[str]) -> None:
        """Leader: fetch metadata for every member's topics and watch their partition counts."""
        if not self.subscribed_by_pattern():
            self._client.set_topics(topics)

    async def wait_metadata(self) -> None:
        await self._client._maybe_wait_metadata()

    def subscribed_by_pattern(self) -> bool:
        return self._subscription.subscribed_pattern is not None

    async def refresh_metadata(self, timeout_s: float) -> bool:
        """Fetch the cluster's metadata now; a pattern subscription follows it (aiokafka's
        metadata listener matches the pattern before this returns). False when no answer came
        within ``timeout_s`` (the metadata stays as it was)."""
        try:
            return bool(await asyncio.wait_for(self._client.force_metadata_update(), timeout_s))
        except TimeoutError:
            return False

    def partitions_per_topic(self, topics: Iterable[str]) -> dict[str, int]:
        cluster = self._client.cluster
        known = {t: cluster.partitions_for_topic(t) for t in topics}
        return {t: len(ps) for t, ps in known.items() if ps}

    # -- the leader, the fatal path and committed offsets -----------------------------------------

    def attach(self, coordinator: CoordinatorSeam) -> None:
        """The consumer's coordinator seam (``start_consumer``), whose metadata watch the leader
        drives."""
        self._coordinator = coordinator

    def watch_partition_counts(self, topics: Iterable[str]) -> None:
        """A change of these topics' partition counts makes the member re-join (aiokafka's
        metadata listener, as its leader does)."""
        if self._coordinator is not None:
            self._coordinator.watch_topics(set(topics))

    def replica_racks(self, topics: Iterable[str]) -> dict[tuple[str, int], frozenset[str]]:
        """The racks of each partition's replicas, from the client's metadata (KIP-881)."""
        return replica_racks(self._client.cluster, topics)

    async def session_timeout_bounds(self, node: int | None) -> tuple[int, int] | None:
        """The broker's group.min/max.session.timeout.ms, when it tells them."""
        return await session_timeout_bounds(self._client, node)

    async def serve_committed_offsets(
        self, assignment: Any, fetch: Callable[[list[Any]], Awaitable[dict[Any, Any] | None]],
        stopped: Callable[[], bool],
    ) -> None:  # fmt: skip
        """Answer the fetcher's requests for committed offsets of ``assignment`` (aiokafka's
        ``TopicPartitionState.fetch_committed``) with ``fetch(partitions)`` (None: ask again),
        until the assignment ends or ``stopped()``. A partition ``fetch`` has no row for gets
        "no committed offset"."""
        needed = assignment.commit_refresh_needed
        while assignment.active and not stopped():
            needed.clear()
            wanted = assignment.requesting_committed()
            if wanted:
                offsets = await fetch(wanted)
                if offsets is None:
                    continue
                for tp in wanted:
                    assignment.state_value(tp).update_committed(
                        offsets.get(tp, OffsetAndMetadata(NO_COMMITTED_OFFSET, ""))
                    )
            waiter = asyncio.ensure_future(needed.wait())
            try:
                await asyncio.wait([waiter, assignment.unassign_future],
                                   return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
            finally:
                waiter.cancel()
