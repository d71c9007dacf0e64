"""Every ``StaticConsumer`` option is one row of :data:`OPTIONS` (issue 49), and the one value a
consumer's driver and engines read, :class:`ConsumerOptions`.

A row (:class:`Option`) says the option's name and default, its Java key and KIP, its check,
what the consumer protocol (KIP-848) does with it, and what the broker must allow. From the
table come:

* the constructor's keywords and defaults (``StaticConsumer.__init__``'s signature is made from
  the rows, in their order; :class:`ConsumerKeywords` types them for mypy, checked against the
  rows by a test);
* :class:`ConsumerOptions`: the fields the driver and engines read (``engine=True`` rows), each
  with its row's default;
* the one validation (:func:`check_values`): each row's check with a message naming the field,
  the Java key and the KIP; the consumer protocol's refusals (:data:`REFUSED_BY_CONSUMER_PROTOCOL`);
  the options whose value is made elsewhere (security, assignors, events, health) name where;
* the frameworks' handling: what faust and FastStream leave to the coordinator under the
  consumer protocol (:func:`left_to_the_coordinator`).

Adding an option is its row and its type (:class:`ConsumerKeywords`) here; an option the
engine reads is also a field of :class:`ConsumerOptions` here (its default is the row's), and
then its use. Pure data: the standard library, the vocabulary (``errors``, ``events``,
``security``) and ``assignors`` only, so that every layer from ``membership`` up may hold it.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeAlias, TypedDict

from assignors import GroupAssignor

from ._option_checks import Aiokafkas, CallableOrNone, Check, Flag, MadeBy, OneOf, Whole
from .errors import ConfigurationError, StaticConsumerError
from .events import MembershipEvent
from .protocol import StreamsTopology
from .security import SecuritySettings

Deserializer: TypeAlias = Callable[[bytes], Any]
#: An assignor object, an assignor class, a protocol or Java class name; or a list of them.
Strategy: TypeAlias = GroupAssignor | type[GroupAssignor] | str

CLASSIC = "classic"
CONSUMER = "consumer"
#: ``group_protocol="auto"``: the consumer protocol where the broker offers it and the options
#: allow it, else classic, decided at ``start()`` (issue 51; KIP-1274 plans the consumer
#: protocol as Java's default from Kafka 5.0: ``docs/consumer-protocol.md``).
AUTO = "auto"
#: ``metadata_recovery_strategy``: Java's ``metadata.recovery.strategy`` values (KIP-899):
#: go back to the bootstrap servers when the known brokers are gone, or never (aiokafka's way).
REBOOTSTRAP = "rebootstrap"
NO_RECOVERY = "none"
#: ``group_protocol="streams"``: a member of a streams group (KIP-1071), one stream thread of a
#: Streams-like application; the broker assigns tasks of the topology it declares
#: (``docs/streams-groups.md``).
STREAMS = "streams"
#: The protocols whose coordinator assigns (no JoinGroup, no client-side assignor).
COORDINATOR_ASSIGNS = frozenset({CONSUMER, STREAMS})

#: Java's ``session.timeout.ms`` default since Kafka 3.0 (KIP-735): what a static member gets
#: when ``session_timeout_ms`` is not given (aiokafka's 10 s rebalances any slower restart).
STATIC_SESSION_TIMEOUT_MS = 45_000

#: What the consumer protocol (KIP-848) does with an option (:attr:`Option.consumer_protocol`).
USED = "used"
IGNORED = "ignored"
REFUSED = "refused"


class _AiokafkasOwn:
    """A row's default that is the installed aiokafka's own (it differs between releases: the
    consumer layer reads it from aiokafka's signature)."""

    def __repr__(self) -> str:
        return "<aiokafka's own default>"


AIOKAFKAS_OWN: Any = _AiokafkasOwn()


# -- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option (module docstring)."""

    name: str
    default: Any
    #: Java's key ("session.timeout.ms"), or why there is none ("no Java key: aiokafka's own").
    java: str
    kip: str = ""
    check: Check = field(default_factory=Aiokafkas)
    #: What the consumer protocol does with it: USED, IGNORED (and why) or REFUSED (and why).
    consumer_protocol: str = USED
    why: str = ""  # with IGNORED or REFUSED: what the coordinator does instead
    #: What the broker must allow for it to work ("" where nothing).
    broker: str = ""
    #: aiokafka's own message for the same check, appended (a handler matching it still does).
    aiokafka_words: str = ""
    #: aiokafka's constructor argument (passed on to it when given).
    aiokafka: bool = True
    #: A field of :class:`ConsumerOptions` (the driver or an engine reads it).
    engine: bool = False
    doc: str = ""

    @property
    def named(self) -> str:
        """``field (Java: key, KIP)``: how every message names the option."""
        key = self.java if self.java.startswith("no ") else f"Java: {self.java}"
        return f"{self.name} ({key}{', ' + self.kip if self.kip else ''})"

    def refuse(self, what: str, value: Any = None) -> None:
        message = f"{self.named} {what}"
        if self.aiokafka_words:
            message += f" (aiokafka: {self.aiokafka_words.format(value=value)})"
        raise ConfigurationError(message)


def _row(name: str, default: Any, java: str, kip: str = "", check: Check | None = None,
         **more: Any) -> Option:  # fmt: skip
    return Option(name, default, java, kip, check or Aiokafkas(), **more)


def _ours(name: str, default: Any, java: str, kip: str = "", check: Check | None = None,
          **more: Any) -> Option:  # fmt: skip
    return _row(name, default, java, kip, check, aiokafka=False, **more)


_NO_JAVA = "no Java key: staticconsumer's own"
_EVENTS = MadeBy("_observability.emitter.event_options (docs/membership-events.md)")
_HEALTH = MadeBy("_observability.health.health_options (docs/kubernetes.md)")
_SECURITY = MadeBy("_consumer.checks.security_options (docs/security.md)")
_COORDINATOR_ASSIGNS = "the group coordinator assigns partitions (choose its assignor with " \
    "group_remote_assignor)"  # fmt: skip

#: Every keyword of ``StaticConsumer()``, in the signature's order: ours, then aiokafka's.
OPTIONS: tuple[Option, ...] = (
    _ours("group_instance_id", None, "group.instance.id", "KIP-345",
          MadeBy("_instance_id.InstanceId.validate"), engine=True,
          broker="Kafka 2.3+ (JoinGroup v5); the consumer protocol: Kafka 4.0+"),
    _ours("on_fatal", None, _NO_JAVA, "", CallableOrNone()),
    _ours("on_event", None, _NO_JAVA, "", _EVENTS),
    _ours("events_topic", None, _NO_JAVA, "", _EVENTS,
          broker="the topic exists, or topic creation is allowed; WRITE on it"),
    _ours("events_buffer_size", 10_000, _NO_JAVA, "", _EVENTS),
    _ours("events_flush_timeout_ms", 5_000, _NO_JAVA, "", _EVENTS),
    _ours("events_producer_config", None, _NO_JAVA, "", _EVENTS),
    _ours("health_port", None, _NO_JAVA, "", _HEALTH),
    _ours("health_host", None, _NO_JAVA, "", _HEALTH),
    _ours("group_protocol", CLASSIC, "group.protocol", "KIP-848",
          MadeBy("_consumer.checks.group_protocol_options"), engine=True,
          broker="'consumer': the consumer protocol enabled (Kafka 4.0+: group.version >= 1); "
          "'auto' takes it where it is"),
    _ours("group_remote_assignor", None, "group.remote.assignor", "KIP-848",
          MadeBy("_consumer.checks.group_protocol_options"), engine=True,
          broker="one of the broker's group.consumer.assignors"),
    _ours("streams_topology", None, "no Java key: Kafka Streams' Topology", "KIP-1071",
          MadeBy("_streams_options.streams_options (docs/streams-groups.md)"), engine=True,
          broker="streams groups (Kafka 4.2+; static members 4.4+); CREATE on its internal "
          "topics, DESCRIBE on every topic it names"),
    _ours("streams_process_id", None, "no Java key: Kafka Streams keeps it in state.dir",
          "KIP-1071", MadeBy("_streams_options.streams_options (docs/streams-groups.md)"),
          engine=True, doc="a new one per consumer; give the one the process keeps"),
    _ours("streams_application_server", None, "application.server", "KIP-1071",
          MadeBy("_streams_options.streams_options (docs/streams-groups.md)"), engine=True),
    _ours("instance_takeover", None, "no Java key", "KIP-848",
          Flag(optional=True), engine=True, doc="on for this pod's own StatefulSet identity"),
    _ours("unreleased_instance_wait_ms", 45_000, "no Java key", "KIP-848", Whole(1),
          engine=True, doc="the broker's default group.consumer.session.timeout.ms"),
    _ours("roster_topic", None, "no Java key", "KIP-469",
          MadeBy("_consumer.checks.roster_topic_option (docs/scaling.md)"), engine=True,
          broker="the compacted roster topic readable (READ, DESCRIBE)"),
    _ours("roster_barrier", True, "no Java key", "KIP-469", Flag(), engine=True),
    _ours("metadata_recovery_strategy", REBOOTSTRAP, "metadata.recovery.strategy", "KIP-899",
          OneOf((REBOOTSTRAP, NO_RECOVERY)), doc="Java's default since Kafka 4.0 (KIP-1102)"),
    _ours("metadata_recovery_rebootstrap_trigger_ms", 300_000,
          "metadata.recovery.rebootstrap.trigger.ms", "KIP-1102", Whole(0)),
    _ours("security", None, _NO_JAVA, "", _SECURITY),
    _row("loop", None, "no Java key: aiokafka's own"),
    _row("bootstrap_servers", "localhost", "bootstrap.servers"),
    _row("client_id", AIOKAFKAS_OWN, "client.id", engine=True, doc="aiokafka-<version>"),
    _row("group_id", None, "group.id", engine=True),
    _row("key_deserializer", None, "key.deserializer"),
    _row("value_deserializer", None, "value.deserializer"),
    _row("fetch_max_wait_ms", 500, "fetch.max.wait.ms", "", Whole(0)),
    _row("fetch_max_bytes", 52_428_800, "fetch.max.bytes", "KIP-74", Whole(0)),
    _row("fetch_min_bytes", 1, "fetch.min.bytes", "", Whole(0)),
    _row("max_partition_fetch_bytes", 1_048_576, "max.partition.fetch.bytes", "", Whole(0)),
    _row("request_timeout_ms", 40_000, "request.timeout.ms", "", Whole(0)),
    _row("retry_backoff_ms", 100, "retry.backoff.ms", "", Whole(0), engine=True),
    _row("auto_offset_reset", "latest", "auto.offset.reset", "",
         OneOf(("earliest", "latest", "none"))),
    _row("enable_auto_commit", True, "enable.auto.commit", engine=True),
    _row("auto_commit_interval_ms", 5_000, "auto.commit.interval.ms", "", Whole(0),
         engine=True),
    _row("check_crcs", True, "check.crcs"),
    _row("metadata_max_age_ms", 300_000, "metadata.max.age.ms", "", Whole(0)),
    _row("partition_assignment_strategy", None, "partition.assignment.strategy", "KIP-429",
         MadeBy("_consumer.strategy.group_assignors"), engine=True,
         consumer_protocol=REFUSED, why=_COORDINATOR_ASSIGNS,
         doc="this project's instance-id-first range, then roundrobin"),
    _row("max_poll_interval_ms", 300_000, "max.poll.interval.ms", "KIP-62", Whole(1),
         engine=True),
    _row("rebalance_timeout_ms", None, "no Java key: Java sends max.poll.interval.ms", "KIP-62",
         Whole(1, optional=True), engine=True, consumer_protocol=IGNORED,
         why="the member sends max_poll_interval_ms as RebalanceTimeoutMs, as Java does",
         doc="max_poll_interval_ms"),
    _row("session_timeout_ms", 10_000, "session.timeout.ms", "", Whole(1), engine=True,
         consumer_protocol=REFUSED,
         why="the broker's group.consumer.session.timeout.ms applies",
         broker="group.min.session.timeout.ms <= it <= group.max.session.timeout.ms",
         doc="aiokafka's for a dynamic member; STATIC_SESSION_TIMEOUT_MS for a static one"),
    _row("heartbeat_interval_ms", 3_000, "heartbeat.interval.ms", "", Whole(1), engine=True,
         consumer_protocol=REFUSED, why="the coordinator sends the interval (the broker's "
         "group.consumer.heartbeat.interval.ms)"),
    _row("consumer_timeout_ms", 200, "no Java key: aiokafka's own", "", Whole(0)),
    _row("max_poll_records", None, "max.poll.records", "", Whole(1, optional=True),
         aiokafka_words="`max_poll_records` should be positive Integer"),
    _row("ssl_context", None, "ssl.truststore.location and the rest", "", _SECURITY),
    _row("security_protocol", "PLAINTEXT", "security.protocol", "", _SECURITY),
    _row("api_version", AIOKAFKAS_OWN, "no Java key: aiokafka's broker version"),
    _row("exclude_internal_topics", True, "exclude.internal.topics"),
    _row("connections_max_idle_ms", 540_000, "connections.max.idle.ms", "",
         Whole(0, optional=True)),
    _row("isolation_level", "read_uncommitted", "isolation.level", "KIP-98",
         OneOf(("read_uncommitted", "read_committed")),
         aiokafka_words="Incorrect isolation level {value}"),
    _row("sasl_mechanism", "PLAIN", "sasl.mechanism", "", _SECURITY),
    _row("sasl_plain_password", None, "sasl.jaas.config", "", _SECURITY),
    _row("sasl_plain_username", None, "sasl.jaas.config", "", _SECURITY),
    _row("sasl_kerberos_service_name", "kafka", "sasl.kerberos.service.name", "", _SECURITY),
    _row("sasl_kerberos_domain_name", None, "no Java key: aiokafka's own", "", _SECURITY),
    _row("sasl_oauth_token_provider", None, "sasl.login.callback.handler.class", "", _SECURITY),
    _row("client_rack", None, "client.rack", "KIP-392, KIP-881", engine=True,
         broker="broker.rack on the brokers; replica.selector.class for follower fetch"),
)  # fmt: skip


class ConsumerKeywords(TypedDict, total=False):
    """The type of each row, for mypy (``StaticConsumer(**options: Unpack[ConsumerKeywords])``):
    a row's line here, in the table's order (a test checks it)."""

    group_instance_id: str | None
    on_fatal: Callable[[StaticConsumerError], None] | None
    on_event: Callable[[MembershipEvent], object] | None
    events_topic: str | None
    events_buffer_size: int
    events_flush_timeout_ms: int
    events_producer_config: dict[str, Any] | None
    health_port: int | None
    health_host: str | None
    group_protocol: str
    group_remote_assignor: str | None
    streams_topology: StreamsTopology | None
    streams_process_id: str | None
    streams_application_server: str | None
    instance_takeover: bool | None
    unreleased_instance_wait_ms: int
    roster_topic: str | None
    roster_barrier: bool
    metadata_recovery_strategy: str
    metadata_recovery_rebootstrap_trigger_ms: int
    security: SecuritySettings | None
    loop: asyncio.AbstractEventLoop | None
    bootstrap_servers: str | list[str]
    client_id: str
    group_id: str | None
    key_deserializer: Deserializer | None
    value_deserializer: Deserializer | None
    fetch_max_wait_ms: int
    fetch_max_bytes: int
    fetch_min_bytes: int
    max_partition_fetch_bytes: int
    request_timeout_ms: int
    retry_backoff_ms: int
    auto_offset_reset: str
    enable_auto_commit: bool
    auto_commit_interval_ms: int
    check_crcs: bool
    metadata_max_age_ms: int
    partition_assignment_strategy: Strategy | Sequence[Strategy] | None
    max_poll_interval_ms: int
    rebalance_timeout_ms: int | None
    session_timeout_ms: int
    heartbeat_interval_ms: int
    consumer_timeout_ms: int
    max_poll_records: int | None
    ssl_context: ssl.SSLContext | None
    security_protocol: str
    api_version: str | None
    exclude_internal_topics: bool
    connections_max_idle_ms: int | None
    isolation_level: str
    sasl_mechanism: str
    sasl_plain_password: str | None
    sasl_plain_username: str | None
    sasl_kerberos_service_name: str
    sasl_kerberos_domain_name: str | None
    sasl_oauth_token_provider: Any
    client_rack: str | None


#: Each option by name.
BY_NAME: Mapping[str, Option] = MappingProxyType({o.name: o for o in OPTIONS})
#: Each option's default by name (the one place each is written).
DEFAULTS: Mapping[str, Any] = MappingProxyType({o.name: o.default for o in OPTIONS})
#: What the consumer protocol refuses, as Java's ConsumerConfig does.
REFUSED_BY_CONSUMER_PROTOCOL = tuple(o for o in OPTIONS if o.consumer_protocol == REFUSED)


def left_to_the_coordinator() -> tuple[str, ...]:
    """The options the consumer protocol's coordinator decides (refused or ignored there): what
    a framework that sets them itself (faust) leaves out under ``group_protocol="consumer"``."""
    return tuple(o.name for o in OPTIONS if o.consumer_protocol != USED)


# -- the one value the driver and engines read ------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ConsumerOptions:
    """A consumer's options as the driver and engines read them, checked. Keyword-only and
    frozen; each field is a row of :data:`OPTIONS` (its default, Java key and KIP are there)."""

    group_id: str | None = DEFAULTS["group_id"]
    group_instance_id: str | None = DEFAULTS["group_instance_id"]
    client_id: str = ""  # the constructor's: aiokafka's default (aiokafka-<version>)
    client_rack: str | None = DEFAULTS["client_rack"]
    group_protocol: str = DEFAULTS["group_protocol"]
    group_remote_assignor: str | None = DEFAULTS["group_remote_assignor"]
    streams_topology: StreamsTopology | None = DEFAULTS["streams_topology"]
    streams_process_id: str | None = DEFAULTS["streams_process_id"]
    streams_application_server: str | None = DEFAULTS["streams_application_server"]
    instance_takeover: bool = False  # the row's None is decided at construction
    partition_assignment_strategy: tuple[GroupAssignor, ...] = ()  # the constructor's: made
    session_timeout_ms: int = DEFAULTS["session_timeout_ms"]
    heartbeat_interval_ms: int = DEFAULTS["heartbeat_interval_ms"]
    rebalance_timeout_ms: int = DEFAULTS["max_poll_interval_ms"]  # the row's None: this
    max_poll_interval_ms: int = DEFAULTS["max_poll_interval_ms"]
    retry_backoff_ms: int = DEFAULTS["retry_backoff_ms"]
    enable_auto_commit: bool = DEFAULTS["enable_auto_commit"]
    auto_commit_interval_ms: int = DEFAULTS["auto_commit_interval_ms"]
    unreleased_instance_wait_ms: int = DEFAULTS["unreleased_instance_wait_ms"]
    roster_topic: str | None = DEFAULTS["roster_topic"]
    roster_barrier: bool = DEFAULTS["roster_barrier"]
    #: Whether ``session_timeout_ms`` was given (not a default): told in log lines and docs.
    session_timeout_given: bool = field(default=False, compare=False)

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> ConsumerOptions:
        """The value from the constructor's values, decided (:func:`decide`) and made (the
        assignors, the protocol's options), by the rows' names."""
        return cls(**{f.name: values[f.name] for f in fields(cls)})

    @property
    def consumer_protocol(self) -> bool:
        """``group_protocol="consumer"`` (KIP-848)."""
        return self.group_protocol == CONSUMER

    @property
    def streams_protocol(self) -> bool:
        """``group_protocol="streams"`` (KIP-1071)."""
        return self.group_protocol == STREAMS

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    def __post_init__(self) -> None:
        check_group_protocol(self.group_protocol)
        for name in ("session_timeout_ms", "rebalance_timeout_ms", "unreleased_instance_wait_ms",
                     "heartbeat_interval_ms", "max_poll_interval_ms"):  # fmt: skip
            check_value(name, getattr(self, name), optional=False)


#: The rows :class:`ConsumerOptions` holds (a test checks them against its fields).
ENGINE_OPTIONS = tuple(o.name for o in OPTIONS if o.engine)
_ENGINE_FIELDS = frozenset(f.name for f in fields(ConsumerOptions)) - {"session_timeout_given"}
if _ENGINE_FIELDS != set(ENGINE_OPTIONS):  # an import-time check, as _reactions' tables have
    raise AssertionError(f"ConsumerOptions fields {sorted(_ENGINE_FIELDS)} are not the table's "
                         f"engine rows {sorted(ENGINE_OPTIONS)}")  # fmt: skip


# -- the one validation -----------------------------------------------------------------------


def check_value(name: str, value: Any, *, optional: bool = True) -> None:
    """Row ``name``'s check on ``value`` (``optional=False``: None is refused too, for a value
    already decided); :class:`ConfigurationError` naming the field, the Java key and the KIP."""
    option = BY_NAME[name]
    check = option.check
    if not optional and isinstance(check, Whole) and check.optional:
        check = Whole(check.least)
    check.check(option, value)


def decide(values: dict[str, Any], given: Collection[str]) -> dict[str, Any]:
    """Fill in the defaults that depend on other options (in ``values``, the constructor's with
    the rows' defaults; ``given``: the keywords given), and return the aiokafka arguments this
    decides beyond those given:

    * ``session_timeout_ms``: a static member's is Java's 45 s (KIP-735), which aiokafka is
      told too under the classic protocol (its 10 s would rebalance any slower restart,
      KIP-345); ``session_timeout_given`` says whether it was given;
    * ``rebalance_timeout_ms``: ``max_poll_interval_ms``, as Java sends it (aiokafka would send
      ``session_timeout_ms``, which static members set long: ``docs/scaling.md``).
    """
    check_group_protocol(values["group_protocol"])
    told: dict[str, Any] = {}
    values["session_timeout_given"] = "session_timeout_ms" in given
    if not values["session_timeout_given"]:
        values["session_timeout_ms"] = default_session_timeout_ms(values["group_instance_id"])
        if (values["group_instance_id"] is not None
                and values["group_protocol"] not in COORDINATOR_ASSIGNS):  # fmt: skip
            told["session_timeout_ms"] = values["session_timeout_ms"]
    if values["rebalance_timeout_ms"] is None:
        values["rebalance_timeout_ms"] = told["rebalance_timeout_ms"] = values[
            "max_poll_interval_ms"]  # fmt: skip
    return told


def check_values(values: Mapping[str, Any]) -> None:
    """Every row's check on ``values`` (decided: :func:`decide`), then the classic protocol's
    heartbeat below the session timeout (under KIP-848 the coordinator owns both; what that
    protocol refuses: :func:`refuse_under_consumer_protocol`)."""
    for option in OPTIONS:
        option.check.check(option, values[option.name])
    session, heartbeat = values["session_timeout_ms"], values["heartbeat_interval_ms"]
    if values["group_protocol"] not in COORDINATOR_ASSIGNS and heartbeat >= session:
        raise ConfigurationError(
            f"heartbeat_interval_ms (Java: heartbeat.interval.ms) must be lower than "
            f"session_timeout_ms (Java: session.timeout.ms), got {heartbeat} >= {session}: "
            "the member would miss its session between two heartbeats (Java: typically no "
            "more than a third of it)"
        )


def refuse_under_consumer_protocol(
    given: Mapping[str, Any], lost: Mapping[str, str], *, protocol: str = CONSUMER
) -> None:
    """Under ``group_protocol="consumer"`` (and ``"streams"``, whose coordinator assigns too),
    what its rows refuse (as Java's ConsumerConfig does) when given; ``lost``: more words for
    an option, by name."""
    kip = "KIP-1071" if protocol == STREAMS else "KIP-848"
    for option in REFUSED_BY_CONSUMER_PROTOCOL:
        if option.name in given:
            option.refuse(
                f"is not supported with group_protocol={protocol!r} ({kip}): {option.why}. "
                f"Java's {'Kafka Streams' if protocol == STREAMS else 'consumer'} refuses it "
                f"too{lost.get(option.name, '')}"
            )


def check_group_protocol(value: object) -> None:
    """``group_protocol`` is ``"classic"``, ``"consumer"``, ``"auto"`` (decided at start) or
    ``"streams"``; else :class:`ConfigurationError` naming the field, Java's key and the KIP
    (the constructor's check and this value's)."""
    if value not in (CLASSIC, CONSUMER, AUTO, STREAMS):
        raise ConfigurationError(
            f"group_protocol (Java: group.protocol) must be 'classic' or 'consumer' (KIP-848), "
            f"'auto' (the consumer protocol where the broker offers it) or 'streams' (a streams "
            f"group member, KIP-1071), got {value!r}"
        )


def classic_only_given(given: Mapping[str, Any]) -> tuple[str, ...]:
    """Of the keywords given, those only the classic protocol takes: what the consumer
    protocol refuses (its rows), and pre-registration's ``roster_topic`` (KIP-469 works
    through a client-side assignor)."""
    refused = tuple(o.name for o in REFUSED_BY_CONSUMER_PROTOCOL if o.name in given)
    return refused + (("roster_topic",) if given.get("roster_topic") is not None else ())


def default_session_timeout_ms(group_instance_id: str | None) -> int:
    """``session_timeout_ms`` when it is not given: Java's 45 s for a static member (KIP-735;
    KIP-345 asks for a timeout above the restart time), aiokafka's 10 s for a dynamic one."""
    dynamic: int = DEFAULTS["session_timeout_ms"]
    return dynamic if group_instance_id is None else STATIC_SESSION_TIMEOUT_MS


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
