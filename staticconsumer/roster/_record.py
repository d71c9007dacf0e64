"""A group's roster: the ``group.instance.id``\\ s registered ahead of a scale-up (KIP-469's
promise, kept by the client), as a pure value and its record format. No I/O here: the admin
calls (:mod:`._admin`, :mod:`._store`) and the member's reader (:mod:`._reader`) move the bytes.

A roster lives in a compacted topic (default :data:`DEFAULT_ROSTER_TOPIC`), one record per group:
the key is the group id (UTF-8), the value this JSON, versioned::

    {"version": 1, "group_id": "orders",
     "instance_ids": {"orders-4": 1732400000000, "orders-5": 1732400000000},
     "updated_at_ms": 1732400000000, "wait_ms": 120000}

Each instance id carries the wall-clock ms it was registered at. The leader waits for the missing
ones until :attr:`Roster.deadline_ms` (``updated_at_ms + wait_ms``), so the wait is a property of
the registration and does not depend on which member leads. A record of a newer ``version`` is
refused (:class:`~staticconsumer.errors.RosterFormatError`), never guessed at.

Worked example::

    >>> r = Roster.create("orders", ["orders-4", "orders-5"], now_ms=1_000, wait_ms=60_000)
    >>> r.missing(["orders-0", "orders-4"])
    ('orders-5',)
    >>> r.deadline_ms, r.expired(61_000)
    (61000, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._instance_id import check_instance_ids, is_topic_name
from .._roster_status import RosterStatus
from ..errors import ConfigurationError, RosterFormatError

#: The compacted topic that holds every group's roster (``roster_topic`` changes it).
DEFAULT_ROSTER_TOPIC = "_staticconsumer_rosters"
#: How long the leader waits for missing registered members, from the last roster change.
DEFAULT_ROSTER_WAIT_MS = 120_000
#: The record format this version writes and the newest it reads.
ROSTER_FORMAT_VERSION = 1


def check_roster_topic(roster_topic: object, *, none_turns_off: bool = False) -> str:
    """``roster_topic`` if Kafka accepts it as a topic name (1 to 249 ASCII letters, digits,
    ``.``, ``_``, ``-``; not ``.`` or ``..``), else :class:`ConfigurationError` naming the option.
    ``none_turns_off``: the message also says None (a consumer's "pre-registration off")."""
    if is_topic_name(roster_topic):
        return roster_topic
    alternative = ", or None to leave pre-registration off" if none_turns_off else ""
    raise ConfigurationError(
        "roster_topic (staticconsumer option, no Java equivalent; KIP-469 pre-registration, "
        "docs/scaling.md) must be a Kafka topic name (1 to 249 ASCII letters, digits, '.', "
        f"'_', '-', not '.' or '..'){alternative}; got {roster_topic!r}"
    )


def _check_ms(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} must be an int >= 0 (milliseconds), got {value!r}")
    return value


@dataclass(frozen=True)
class Roster:
    """The instance ids registered for ``group_id``, each with the wall-clock ms it was
    registered at (``registered``, sorted by id), when the roster last changed
    (``updated_at_ms``) and how long the leader waits for missing ids from then (``wait_ms``).

    Build one with :meth:`create` or change one with :meth:`with_added`, :meth:`without`,
    :meth:`replaced`; every instance id is checked as :meth:`InstanceId.validate` checks it.
    """

    group_id: str
    registered: tuple[tuple[str, int], ...]
    updated_at_ms: int
    wait_ms: int = DEFAULT_ROSTER_WAIT_MS
    _ids: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.group_id, str) or not self.group_id:
            raise ConfigurationError(
                f"group_id (Java: group.id) must be a non-empty str, got {self.group_id!r}"
            )
        pairs = tuple(sorted((str(i), at) for i, at in self.registered))
        check_instance_ids([i for i, _ in pairs], allow_empty=True)
        for instance_id, at in pairs:
            _check_ms(at, f"registered_at_ms of {instance_id}")
        _check_ms(self.updated_at_ms, "updated_at_ms")
        _check_ms(self.wait_ms, "wait_ms")
        object.__setattr__(self, "registered", pairs)
        object.__setattr__(self, "_ids", frozenset(i for i, _ in pairs))

    @classmethod
    def create(
        cls, group_id: str, instance_ids: Iterable[str], *, now_ms: int,
        wait_ms: int = DEFAULT_ROSTER_WAIT_MS,
    ) -> Roster:  # fmt: skip
        """A roster of ``instance_ids``, all registered at ``now_ms``."""
        ids = check_instance_ids(instance_ids, allow_empty=True)
        return cls(group_id, tuple((i, now_ms) for i in ids), now_ms, wait_ms)

    @property
    def instance_ids(self) -> tuple[str, ...]:
        return tuple(i for i, _ in self.registered)

    def registered_at_ms(self, instance_id: str) -> int:
        """When ``instance_id`` was registered; KeyError when it is not."""
        for i, at in self.registered:
            if i == instance_id:
                return at
        raise KeyError(instance_id)

    def __contains__(self, instance_id: object) -> bool:
        return instance_id in self._ids

    @property
    def deadline_ms(self) -> int:
        """``updated_at_ms + wait_ms``: until then the leader waits for missing ids."""
        return self.updated_at_ms + self.wait_ms

    def expired(self, now_ms: int) -> bool:
        return now_ms >= self.deadline_ms

    def missing(self, present_ids: Iterable[str | None]) -> tuple[str, ...]:
        """Registered ids that are not among ``present_ids`` (the members' instance ids;
        None for a dynamic member), sorted. An id matches exactly."""
        present = set(present_ids)
        return tuple(i for i in self.instance_ids if i not in present)

    def status(self, present_ids: Iterable[str | None], now_ms: int) -> RosterStatus:
        return RosterStatus(
            self.registered, self.missing(present_ids), self.updated_at_ms, self.wait_ms,
            self.deadline_ms, self.expired(now_ms),
        )  # fmt: skip

    def _changed(self, registered: Mapping[str, int], now_ms: int, wait_ms: int | None) -> Roster:
        wait = self.wait_ms if wait_ms is None else wait_ms
        pairs = tuple(sorted(registered.items()))
        if pairs == self.registered and wait == self.wait_ms:
            return self
        return Roster(self.group_id, pairs, now_ms, wait)

    def with_added(
        self, instance_ids: Iterable[str], *, now_ms: int, wait_ms: int | None = None
    ) -> Roster:
        """This roster plus ``instance_ids`` (registered at ``now_ms``; ids already there keep
        their time). Unchanged (the same object) when nothing is new and ``wait_ms`` is the
        same; otherwise ``updated_at_ms`` becomes ``now_ms``, so the wait starts again."""
        ids = check_instance_ids(instance_ids)
        registered = dict(self.registered)
        for i in ids:
            registered.setdefault(i, now_ms)
        return self._changed(registered, now_ms, wait_ms)

    def without(self, instance_ids: Iterable[str], *, now_ms: int) -> Roster:
        """This roster less ``instance_ids`` (ids it does not hold are ignored)."""
        drop = set(check_instance_ids(instance_ids))
        return self._changed({i: at for i, at in self.registered if i not in drop}, now_ms, None)

    def replaced(
        self, instance_ids: Iterable[str], *, now_ms: int, wait_ms: int | None = None
    ) -> Roster:
        """A roster of exactly ``instance_ids``; ids kept keep their registration time."""
        ids = check_instance_ids(instance_ids, allow_empty=True)
        old = dict(self.registered)
        return self._changed({i: old.get(i, now_ms) for i in ids}, now_ms, wait_ms)

    def to_json(self) -> bytes:
        """The record value (UTF-8 JSON, keys sorted)."""
        document = {
            "version": ROSTER_FORMAT_VERSION, "group_id": self.group_id,
            "instance_ids": dict(self.registered), "updated_at_ms": self.updated_at_ms,
            "wait_ms": self.wait_ms,
        }  # fmt: skip
        return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: bytes, *, group_id: str | None = None) -> Roster:
        """Read a record value; :class:`RosterFormatError` when it is not a roster this version
        reads, or (with ``group_id``, the record key) when it names another group."""
        return _decode(data, group_id)


def _field(document: Mapping[str, Any], name: str, kind: type, version: int | None) -> Any:
    value = document.get(name)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise RosterFormatError(
            f"roster record field {name!r} must be a {kind.__name__}, got {value!r}",
            version=version,
        )
    return value


def _decode(data: bytes, group_id: str | None) -> Roster:
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise RosterFormatError(f"roster record is not UTF-8 JSON: {exc}") from None
    if not isinstance(document, dict):
        raise RosterFormatError(
            f"roster record must be a JSON object, got {type(document).__name__}"
        )
    version = _field(document, "version", int, None)
    if version > ROSTER_FORMAT_VERSION or version < 1:
        raise RosterFormatError(
            f"roster record version {version} is not one this staticconsumer reads (1 to "
            f"{ROSTER_FORMAT_VERSION}); upgrade staticconsumer, or rewrite the roster",
            version=version,
        )
    name = _field(document, "group_id", str, version)
    if group_id is not None and name != group_id:
        raise RosterFormatError(
            f"roster record under key {group_id!r} names group {name!r}", version=version
        )
    ids = _field(document, "instance_ids", dict, version)
    updated = _field(document, "updated_at_ms", int, version)
    wait = _field(document, "wait_ms", int, version)
    try:
        return Roster(name, tuple(ids.items()), updated, wait)
    except ConfigurationError as exc:  # InvalidInstanceIdError too: named by the message
        raise RosterFormatError(f"roster record: {exc}", version=version) from None
