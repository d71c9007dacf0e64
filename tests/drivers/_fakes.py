"""A fake of the aiokafka seam and a scripted classic group coordinator, so that the real
:class:`~staticconsumer.drivers.Driver` (with its real engine, sender and components) runs with
no broker. The coordinator reads the requests the driver built with the protocol layer and
answers with response objects of the same layer; tests script its errors and the leader's plan.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiokafka.errors import KafkaError
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from assignors import MemberAssignment
from staticconsumer.drivers import Driver, classic_driver
from staticconsumer.errors import StaticConsumerError
from staticconsumer.options import ConsumerOptions
from staticconsumer.protocol import (
    IMPLEMENTED_VERSIONS,
    ApiKey,
    Assignment,
    ErrorCode,
    GroupApiVersions,
    decode_assignment,
    encode_assignment,
    group_partitions,
    negotiate,
    response_class,
)

TOPIC = "t"
VERSIONS = negotiate(dict(IMPLEMENTED_VERSIONS))


@dataclass
class Subscription:
    topics: frozenset[str] = frozenset({TOPIC})
    active: bool = True


class FakeAssignment:
    """What aiokafka's ``subscription.assignment`` is to the driver: nothing to refresh."""

    def __init__(self, tps: Iterable[TopicPartition]) -> None:
        self.tps = frozenset(tps)
        self.active = False  # the committed-offsets refresh ends at once
        self.commit_refresh_needed = asyncio.Event()


class Listener:
    """A rebalance listener that records each call in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, frozenset[tuple[str, int]]]] = []

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.calls.append(("revoked", frozenset((tp.topic, tp.partition) for tp in revoked)))

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.calls.append(("assigned", frozenset((tp.topic, tp.partition) for tp in assigned)))


class FakeSeam:
    """``staticconsumer._compat.ClientSeam`` as the driver uses it, with no aiokafka client."""

    def __init__(self, coordinator: FakeCoordinator, partitions: int = 3) -> None:
        self.group_coordinator = coordinator
        self.subscription = Subscription()
        self.partitions = partitions
        self.listener_object: Listener | None = Listener()
        self.assigned: FakeAssignment | None = None
        self.consumed: dict[TopicPartition, OffsetAndMetadata] = {}
        self.wakes: list[Exception] = []
        self.reassignments = 0
        #: What stopped being handed out, with the commits sent and listener calls made before.
        self.stops: list[tuple[frozenset[tuple[str, int]] | None, int, int]] = []
        #: Topics whose partition counts the member watches, as a leader (None: none).
        self.watched: set[str] | None = None
        #: Subscribed by pattern: each metadata refresh sets the subscription to ``pattern_topics``
        #: (what matching the pattern against the cluster's topics gives, as aiokafka does).
        self.pattern_topics: frozenset[str] | None = None
        #: The topics subscribed when each refresh was asked for.
        self.refreshes: list[frozenset[str]] = []
        #: Each request sent: its API and how long it waits for an answer at least (None: the
        #: connection's request_timeout_ms).
        self.timeouts: list[tuple[str, int | None]] = []
        #: Each Metadata top-level error handed to the client (REBOOTSTRAP_REQUIRED, KIP-1102).
        self.rebootstraps: list[int] = []

    def request_rebootstrap(self, error_code: int) -> None:
        self.rebootstraps.append(error_code)

    def subscribed_by_pattern(self) -> bool:
        return self.pattern_topics is not None

    async def refresh_metadata(self, timeout_s: float) -> bool:
        self.refreshes.append(self.subscription.topics)
        await asyncio.sleep(0)
        if self.pattern_topics is not None and self.pattern_topics != self.subscription.topics:
            self.subscription = Subscription(self.pattern_topics)  # aiokafka: a new object
        return True

    async def send(
        self, node_id: int, request: Any, *, timeout_at_least_ms: int | None = None
    ) -> Any:
        self.timeouts.append((ApiKey(request.api_key).name, timeout_at_least_ms))
        return await self.group_coordinator.answer(request)

    async def lookup_coordinator(self, group_id: str) -> int | None:
        return 0

    def current_subscription(self) -> Subscription:
        return self.subscription

    def auto_assigned(self) -> bool:
        return True

    def idle_seconds(self) -> float:
        return 0.0

    def listener(self) -> Listener | None:
        return self.listener_object

    def begin_reassignment(self) -> None:
        self.reassignments += 1
        self._stopped(None)

    def mark_pending_revocation(self, partitions: Iterable[tuple[str, int]]) -> None:
        self._stopped(frozenset(partitions))

    def _stopped(self, partitions: frozenset[tuple[str, int]] | None) -> None:
        calls = getattr(self.listener_object, "calls", ())
        commits = getattr(self.group_coordinator, "commits", ())
        self.stops.append((partitions, len(commits), len(calls)))

    def assign(self, partitions: Iterable[tuple[str, int]]) -> FakeAssignment:
        self.assigned = FakeAssignment(TopicPartition(t, p) for t, p in partitions)
        return self.assigned

    def consumed_offsets(
        self, partitions: Iterable[tuple[str, int]] | None = None
    ) -> dict[Any, Any]:
        if partitions is None:
            return dict(self.consumed)
        wanted = {TopicPartition(t, p) for t, p in partitions}
        return {tp: o for tp, o in self.consumed.items() if tp in wanted}

    def assignment(self) -> FakeAssignment | None:
        return self.assigned

    def abort_waiters(self, exc: Exception) -> None:
        self.wakes.append(exc)

    def watch_topics(self, topics: set[str]) -> None:
        pass

    async def wait_metadata(self) -> None:
        pass

    def partitions_per_topic(self, topics: Iterable[str]) -> dict[str, int]:
        return {t: self.partitions for t in topics}

    def watch_partition_counts(self, topics: Iterable[str]) -> None:
        self.watched = set(topics)

    def replica_racks(self, topics: Iterable[str]) -> dict[tuple[str, int], frozenset[str]]:
        return {}

    async def session_timeout_bounds(self, node: int | None) -> tuple[int, int] | None:
        return None

    async def serve_committed_offsets(self, assignment: Any, fetch: Any, stopped: Any) -> None:
        """A fake assignment asks for no committed offset (``FakeAssignment.active``)."""
        assert not assignment.active


@dataclass
class FakeCoordinator:
    """A classic group coordinator for one member, scripted by the test: the member leads a
    group of one; ``heartbeat_errors`` answer the next heartbeats; ``commit_errors`` the next
    OffsetCommits; ``hold_commit`` keeps a commit's answer back until the test releases it."""

    heartbeat_errors: list[int] = field(default_factory=list)
    commit_errors: list[int] = field(default_factory=list)
    hold_commit: asyncio.Event | None = None
    generation: int = 0
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: APIs whose requests get no answer (aiokafka's KafkaError), e.g. {"OFFSET_COMMIT"}.
    unanswered: set[str] = field(default_factory=set)
    commits: list[dict[tuple[str, int], int]] = field(default_factory=list)
    #: Answer the next JoinGroup as a broker before Kafka 3.2 answers a static leader that
    #: re-joined a stable group: this (former) member id as leader, and no members (KIP-814).
    former_leader: str | None = None
    #: The versions this coordinator announces (ApiVersions); a request of another version is
    #: refused as aiokafka's connection refuses it (``PinnedRequest.check_broker``). None: any.
    announced: Mapping[int, tuple[int, int]] | None = None

    def sent(self, api: str) -> list[dict[str, Any]]:
        return [fields for name, fields in self.requests if name == api]

    async def answer(self, request: Any) -> Any:
        fields: dict[str, Any] = request.struct.to_object()
        key, version = request.api_key, request.api_version
        if self.announced is not None:
            request.check_broker(self.announced)
        name = ApiKey(key).name
        fields["version"] = version
        self.requests.append((name, fields))
        if name in self.unanswered:
            await asyncio.sleep(0.01)
            raise KafkaError(f"{name}: no answer (the coordinator is gone)")
        answer = getattr(self, f"_{name.lower()}")(fields)
        if key == ApiKey.OFFSET_COMMIT and self.hold_commit is not None:
            await self.hold_commit.wait()
            answer = self._offset_commit(fields)  # the errors as they are when it is released
        await asyncio.sleep(0)
        return response_class(key, version)(**_fill(response_class(key, version), answer))

    def _join_group(self, req: Mapping[str, Any]) -> dict[str, Any]:
        instance_id = req.get("group_instance_id")  # none before v5 (KIP-345)
        if instance_id is None and not req["member_id"] and req["version"] >= 4:
            # KIP-394 (v4+): a dynamic member's first join gets its member id, to join again.
            given = f"c-{self.generation + 1}"
            return {"error_code": ErrorCode.MEMBER_ID_REQUIRED, "generation_id": -1,
                    "member_id": given, "leader": "", "members": []}  # fmt: skip
        self.generation += 1
        member_id = req["member_id"] or f"{instance_id or 'c'}-{self.generation}"
        protocol = req["protocols"][0]
        if self.former_leader is not None:
            leader, self.former_leader = self.former_leader, None
            return {
                "error_code": 0, "generation_id": self.generation, "protocol_type": "consumer",
                "protocol_name": protocol["name"], "leader": leader, "skip_assignment": False,
                "member_id": member_id, "members": [],
            }  # fmt: skip
        return {
            "error_code": 0, "generation_id": self.generation, "protocol_type": "consumer",
            "protocol_name": protocol["name"], "leader": member_id, "skip_assignment": False,
            "member_id": member_id,
            "members": [{"member_id": member_id, "group_instance_id": instance_id,
                         "metadata": protocol["metadata"]}],
        }  # fmt: skip

    def _sync_group(self, req: Mapping[str, Any]) -> dict[str, Any]:
        # A follower's SyncGroup (after a former_leader answer) gets every partition.
        everything = encode_assignment(plan(*range(3)))
        mine = next((a["assignment"] for a in req["assignments"]
                     if a["member_id"] == req["member_id"]), everything)  # fmt: skip
        return {"error_code": 0, "protocol_type": "consumer",
                "protocol_name": req.get("protocol_name"), "assignment": mine}  # fmt: skip

    def _heartbeat(self, req: Mapping[str, Any]) -> dict[str, Any]:
        return {"error_code": self.heartbeat_errors.pop(0) if self.heartbeat_errors else 0}

    def _leave_group(self, req: Mapping[str, Any]) -> dict[str, Any]:
        if "members" not in req:  # before v3: one member, by member id; no per-member answers
            return {"error_code": 0}
        return {"error_code": 0, "members": [
            {"member_id": m["member_id"], "group_instance_id": m["group_instance_id"],
             "error_code": 0} for m in req["members"]]}  # fmt: skip

    def _offset_commit(self, req: Mapping[str, Any]) -> dict[str, Any]:
        code = self.commit_errors[0] if self.commit_errors else 0
        if self.hold_commit is None or self.hold_commit.is_set():
            if self.commit_errors:
                self.commit_errors.pop(0)
            if code == 0:
                self.commits.append({(t["name"], p["partition_index"]): p["committed_offset"]
                                     for t in req["topics"] for p in t["partitions"]})  # fmt: skip
        return {"topics": [{"name": t["name"], "partitions": [
            {"partition_index": p["partition_index"], "error_code": code}
            for p in t["partitions"]]} for t in req["topics"]]}  # fmt: skip

    def _describe_groups(self, req: Mapping[str, Any]) -> dict[str, Any]:
        return {"groups": []}


def _fill(cls: Any, values: dict[str, Any]) -> dict[str, Any]:
    """Every field of the response schema: ``values``, else a zero of its type."""
    out: dict[str, Any] = {}
    for name, kind in zip(cls.SCHEMA.names, cls.SCHEMA.fields, strict=True):
        if name in values:
            out[name] = _fill_value(kind, values[name])
        else:
            out[name] = _zero(kind)
    return out


def _fill_value(kind: Any, value: Any) -> Any:
    inner = getattr(kind, "array_of", None)
    if inner is not None and hasattr(inner, "names") and isinstance(value, list):
        return [tuple(_fill(_Holder(inner), v).values()) for v in value]
    return value


class _Holder:
    def __init__(self, schema: Any) -> None:
        self.SCHEMA = schema


def _zero(kind: Any) -> Any:
    text = type(kind).__name__.lower()
    if "array" in text:
        return []
    if "string" in text:
        return None if "nullable" in text else ""
    if "bytes" in text:
        return b""
    if "tagged" in text:
        return {}
    if "boolean" in text:
        return False
    return 0


def plan(*partitions: int) -> Assignment:
    return Assignment(partitions=group_partitions((TOPIC, p) for p in partitions))


class ScriptedAssignor:
    """A GroupAssignor whose plans the test scripts, one per leader step (the last repeats);
    ``fail`` raises instead, once per call while set."""

    name = "scripted"

    def __init__(self, *plans: tuple[int, ...], cooperative: bool = False) -> None:
        self.plans = list(plans)
        self.supported_protocols = ("cooperative",) if cooperative else ("eager",)
        self.fail: Exception | None = None
        self.calls = 0

    def subscription_user_data(self, topics: Any, owned: Any, generation: int) -> bytes:
        return b""

    def assign_group(self, members: Any, partitions_per_topic: Any, *,
                     partition_racks: Any = None) -> dict[str, MemberAssignment]:  # fmt: skip
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        chosen = self.plans.pop(0) if len(self.plans) > 1 else self.plans[0]
        member = members[0]
        return {member.member_id: MemberAssignment(
            tuple(TopicPartition(TOPIC, p) for p in chosen))}  # fmt: skip


@dataclass
class Harness:
    """One driver over a fake seam and coordinator, and what it told the application."""

    seam: FakeSeam
    coordinator: FakeCoordinator
    driver: Driver
    fatal: list[StaticConsumerError]


def kip848_options(**overrides: Any) -> ConsumerOptions:
    """The options of the driver tests' KIP-848 member (``i-0`` in group ``g``)."""
    return ConsumerOptions(**{
        "group_id": "g", "group_instance_id": "i-0", "client_id": "c",
        "group_protocol": "consumer", "retry_backoff_ms": 10, **overrides,
    })  # fmt: skip


def classic_harness(
    assignor: ScriptedAssignor, *, coordinator: FakeCoordinator | None = None,
    enable_auto_commit: bool = True, events: Any = None, group_instance_id: str | None = "i-0",
    roster: Any = None, versions: GroupApiVersions = VERSIONS, also_offered: tuple[Any, ...] = (),
) -> Harness:  # fmt: skip
    """A classic driver over the fake coordinator; ``also_offered``: assignors offered after
    ``assignor`` in JoinGroup."""
    coordinator = coordinator or FakeCoordinator()
    seam = FakeSeam(coordinator)
    fatal: list[StaticConsumerError] = []
    options = ConsumerOptions(
        group_id="g", group_instance_id=group_instance_id, client_id="c", client_rack=None,
        partition_assignment_strategy=(assignor, *also_offered), session_timeout_ms=10_000,
        heartbeat_interval_ms=100, rebalance_timeout_ms=10_000, max_poll_interval_ms=300_000,
        retry_backoff_ms=10, enable_auto_commit=enable_auto_commit, auto_commit_interval_ms=60_000,
    )  # type: ignore[arg-type]  # fmt: skip
    driver = classic_driver(seam, versions, options, on_fatal=fatal.append, events=events,
                            roster=roster)  # type: ignore[arg-type]  # fmt: skip
    return Harness(seam, coordinator, driver, fatal)


async def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 5.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():  # noqa: ASYNC110  # polls the driver's state, which has no event
            await asyncio.sleep(0.005)


def owned(partitions: Iterable[tuple[str, int]]) -> set[int]:
    return {p for _t, p in partitions}


__all__ = ["decode_assignment", "encode_assignment"]
