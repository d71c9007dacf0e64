"""One ``group.instance.id`` per consumer: ``<base>-<key>`` (KIP-345's per-thread scheme).

The base is the process's id (``InstanceId.from_env()`` by default: a StatefulSet pod name,
``orders-0``); the key names the subscriber within the process, stably across restarts:

* ``group_instance_id=SubscriberKey("billing")`` on the subscriber: that key, as given;
* nothing: a key derived from its group and its topics (sorted), ``<group>-<topic>.<topic>``;
  when the group or a pattern holds a character Kafka refuses in an instance id, or the id would
  pass 249 characters, the readable part is cut and an 8-hex digest of the group and topics
  keeps it unique and stable (``sha256``, the same in every process);
* a plain ``group_instance_id="..."`` (FastStream's own option): taken as the whole id; a service
  whose subscribers all give one needs no base id.

A subscriber that runs one consumer per worker (``max_workers=N`` without
``AckPolicy.ACK_FIRST``) is N members: worker n (1-based, the order FastStream builds them in)
gets ``<id>-<n>``, as Kafka Streams names its threads' ids ``<group.instance.id>-<n>``.

Worked example, base ``orders-0``::

    @broker.subscriber("orders", group_id="billing")               -> orders-0-billing-orders
    @broker.subscriber("a", "b", group_id="audit")                 -> orders-0-audit-a.b
    @broker.subscriber("orders", group_id="mail",
                       group_instance_id=SubscriberKey("mailer"))  -> orders-0-mailer
    @broker.subscriber("orders", group_id="ship", max_workers=2,
                       ack_policy=AckPolicy.ACK)                   -> orders-0-ship-orders-1,
                                                                      orders-0-ship-orders-2

Two consumers of one process never share an id: :func:`plan_members` refuses it, naming both
subscribers; it refuses workers without a group too (each would read every partition). Without
the base (not known yet: a declaration, a ``TestKafkaBroker`` run) an id that needs one is
written ``<base>-<key>``: such ids are checked against each other, and against whole ids once
the base is known. A subscriber without a group (``partitions=...``) has no id.
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
#: How an id that needs the base is written while the base is not known ('<' is illegal in an
#: id: it never equals a whole id).
UNKNOWN_BASE = "<base>"


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
    """What a subscriber says about itself: a label for messages, its group, its topics, its
    ``group_instance_id`` option as given (None, a :class:`SubscriberKey`, or a str) and how
    many consumers it runs (``workers``: ``max_workers`` when it runs one per worker)."""

    label: str
    group_id: str | None
    topics: tuple[str, ...]
    group_instance_id: str | None
    workers: int = 1

    @property
    def needs_base(self) -> bool:
        """Whether its id is built on the base id (a derived or a :class:`SubscriberKey` key)."""
        given = self.group_instance_id
        return self.group_id is not None and (given is None or isinstance(given, SubscriberKey))


@dataclass(frozen=True)
class Member:
    """One consumer's static identity: ``how`` is ``derived``, ``key`` or ``given``;
    ``worker`` its 1-based worker number when its subscriber runs several consumers."""

    declared: Declared
    group_instance_id: str
    how: str
    worker: int | None = None

    @property
    def label(self) -> str:
        worker = "" if self.worker is None else f" worker {self.worker}/{self.declared.workers}"
        return f"{self.declared.label}{worker}"


def derive_key(group_id: str, topics: Sequence[str]) -> str:
    """``<group>-<topics sorted, joined by '.'>``, made legal (see the module docstring)."""
    readable = f"{group_id}-{'.'.join(sorted(topics))}"
    return readable if not _ILLEGAL.search(readable) else _digested(readable, group_id, topics)


def _digested(readable: str, group_id: str, topics: Sequence[str], room: int = MAX_LENGTH) -> str:
    raw = "\0".join([group_id, *sorted(topics)]).encode()
    digest = hashlib.sha256(raw).hexdigest()[:_DIGEST_HEX]
    cut = _ILLEGAL.sub("_", readable)[: max(room - _DIGEST_HEX - 1, 0)]
    return f"{cut}-{digest}" if cut else digest


def _suffixes(declared: Declared) -> list[tuple[int | None, str]]:
    """``(worker, suffix)`` of each consumer the subscriber runs: one without a suffix, or
    ``-1`` ... ``-N``."""
    if declared.workers <= 1:
        return [(None, "")]
    return [(n, f"-{n}") for n in range(1, declared.workers + 1)]


def members_for(base: str | None, declared: Declared) -> tuple[Member, ...]:
    """The subscriber's consumers' instance ids from ``base`` (none without a group)."""
    given = declared.group_instance_id
    if declared.group_id is None:
        if given is not None:
            raise ConfigurationError(
                f"subscriber {declared.label}: group_instance_id (Java: group.instance.id, "
                "KIP-345) needs group_id: static membership is membership of a consumer group"
            )
        if declared.workers > 1:
            raise ConfigurationError(
                f"subscriber {declared.label}: max_workers={declared.workers} without "
                "AckPolicy.ACK_FIRST runs one consumer per worker, and without group_id each "
                f"reads every partition (every record handled {declared.workers} times; its "
                "ack, a commit, needs a group too): give group_id"
            )
        return ()
    suffixes = _suffixes(declared)
    if given is not None and not isinstance(given, SubscriberKey):
        InstanceId.validate(given, field=f"subscriber {declared.label}: group_instance_id")
        return tuple(Member(declared, _whole(f"{given}{s}", declared), "given", n)
                     for n, s in suffixes)  # fmt: skip
    how, key = ("key", str(given)) if given is not None else ("derived", "")
    longest = max(len(s) for _, s in suffixes)
    if not key:
        key = derive_key(declared.group_id, declared.topics)
        room = MAX_LENGTH - len(base or "") - 1 - longest
        if base is not None and len(key) > room:
            key = _digested(key, declared.group_id, declared.topics, room)
    return tuple(Member(declared, _joined(base, f"{key}{s}", declared), how, n)
                 for n, s in suffixes)  # fmt: skip


def _whole(value: str, declared: Declared) -> str:
    return InstanceId.validate(value, field=f"subscriber {declared.label}: group_instance_id")


def _joined(base: str | None, key: str, declared: Declared) -> str:
    if base is None:
        return f"{UNKNOWN_BASE}-{key}"
    try:
        return InstanceId.validate(f"{base}-{key}")
    except InvalidInstanceIdError as exc:
        raise InvalidInstanceIdError(
            f"subscriber {declared.label}: its instance id {base}-{key} (base id, '-', key): {exc}"
        ) from exc


def plan_members(base: str | None, subscribers: Sequence[Declared]) -> tuple[Member, ...]:
    """Every grouped subscriber's consumers' identities; refuses two sharing one instance id.
    ``base`` None: not known yet (module docstring)."""
    if base is not None:
        InstanceId.validate(base, field="instance_id (the base id of the process)")
    members = [m for d in subscribers for m in members_for(base, d)]
    seen: dict[str, Member] = {}
    for member in members:
        other = seen.setdefault(member.group_instance_id, member)
        if other is not member:
            one, two = sorted((other.label, member.label))  # FastStream keeps them unordered
            raise ConfigurationError(
                f"subscribers {one} and {two} would share "
                f"group.instance.id {member.group_instance_id!r} (KIP-345: they would fence "
                "each other); give one group_instance_id=SubscriberKey('<name>')"
            )
    return tuple(members)


def mapping_line(base: str | None, members: Sequence[Member]) -> str:
    """The one log line that says which consumer is which instance id."""
    rows = "; ".join(f"{m.group_instance_id} <- {m.label} ({m.how})"
                     for m in sorted(members, key=lambda m: m.group_instance_id))  # fmt: skip
    return f"static members of base id {base or '(none)'}: " + (
        rows or "none (no subscriber has a group)")  # fmt: skip
