"""What every admin call shares: argument checks, the default timeout, the bootstrapped client.

Internal: the public face is :mod:`staticconsumer.admin`.
"""

from __future__ import annotations

from typing import Any

import aiokafka.errors as Errors

from .._compat import RecoverySettings, open_admin_client
from .._compat.auth import explain_bootstrap_failure, who
from ..errors import ConfigurationError, GroupAdminError, StaticConsumerError
from ..membership import ADMIN_REMOVE_REASON
from ..security import SecuritySettings

#: Default bound on each request (and on connecting), in seconds.
DEFAULT_TIMEOUT_S = 30.0


def check_common(bootstrap_servers: object, group_id: object, timeout_s: object) -> None:
    if not bootstrap_servers or not isinstance(bootstrap_servers, (str, list, tuple)):
        raise ConfigurationError(
            "bootstrap_servers (Java: bootstrap.servers) must be a non-empty 'host:port' string "
            f"or list, got {bootstrap_servers!r}"
        )
    check_group(group_id, timeout_s)


def check_group(group_id: object, timeout_s: object) -> None:
    if not isinstance(group_id, str) or not group_id:
        raise ConfigurationError(
            f"group_id (Java: group.id) must be a non-empty str, got {group_id!r}"
        )
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
        raise ConfigurationError(f"timeout_s must be a number > 0, got {timeout_s!r}")


def check_reason(reason: object) -> None:
    """A removal's ``reason``: None (the default reason is sent) or a non-empty str (KIP-800)."""
    if reason is not None and (not isinstance(reason, str) or not reason.strip()):
        raise ConfigurationError(
            "reason (LeaveGroup v5+, KIP-800) must be a non-empty str, or None for the default "
            f"{ADMIN_REMOVE_REASON!r}; got {reason!r}"
        )


async def open_client(
    bootstrap_servers: str | list[str], timeout_s: float, security: SecuritySettings,
    recovery: RecoverySettings | None = None,
) -> Any:  # fmt: skip
    """A bootstrapped admin client; ``recovery``: its metadata recovery (Java's default when
    None, KIP-899)."""
    from aiokafka import AIOKafkaClient

    kwargs = security.aiokafka_kwargs()
    try:
        return await open_admin_client(
            bootstrap_servers,
            request_timeout_ms=int(timeout_s * 1000),
            client_id="staticconsumer-admin",
            security=kwargs,
            recovery=recovery,
        )
    except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
        raise
    except Errors.KafkaError as exc:
        probe = AIOKafkaClient(
            bootstrap_servers=bootstrap_servers, request_timeout_ms=int(timeout_s * 1000),
            client_id="staticconsumer-admin", **kwargs,
        )  # fmt: skip
        settings = {**kwargs, "client_id": "staticconsumer-admin",
                    "request_timeout_ms": int(timeout_s * 1000)}  # fmt: skip
        explained = await explain_bootstrap_failure(probe, settings, who(security))
        if explained is not None:
            raise explained from None
        raise GroupAdminError(f"could not reach Kafka at {bootstrap_servers!r}: {exc}") from exc
