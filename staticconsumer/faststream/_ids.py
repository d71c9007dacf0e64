"""One ``group.instance.id`` per subscriber: ``<base>-<key>`` (KIP-345's per-thread scheme).

The base is the process's id (``InstanceId.from_env()`` by default: a StatefulSet pod name,
``orders-0``); the key names the subscriber within the process, stably across restarts:

* ``group_instance_id=SubscriberKey("billing")`` on the subscriber: that key, as given;
* nothing: a key derived from its group and its topics (sorted), ``<group>-<topic>.<topic>``;
  when the group or a pattern holds a character Kafka refuses in an instance id, or the id would
  pass 249 characters, the readable part is cut and an 8-hex digest of the group and topics
  keeps it unique and stable (``sha256``, the same in every process);
* a plain ``group_instance_id="..."`` (FastStream's own option): taken as the whole id.

Worked example, base ``orders-0``::

    @broker.subscriber("orders", group_id="billing")               -> orders-0-billing-orders
    @broker.subscriber("a", "b", group_id="audit")                 -> orders-0-audit-a.b
    @broker.subscriber("orders", group_id="mail",
                       group_instance_id=SubscriberKey("mailer"))  -> orders-0-mailer

Two subscribers of one process never share an id: :func:`plan_members` refuses it at startup,
naming both. A subscriber without a group (``partitions=...``) has no id.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .. import InstanceId
from ..errors import ConfigurationError, InvalidInstanceIdError

#: Kafka's limit on a group.instance.id (as on a topic name).
MAX_LENGTH = 249
_ILLEGAL = re.compile(r"[^a-zA-Z0-9._-]")
_DIGEST_HEX = 8


class SubscriberKey(str):
    """A subscriber's stable key, given as FastStream's ``group_instance_id`` option: its
    instance id becomes ``<base>-<key>``. The key must be legal in a group.instance.id
    (``[a-zA-Z0-9._-]``, KIP-345) and is checked when made."""

    __slots__ = ()

    def __new__(cls, key: str) -> SubscriberKey:
        InstanceId.validate(key, field="SubscriberKey")
        return super().__new__(cls, key)


@dataclass(frozen=True)
class Declared:
    """What a subscriber says about itself: a label for messages, its group, its topics and its
    ``group_instance_id`` option as given (None, a :class:`SubscriberKey`, or a str)."""

    label: str
    group_id: str | None
    topics: tuple[str, ...]
    group_instance_id: str | None


@dataclass(frozen=True)
class Member:
    """A subscriber's static identity: ``how`` is ``derived``, ``key`` or ``given``."""

    declared: Declared
    group_instance_id: str
    how: str


def derive_key(group_id: str, topics: Sequence[str]) -> str:
    """``<group>-<topics sorted, joined by '.'>``, made legal (see the module docstring)."""
    readable = f"{group_id}-{'.'.join(sorted(topics))}"
    return readable if not _ILLEGAL.search(readable) else _digested(readable, group_id, topics)


def _digested(readable: str, group_id: str, topics: Sequence[str], room: int = MAX_LENGTH) -> str:
    raw = "\0".join([group_id, *sorted(topics)]).encode()
    digest = hashlib.sha256(raw).hexdigest()[:_DIGEST_HEX]
    cut = _ILLEGAL.sub("_", readable)[: max(room - _DIGEST_HEX - 1, 0)]
    return f"{cut}-{digest}" if cut else digest


def member_id_for(base: str, declared: Declared) -> Member | None:
    """The subscriber's instance id from ``base`` (None without a group)."""
    given = declared.group_instance_id
    if declared.group_id is None:
        if given is not None:
            raise ConfigurationError(
                f"subscriber {declared.label}: group_instance_id (Java: group.instance.id, "
                "KIP-345) needs group_id: static membership is membership of a consumer group"
            )
        return None
    if isinstance(given, SubscriberKey):
        return Member(declared, _joined(base, str(given), declared), "key")
    if given is not None:
        InstanceId.validate(given, field=f"subscriber {declared.label}: group_instance_id")
        return Member(declared, given, "given")
    key = derive_key(declared.group_id, declared.topics)
    if len(base) + 1 + len(key) > MAX_LENGTH:
        key = _digested(key, declared.group_id, declared.topics, MAX_LENGTH - len(base) - 1)
    return Member(declared, _joined(base, key, declared), "derived")


def _joined(base: str, key: str, declared: Declared) -> str:
    try:
        return InstanceId.validate(f"{base}-{key}")
    except InvalidInstanceIdError as exc:
        raise InvalidInstanceIdError(
            f"subscriber {declared.label}: its instance id {base}-{key} (base id, '-', key): {exc}"
        ) from exc


def plan_members(base: str, subscribers: Sequence[Declared]) -> tuple[Member, ...]:
    """Every grouped subscriber's identity; refuses two sharing one instance id."""
    InstanceId.validate(base, field="instance_id (the base id of the process)")
    members = [m for m in (member_id_for(base, d) for d in subscribers) if m is not None]
    seen: dict[str, Member] = {}
    for member in members:
        other = seen.setdefault(member.group_instance_id, member)
        if other is not member:
            raise ConfigurationError(
                f"subscribers {other.declared.label} and {member.declared.label} would share "
                f"group.instance.id {member.group_instance_id!r} (KIP-345: they would fence "
                "each other); give one group_instance_id=SubscriberKey('<name>')"
            )
    return tuple(members)


def mapping_line(base: str, members: Sequence[Member]) -> str:
    """The one log line that says which subscriber is which instance id."""
    rows = "; ".join(f"{m.group_instance_id} <- {m.declared.label} ({m.how})" for m in members)
    return f"static members of base id {base}: {rows or 'none (no subscriber has a group)'}"
