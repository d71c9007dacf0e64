"""Finding the security failure behind a failed start.

Used by the admin API and by ``StaticConsumer.start()``; which exception a security failure
becomes is decided in the one error map (:func:`staticconsumer._error_map.security_error`).

aiokafka reports a failed SASL authentication only as a log line: its ``bootstrap()`` then raises
``KafkaConnectionError("Unable to bootstrap ...")``, which reads like an unreachable broker. So on
a bootstrap failure with security on, :func:`explain_bootstrap_failure` connects once more to each
bootstrap address (``_compat.bootstrap_failure_cause``) to learn the real cause.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aiokafka.errors as Errors

from .._error_map import security_error
from ..errors import StaticConsumerError
from . import bootstrap_failure_cause, client_principal


def who(settings: Any) -> str:
    """``'app' via SCRAM-SHA-512`` or ``the client``: names the principal, never a secret."""
    username = getattr(settings, "sasl_plain_username", None)
    mechanism = getattr(settings, "sasl_mechanism", None)
    return f"{username!r} via {mechanism}" if username else "the client"


async def explain_bootstrap_failure(
    client: Any, settings: Mapping[str, Any], principal: str
) -> StaticConsumerError | None:
    """After ``client.bootstrap()`` failed (``settings``: the arguments it was made with): an
    :class:`AuthenticationError` when the real cause was authentication or TLS, else None (the
    broker is simply unreachable)."""
    cause = await bootstrap_failure_cause(client, settings)
    return security_error(cause, principal) if cause is not None else None


async def consumer_security_error(
    client: Any, settings: Mapping[str, Any], exc: BaseException
) -> StaticConsumerError | None:
    """For ``StaticConsumer.start()``: the security error behind ``exc`` (raised while starting
    with ``client``, made with ``settings``), or None when ``exc`` has nothing to do with
    security."""
    username, mechanism = client_principal(settings)
    principal = f"{username!r} via {mechanism}" if username else "the client"
    translated = security_error(exc, principal)
    if translated is None and isinstance(exc, Errors.KafkaConnectionError):
        translated = await explain_bootstrap_failure(client, settings, principal)
    return translated
