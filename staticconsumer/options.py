"""One consumer's group options as one frozen value: :class:`ConsumerOptions`.

``StaticConsumer.__init__`` checks its arguments once (``_consumer/construction.py``: a
:class:`~staticconsumer.ConfigurationError` names the field, the Java key and the KIP), splits
aiokafka's keywords from ours, and builds this value; the driver and the engines build their
configs *from* it (``MemberConfig.of(options)``, ``ConsumerGroupConfig.of(options, ...)``,
``Driver(..., options)``), so an option the engine reads is a field here and a line in the engine.
Nothing reads these settings back out of aiokafka.

Pure data: the standard library, ``errors`` and ``assignors`` only, so that every layer from
``membership`` up may hold it (franz-go's ``cfg``, built once and held; httpx's small config
objects). Each field's comment says its default, its Java key and its KIP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from assignors import GroupAssignor

from .errors import ConfigurationError

CLASSIC = "classic"
CONSUMER = "consumer"

#: Java's ``session.timeout.ms`` default since Kafka 3.0 (KIP-735): what a static member gets
#: when ``session_timeout_ms`` is not given (aiokafka's 10 s rebalances any slower restart).
STATIC_SESSION_TIMEOUT_MS = 45_000
#: aiokafka's ``session_timeout_ms`` default, which a dynamic member keeps.
DYNAMIC_SESSION_TIMEOUT_MS = 10_000


@dataclass(frozen=True, kw_only=True)
class ConsumerOptions:
    """A consumer's group options, checked (module docstring). Keyword-only and frozen."""

    #: Default None (no group). Java: ``group.id``.
    group_id: str | None = None
    #: Default None (a dynamic member). Java: ``group.instance.id``; KIP-345.
    group_instance_id: str | None = None
    #: Default aiokafka's ``aiokafka-<version>``. Java: ``client.id``.
    client_id: str = ""
    #: Default None. Java: ``client.rack``; KIP-392 (fetch), KIP-881 (rack-aware assignors).
    client_rack: str | None = None
    #: Default "classic". Java: ``group.protocol``; KIP-848 for "consumer".
    group_protocol: str = CLASSIC
    #: Default None (the broker's first). Java: ``group.remote.assignor``; KIP-848.
    group_remote_assignor: str | None = None
    #: Default False (None at the constructor: on for a StatefulSet identity). No Java key;
    #: KIP-848 (a newcomer takes over a stale instance id).
    instance_takeover: bool = False
    #: Default this project's ``range`` then ``roundrobin``. Java:
    #: ``partition.assignment.strategy``; KIP-429 for ``cooperative-sticky``. Classic only.
    partition_assignment_strategy: tuple[GroupAssignor, ...] = ()
    #: Default 45 000 for a static member, 10 000 (aiokafka's) for a dynamic one. Java:
    #: ``session.timeout.ms`` (45 000 since KIP-735); KIP-345 sizes it to the restart time.
    session_timeout_ms: int = DYNAMIC_SESSION_TIMEOUT_MS
    #: Default 3 000. Java: ``heartbeat.interval.ms``. Classic only (KIP-848: the broker's).
    heartbeat_interval_ms: int = 3_000
    #: Default ``max_poll_interval_ms``. No Java key (Java sends ``max.poll.interval.ms`` as
    #: JoinGroup's RebalanceTimeoutMs); KIP-62.
    rebalance_timeout_ms: int = 300_000
    #: Default 300 000. Java: ``max.poll.interval.ms``; KIP-62.
    max_poll_interval_ms: int = 300_000
    #: Default 100. Java: ``retry.backoff.ms``.
    retry_backoff_ms: int = 100
    #: Default True. Java: ``enable.auto.commit``.
    enable_auto_commit: bool = True
    #: Default 5 000. Java: ``auto.commit.interval.ms``.
    auto_commit_interval_ms: int = 5_000
    #: Default 45 000 (the broker's default group.consumer.session.timeout.ms). No Java key;
    #: KIP-848: how long a member refused with UNRELEASED_INSTANCE_ID (its previous process
    #: crashed) retries before it also raises it to the application (and goes on retrying).
    unreleased_instance_wait_ms: int = 45_000
    #: Default None (pre-registration off). No Java key; KIP-469 (``docs/scaling.md``).
    roster_topic: str | None = None
    #: Default True. No Java key; KIP-469: with ``roster_topic``, a registered new member
    #: waits in ``start()`` for the other registered arrivals.
    roster_barrier: bool = True
    #: Whether ``session_timeout_ms`` was given (not a default): told in log lines and docs.
    session_timeout_given: bool = field(default=False, compare=False)

    @property
    def consumer_protocol(self) -> bool:
        """``group_protocol="consumer"`` (KIP-848)."""
        return self.group_protocol == CONSUMER

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    def __post_init__(self) -> None:
        check_group_protocol(self.group_protocol)
        for name, (java_key, kip) in _POSITIVE.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(
                    f"{name} ({java_key}, {kip}) must be an int >= 1, got {value!r}"
                )


#: Whole-number fields checked here: field -> (Java key or why there is none, KIP).
_POSITIVE = {
    "session_timeout_ms": ("Java: session.timeout.ms", "KIP-345"),
    "rebalance_timeout_ms": ("no Java key: Java sends max.poll.interval.ms", "KIP-62"),
    "unreleased_instance_wait_ms": ("no Java key", "KIP-848"),
}


def check_group_protocol(value: object) -> None:
    """``group_protocol`` is ``"classic"`` or ``"consumer"``; else :class:`ConfigurationError`
    naming the field, Java's key and the KIP (the constructor's check and this value's)."""
    if value not in (CLASSIC, CONSUMER):
        raise ConfigurationError(
            f"group_protocol (Java: group.protocol) must be 'classic' or 'consumer' (KIP-848), "
            f"got {value!r}"
        )


def default_session_timeout_ms(group_instance_id: str | None) -> int:
    """``session_timeout_ms`` when it is not given: Java's 45 s for a static member (KIP-735;
    KIP-345 asks for a timeout above the restart time), aiokafka's 10 s for a dynamic one."""
    return DYNAMIC_SESSION_TIMEOUT_MS if group_instance_id is None else STATIC_SESSION_TIMEOUT_MS


class MembershipOperation(Enum):
    """What ``stop()`` does with the group membership: Java 4.4's
    ``CloseOptions.GroupMembershipOperation`` (KIP-1092).

    * ``DEFAULT``: a static member stays (KIP-345: its partitions wait for it until its session
      times out), a dynamic member leaves;
    * ``LEAVE_GROUP``: the member leaves now, static or dynamic (one rebalance; needs a reason);
    * ``REMAIN_IN_GROUP``: the member stays, dynamic too: the coordinator removes a dynamic
      member only when its session times out (a quick restart of a dynamic member rejoins as a
      new member then, and its partitions wait meanwhile).
    """

    DEFAULT = "default"
    LEAVE_GROUP = "leave_group"
    REMAIN_IN_GROUP = "remain_in_group"

    @classmethod
    def coerce(cls, value: MembershipOperation | str) -> MembershipOperation:
        """The operation, from itself or its name ("remain_in_group")."""
        if isinstance(value, cls):
            return value
        names: Sequence[str] = [op.value for op in cls]
        if isinstance(value, str) and value.lower() in names:
            return cls(value.lower())
        raise ConfigurationError(
            f"stop(membership=...) must be one of {', '.join(names)} or a MembershipOperation "
            f"(Java 4.4: CloseOptions.GroupMembershipOperation, KIP-1092), got {value!r}"
        )

    def leaves(self, *, static: bool) -> bool:
        """Whether a member (static or not) leaves the group on close."""
        if self is MembershipOperation.DEFAULT:
            return not static
        return self is MembershipOperation.LEAVE_GROUP
