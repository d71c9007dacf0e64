"""``group.instance.id`` values (KIP-345): validation, environment lookup, per-thread ids."""

from __future__ import annotations

import os
import re

from .errors import InvalidInstanceIdError

#: Kafka validates group.instance.id like a topic name (JoinGroupRequest.validateGroupInstanceId).
MAX_LENGTH = 249
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
ENV_VARS = ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME")


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
    def from_env(cls) -> str:
        """The first of ``STATICCONSUMER_INSTANCE_ID``, ``POD_NAME``, ``HOSTNAME`` that is set.

        On Kubernetes a StatefulSet pod name (``orders-0``) is stable across restarts, which is
        what an instance id must be. An invalid value is rejected, never rewritten: two pods
        whose names rewrite to the same id would fence each other.
        """
        for name in ENV_VARS:
            value = os.environ.get(name)
            if value:
                return cls.validate(value, field=f"${name}")
        raise InvalidInstanceIdError(
            f"no group instance id in the environment: set one of {', '.join(ENV_VARS)}"
        )

    @classmethod
    def for_thread(cls, base: str, n: int) -> str:
        """``f"{base}-thread-{n}"``: one instance id per consumer thread (KIP-345's Streams
        scheme), each a member of its own."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InvalidInstanceIdError(f"thread number must be an int >= 0, got {n!r}")
        return cls.validate(f"{cls.validate(base, field='base')}-thread-{n}")
