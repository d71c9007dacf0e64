"""Membership events: what happened to a consumer's group membership, as typed, frozen records.

``StaticConsumer(..., on_event=callback, events_topic="...")`` reports each event to ``callback``
and publishes it as one JSON document (schema v1, ``docs/membership-events.md``) to the topic.
Each type is named after the Kafka step it reports::

    MembershipEvent                 base: event_id, seq, ts_ms, group_id, client_id, host,
    │                               group_instance_id, member_id, generation_id
    ├── JoinGroupReason             a JoinGroup is about to be sent with ``reason`` (KIP-800)
    ├── GroupJoined                 SyncGroup succeeded: ``leader``, ``protocol``
    ├── PartitionsAssigned          ``partitions`` handed to the application
    ├── PartitionsRevoked           ``partitions`` taken away; ``reason`` "rebalance" or "close"
    ├── EnforceRebalanceRequested   ``enforce_rebalance(reason)`` was called
    ├── GroupLeft                   a LeaveGroup was accepted; ``reason`` as sent (KIP-800)
    ├── InstanceFenced              FENCED_INSTANCE_ID on ``api``; ``other_holder`` (KIP-345)
    └── SessionExpired              UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION on ``api``

>>> event = GroupJoined(event_id="0" * 32, seq=0, ts_ms=1, group_id="g", client_id="c",
...                     host="h", group_instance_id="svc-0", member_id="svc-0-1",
...                     generation_id=3, leader=True, protocol="range")
>>> MembershipEvent.from_json(event.to_json()) == event
True

:func:`from_json` is strict: the schema name, the version, exactly the documented fields, their
types, and ``null`` for every field the event type does not use. It raises
:class:`~staticconsumer.errors.ProtocolError` otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, cast

from .errors import ProtocolError

#: Value of the ``schema`` field of every event.
SCHEMA = "staticconsumer.membership-event"
#: Value of the ``version`` field written by this module (the only one it reads).
SCHEMA_VERSION = 1
#: The JSON fields of schema v1, in the order they are written.
FIELDS: tuple[str, ...] = (
    "schema", "version", "event_id", "seq", "type", "ts_ms", "group_id", "client_id", "host",
    "group_instance_id", "member_id", "generation_id", "leader", "protocol", "partitions",
    "reason", "api", "other_holder",
)  # fmt: skip
#: Common fields that may be null (a dynamic member has no instance id; no member id before the
#: first join).
_NULLABLE_COMMON = frozenset({"group_instance_id", "member_id"})
#: ``PartitionsRevoked.reason`` values.
REVOKED_REBALANCE = "rebalance"
REVOKED_CLOSE = "close"

Partitions = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MembershipEvent:
    """Fields every event carries. ``member_id`` is None before the first join;
    ``generation_id`` is -1 when the member holds no generation."""

    type: ClassVar[str] = ""

    event_id: str
    seq: int
    ts_ms: int
    group_id: str
    client_id: str
    host: str
    group_instance_id: str | None
    member_id: str | None
    generation_id: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of schema v1: every field of :data:`FIELDS`, None where unused."""
        out: dict[str, Any] = dict.fromkeys(FIELDS)
        out.update(schema=SCHEMA, version=SCHEMA_VERSION, type=self.type)
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "partitions":
                value = [{"topic": t, "partition": p} for t, p in value]
            out[f.name] = value
        return out

    def to_json(self) -> str:
        """Compact JSON text of :meth:`to_dict` (publish it UTF-8 encoded)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @staticmethod
    def from_json(data: str | bytes) -> MembershipEvent:
        """Read one published event (see :func:`from_json`)."""
        return from_json(data)


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinGroupReason(MembershipEvent):
    """A JoinGroup is about to be sent; ``reason`` is the KIP-800 reason it carries (as sent,
    truncated to 255 characters). ``generation_id`` is the generation held when it was sent."""

    type: ClassVar[str] = "join_reason"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupJoined(MembershipEvent):
    """SyncGroup succeeded: this member is in generation ``generation_id``."""

    type: ClassVar[str] = "joined"
    leader: bool
    protocol: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionsAssigned(MembershipEvent):
    """The new generation's partitions are handed to the application (may be empty)."""

    type: ClassVar[str] = "assigned"
    partitions: Partitions

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", _sorted(self.partitions))


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionsRevoked(MembershipEvent):
    """Partitions are taken from the application: before a re-join (``reason="rebalance"``) or
    at ``stop()`` (``reason="close"``)."""

    type: ClassVar[str] = "revoked"
    partitions: Partitions
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", _sorted(self.partitions))


@dataclass(frozen=True, slots=True, kw_only=True)
class EnforceRebalanceRequested(MembershipEvent):
    """``enforce_rebalance(reason)`` was called; ``reason`` is the caller's text."""

    type: ClassVar[str] = "enforce_requested"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupLeft(MembershipEvent):
    """The coordinator accepted our LeaveGroup; ``reason`` is the KIP-800 reason sent."""

    type: ClassVar[str] = "left"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceFenced(MembershipEvent):
    """FENCED_INSTANCE_ID answered ``api``: another member holds our group.instance.id
    (``other_holder``, its member id, when the coordinator told us). The consumer is finished."""

    type: ClassVar[str] = "fenced"
    api: str
    other_holder: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionExpired(MembershipEvent):
    """The coordinator no longer knows our member id (UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION on
    ``api``); a :class:`GroupJoined` with a new member id follows."""

    type: ClassVar[str] = "session_expired"
    api: str


#: ``type`` value -> event class.
EVENT_TYPES: Mapping[str, type[MembershipEvent]] = {
    cls.type: cls
    for cls in (
        JoinGroupReason, GroupJoined, PartitionsAssigned, PartitionsRevoked,
        EnforceRebalanceRequested, GroupLeft, InstanceFenced, SessionExpired,
    )
}  # fmt: skip


def _sorted(partitions: Any) -> Partitions:
    return tuple(sorted((str(t), int(p)) for t, p in partitions))


# -- reading -------------------------------------------------------------------------------------

_TYPES: dict[str, tuple[type, ...]] = {
    "event_id": (str,), "seq": (int,), "ts_ms": (int,), "group_id": (str,),
    "client_id": (str,), "host": (str,), "group_instance_id": (str,), "member_id": (str,),
    "generation_id": (int,), "leader": (bool,), "protocol": (str,), "partitions": (list,),
    "reason": (str,), "api": (str,), "other_holder": (str,),
}  # fmt: skip
_OPTIONAL = _NULLABLE_COMMON | {"other_holder"}


def from_json(data: str | bytes) -> MembershipEvent:
    """Parse one event of schema v1 into its typed record (strict: see the module docstring)."""
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"membership event: not JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise ProtocolError("membership event: not a JSON object")
    return from_dict(obj)


def from_dict(obj: Mapping[str, Any]) -> MembershipEvent:
    """Like :func:`from_json`, for an already decoded JSON object."""
    if obj.get("schema") != SCHEMA:
        raise ProtocolError(f"membership event: schema is {obj.get('schema')!r}, not {SCHEMA!r}")
    version = obj.get("version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise ProtocolError(f"membership event: version {version!r} (this reader knows v1)")
    if set(obj) != set(FIELDS):
        missing, extra = set(FIELDS) - set(obj), set(obj) - set(FIELDS)
        raise ProtocolError(f"membership event: missing {sorted(missing)}, unknown {sorted(extra)}")
    cls = EVENT_TYPES.get(obj["type"])
    if cls is None:
        raise ProtocolError(f"membership event: unknown type {obj['type']!r}")
    used = {f.name for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for name in FIELDS[2:]:
        if name == "type":
            continue
        value = obj[name]
        if name not in used:
            if value is not None:
                raise ProtocolError(f"membership event {cls.type}: {name} must be null")
            continue
        kwargs[name] = _checked(cls.type, name, value)
    return cls(**kwargs)


def _checked(kind: str, name: str, value: Any) -> Any:
    if value is None and name in _OPTIONAL:
        return None
    allowed = _TYPES[name]
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise ProtocolError(f"membership event {kind}: {name}={value!r} has the wrong type")
    if name != "partitions":
        return value
    pairs = []
    for item in cast("list[Any]", value):
        if (
            not isinstance(item, dict)
            or set(item) != {"topic", "partition"}
            or not isinstance(item["topic"], str)
            or not isinstance(item["partition"], int)
            or isinstance(item["partition"], bool)
        ):
            raise ProtocolError(f"membership event {kind}: bad partition entry {item!r}")
        pairs.append((item["topic"], item["partition"]))
    return tuple(pairs)


__all__ = [
    "EVENT_TYPES",
    "FIELDS",
    "REVOKED_CLOSE",
    "REVOKED_REBALANCE",
    "SCHEMA",
    "SCHEMA_VERSION",
    "EnforceRebalanceRequested",
    "GroupJoined",
    "GroupLeft",
    "InstanceFenced",
    "JoinGroupReason",
    "MembershipEvent",
    "PartitionsAssigned",
    "PartitionsRevoked",
    "SessionExpired",
    "from_dict",
    "from_json",
]
