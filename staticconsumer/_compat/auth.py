"""Finding the security failure behind a failed start, and keeping SASL secrets out of logs.

Used by the admin API and by ``StaticConsumer.start()``; which exception a security failure
becomes is decided in the one error map (:func:`staticconsumer._error_map.security_error`).

aiokafka reports a failed SASL authentication only as a log line: its ``bootstrap()`` then raises
``KafkaConnectionError("Unable to bootstrap ...")``, which reads like an unreachable broker. So on
a bootstrap failure with security on, :func:`explain_bootstrap_failure` connects once more to each
bootstrap address (``_compat.bootstrap_failure_cause``) to learn the real cause.
"""

from __future__ import annotations

import logging
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


async def explain_bootstrap_failure(client: Any, principal: str) -> StaticConsumerError | None:
    """After ``client.bootstrap()`` failed: an :class:`AuthenticationError` when the real cause
    was authentication or TLS, else None (the broker is simply unreachable)."""
    cause = await bootstrap_failure_cause(client)
    return security_error(cause, principal) if cause is not None else None


async def consumer_security_error(client: Any, exc: BaseException) -> StaticConsumerError | None:
    """For ``StaticConsumer.start()``: the security error behind ``exc`` (raised while starting
    with ``client``), or None when ``exc`` has nothing to do with security."""
    username, mechanism = client_principal(client)
    principal = f"{username!r} via {mechanism}" if username else "the client"
    translated = security_error(exc, principal)
    if translated is None and isinstance(exc, Errors.KafkaConnectionError):
        translated = await explain_bootstrap_failure(client, principal)
    return translated


class _SaslLogRedaction(logging.Filter):
    """A ``logging`` filter for ``aiokafka.conn``: its DEBUG line for each request prints the
    request's fields, and SASL/PLAIN's
    ``SaslAuthenticateRequest(sasl_auth_bytes=b'user\\x00user\\x00<password>')`` holds
    the password in clear. The line is kept, the bytes are replaced."""

    def filter(self, record: logging.LogRecord) -> bool:
        if any("SaslAuthenticate" in type(arg).__name__ for arg in record.args or ()):
            record.args = tuple(
                f"{type(arg).__name__}(sasl_auth_bytes=<redacted>)"
                if "SaslAuthenticate" in type(arg).__name__ else arg
                for arg in (record.args or ())
            )  # fmt: skip
        return True


_SASL_REDACTION = _SaslLogRedaction()


def redact_sasl_logs() -> None:
    """Install :class:`_SaslLogRedaction` on aiokafka's connection logger (idempotent)."""
    logger = logging.getLogger("aiokafka.conn")
    if _SASL_REDACTION not in logger.filters:
        logger.addFilter(_SASL_REDACTION)


# aiokafka's DEBUG request log prints SASL/PLAIN's password; every module that can open a
# secured connection (StaticConsumer, the admin API) imports this one, so the filter is in place
# before any connection is made. It only rewrites that one kind of log record.
redact_sasl_logs()
