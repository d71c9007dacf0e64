"""The admin calls' bootstrapped client (no broker): a bootstrap that failed for a login or TLS
reason is an AuthenticationError naming the principal, never its secret; an unreachable broker
a GroupAdminError; our own errors pass unchanged."""

from __future__ import annotations

from typing import Any

import aiokafka.conn
import aiokafka.errors as Errors
import pytest

from staticconsumer._admin import client as admin_client
from staticconsumer.errors import AuthenticationError, GroupAdminError, UnsupportedBrokerError
from staticconsumer.security import SecuritySettings

SASL = SecuritySettings(security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                        sasl_plain_username="app", sasl_plain_password="s3cret")  # fmt: skip


def failing_bootstrap(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    async def open_admin_client(*_: Any, **__: Any) -> Any:
        raise error

    monkeypatch.setattr(admin_client, "open_admin_client", open_admin_client)


async def test_a_refused_login_behind_a_failed_bootstrap_is_an_authentication_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failing_bootstrap(monkeypatch, Errors.KafkaConnectionError("Unable to bootstrap"))

    async def create_conn(*_: Any, **__: Any) -> Any:
        raise Errors.SaslAuthenticationFailed("invalid credentials")

    monkeypatch.setattr(aiokafka.conn, "create_conn", create_conn)
    with pytest.raises(AuthenticationError, match="'app' via PLAIN") as raised:
        await admin_client.open_client("127.0.0.1:1", 5.0, SASL)
    assert "s3cret" not in str(raised.value)
    assert raised.value.__cause__ is None


async def test_an_unreachable_broker_is_a_group_admin_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    down = Errors.KafkaConnectionError("Unable to bootstrap")
    failing_bootstrap(monkeypatch, down)

    async def create_conn(*_: Any, **__: Any) -> Any:
        raise ConnectionRefusedError("refused")

    monkeypatch.setattr(aiokafka.conn, "create_conn", create_conn)
    with pytest.raises(GroupAdminError, match=r"could not reach Kafka at '127\.0\.0\.1:1'") as err:
        await admin_client.open_client("127.0.0.1:1", 5.0, SASL)
    assert err.value.__cause__ is down and "s3cret" not in str(err.value)


async def test_our_own_error_from_the_bootstrap_passes_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ours = UnsupportedBrokerError("too old")
    failing_bootstrap(monkeypatch, ours)
    with pytest.raises(UnsupportedBrokerError) as raised:
        await admin_client.open_client("127.0.0.1:1", 5.0, SecuritySettings())
    assert raised.value is ours
