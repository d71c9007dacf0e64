"""The consumer protocol: what members put in JoinGroup metadata and SyncGroup assignments.

Both messages are an ``int16`` version followed by a body that is never flexible (the specs
``ConsumerProtocolSubscription.json`` / ``ConsumerProtocolAssignment.json`` say
``"flexibleVersions": "none"``), so classic strings, bytes and arrays are used throughout::

    Subscription v0: topics [string], user_data nullable bytes
                 v1: + owned_partitions [topic string, partitions [int32]]
                 v2: + generation_id int32 (default -1)
                 v3: + rack_id nullable string
    Assignment   v0-v3: assigned_partitions [topic string, partitions [int32]], user_data bytes

As Java's ``ConsumerProtocol`` does, a newer version than we know is read as the newest we know
and the bytes after it are ignored: the specs promise that new versions only append fields.
Fields the chosen version cannot carry are dropped on encoding (they are ignorable in the specs).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from staticconsumer.errors import ProtocolError
from staticconsumer.protocol._types import Array, Bytes, Int16, Int32, Schema, String
from staticconsumer.protocol._wire import since

#: JoinGroup ``protocol_type`` of consumer groups.
CONSUMER_PROTOCOL_TYPE = "consumer"
#: Newest ConsumerProtocolSubscription version (Kafka 4.x); Java writes this one.
SUBSCRIPTION_VERSION = 3
#: Newest ConsumerProtocolAssignment version (Kafka 4.x); Java writes this one.
ASSIGNMENT_VERSION = 3
#: ``generation_id`` of a subscription that carries none (v0-v1, or a member that never joined).
NO_GENERATION = -1

_TOPIC_PARTITIONS = Array(Schema(("topic", String), ("partitions", Array(Int32))))


@dataclass(frozen=True)
class TopicPartitions:
    """Partitions of one topic, as both messages lay them out."""

    topic: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class Subscription:
    """A member's ConsumerProtocolSubscription.

    ``owned_partitions`` and ``generation_id`` let a sticky assignor keep partitions where they
    are (KIP-429, KIP-792); ``rack_id`` enables rack-aware assignment (KIP-881).
    """

    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: tuple[TopicPartitions, ...] = ()
    generation_id: int = NO_GENERATION
    rack_id: str | None = None

    @property
    def owned(self) -> tuple[tuple[str, int], ...]:
        """``owned_partitions`` flattened to ``(topic, partition)`` pairs."""
        return _flatten(self.owned_partitions)


@dataclass(frozen=True)
class Assignment:
    """A member's ConsumerProtocolAssignment, as the leader sends it through SyncGroup.

    ``user_data`` is the leader's assignor's opaque bytes for this one member (each member may
    get its own). ``version`` is what :func:`decode_assignment` read (a newer version than we
    know included); :func:`encode_assignment` writes it unless told another.
    """

    partitions: tuple[TopicPartitions, ...]
    user_data: bytes | None = None
    version: int = ASSIGNMENT_VERSION

    @property
    def topic_partitions(self) -> tuple[tuple[str, int], ...]:
        """``partitions`` flattened to ``(topic, partition)`` pairs."""
        return _flatten(self.partitions)


def group_partitions(pairs: Iterable[tuple[str, int]]) -> tuple[TopicPartitions, ...]:
    """``(topic, partition)`` pairs grouped per topic, topics and partitions sorted."""
    by_topic: dict[str, set[int]] = {}
    for topic, partition in pairs:
        by_topic.setdefault(topic, set()).add(partition)
    return tuple(TopicPartitions(t, tuple(sorted(by_topic[t]))) for t in sorted(by_topic))


def group_partitions_as_listed(pairs: Iterable[tuple[str, int]]) -> tuple[TopicPartitions, ...]:
    """``(topic, partition)`` pairs grouped per topic as they are listed: topics in the order
    they first come, each topic's partitions in the order they come, repeats dropped. A leader
    writes its assignor's plan so (Java's ``ConsumerProtocol`` keeps the plan's order too), and a
    member's assignor reads its partitions back in its leader's order (faust's does compare)."""
    by_topic: dict[str, dict[int, None]] = {}
    for topic, partition in pairs:
        by_topic.setdefault(topic, {})[partition] = None
    return tuple(TopicPartitions(t, tuple(ps)) for t, ps in by_topic.items())


def _flatten(groups: tuple[TopicPartitions, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((g.topic, p) for g in groups for p in g.partitions)


def _subscription_schema(v: int) -> Schema:
    return Schema(
        ("topics", Array(String)),
        ("user_data", Bytes),
        *since(v, 1, ("owned_partitions", _TOPIC_PARTITIONS)),
        *since(v, 2, ("generation_id", Int32)),
        *since(v, 3, ("rack_id", String)),
    )


_ASSIGNMENT_SCHEMA = Schema(("assigned_partitions", _TOPIC_PARTITIONS), ("user_data", Bytes))
_SUBSCRIPTION_SCHEMAS = {v: _subscription_schema(v) for v in range(SUBSCRIPTION_VERSION + 1)}


def _check_version(version: int, highest: int, what: str) -> None:
    if not 0 <= version <= highest:
        raise ValueError(f"{what} version must be 0-{highest}, got {version}")


def encode_subscription(subscription: Subscription, version: int = SUBSCRIPTION_VERSION) -> bytes:
    """Version-prefixed ConsumerProtocolSubscription bytes, as Java's
    ``ConsumerProtocol.serializeSubscription(subscription, version)`` writes them."""
    _check_version(version, SUBSCRIPTION_VERSION, "ConsumerProtocolSubscription")
    fields: dict[str, Any] = {
        "topics": list(subscription.topics),
        "user_data": subscription.user_data,
        "owned_partitions": [(g.topic, list(g.partitions)) for g in subscription.owned_partitions],
        "generation_id": subscription.generation_id,
        "rack_id": subscription.rack_id,
    }
    schema = _SUBSCRIPTION_SCHEMAS[version]
    body: bytes = schema.encode([fields[name] for name in schema.names])
    return bytes(Int16.encode(version)) + body


def encode_assignment(assignment: Assignment, version: int | None = None) -> bytes:
    """Version-prefixed ConsumerProtocolAssignment bytes (v0-v3 share one layout), of
    ``version``, else of ``assignment.version``."""
    version = assignment.version if version is None else version
    _check_version(version, ASSIGNMENT_VERSION, "ConsumerProtocolAssignment")
    partitions = [(g.topic, list(g.partitions)) for g in assignment.partitions]
    body: bytes = _ASSIGNMENT_SCHEMA.encode([partitions, assignment.user_data])
    return bytes(Int16.encode(version)) + body


def _decode(data: bytes, highest: int, schema_for: Any, what: str) -> tuple[int, dict[str, Any]]:
    buffer = BytesIO(data)
    try:
        version = Int16.decode(buffer)
        if version < 0:
            raise ProtocolError(f"unsupported {what} version {version}")
        schema: Schema = schema_for(min(version, highest))
        values = schema.decode(buffer)
    except ProtocolError:
        raise
    except (ValueError, TypeError) as exc:
        raise ProtocolError(f"malformed {what}: {exc}") from exc
    return version, dict(zip(schema.names, values, strict=True))


def _groups(rows: Any, what: str) -> tuple[TopicPartitions, ...]:
    if rows is None:
        raise ProtocolError(f"{what}: partitions array is null")
    out = []
    for topic, partitions in rows:
        if topic is None or partitions is None:
            raise ProtocolError(f"{what}: null topic or partitions")
        out.append(TopicPartitions(topic, tuple(partitions)))
    return tuple(out)


def decode_subscription(data: bytes) -> Subscription:
    """Read ConsumerProtocolSubscription bytes of any version >= 0; fields the version lacks take
    their defaults. Raises :class:`~staticconsumer.errors.ProtocolError` on malformed bytes."""
    what = "ConsumerProtocolSubscription"
    _, fields = _decode(data, SUBSCRIPTION_VERSION, _SUBSCRIPTION_SCHEMAS.__getitem__, what)
    topics = fields["topics"]
    if topics is None or any(t is None for t in topics):
        raise ProtocolError(f"{what}: topics array is null or holds a null topic")
    return Subscription(
        topics=tuple(topics),
        user_data=fields["user_data"],
        owned_partitions=_groups(fields.get("owned_partitions", []), what),
        generation_id=fields.get("generation_id", NO_GENERATION),
        rack_id=fields.get("rack_id"),
    )


def decode_assignment(data: bytes) -> Assignment:
    """Read ConsumerProtocolAssignment bytes of any version >= 0 (the version read is kept in
    ``Assignment.version``, a newer one included). Raises
    :class:`~staticconsumer.errors.ProtocolError` on malformed bytes."""
    what = "ConsumerProtocolAssignment"
    version, fields = _decode(data, ASSIGNMENT_VERSION, lambda _v: _ASSIGNMENT_SCHEMA, what)
    return Assignment(
        partitions=_groups(fields["assigned_partitions"], what),
        user_data=fields["user_data"],
        version=version,
    )
