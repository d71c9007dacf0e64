"""The admin code's touch points with aiokafka: a bare ``AIOKafkaClient`` as an opaque handle.

``staticconsumer.admin`` and ``staticconsumer._admin.coordinator`` reach brokers only through
these functions (pinned to the aiokafka versions in :mod:`staticconsumer._compat`).
"""

from __future__ import annotations

from typing import Any

from aiokafka.client import ConnectionGroup

from .helpers import open_coordination_to
from .log_redaction import redact_sasl_logs


async def open_admin_client(
    bootstrap_servers: str | list[str], *, request_timeout_ms: int, client_id: str,
    security: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    """A bootstrapped ``aiokafka.AIOKafkaClient`` (metadata loaded); closed again if bootstrap
    fails. ``security``: aiokafka's TLS/SASL keyword arguments. aiokafka errors propagate
    unchanged (the caller translates them), with :func:`bootstrap_failure_cause` attached as
    ``__cause__`` when bootstrap failed for an authentication or TLS reason."""
    from aiokafka.client import AIOKafkaClient

    redact_sasl_logs((security or {}).get("security_protocol", "PLAINTEXT"))
    client = AIOKafkaClient(
        bootstrap_servers=bootstrap_servers, request_timeout_ms=request_timeout_ms,
        client_id=client_id,
        **(security or {}),
    )  # fmt: skip
    try:
        await client.bootstrap()
    except BaseException:
        await client.close()
        raise
    return client


async def bootstrap_failure_cause(client: Any) -> BaseException | None:
    """Why ``client.bootstrap()`` failed, when it was not the network: aiokafka logs a SASL or
    TLS failure and raises only ``KafkaConnectionError``. Connects once to each bootstrap
    address with the client's own settings (each try bounded by its request timeout) and returns
    the first error that is not a plain connection failure, else None."""
    import asyncio
    import ssl

    from aiokafka.conn import create_conn
    from aiokafka.errors import KafkaConnectionError

    if client._security_protocol == "PLAINTEXT":
        return None
    for host, port, _family in client.hosts:
        try:
            conn = await asyncio.wait_for(create_conn(
                host, port, client_id=client._client_id,
                request_timeout_ms=client._request_timeout_ms,
                ssl_context=client._ssl_context, security_protocol=client._security_protocol,
                sasl_mechanism=client._sasl_mechanism,
                sasl_plain_username=client._sasl_plain_username,
                sasl_plain_password=client._sasl_plain_password,
                sasl_kerberos_service_name=client._sasl_kerberos_service_name,
                sasl_kerberos_domain_name=client._sasl_kerberos_domain_name,
                sasl_oauth_token_provider=client._sasl_oauth_token_provider,
            ), client._request_timeout_ms / 1000)  # fmt: skip
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


def client_principal(client: Any) -> tuple[str | None, str | None]:
    """The SASL username and mechanism ``client`` logs in with (None, None without SASL)."""
    if not str(client._security_protocol).startswith("SASL_"):
        return None, None
    return client._sasl_plain_username, client._sasl_mechanism


async def close_client(client: Any) -> None:
    await client.close()


async def send_to_node(client: Any, node_id: int, request: Any, *, coordination: bool) -> Any:
    """Send ``request`` to ``node_id``; ``coordination=True`` uses the node's coordination
    connection, so a slow group request never queues behind fetches."""
    group = ConnectionGroup.COORDINATION if coordination else ConnectionGroup.DEFAULT
    if coordination:
        open_coordination_to(client, node_id)
    return await client.send(node_id, request, group=group)


def any_known_node(client: Any) -> int | None:
    """The id of some broker from the client's metadata (bootstrap nodes included), or None."""
    node_id: int | None = client.get_random_node()
    return node_id


async def ensure_node_metadata(client: Any, node_id: int) -> None:
    """Refresh metadata once when the client has no address for ``node_id``."""
    if client.cluster.broker_metadata(node_id) is None:
        await client.force_metadata_update()
