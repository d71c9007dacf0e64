"""``group.instance.id`` values (KIP-345): validation, environment lookup, per-thread ids."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TypeGuard

from .errors import ConfigurationError, InvalidInstanceIdError

#: Kafka validates group.instance.id like a topic name (JoinGroupRequest.validateGroupInstanceId).
MAX_LENGTH = 249
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
ENV_VARS = ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME")
#: Kubernetes names generated pods from this alphabet (no vowels, no 0/1/3: k8s "SafeEncodeString").
_K8S_SAFE = "[bcdfghjklmnpqrstvwxz2456789]"
#: A Deployment's pod: ``<deployment>-<pod-template-hash>-<5 random chars>``; both parts change on
#: every rollout (the hash with the pod template, the suffix with every new pod).
_DEPLOYMENT_POD = re.compile(rf"^(?P<name>.+)-(?P<hash>{_K8S_SAFE}{{6,10}})-{_K8S_SAFE}{{5}}$")
#: A StatefulSet's pod: ``<statefulset>-<ordinal>``.
_STATEFULSET_POD = re.compile(r"^.+-(0|[1-9][0-9]*)$")


def is_topic_name(value: object) -> TypeGuard[str]:
    """Whether Kafka accepts ``value`` as a topic name (``Topic.validate``): 1 to
    :data:`MAX_LENGTH` of ``[a-zA-Z0-9._-]``, not ``.`` or ``..``; a group instance id follows
    the same rule."""
    return (
        isinstance(value, str) and 0 < len(value) <= MAX_LENGTH and value not in (".", "..")
        and _LEGAL.match(value) is not None
    )  # fmt: skip


class InstanceId:
    """Helpers for ``group.instance.id`` (Java key ``group.instance.id``, KIP-345)."""

    @staticmethod
    def validate(value: object, *, field: str = "group_instance_id") -> str:
        """Return ``value`` if Kafka accepts it as a group instance id, else raise
        :class:`InvalidInstanceIdError` naming the rule it breaks."""
        where = f"{field} (Java: group.instance.id, KIP-345)"
        if not isinstance(value, str):
            raise InvalidInstanceIdError(f"{where} must be a str, got {type(value).__name__}")
        if value == "":
            raise InvalidInstanceIdError(f"{where} must not be empty")
        if value in (".", ".."):
            raise InvalidInstanceIdError(f"{where} must not be '.' or '..', got {value!r}")
        if len(value) > MAX_LENGTH:
            raise InvalidInstanceIdError(
                f"{where} must be at most {MAX_LENGTH} characters, got {len(value)}"
            )
        if not _LEGAL.match(value):
            bad = sorted({c for c in value if not _LEGAL.match(c)})
            raise InvalidInstanceIdError(
                f"{where} may only contain ASCII letters, digits, '.', '_' and '-'; "
                f"{value!r} contains {''.join(bad)!r}"
            )
        return value

    @classmethod
    def from_env(cls, *, allow_rollout_names: bool = False) -> str:
        """The first of ``STATICCONSUMER_INSTANCE_ID``, ``POD_NAME``, ``HOSTNAME`` that is set.

        On Kubernetes a StatefulSet pod name (``orders-0``) is stable across restarts, which is
        what an instance id must be. A Deployment's (or ReplicaSet's) pod name,
        ``orders-7d4b9c6f5b-x2k8q``, is not: it changes on every rollout, so each rollout would
        leave the old ids behind as ghost members holding partitions, unconsumed, until
        ``session.timeout.ms`` ends. Such a name from ``POD_NAME``/``HOSTNAME`` is refused
        unless ``allow_rollout_names=True`` (the explicit opt-out); an explicit
        ``STATICCONSUMER_INSTANCE_ID`` is always taken as given. An invalid value is rejected,
        never rewritten: two pods whose names rewrite to the same id would fence each other.
        """
        for name in ENV_VARS:
            value = os.environ.get(name)
            if value:
                instance_id = cls.validate(value, field=f"${name}")
                if name != ENV_VARS[0] and not allow_rollout_names:
                    cls._refuse_rollout_name(name, instance_id)
                return instance_id
        raise InvalidInstanceIdError(
            f"no group instance id in the environment: set one of {', '.join(ENV_VARS)}"
        )

    @staticmethod
    def _refuse_rollout_name(variable: str, value: str) -> None:
        match = _DEPLOYMENT_POD.match(value)
        if match is None:
            return
        raise InvalidInstanceIdError(
            f"${variable}={value!r} looks like a Deployment/ReplicaSet pod name "
            f"(<name>-<pod-template-hash>-<random>): it changes on every rollout, so as a "
            f"group.instance.id (KIP-345) each rollout would leave ghost static members holding "
            f"partitions until session.timeout.ms. Run the consumers as a StatefulSet "
            f"({match.group('name')}-0, {match.group('name')}-1, ...), or set "
            f"STATICCONSUMER_INSTANCE_ID to a stable id, or pass allow_rollout_names=True if "
            f"you accept this (docs/kubernetes.md)"
        )

    @staticmethod
    def is_statefulset_identity(value: str) -> bool:
        """Whether ``value`` is this pod's own StatefulSet identity: ``$POD_NAME`` (or
        ``$HOSTNAME``) in the form ``<statefulset>-<ordinal>`` (``orders-0``), or a per-thread id
        built on it (:meth:`for_thread`). A StatefulSet runs at most one pod of a given name (unless
        a pod on an unreachable node is force-deleted), so no other live process holds such an id:
        a replacement may take it over (``instance_takeover``, KIP-848)."""
        for name in ENV_VARS[1:]:
            pod = os.environ.get(name)
            if pod and _STATEFULSET_POD.match(pod):
                return value == pod or value.startswith(f"{pod}-thread-")
        return False

    @classmethod
    def for_thread(cls, base: str, n: int) -> str:
        """``f"{base}-thread-{n}"``: one instance id per consumer thread (KIP-345's Streams
        scheme), each a member of its own."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidInstanceIdError(f"thread number must be an int >= 0, got {n!r}")
        return cls.validate(f"{cls.validate(base, field='base')}-thread-{n}")


def check_instance_ids(instance_ids: object, *, allow_empty: bool = False) -> tuple[str, ...]:
    """``instance_ids`` as a tuple, each valid as :meth:`InstanceId.validate` says, no
    duplicates; a str (one id spelled as a list of characters) is refused."""
    if isinstance(instance_ids, str) or not isinstance(instance_ids, Iterable):
        raise ConfigurationError(
            "instance_ids must be a list of group.instance.id strings (KIP-345), "
            f"got {instance_ids!r}"
        )
    ids = tuple(instance_ids)
    if not ids and not allow_empty:
        raise ConfigurationError("instance_ids must name at least one group.instance.id")
    for value in ids:
        InstanceId.validate(value, field="instance_ids")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ConfigurationError(f"instance_ids lists {', '.join(duplicates)} more than once")
    return ids
