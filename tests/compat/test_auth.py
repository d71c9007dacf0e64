"""The security failure behind a failed start (no broker): a missing ACL or a refused login as
our typed error naming the principal, never its secret; anything else is not ours to explain."""

from __future__ import annotations

from typing import Any

import aiokafka.conn
import aiokafka.errors as Errors
import pytest
from aiokafka.client import AIOKafkaClient

from staticconsumer._compat.auth import consumer_security_error, who
from staticconsumer.errors import AuthenticationError, AuthorizationError
from staticconsumer.security import SecuritySettings

SASL = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "app", "sasl_plain_password": "s3cret"}  # fmt: skip
#: The consumer's settings as the seam gets them (its arguments, given or defaulted).
SETTINGS = {**SASL, "client_id": "c", "request_timeout_ms": 1000}


def test_who_names_the_principal_or_the_client() -> None:
    assert who(SecuritySettings(**SASL)) == "'app' via PLAIN"
    assert who(SecuritySettings()) == "the client"


async def test_a_missing_acl_names_the_principal_and_the_topic() -> None:
    client = AIOKafkaClient(bootstrap_servers="127.0.0.1:1", **SASL)
    refused = Errors.TopicAuthorizationFailedError({"orders"})
    error = await consumer_security_error(client, SETTINGS, refused)
    assert isinstance(error, AuthorizationError)
    assert "'app' via PLAIN" in str(error) and "orders" in str(error)
    assert "s3cret" not in str(error)


async def test_a_failed_bootstrap_is_explained_by_the_refused_login_behind_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def create_conn(*_: Any, **__: Any) -> Any:
        raise Errors.SaslAuthenticationFailed("invalid credentials")

    monkeypatch.setattr(aiokafka.conn, "create_conn", create_conn)
    client = AIOKafkaClient(bootstrap_servers="127.0.0.1:1", **SASL)
    failed = Errors.KafkaConnectionError("Unable to bootstrap")
    error = await consumer_security_error(client, SETTINGS, failed)
    assert isinstance(error, AuthenticationError) and "s3cret" not in str(error)


async def test_a_failure_that_is_not_about_security_is_left_alone() -> None:
    plain = AIOKafkaClient(bootstrap_servers="127.0.0.1:1")
    settings = {"security_protocol": "PLAINTEXT", "client_id": "c", "request_timeout_ms": 1000}
    assert (
        await consumer_security_error(plain, settings, Errors.KafkaConnectionError("down")) is None
    )
    assert await consumer_security_error(plain, settings, Errors.UnknownError()) is None
