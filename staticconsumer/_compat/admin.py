"""The admin code's touch points with aiokafka: a bare ``AIOKafkaClient`` as an opaque handle.

``staticconsumer.admin`` and ``staticconsumer._admin.coordinator`` reach brokers only through
these functions (pinned to the aiokafka versions in :mod:`staticconsumer._compat`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiokafka.client import ConnectionGroup

from .features import CONNECTION_VERSION_HINT
from .helpers import open_coordination_to
from .log_redaction import redact_sasl_logs
from .rebootstrap import RecoveringClient
from .recovery import RecoverySettings
from .wire import aiokafka_request


async def open_admin_client(
    bootstrap_servers: str | list[str], *, request_timeout_ms: int, client_id: str,
    security: dict[str, Any] | None = None, recovery: RecoverySettings | None = None,
) -> Any:  # fmt: skip
    """A bootstrapped ``aiokafka.AIOKafkaClient`` (metadata loaded), which goes back to its
    bootstrap servers as ``recovery`` says (Java's default when None: KIP-899, KIP-1102;
    :class:`.rebootstrap.RecoveringClient`); closed again if bootstrap
    fails. ``security``: aiokafka's TLS/SASL keyword arguments. aiokafka errors propagate
    unchanged (the caller translates them), with :func:`bootstrap_failure_cause` attached as
    ``__cause__`` when bootstrap failed for an authentication or TLS reason."""
    redact_sasl_logs((security or {}).get("security_protocol", "PLAINTEXT"))
    client = RecoveringClient(
        recovery=recovery or RecoverySettings(), bootstrap_servers=bootstrap_servers,
        request_timeout_ms=request_timeout_ms,
        client_id=client_id,
        **(security or {}),
    )  # fmt: skip
    try:
        await client.bootstrap()
    except BaseException:
        await client.close()
        raise
    return client


#: What a connection is opened with: the client's arguments of these names.
_CONNECTION_SETTINGS = (
    "client_id", "request_timeout_ms", "ssl_context", "security_protocol", "sasl_mechanism",
    "sasl_plain_username", "sasl_plain_password", "sasl_kerberos_service_name",
    "sasl_kerberos_domain_name", "sasl_oauth_token_provider",
)  # fmt: skip


async def bootstrap_failure_cause(client: Any, settings: Mapping[str, Any]) -> BaseException | None:
    """Why ``client.bootstrap()`` failed, when it was not the network: aiokafka logs a SASL or
    TLS failure and raises only ``KafkaConnectionError``. Connects once to each of the client's
    bootstrap addresses with ``settings`` (the arguments the client was made with: security,
    ``client_id``, ``request_timeout_ms``, which bounds each try) and returns the first error
    that is not a plain connection failure, else None."""
    import asyncio
    import ssl

    from aiokafka.conn import create_conn
    from aiokafka.errors import KafkaConnectionError

    if settings.get("security_protocol", "PLAINTEXT") == "PLAINTEXT":
        return None
    connection = {name: settings[name] for name in _CONNECTION_SETTINGS if name in settings}
    if CONNECTION_VERSION_HINT:
        # aiokafka 0.12 asks a broker's ApiVersions, and so logs in with SaslAuthenticate (an
        # error code saying why a login failed) rather than bare SASL tokens (a closed
        # connection), only when told the broker is Kafka 0.10 or newer
        connection["version_hint"] = (0, 10)
    for host, port, _family in client.hosts:
        try:
            conn = await asyncio.wait_for(create_conn(host, port, **connection),
                                          settings["request_timeout_ms"] / 1000)  # fmt: skip
        except (OSError, TimeoutError, KafkaConnectionError) as exc:
            if isinstance(exc, ssl.SSLError):
                return exc
            continue
        except Exception as exc:  # the SASL errors: SaslAuthenticationFailed, ...
            return exc
        conn.close()
    return None


def client_of(consumer: Any) -> Any:
    """The consumer's ``AIOKafkaClient`` (for :func:`bootstrap_failure_cause`)."""
    return consumer._client


def client_principal(settings: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The SASL username and mechanism a client made with ``settings`` (its arguments) logs in
    with (None, None without SASL)."""
    if not str(settings.get("security_protocol", "PLAINTEXT")).startswith("SASL_"):
        return None, None
    return settings.get("sasl_plain_username"), settings.get("sasl_mechanism")


async def close_client(client: Any) -> None:
    await client.close()


async def send_to_node(client: Any, node_id: int, request: Any, *, coordination: bool) -> Any:
    """Send ``request`` to ``node_id``; ``coordination=True`` uses the node's coordination
    connection, so a slow group request never queues behind fetches."""
    group = ConnectionGroup.COORDINATION if coordination else ConnectionGroup.DEFAULT
    if coordination:
        open_coordination_to(client, node_id)
    return await client.send(node_id, aiokafka_request(request), group=group)


def any_known_node(client: Any) -> int | None:
    """The id of some broker from the client's metadata (bootstrap nodes included), or None."""
    node_id: int | None = client.get_random_node()
    return node_id


async def ensure_node_metadata(client: Any, node_id: int) -> None:
    """Refresh metadata once when the client has no address for ``node_id``."""
    if client.cluster.broker_metadata(node_id) is None:
        await client.force_metadata_update()
