"""The one place where a Kafka error code becomes an exception, for the consumer and the admin code.

What a member *does* about a code is decided by the membership engine
(:data:`staticconsumer.membership.TABLE`); what the application *sees* is decided here:

* FENCED_INSTANCE_ID → :class:`~staticconsumer.errors.FencedInstanceIdError` (fatal), saying what
  to check and, when the coordinator told us, who holds the instance id now;
* UNRELEASED_INSTANCE_ID (KIP-848) → :class:`~staticconsumer.errors.UnreleasedInstanceIdError`
  (not fatal: the member goes on asking);
* a commit that lost its generation (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS)
  → aiokafka's ``CommitFailedError``, raised ``from`` the code's own error, as a drop-in
  ``AIOKafkaConsumer`` raises it;
* any other code on a consumer call → aiokafka's class for the code
  (``GroupAuthorizationFailedError`` names the group, ``TopicAuthorizationFailedError`` the
  topics the refused request named), so ``except`` clauses written for aiokafka keep working;
* any code on an admin call → :class:`~staticconsumer.errors.GroupAdminError` naming the group,
  the API and Kafka's error name (a missing ACL: ``GroupAdminAuthorizationError``;
  INVALID_GROUP_ID: ``InvalidGroupIdError``; UNSUPPORTED_VERSION:
  ``GroupAdminUnsupportedVersionError``), for the whole request (:func:`admin_error`) or for
  the members a removal could not remove (:func:`removal_error`; UNKNOWN_MEMBER_ID:
  ``UnknownMemberError``);
* aiokafka's SASL, TLS and authorization exceptions → ``AuthenticationError`` /
  ``AuthorizationError`` naming the principal and what it lacks (:func:`security_error`).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from dataclasses import dataclass

import aiokafka.errors as Errors

from .errors import (
    AUTHORIZATION_ERRORS,
    AuthenticationError,
    AuthorizationError,
    FencedInstanceIdError,
    GroupAdminAuthorizationError,
    GroupAdminError,
    GroupAdminUnsupportedVersionError,
    GroupMembershipError,
    InvalidGroupIdError,
    SessionTimeoutOutOfRangeError,
    StaticConsumerError,
    UnknownMemberError,
    UnreleasedInstanceIdError,
)
from .protocol import ErrorCode, error_name

#: Commit answers meaning "the group moved on without this member's generation".
_COMMIT_FAILED = frozenset(
    {ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION, ErrorCode.REBALANCE_IN_PROGRESS,
     # The consumer protocol's (KIP-848): the member's epoch is gone.
     ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.STALE_MEMBER_EPOCH}
)  # fmt: skip


@dataclass(frozen=True)
class MemberContext:
    """Who the error happened to, for the messages."""

    group_id: str
    group_instance_id: str | None
    member_id: str
    client_id: str


def fenced_error(ctx: MemberContext, api: str, holder: str | None = None) -> FencedInstanceIdError:
    """The FencedInstanceIdError for ``api``; the message says what to check."""
    message = (
        f"{api} answered FENCED_INSTANCE_ID: group {ctx.group_id!r} has given group.instance.id "
        f"{ctx.group_instance_id!r} to another member, so this member ({ctx.member_id!r}, client "
        f"{ctx.client_id!r}) is fenced and has stopped: no heartbeats, no re-join, no commits, no "
        "LeaveGroup. Check that no two consumers are configured with the same instance id (e.g. "
        "two pods or threads sharing one id), or that this process was not replaced by a newer one."
    )
    if holder:
        message += f" The id is now held by {holder}."
    error = FencedInstanceIdError(
        message,
        group_id=ctx.group_id,
        group_instance_id=ctx.group_instance_id or "",
        member_id=ctx.member_id,
        api=api,
    )
    error.holder = holder
    return error


def fatal_error(ctx: MemberContext, api: str, code: int) -> GroupMembershipError:
    """The engine's fatal verdict on ``api`` answering ``code`` (not a fence: see
    :func:`fenced_error`): the member stops for good."""
    name = error_name(code)
    return GroupMembershipError(
        f"{api} for group {ctx.group_id!r} failed fatally: {name} (code {code}); member "
        f"{ctx.member_id!r} (group.instance.id {ctx.group_instance_id!r}, client "
        f"{ctx.client_id!r}) has stopped",
        group_id=ctx.group_id, api=api, error_code=code, error_name=name,
    )  # fmt: skip


def session_timeout_error(
    session_timeout_ms: int, bounds: tuple[int, int] | None
) -> SessionTimeoutOutOfRangeError:
    """INVALID_SESSION_TIMEOUT, with the broker's ``bounds`` (min, max) when it told them."""
    where = (
        f"the broker allows group.min.session.timeout.ms={bounds[0]} to "
        f"group.max.session.timeout.ms={bounds[1]}"
        if bounds
        else "outside the broker's group.min.session.timeout.ms/group.max.session.timeout.ms"
    )
    return SessionTimeoutOutOfRangeError(
        f"session_timeout_ms={session_timeout_ms} (Java: session.timeout.ms) was "
        f"rejected by the group coordinator: {where}. Static members usually want a long "
        "timeout (KIP-345 raised the broker's cap to 30 minutes)."
    )


#: How a consumer-protocol member gets out of UNRELEASED_INSTANCE_ID sooner.
_UNRELEASED_CONSUMER = (
    "the broker's group.consumer.session.timeout.ms). With instance_takeover=True the stale "
    "member is removed at once"
)


def kafka_error(
    code: int, *, group_id: str, detail: str = "", topics: Iterable[str] = ()
) -> Exception:
    """aiokafka's exception for ``code``: ``GroupAuthorizationFailedError`` names the group,
    ``TopicAuthorizationFailedError`` the ``topics`` the refused request named (sorted, once
    each: ``"audit, orders"``), as aiokafka's own name the topic they refer to."""
    if code == ErrorCode.UNRELEASED_INSTANCE_ID:  # ``detail``: the protocol's way out
        return UnreleasedInstanceIdError(
            f"group {group_id!r}: the coordinator still holds this group_instance_id for a "
            "previous member that did not leave (a crash?); asking again until its session "
            f"times out ({detail or _UNRELEASED_CONSUMER})",
            group_id=group_id,
        )
    error_type: type[Exception] = Errors.for_code(code)
    if error_type is Errors.GroupAuthorizationFailedError:
        return Errors.GroupAuthorizationFailedError(group_id)
    named = sorted(set(topics))
    if error_type is Errors.TopicAuthorizationFailedError and named:
        return Errors.TopicAuthorizationFailedError(", ".join(named))
    if detail:
        return error_type(detail)
    return error_type()


def commit_error(code: int, *, group_id: str, topics: Iterable[str] = ()) -> Exception:
    """What ``commit()`` raises for ``code``: ``CommitFailedError`` when the generation is gone
    (its ``__cause__`` is the code's own error), else :func:`kafka_error` (``topics``: those of
    the refused partitions)."""
    if code in _COMMIT_FAILED:
        error: Exception = Errors.CommitFailedError(
            f"Commit cannot be completed since the group has already rebalanced and may have "
            f"assigned the partitions to another member ({error_name(code)})"
        )
        error.__cause__ = kafka_error(code, group_id=group_id)
        return error
    return kafka_error(code, group_id=group_id, topics=topics)


#: Codes that mean a missing ACL, with what it is missing on (never retried); ``{group}`` is the
#: group the admin call was about.
AUTHORIZATION: dict[int, str] = {
    ErrorCode.GROUP_AUTHORIZATION_FAILED: "group {group} (DESCRIBE for DescribeGroups, READ for "
    "LeaveGroup)",
    # ConsumerGroupDescribe (KIP-848): DESCRIBE on every topic the group uses; the request
    # named none, so only the broker's message can say which.
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: "a topic group {group} uses (DESCRIBE)",
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED: "the cluster",
}


#: Admin answers (the whole request's, or one member's in a removal) with a class of their own,
#: and what each means for the user.
_ADMIN_TYPED: dict[int, tuple[type[InvalidGroupIdError | GroupAdminUnsupportedVersionError], str]]
_ADMIN_TYPED = {
    ErrorCode.INVALID_GROUP_ID: (
        InvalidGroupIdError,
        "the coordinator refuses the group id (Apache Kafka answers it for an empty group id); "
        "check the group id given",
    ),
    ErrorCode.UNSUPPORTED_VERSION: (
        GroupAdminUnsupportedVersionError,
        "the coordinator cannot serve this request at the version sent (removing members by "
        "group.instance.id needs LeaveGroup v3 or newer: KIP-345, Apache Kafka 2.4+); nothing "
        "was changed for them",
    ),
}


def admin_error(group_id: str, api: str, code: int, detail: str | None = None) -> GroupAdminError:
    """An admin call's failure: group, API and Kafka's name for ``code``, and the broker's
    message when it sent one; a missing ACL is a
    :class:`~staticconsumer.errors.GroupAdminAuthorizationError` saying what it is missing on,
    INVALID_GROUP_ID and UNSUPPORTED_VERSION their own classes (:data:`_ADMIN_TYPED`)."""
    text = f"{api} for group {group_id!r} failed: {error_name(code)} (error code {code})"
    if code in _ADMIN_TYPED:
        error_type, meaning = _ADMIN_TYPED[code]
        text = f"{text}: {meaning}"
        return error_type(f"{text} ({detail})" if detail else text)
    if code in AUTHORIZATION:
        missing = AUTHORIZATION[code].format(group=repr(group_id))
        text = f"{text}: the principal lacks an ACL on {missing}"
        return GroupAdminAuthorizationError(
            f"{text} ({detail})" if detail else text,
            error_name=error_name(code), resource=group_id,
        )  # fmt: skip
    return GroupAdminError(f"{text}: {detail}" if detail else text)


def removal_error(
    group_id: str, removed: Iterable[str], failed: Iterable[tuple[str, str]]
) -> GroupAdminError | None:
    """What ``remove_members`` raises for the instance ids LeaveGroup could not remove
    (``failed``: ``(instance id, Kafka error name)``), or None when it removed them all. When
    every failure has one code, its class: UNKNOWN_MEMBER_ID → ``UnknownMemberError``,
    INVALID_GROUP_ID → ``InvalidGroupIdError``, UNSUPPORTED_VERSION →
    ``GroupAdminUnsupportedVersionError`` (each with ``instance_ids``); else a
    ``GroupAdminError`` listing each id with its error. The message names the ids removed."""
    failed = tuple(failed)
    if not failed:
        return None
    done = ", ".join(removed)
    done = f"; removed: {done}" if done else "; none removed"
    names = {name for _, name in failed}
    ids = tuple(i for i, _ in failed)
    if names == {ErrorCode.UNKNOWN_MEMBER_ID.name}:
        return UnknownMemberError(
            f"group {group_id!r} has no member with group.instance.id {', '.join(ids)}{done}",
            instance_ids=ids,
        )
    for code, (error_type, meaning) in _ADMIN_TYPED.items():
        if names == {error_name(code)}:
            return error_type(
                f"LeaveGroup for group {group_id!r} failed for {', '.join(ids)}: "
                f"{error_name(code)} (error code {int(code)}): {meaning}{done}",
                instance_ids=ids,
            )
    listed = ", ".join(f"{i} ({name})" for i, name in failed)
    return GroupAdminError(f"LeaveGroup for group {group_id!r} failed for {listed}{done}")


#: aiokafka's exceptions for a refused login, and for a missing ACL (with Kafka's name).
_AUTHENTICATION = (
    Errors.SaslAuthenticationFailed,
    Errors.AuthenticationFailedError,
    Errors.UnsupportedSaslMechanismError,
    Errors.IllegalSaslStateError,
)
_AUTHORIZATION = {
    Errors.TopicAuthorizationFailedError: "TOPIC_AUTHORIZATION_FAILED",
    Errors.GroupAuthorizationFailedError: "GROUP_AUTHORIZATION_FAILED",
    Errors.ClusterAuthorizationFailedError: "CLUSTER_AUTHORIZATION_FAILED",
}
_NEEDS = {
    "TOPIC_AUTHORIZATION_FAILED": "DESCRIBE/READ (or WRITE) on the topic",
    "GROUP_AUTHORIZATION_FAILED": "READ (and DESCRIBE) on the group",
    "CLUSTER_AUTHORIZATION_FAILED": "the needed operation on the cluster",
}


#: How a message names the resource of each authorization error ("" when it was not named).
_KIND = {
    "TOPIC_AUTHORIZATION_FAILED": ("topic(s) {}", "a topic it did not name"),
    "GROUP_AUTHORIZATION_FAILED": ("group {}", "the group"),
    "CLUSTER_AUTHORIZATION_FAILED": ("{}", "the cluster"),
}


def authorization_error(error_name: str, resource: str, principal: str) -> AuthorizationError:
    """The principal lacks an ACL for ``resource`` (the topic names, the group, or ``""`` when
    the refused call did not say), named in the message; the class of its name (also aiokafka's
    class for it)."""
    named, unnamed = _KIND.get(error_name, ("{}", "the resource"))
    what = named.format(resource) if resource else unnamed
    return AUTHORIZATION_ERRORS.get(error_name, AuthorizationError)(
        f"{error_name}: {principal} lacks an ACL for {what} (it needs "
        f"{_NEEDS.get(error_name, 'an ACL')}); ask for the ACL or use another principal",
        error_name=error_name, resource=resource,
    )  # fmt: skip


def _resource(exc: BaseException) -> str:
    """What aiokafka's authorization error names: its arguments, a collection of names (as
    aiokafka raises ``TopicAuthorizationFailedError(unauthorized_topics)``) sorted and joined."""
    names: list[str] = []
    for arg in exc.args:
        if isinstance(arg, (set, frozenset, list, tuple)):
            names += sorted(str(a) for a in arg)
        else:
            names.append(str(arg))
    return ", ".join(names)


def security_error(exc: BaseException, principal: str) -> StaticConsumerError | None:
    """Our error for an aiokafka security failure (SASL, TLS, a missing ACL) as ``principal``
    (a name, never a secret), or None when ``exc`` is something else (or ours already: each of
    ours is also the aiokafka class it stands for)."""
    if isinstance(exc, AuthenticationError | AuthorizationError):
        return None
    if isinstance(exc, _AUTHENTICATION):
        return AuthenticationError(f"authentication as {principal} failed: {exc}")
    if isinstance(exc, ssl.SSLError):
        return AuthenticationError(
            f"TLS handshake failed ({exc.reason or exc}): check ssl_cafile (Java: "
            f"ssl.truststore.location) and the broker's host name in its certificate"
        )
    for kind, name in _AUTHORIZATION.items():
        if isinstance(exc, kind):
            return authorization_error(name, _resource(exc), principal)
    return None
