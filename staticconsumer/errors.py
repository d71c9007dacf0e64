"""The staticconsumer exception trees.

Every error this package raises on purpose is one of these::

    StaticConsumerError                      base; ``fatal`` says whether the consumer is finished;
    │                                        also aiokafka's KafkaError
    ├── FencedInstanceIdError (fatal)        FENCED_INSTANCE_ID (82): another process holds our
    │                                        group.instance.id (KIP-345); when aiokafka has
    │                                        one (#1188), also aiokafka's FencedInstanceIdError
    ├── UnreleasedInstanceIdError            UNRELEASED_INSTANCE_ID (111, KIP-848): a previous
    │                                        member still holds our instance id; retried
    ├── UnsupportedBrokerError (fatal)       the broker cannot carry the instance id on an API;
    │                                        also aiokafka's UnsupportedVersionError
    ├── SessionTimeoutOutOfRangeError (fatal) session_timeout_ms outside the broker's
    │                                        group.min/max.session.timeout.ms; also aiokafka's
    │                                        InvalidSessionTimeoutError
    ├── GroupMembershipError (fatal)         a group API answered an error that ends the
    │                                        membership (e.g. GROUP_MAX_SIZE_REACHED)
    ├── GroupAdminError                      an admin call (describe, remove members) failed
    │   ├── UnknownMemberError               remove_members named an instance id the group lacks
    │   │                                    (also aiokafka's UnknownMemberIdError)
    │   ├── InvalidGroupIdError              INVALID_GROUP_ID (24): the coordinator refused the
    │   │                                    group id (also aiokafka's InvalidGroupIdError)
    │   ├── GroupAdminUnsupportedVersionError UNSUPPORTED_VERSION (35): the coordinator cannot
    │   │                                    do this for the group or member (also aiokafka's
    │   │                                    UnsupportedVersionError)
    │   ├── GroupAdminAuthorizationError     refused for a missing ACL (also an AuthorizationError)
    │   └── RosterUnreadableError            a group's roster (KIP-469 by the client) could not be
    │       │                                read: a timeout, a broker error, an undecodable record
    │       └── RosterAuthorizationError     also an GroupAdminAuthorizationError: a missing ACL
    │                                        on the roster topic
    ├── AuthenticationError                  SASL authentication failed (wrong password, mechanism
    │                                        not enabled) or the TLS handshake was refused; also
    │                                        aiokafka's AuthenticationFailedError
    ├── AuthorizationError                   the principal lacks an ACL: ``error_name`` is
    │   │                                    GROUP_/TOPIC_/CLUSTER_AUTHORIZATION_FAILED
    │   ├── GroupAuthorizationError          also aiokafka's GroupAuthorizationFailedError
    │   ├── TopicAuthorizationError          also aiokafka's TopicAuthorizationFailedError
    │   └── ClusterAuthorizationError        also aiokafka's ClusterAuthorizationFailedError
    ├── ClusterUnavailableError              start() reached no broker that answered within
    │                                        request_timeout_ms (bootstrap, or every broker down);
    │                                        also aiokafka's KafkaConnectionError
    └── ProtocolError                        a response could not be decoded
        └── RosterFormatError                a roster record is not a roster this version reads
                                             (bad JSON, a wrong field, a newer ``version``)

    ConfigurationError (ValueError)          misuse caught at construction
    └── InvalidInstanceIdError               a group.instance.id Kafka would reject

A class that is also another class (``also ...`` above) derives from it second: it is caught by
either name. A class that stands for one Kafka error code (the number drawn beside it) derives
second from aiokafka's class for that code whenever the installed aiokafka has one, decided at
import by the code (:func:`_aiokafkas`): aiokafka 0.14 has no class for FENCED_INSTANCE_ID (82)
or UNRELEASED_INSTANCE_ID (111), and a release that adds one (aiokafka PR #1188 adds
``FencedInstanceIdError``) makes ours one of it, so an ``except`` written for aiokafka's catches
ours. ``ClusterUnavailableError`` is an aiokafka ``KafkaConnectionError`` so that the retry
loop an application wrote around ``AIOKafkaConsumer.start()`` (``except KafkaConnectionError``)
still catches it around a StaticConsumer.

Misuse errors are ``ValueError`` subclasses so that ``except ValueError`` keeps working; they are
raised before any I/O. Runtime failures of the consumer and the admin calls derive from
:class:`StaticConsumerError`.

The local Kafka launcher's tree (``LocalKafkaError`` and its subclasses) belongs to the tooling
and is drawn in :mod:`staticconsumer.localkafka.errors`. Its old names here
(``staticconsumer.errors.LocalKafkaError``, ``NoBrokerAvailableError``, ``KafkaResolutionError``,
``BrokerStartError``) still work: they are the same classes, looked up on first use by the module
``__getattr__`` below, so that importing this module (and ``import staticconsumer``) does not load
the launcher.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import aiokafka.errors as _aiokafka  # the second bases (aiokafka's classes)

if TYPE_CHECKING:  # the launcher's tree, re-exported lazily (see the module docstring)
    pass

#: Old names of the launcher's errors -> the tooling module that defines them now.
_MOVED = {
    "BrokerStartError": "staticconsumer.localkafka.errors",
    "KafkaResolutionError": "staticconsumer.localkafka.errors",
    "LocalKafkaError": "staticconsumer.localkafka.errors",
    "NoBrokerAvailableError": "staticconsumer.localkafka.errors",
}


def __getattr__(name: str) -> Any:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


class _aiokafkas:
    """As a base class: aiokafka's class for Kafka error ``code`` when the installed aiokafka
    has one (``aiokafka.errors.for_code``), else no base at all (PEP 560 ``__mro_entries__``).
    ``name`` is Kafka's name for the code, for the reader and the repr."""

    def __init__(self, code: int, name: str) -> None:
        self.code = code
        self.name = name

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type[_aiokafka.KafkaError], ...]:
        found: type[_aiokafka.KafkaError] = _aiokafka.for_code(self.code)
        return () if found is _aiokafka.UnknownError else (found,)

    def __repr__(self) -> str:
        return f"aiokafka's class for {self.name} ({self.code})"


class StaticConsumerError(_aiokafka.KafkaError):
    """Base of every runtime error raised by staticconsumer.

    ``fatal`` is True when the consumer that raised it can do nothing more: every later call on it
    raises the same error, and it must be stopped and replaced.

    Also an aiokafka ``KafkaError``, as every runtime error of an ``AIOKafkaConsumer`` is, so an
    application's ``except KafkaError`` around a consumer goes on catching what it raises.
    """

    fatal: bool = False

    #: The message as given (aiokafka's KafkaError prefixes the class name).
    __str__ = Exception.__str__


class FencedInstanceIdError(StaticConsumerError, _aiokafkas(82, "FENCED_INSTANCE_ID")):  # type: ignore[misc]
    """The broker fenced this member: another member now uses our ``group.instance.id``."""

    fatal = True

    def __init__(
        self,
        message: str,
        *,
        group_id: str = "",
        group_instance_id: str = "",
        member_id: str = "",
        api: str = "",
    ) -> None:
        super().__init__(message)
        self.group_id = group_id
        self.group_instance_id = group_instance_id
        self.member_id = member_id
        self.api = api
        #: The member that now holds the instance id (client id and host), when it was found.
        self.holder: str | None = None


class UnreleasedInstanceIdError(
    StaticConsumerError,
    _aiokafkas(111, "UNRELEASED_INSTANCE_ID"),  # type: ignore[misc]
):
    """``group_protocol="consumer"`` (KIP-848): the coordinator still gives our
    ``group.instance.id`` to a previous member that did not leave (a crash: no epoch -2 was sent).
    Not fatal: the member goes on asking until that member's session times out, and raises this
    once per wait so the application knows why it has no partitions (``instance_takeover=True``
    removes the stale member at once instead)."""

    def __init__(self, message: str, *, group_id: str = "") -> None:
        super().__init__(message)
        self.group_id = group_id


class UnsupportedBrokerError(StaticConsumerError, _aiokafka.UnsupportedVersionError):
    """The broker's API versions cannot carry group.instance.id (KIP-345 on every group API
    needs Kafka 2.4+), or,
    for a member without one, are older than this package serves (Kafka 2.1+)."""

    fatal = True


class SessionTimeoutOutOfRangeError(
    StaticConsumerError,
    _aiokafkas(26, "INVALID_SESSION_TIMEOUT"),  # type: ignore[misc]
):
    """session_timeout_ms lies outside the broker's group.min/max.session.timeout.ms."""

    fatal = True


class GroupMembershipError(StaticConsumerError):
    """A group API answered an error the membership ends on (the engine's fatal verdict, not a
    fence): ``api``, ``error_code``, ``error_name`` and ``group_id`` say which."""

    fatal = True

    def __init__(
        self, message: str, *, group_id: str, api: str, error_code: int, error_name: str
    ) -> None:
        super().__init__(message)
        self.group_id = group_id
        self.api = api
        self.error_code = error_code
        self.error_name = error_name


class GroupAdminError(StaticConsumerError):
    """An admin operation on a consumer group failed."""


class UnknownMemberError(GroupAdminError, _aiokafkas(25, "UNKNOWN_MEMBER_ID")):  # type: ignore[misc]
    """remove_members named group instance ids that are not members of the group."""

    def __init__(self, message: str, *, instance_ids: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.instance_ids = instance_ids


class InvalidGroupIdError(GroupAdminError, _aiokafkas(24, "INVALID_GROUP_ID")):  # type: ignore[misc]
    """INVALID_GROUP_ID (24): the coordinator refused the group id of an admin call, for the
    whole request or (``remove_members``) for the members in ``instance_ids``. Apache Kafka
    answers it for an empty group id; a broker may refuse other names too."""

    def __init__(self, message: str, *, instance_ids: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.instance_ids = instance_ids


class GroupAdminUnsupportedVersionError(
    GroupAdminError,
    _aiokafkas(35, "UNSUPPORTED_VERSION"),  # type: ignore[misc]
):
    """UNSUPPORTED_VERSION (35) on an admin call: the coordinator cannot serve the request at
    the version sent, for the whole request or (``remove_members``) for the members in
    ``instance_ids``, e.g. a broker that cannot remove members by ``group.instance.id``
    (LeaveGroup v3+, KIP-345). Not fatal for anything else: only this call failed."""

    def __init__(self, message: str, *, instance_ids: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.instance_ids = instance_ids


class AuthenticationError(StaticConsumerError, _aiokafka.AuthenticationFailedError):
    """The broker did not accept who we are: SASL authentication failed (SASL_AUTHENTICATION_FAILED,
    58: wrong username or password; UNSUPPORTED_SASL_MECHANISM, 33) or the TLS handshake failed
    (e.g. the broker's certificate is not signed by ``ssl_cafile``). Never a timeout; the message
    never holds a secret."""


class AuthorizationError(StaticConsumerError):
    """The principal lacks an ACL. ``error_name`` is Kafka's (``GROUP_AUTHORIZATION_FAILED``,
    ``TOPIC_AUTHORIZATION_FAILED``, ``CLUSTER_AUTHORIZATION_FAILED``), ``resource`` the group,
    topic(s) (``"audit, orders"``) or cluster it was refused on, as the refused request named
    them (``""`` when it named none; for an admin call, the group it was about)."""

    def __init__(self, message: str, *, error_name: str = "", resource: str = "") -> None:
        super().__init__(message)
        self.error_name = error_name
        self.resource = resource


class GroupAuthorizationError(
    AuthorizationError,
    _aiokafkas(30, "GROUP_AUTHORIZATION_FAILED"),  # type: ignore[misc]
):
    """GROUP_AUTHORIZATION_FAILED: also aiokafka's ``GroupAuthorizationFailedError``."""


class TopicAuthorizationError(
    AuthorizationError,
    _aiokafkas(29, "TOPIC_AUTHORIZATION_FAILED"),  # type: ignore[misc]
):
    """TOPIC_AUTHORIZATION_FAILED: also aiokafka's ``TopicAuthorizationFailedError``."""


class ClusterAuthorizationError(
    AuthorizationError,
    _aiokafkas(31, "CLUSTER_AUTHORIZATION_FAILED"),  # type: ignore[misc]
):
    """CLUSTER_AUTHORIZATION_FAILED: also aiokafka's ``ClusterAuthorizationFailedError``."""


#: The :class:`AuthorizationError` for each of Kafka's names of a missing ACL.
AUTHORIZATION_ERRORS: dict[str, type[AuthorizationError]] = {
    "GROUP_AUTHORIZATION_FAILED": GroupAuthorizationError,
    "TOPIC_AUTHORIZATION_FAILED": TopicAuthorizationError,
    "CLUSTER_AUTHORIZATION_FAILED": ClusterAuthorizationError,
}


class GroupAdminAuthorizationError(GroupAdminError, AuthorizationError):
    """An admin call on a group was refused for a missing ACL (e.g. GROUP_AUTHORIZATION_FAILED)."""


class ClusterUnavailableError(StaticConsumerError, _aiokafka.KafkaConnectionError):
    """``start()`` gave up: no broker answered within ``request_timeout_ms`` (Java:
    ``request.timeout.ms``), neither at bootstrap nor when asked for its API versions. Brokers
    that are down for a while (a coordinator failing over) are ridden over until then. The
    consumer was stopped; start a new one when the cluster is back.

    Also an aiokafka ``KafkaConnectionError`` (``retriable``), as what aiokafka's own
    ``start()`` raises in this case, so ``except KafkaConnectionError`` keeps working."""


class ProtocolError(StaticConsumerError):
    """Bytes from the broker or from another member could not be decoded."""


class ConfigurationError(ValueError):
    """A constructor argument is invalid. The message names the field, the Java key and the KIP."""


class InvalidInstanceIdError(ConfigurationError):
    """A group.instance.id that Kafka would reject (KIP-345)."""


class RosterUnreadableError(GroupAdminError):
    """A group's roster (the instance ids registered ahead of a scale-up) could not be read:
    the read timed out, the broker refused it, or the record could not be decoded
    (:class:`RosterFormatError` as its ``__cause__``). A member treats this as "no roster" and
    logs a WARNING: a roster nobody can read never blocks a group. ``error_name`` is Kafka's
    name for the failure when there is one (``TOPIC_AUTHORIZATION_FAILED``), ``resource`` the
    roster topic."""

    def __init__(
        self, message: str, *, group_id: str = "", topic: str = "", error_name: str = ""
    ) -> None:
        super().__init__(message)
        self.group_id = group_id
        self.topic = topic
        self.error_name = error_name
        self.resource = topic


class RosterAuthorizationError(RosterUnreadableError, GroupAdminAuthorizationError):
    """The roster topic refused the principal for a missing ACL (members need Describe and Read
    on it, the admin also Write, and Create once): a :class:`RosterUnreadableError` for the
    reader, a :class:`GroupAdminAuthorizationError` for the admin calls."""


class RosterFormatError(ProtocolError):
    """A roster record this version cannot read: not JSON, a field missing or of the wrong
    type, an invalid instance id, or a ``version`` newer than it knows (never guessed at).
    ``version`` is the record's version when it had one."""

    def __init__(self, message: str, *, version: int | None = None) -> None:
        super().__init__(message)
        self.version = version
