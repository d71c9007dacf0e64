"""A scripted stand-in for aiokafka's ``AIOKafkaClient`` at the seam our ``_compat`` and
``_admin`` code call (``send``, ``cluster``, ``get_random_node``, ``force_metadata_update``,
``coordinator_lookup``, ``ready``), answering with real response objects: aiokafka's own for
ApiVersions and DescribeConfigs, the protocol layer's (``response_class``) for the group APIs.

Its cluster metadata is aiokafka's real ``ClusterMetadata``, loaded from a Metadata response.
A test scripts one answer per request in ``answers[api_key]`` (a response object, or an
exception to raise, or a function of ``(node_id, request)`` giving either); the last answer
of a list repeats; a request of an API with no answers gets RequestTimedOutError. Every
request is kept in ``sent``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiokafka.errors as Errors
from aiokafka.client import ConnectionGroup
from aiokafka.cluster import ClusterMetadata
from aiokafka.protocol.admin import ApiVersionResponse_v1
from aiokafka.protocol.metadata import MetadataResponse_v1

from staticconsumer.protocol import IMPLEMENTED_VERSIONS, ApiKey, response_class
from staticconsumer.protocol._wire import to_values

#: What the fake announces in ApiVersions: every version the protocol layer implements.
ALL_VERSIONS: Mapping[int, tuple[int, int]] = {**IMPLEMENTED_VERSIONS, ApiKey.API_VERSIONS: (0, 3)}

#: What Apache Kafka 2.2.2 announces for the group APIs (read from ApiKeys of its kafka-clients
#: jar): no JoinGroup v5 (KIP-345 came in 2.3); 2.1.1 differs only by JoinGroup v0-v3. The
#: brokers between the Java client 4.x's floor (KIP-896) and static membership.
KAFKA_2_2: Mapping[int, tuple[int, int]] = {
    ApiKey.OFFSET_COMMIT: (0, 6),
    ApiKey.OFFSET_FETCH: (0, 5),
    ApiKey.FIND_COORDINATOR: (0, 2),
    ApiKey.JOIN_GROUP: (0, 4),
    ApiKey.HEARTBEAT: (0, 2),
    ApiKey.LEAVE_GROUP: (0, 2),
    ApiKey.SYNC_GROUP: (0, 2),
    ApiKey.DESCRIBE_GROUPS: (0, 2),
}


def response(api_key: int, version: int, fields: Mapping[str, Any]) -> Any:
    """A response object of the protocol layer, from every field of its schema."""
    cls = response_class(api_key, version)
    return cls(*to_values(cls.SCHEMA, fields))


def api_versions(versions: Mapping[int, tuple[int, int]] = ALL_VERSIONS) -> Any:
    return ApiVersionResponse_v1(0, [(k, lo, hi) for k, (lo, hi) in versions.items()], 0)


def metadata(
    brokers: Iterable[int], topics: Mapping[str, Mapping[int, list[int]]] | None = None,
    racks: Mapping[int, str] | None = None,
) -> Any:  # fmt: skip
    """A Metadata v1 response: ``brokers`` (node ids, on 127.0.0.1:9092+id), ``topics``
    ``{topic: {partition: replicas}}`` (the first replica leads), ``racks`` per node id."""
    racks = racks or {}
    rows = [(n, "127.0.0.1", 9092 + n, racks.get(n)) for n in brokers]
    topic_rows = [
        (0, topic, False, [(0, p, r[0], r, r) for p, r in parts.items()])
        for topic, parts in (topics or {}).items()
    ]
    return MetadataResponse_v1(rows, rows[0][0] if rows else -1, topic_rows)


def find_coordinator(node_id: int, *, key: str = "g", error_code: int = 0,
                     error_message: str | None = None, version: int = 4) -> Any:  # fmt: skip
    row = {"key": key, "node_id": node_id, "host": "127.0.0.1", "port": 9092 + node_id,
           "error_code": error_code, "error_message": error_message}  # fmt: skip
    fields = {"throttle_time_ms": 0, "coordinators": [row]}
    return response(ApiKey.FIND_COORDINATOR, version, fields)


@dataclass
class Sent:
    node_id: int
    api_key: int
    request: Any
    group: ConnectionGroup


@dataclass
class FakeClient:
    """``AIOKafkaClient`` as far as our code uses it. ``answers[api_key]``: what each request of
    that API gets (a response, an exception, or a function of the request giving either)."""

    brokers: tuple[int, ...] = (1,)
    answers: dict[int, list[Any]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    metadata_updates: int = 0
    #: What ``coordinator_lookup`` answers in turn (a node id or an exception), ``ready`` too.
    lookups: list[Any] = field(default_factory=list)
    ready_answers: list[bool] = field(default_factory=list)
    topics_set: list[set[str]] = field(default_factory=list)
    closed: bool = False

    def __post_init__(self) -> None:
        self.cluster = ClusterMetadata()
        self.cluster.update_metadata(metadata(self.brokers))
        self.answers.setdefault(ApiKey.API_VERSIONS, [api_versions()])

    def apis(self) -> list[str]:
        return [ApiKey(s.api_key).name for s in self.sent]

    async def send(self, node_id: int, request: Any, *,
                   group: ConnectionGroup = ConnectionGroup.DEFAULT) -> Any:  # fmt: skip
        # Ours arrive wrapped for aiokafka's connection (_compat.wire): the test reads ours.
        request = getattr(request, "pinned", request)
        key = getattr(request, "api_key", None)
        key = request.API_KEY if key is None else key
        self.sent.append(Sent(node_id, key, request, group))
        script = self.answers.get(key)
        if not script:  # unscripted: as a broker that does not answer
            raise Errors.RequestTimedOutError(f"api key {key}: no answer scripted")
        answer = script.pop(0) if len(script) > 1 else script[0]
        if callable(answer):
            answer = answer(node_id, request)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def get_random_node(self) -> int | None:
        nodes = sorted(b.nodeId for b in self.cluster.brokers())
        return nodes[0] if nodes else None

    def force_metadata_update(self) -> asyncio.Future[bool]:
        """As aiokafka's: a future (the refresh runs in its background task); done at once."""
        self.metadata_updates += 1
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        done.set_result(True)
        return done

    async def coordinator_lookup(self, coordinator_type: Any, key: str) -> int:
        answer = self.lookups.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return int(answer)

    async def ready(self, node_id: int, *,
                    group: ConnectionGroup = ConnectionGroup.DEFAULT) -> bool:  # fmt: skip
        return self.ready_answers.pop(0) if self.ready_answers else True

    def set_topics(self, topics: Iterable[str]) -> None:
        self.topics_set.append(set(topics))

    async def close(self) -> None:
        self.closed = True
