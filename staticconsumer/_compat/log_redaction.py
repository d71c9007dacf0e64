"""Keeping SASL secrets out of aiokafka's logs.

aiokafka's DEBUG line for each request prints the request's fields, and SASL/PLAIN's
``SaslAuthenticateRequest(sasl_auth_bytes=b'user\\x00user\\x00<password>')`` holds the password in
clear. :func:`redact_sasl_logs` puts a filter on the ``aiokafka.conn`` logger that keeps the line
and replaces the bytes. Nothing is installed at import: :func:`start_consumer` and
:func:`open_admin_client` call it before a client with a SASL ``security_protocol`` connects
(idempotent; the filter only rewrites that one kind of record).
"""

from __future__ import annotations

import logging

__all__ = ["redact_sasl_logs"]

LOGGER = "aiokafka.conn"


class _SaslLogRedaction(logging.Filter):
    """Replaces the arguments of a ``SaslAuthenticate`` request in a log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if any("SaslAuthenticate" in type(arg).__name__ for arg in record.args or ()):
            record.args = tuple(
                f"{type(arg).__name__}(sasl_auth_bytes=<redacted>)"
                if "SaslAuthenticate" in type(arg).__name__ else arg
                for arg in (record.args or ())
            )  # fmt: skip
        return True


_SASL_REDACTION = _SaslLogRedaction()


def redact_sasl_logs(security_protocol: object = "SASL_SSL") -> None:
    """Install the filter on aiokafka's connection logger when ``security_protocol`` is a SASL
    one (``SASL_PLAINTEXT``, ``SASL_SSL``); idempotent."""
    if not str(security_protocol).upper().startswith("SASL_"):
        return
    logger = logging.getLogger(LOGGER)
    if _SASL_REDACTION not in logger.filters:
        logger.addFilter(_SASL_REDACTION)
