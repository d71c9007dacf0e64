"""StaticConsumer's options, checked at construction as Java's ``ConsumerConfig`` checks them
(pure functions: no I/O). Each :class:`ConfigurationError` names the field, the Java key and,
where one applies, the KIP.

* ``group_protocol`` (Java ``group.protocol``) and the options that go with it: the classic
  protocol (JoinGroup/SyncGroup, client-side assignors) or the consumer protocol (KIP-848:
  ConsumerGroupHeartbeat, the coordinator assigns with ``group_remote_assignor``).
* ``partition_assignment_strategy`` (Java ``partition.assignment.strategy``): assignor objects,
  classes, protocol names or Java class names, one or a list (:mod:`.strategy`).
* ``roster_topic`` (default None; no Java key; KIP-469 pre-registration, ``docs/scaling.md``):
  the compacted topic of the group's roster (``staticconsumer roster register`` writes to
  ``_staticconsumer_rosters`` by default), or None: pre-registration off, no roster request.
* ``roster_barrier`` (default True; no Java key; KIP-469 pre-registration): with
  ``roster_topic``, a registered new member waits in ``start()`` for the other arrivals.
* aiokafka's arguments: numbers (type and range), ``auto_offset_reset``, ``isolation_level``,
  ``heartbeat_interval_ms`` below ``session_timeout_ms``, and the security arguments (raw, or
  ``security=SecuritySettings(...)``, not both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aiokafka import __version__ as aiokafka_version

from .._compat import LACKING_ARGUMENTS, consumer_default
from .._instance_id import InstanceId
from ..errors import ConfigurationError
from ..membership import JOIN_REASON_ENFORCED_PREFIX, LEAVE_REASON_PREFIX
from ..options import CLASSIC, CONSUMER, MembershipOperation, check_group_protocol
from ..roster import check_roster_topic
from ..security import PROTOCOLS, SASL_MECHANISMS, SecuritySettings
from .strategy import needs_user_data

#: What Java's ConsumerConfig refuses under ``group.protocol=consumer``: the coordinator assigns
#: and owns the session timeout and heartbeat interval (group.consumer.session.timeout.ms,
#: group.consumer.heartbeat.interval.ms on the broker).
_CONSUMER_PROTOCOL_UNSUPPORTED = {
    "partition_assignment_strategy": (
        "partition.assignment.strategy",
        "the group coordinator assigns partitions (choose its assignor with group_remote_assignor)",
    ),
    "session_timeout_ms": (
        "session.timeout.ms",
        "the broker's group.consumer.session.timeout.ms applies",
    ),
    "heartbeat_interval_ms": (
        "heartbeat.interval.ms",
        "the coordinator sends the interval (the broker's group.consumer.heartbeat.interval.ms)",
    ),
}


@dataclass(frozen=True)
class GroupProtocolOptions:
    """The checked ``group_protocol`` options, named as the constructor names them (they go
    into :class:`~staticconsumer.options.ConsumerOptions` by these names)."""

    group_protocol: str = CLASSIC
    group_remote_assignor: str | None = None
    instance_takeover: bool = False

    @property
    def consumer(self) -> bool:
        return self.group_protocol == CONSUMER


def group_protocol_options(
    group_protocol: Any,
    group_remote_assignor: Any,
    instance_takeover: Any,
    *,
    group_instance_id: str | None,
    kwargs: Mapping[str, Any],
) -> GroupProtocolOptions:
    """The checked options; :class:`ConfigurationError` names the field, Java's key and the KIP."""
    check_group_protocol(group_protocol)
    if group_protocol == CLASSIC:
        if group_remote_assignor is not None:
            raise ConfigurationError(
                "group_remote_assignor (Java: group.remote.assignor) applies only to "
                "group_protocol='consumer' (KIP-848): the classic protocol assigns on the client "
                "(partition_assignment_strategy)"
            )
        if instance_takeover:
            raise ConfigurationError(
                "instance_takeover applies only to group_protocol='consumer' (KIP-848): under "
                "the classic protocol a newcomer with a held group_instance_id always takes it "
                "over (KIP-345)"
            )
        return GroupProtocolOptions()
    for field, (java_key, why) in _CONSUMER_PROTOCOL_UNSUPPORTED.items():
        if field in kwargs:
            strategy = field == "partition_assignment_strategy"
            lost = needs_user_data(kwargs[field]) if strategy else ""
            raise ConfigurationError(
                f"{field} (Java: {java_key}) is not supported with group_protocol='consumer' "
                f"(KIP-848): {why}. Java's consumer refuses it too{lost}"
            )
    if group_remote_assignor is not None and (
        not isinstance(group_remote_assignor, str) or not group_remote_assignor.strip()
    ):
        raise ConfigurationError(
            "group_remote_assignor (Java: group.remote.assignor, KIP-848) must be the name of an "
            f"assignor of the broker's group.consumer.assignors (e.g. 'uniform', 'range'), got "
            f"{group_remote_assignor!r}"
        )
    if instance_takeover is None:  # auto: on for this pod's own StatefulSet identity
        instance_takeover = group_instance_id is not None and (
            InstanceId.is_statefulset_identity(group_instance_id))  # fmt: skip
    if not isinstance(instance_takeover, bool):
        raise ConfigurationError(
            "instance_takeover must be True or False (or None: on for this pod's own "
            f"StatefulSet identity), got {instance_takeover!r}"
        )
    if instance_takeover and group_instance_id is None:
        raise ConfigurationError(
            "instance_takeover needs group_instance_id (Java: group.instance.id, KIP-345): only "
            "a static member has an instance id to take over"
        )
    return GroupProtocolOptions(CONSUMER, group_remote_assignor, instance_takeover)


# -- aiokafka's arguments ----------------------------------------------------------------------


class _DefaultInt(int):
    """aiokafka's default for an argument the caller did not give (Java: not in the originals):
    equal to the default, but told apart from the same value given on purpose."""

    __slots__ = ()


class _DefaultStr(str):
    __doc__ = _DefaultInt.__doc__
    __slots__ = ()


def _default_int(value: int) -> int:
    return _DefaultInt(value)


def _default_str(value: str) -> str:
    return _DefaultStr(value)


# aiokafka's defaults that a check must tell apart from a value given on purpose.
SESSION_TIMEOUT_MS = _default_int(10_000)
HEARTBEAT_INTERVAL_MS = _default_int(3_000)
CLIENT_ID = _default_str(f"aiokafka-{aiokafka_version}")
SECURITY_PROTOCOL = _default_str("PLAINTEXT")
SASL_MECHANISM = _default_str("PLAIN")
SASL_KERBEROS_SERVICE_NAME = _default_str("kafka")
#: aiokafka 0.12's "auto" (it probes the broker's version), 0.14's None (a deprecated no-op);
#: aiokafka 0.13 has no such argument (None: refused when given, :func:`check_lacking_arguments`).
API_VERSION: str | None = consumer_default("api_version")

#: aiokafka's security arguments, which ``security=`` replaces.
RAW_SECURITY = (
    "security_protocol", "ssl_context", "sasl_mechanism", "sasl_plain_username",
    "sasl_plain_password", "sasl_kerberos_service_name", "sasl_kerberos_domain_name",
    "sasl_oauth_token_provider",
)  # fmt: skip

#: Whole-number options: field -> (Java key or why there is none, least value, KIP or "").
_NUMBERS: Mapping[str, tuple[str, int, str]] = {
    "fetch_max_wait_ms": ("fetch.max.wait.ms", 0, ""),
    "fetch_max_bytes": ("fetch.max.bytes", 0, "KIP-74"),
    "fetch_min_bytes": ("fetch.min.bytes", 0, ""),
    "max_partition_fetch_bytes": ("max.partition.fetch.bytes", 0, ""),
    "request_timeout_ms": ("request.timeout.ms", 0, ""),
    "retry_backoff_ms": ("retry.backoff.ms", 0, ""),
    "auto_commit_interval_ms": ("auto.commit.interval.ms", 0, ""),
    "metadata_max_age_ms": ("metadata.max.age.ms", 0, ""),
    "max_poll_interval_ms": ("max.poll.interval.ms", 1, "KIP-62"),
    "session_timeout_ms": ("session.timeout.ms", 1, ""),
    "heartbeat_interval_ms": ("heartbeat.interval.ms", 1, ""),
    "consumer_timeout_ms": ("no Java key: aiokafka's own", 0, ""),
}
#: The same, where None is allowed (and means: aiokafka's behaviour without it).
_OPTIONAL_NUMBERS: Mapping[str, tuple[str, int, str]] = {
    "max_poll_records": ("max.poll.records", 1, ""),
    "rebalance_timeout_ms": ("no Java key: Java sends max.poll.interval.ms", 1, "KIP-62"),
    "connections_max_idle_ms": ("connections.max.idle.ms", 0, ""),
}
#: Choices: field -> (Java key, accepted values, KIP or ""); aiokafka's accepted sets.
_CHOICES: Mapping[str, tuple[str, tuple[str, ...], str]] = {
    "auto_offset_reset": ("auto.offset.reset", ("earliest", "latest", "none"), ""),
    "isolation_level": ("isolation.level", ("read_uncommitted", "read_committed"), "KIP-98"),
}


#: What aiokafka's own checks say for the options it checks too: appended to ours, so that a
#: handler or a test matching aiokafka's message keeps matching (the drop-in contract).
_AIOKAFKA_WORDS: Mapping[str, str] = {
    "max_poll_records": "`max_poll_records` should be positive Integer",
    "isolation_level": "Incorrect isolation level {value}",
    "security_protocol": "`security_protocol` should be SSL or PLAINTEXT",
    "ssl_context": "`ssl_context` is mandatory if security_protocol=='SSL'",
    "sasl_mechanism": "only `PLAIN`, `GSSAPI`, `SCRAM-SHA-256`, `SCRAM-SHA-512` and "
    "`OAUTHBEARER` sasl_mechanism are supported at the moment",
    "sasl_plain": "sasl_plain_username and sasl_plain_password required for PLAIN sasl",
}


def _misuse(message: str, aiokafka_check: str, value: object = None) -> ConfigurationError:
    """Our message, then aiokafka's for the same check (:data:`_AIOKAFKA_WORDS`)."""
    words = _AIOKAFKA_WORDS.get(aiokafka_check)
    if words is None:
        return ConfigurationError(message)
    return ConfigurationError(f"{message} (aiokafka: {words.format(value=value)})")


def _named(field: str, java_key: str, kip: str = "") -> str:
    key = java_key if java_key.startswith("no ") else f"Java: {java_key}"
    return f"{field} ({key}{', ' + kip if kip else ''})"


def check_lacking_arguments(values: Mapping[str, Any]) -> None:
    """An aiokafka argument of our signature that the installed aiokafka lacks (``client_rack``
    before 0.14, ``api_version`` on 0.13) is refused when given (its default is None), not
    dropped: the behaviour it asks for would silently not happen."""
    for field, (java_key, kip, why) in LACKING_ARGUMENTS.items():
        if values[field] is not None:
            raise ConfigurationError(
                f"{_named(field, java_key, kip)} is not available with aiokafka "
                f"{aiokafka_version}, which is installed: {why}. Leave {field} unset, or install "
                "an aiokafka release that has it (staticconsumer supports 0.12, 0.13 and 0.14)"
            )


def given_options(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of ``defaults``' names that the caller gave (a value other than the
    default, or a marked default given on purpose): what is passed on to aiokafka."""
    given = {}
    for name, default in defaults.items():
        value = values[name]
        if isinstance(default, (_DefaultInt, _DefaultStr)):
            same = value is default
        else:
            same = type(value) is type(default) and value == default
        if not same:
            given[name] = value
    return given


def check_aiokafka_options(values: Mapping[str, Any], *, classic: bool) -> None:
    """Numbers, choices and the heartbeat below the session timeout (classic protocol only:
    under KIP-848 the coordinator owns both)."""
    for field, (java_key, least, kip) in {**_NUMBERS, **_OPTIONAL_NUMBERS}.items():
        value = values[field]
        if value is None and field in _OPTIONAL_NUMBERS:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            allowed = " or None" if field in _OPTIONAL_NUMBERS else ""
            raise _misuse(
                f"{_named(field, java_key, kip)} must be an int >= {least}{allowed}, got {value!r}",
                field,
            )
    for field, (java_key, accepted, kip) in _CHOICES.items():
        value = values[field]
        if not isinstance(value, str) or value.lower() not in accepted:
            raise _misuse(
                f"{_named(field, java_key, kip)} must be one of {', '.join(accepted)}, "
                f"got {value!r}", field, value,
            )  # fmt: skip
    session, heartbeat = values["session_timeout_ms"], values["heartbeat_interval_ms"]
    if classic and heartbeat >= session:
        raise ConfigurationError(
            f"heartbeat_interval_ms (Java: heartbeat.interval.ms) must be lower than "
            f"session_timeout_ms (Java: session.timeout.ms), got {heartbeat} >= {session}: "
            "the member would miss its session between two heartbeats (Java: typically no "
            "more than a third of it)"
        )


def security_options(security: Any, given: Mapping[str, Any]) -> dict[str, Any]:
    """aiokafka's security arguments: from ``security=`` (:meth:`SecuritySettings.aiokafka_kwargs`,
    as the admin calls open their client) or the raw ones given, checked, not both."""
    raw = {name: given[name] for name in RAW_SECURITY if name in given}
    if security is not None:
        return SecuritySettings.coerce(security, **raw).aiokafka_kwargs()
    protocol = given.get("security_protocol", SECURITY_PROTOCOL)
    if protocol not in PROTOCOLS:
        raise _misuse(
            f"security_protocol (Java: security.protocol) must be one of {', '.join(PROTOCOLS)},"
            f" got {protocol!r}", "security_protocol",
        )  # fmt: skip
    if protocol in ("SSL", "SASL_SSL") and given.get("ssl_context") is None:
        raise _misuse(
            f"security_protocol (Java: security.protocol) {protocol} needs ssl_context (an "
            "ssl.SSLContext), or give security=SecuritySettings(security_protocol="
            f"{protocol!r}, ssl_cafile=..., ...) instead, which builds one (the system CAs when "
            "ssl_cafile is None)", "ssl_context",
        )  # fmt: skip
    if protocol.startswith("SASL_"):
        mechanism = given.get("sasl_mechanism", SASL_MECHANISM)
        if mechanism not in SASL_MECHANISMS:
            raise _misuse(
                f"sasl_mechanism (Java: sasl.mechanism) must be one of "
                f"{', '.join(SASL_MECHANISMS)}, got {mechanism!r}", "sasl_mechanism",
            )  # fmt: skip
        missing = [n for n in ("sasl_plain_username", "sasl_plain_password") if n not in given]
        if mechanism == "PLAIN" and missing:
            raise _misuse(
                f"security_protocol (Java: security.protocol) {protocol} with sasl_mechanism "
                f"(Java: sasl.mechanism) PLAIN needs {' and '.join(missing)} (Java: "
                "sasl.jaas.config username/password), or give security=SecuritySettings(...)",
                "sasl_plain",
            )
    return raw


def roster_topic_option(roster_topic: Any) -> str | None:
    """``roster_topic`` checked: a Kafka topic name, or None (the default: pre-registration off,
    no roster request)."""
    if roster_topic is None:
        return None
    return check_roster_topic(roster_topic, none_turns_off=True)


def roster_barrier_option(roster_barrier: Any) -> bool:
    """``roster_barrier`` checked: a bool."""
    if not isinstance(roster_barrier, bool):
        raise ConfigurationError(
            "roster_barrier (staticconsumer option, no Java equivalent; KIP-469 pre-registration, "
            f"docs/scaling.md) must be True or False, got {roster_barrier!r}"
        )
    return roster_barrier


def enforce_reason_option(reason: Any) -> str:
    """``enforce_rebalance(reason)`` checked: None is KIP-800's default reason; a given reason
    must be a non-empty string (a blank one is most likely a bug)."""
    if reason is None:
        return JOIN_REASON_ENFORCED_PREFIX
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigurationError(
            "enforce_rebalance(reason): a reason, when given, must be a non-empty string "
            "(sent on JoinGroup v8+, KIP-800); leave it out for KIP-800's default "
            f"{JOIN_REASON_ENFORCED_PREFIX!r}; got {reason!r}"
        )
    return reason


def close_options(
    leave_group: Any, reason: Any, membership: Any
) -> tuple[MembershipOperation, str | None]:
    """``stop(leave_group, reason, membership=...)`` checked: the membership operation (Java
    4.4's ``CloseOptions.GroupMembershipOperation``, KIP-1092) and the leave's reason as sent
    (KIP-800: ``"the consumer is being closed: <reason>"``), or None for the default reason.
    ``leave_group=True`` is ``membership="leave_group"``; a leave for good needs a reason."""
    operation = MembershipOperation.coerce(membership)
    if not isinstance(leave_group, bool):
        raise ConfigurationError(
            f"stop(leave_group=...) must be True or False, got {leave_group!r}"
        )
    if leave_group:
        if operation is MembershipOperation.REMAIN_IN_GROUP:
            raise ConfigurationError(
                "stop(leave_group=True, membership='remain_in_group') contradicts itself: "
                "leave_group=True is membership='leave_group' (KIP-1092)"
            )
        operation = MembershipOperation.LEAVE_GROUP
    if reason is not None and (not isinstance(reason, str) or not reason.strip()):
        raise ConfigurationError(
            f"stop(reason=...): a reason, when given, must be a non-empty string (sent on "
            f"LeaveGroup v5+, KIP-800), got {reason!r}"
        )
    if operation is MembershipOperation.LEAVE_GROUP and reason is None:
        raise ConfigurationError(
            "stop(leave_group=True) needs a non-empty reason (membership='leave_group', "
            "KIP-1092): the group rebalances, and the broker logs why (KIP-800)"
        )
    return operation, None if reason is None else f"{LEAVE_REASON_PREFIX}: {reason}"
