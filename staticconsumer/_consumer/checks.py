"""The checks of ``StaticConsumer``'s options that make a value of several keywords, or need
more than a row's own check (pure functions: no I/O). The rows themselves, their defaults and
their checks are :data:`staticconsumer.options.OPTIONS`; each :class:`ConfigurationError` names
the field, the Java key and, where one applies, the KIP.

* ``group_protocol`` (Java ``group.protocol``) and the options that go with it: the classic
  protocol (JoinGroup/SyncGroup, client-side assignors) or the consumer protocol (KIP-848:
  ConsumerGroupHeartbeat, the coordinator assigns with ``group_remote_assignor``), and what the
  consumer protocol refuses (the rows say which);
* the security arguments (raw, or ``security=SecuritySettings(...)``, not both);
* the roster options (KIP-469, ``docs/scaling.md``); an argument the installed aiokafka lacks;
* ``enforce_rebalance(reason)`` and ``stop(leave_group, reason, membership=...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aiokafka import __version__ as aiokafka_version

from .._compat import LACKING_ARGUMENTS
from .._instance_id import InstanceId
from ..errors import ConfigurationError
from ..membership import JOIN_REASON_ENFORCED_PREFIX, LEAVE_REASON_PREFIX
from ..options import (
    AUTO,
    BY_NAME,
    CLASSIC,
    CONSUMER,
    STREAMS,
    MembershipOperation,
    check_group_protocol,
    refuse_under_consumer_protocol,
)
from ..roster import check_roster_topic
from ..security import PROTOCOLS, SASL_MECHANISMS, SecuritySettings
from .strategy import needs_user_data


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

    @property
    def coordinator_assigns(self) -> bool:
        """The consumer or the streams protocol: no client-side assignor."""
        return self.group_protocol in (CONSUMER, STREAMS)


def group_protocol_options(
    group_protocol: Any,
    group_remote_assignor: Any,
    instance_takeover: Any,
    *,
    group_instance_id: str | None,
    kwargs: Mapping[str, Any],
) -> GroupProtocolOptions:
    """The checked options; :class:`ConfigurationError` names the field, Java's key and the KIP.
    ``kwargs``: the keywords the caller gave. Under ``"auto"`` the options are checked as the
    classic protocol's (:class:`AutoProtocol` holds the consumer protocol's too)."""
    check_group_protocol(group_protocol)
    if group_protocol == AUTO:
        if group_remote_assignor is not None:
            raise ConfigurationError(
                "group_remote_assignor (Java: group.remote.assignor) applies only to "
                "group_protocol='consumer' (KIP-848): with 'auto' the protocol is decided at "
                "start, and the classic protocol would ignore it; give group_protocol='consumer'"
            )
        takeover = _instance_takeover(instance_takeover, group_instance_id)
        return GroupProtocolOptions(AUTO, None, takeover)  # takeover: if the consumer one runs
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
    strategy = kwargs.get("partition_assignment_strategy")
    lost = {"partition_assignment_strategy": needs_user_data(strategy) if strategy else ""}
    refuse_under_consumer_protocol(kwargs, lost, protocol=group_protocol)
    if group_protocol == STREAMS:
        return _streams_protocol(group_remote_assignor, instance_takeover)
    if group_remote_assignor is not None and (
        not isinstance(group_remote_assignor, str) or not group_remote_assignor.strip()
    ):
        raise ConfigurationError(
            "group_remote_assignor (Java: group.remote.assignor, KIP-848) must be the name of an "
            f"assignor of the broker's group.consumer.assignors (e.g. 'uniform', 'range'), got "
            f"{group_remote_assignor!r}"
        )
    instance_takeover = _instance_takeover(instance_takeover, group_instance_id)
    return GroupProtocolOptions(CONSUMER, group_remote_assignor, instance_takeover)


def _streams_protocol(group_remote_assignor: Any, instance_takeover: Any) -> GroupProtocolOptions:
    """A streams group has neither a member-chosen assignor nor a takeover."""
    if group_remote_assignor is not None:
        raise ConfigurationError(
            "group_remote_assignor (Java: group.remote.assignor) applies only to "
            "group_protocol='consumer' (KIP-848): a streams group's tasks are assigned by the "
            "broker's group.streams.assignor (KIP-1071)"
        )
    if instance_takeover:
        raise ConfigurationError(
            "instance_takeover applies only to group_protocol='consumer' (KIP-848): a streams "
            "group takes no LeaveGroup, so a restarted static thread waits for its previous "
            "holder's session to end (KIP-1071)"
        )
    return GroupProtocolOptions(STREAMS)


def _instance_takeover(value: bool | None, group_instance_id: str | None) -> bool:
    """``instance_takeover`` as the consumer protocol runs it: None is on for this pod's own
    StatefulSet identity; it needs an instance id."""
    if value is None:
        return group_instance_id is not None and InstanceId.is_statefulset_identity(
            group_instance_id)  # fmt: skip
    if value and group_instance_id is None:
        raise ConfigurationError(
            "instance_takeover needs group_instance_id (Java: group.instance.id, KIP-345): only "
            "a static member has an instance id to take over"
        )
    return value


#: aiokafka's security arguments, which ``security=`` replaces.
RAW_SECURITY = (
    "security_protocol", "ssl_context", "sasl_mechanism", "sasl_plain_username",
    "sasl_plain_password", "sasl_kerberos_service_name", "sasl_kerberos_domain_name",
    "sasl_oauth_token_provider",
)  # fmt: skip

#: What aiokafka's own checks say for the security arguments it checks too: appended to ours,
#: so that a handler or a test matching aiokafka's message keeps matching (the drop-in
#: contract; the rows carry the others' words).
_AIOKAFKA_WORDS: Mapping[str, str] = {
    "security_protocol": "`security_protocol` should be SSL or PLAINTEXT",
    "ssl_context": "`ssl_context` is mandatory if security_protocol=='SSL'",
    "sasl_mechanism": "only `PLAIN`, `GSSAPI`, `SCRAM-SHA-256`, `SCRAM-SHA-512` and "
    "`OAUTHBEARER` sasl_mechanism are supported at the moment",
    "sasl_plain": "sasl_plain_username and sasl_plain_password required for PLAIN sasl",
}


def _misuse(message: str, aiokafka_check: str) -> ConfigurationError:
    """Our message, then aiokafka's for the same check (:data:`_AIOKAFKA_WORDS`)."""
    return ConfigurationError(f"{message} (aiokafka: {_AIOKAFKA_WORDS[aiokafka_check]})")


def check_lacking_arguments(values: Mapping[str, Any]) -> None:
    """An aiokafka argument of our signature that the installed aiokafka lacks (``client_rack``
    before 0.14, ``api_version`` on 0.13) is refused when given (its default is None), not
    dropped: the behaviour it asks for would silently not happen."""
    for field, (java_key, kip, why) in LACKING_ARGUMENTS.items():
        if values.get(field) is not None:
            key = java_key if java_key.startswith("no ") else f"Java: {java_key}"
            named = f"{field} ({key}{', ' + kip if kip else ''})"
            raise ConfigurationError(
                f"{named} is not available with aiokafka {aiokafka_version}, which is "
                f"installed: {why}. Leave {field} unset, or install an aiokafka release that "
                "has it (staticconsumer supports 0.12, 0.13 and 0.14)"
            )


def security_options(security: Any, given: Mapping[str, Any]) -> dict[str, Any]:
    """aiokafka's security arguments: from ``security=`` (:meth:`SecuritySettings.aiokafka_kwargs`,
    as the admin calls open their client) or the raw ones given, checked, not both."""
    raw = {name: given[name] for name in RAW_SECURITY if name in given}
    if security is not None:
        return SecuritySettings.coerce(security, **raw).aiokafka_kwargs()
    protocol = given.get("security_protocol", BY_NAME["security_protocol"].default)
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
        mechanism = given.get("sasl_mechanism", BY_NAME["sasl_mechanism"].default)
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
