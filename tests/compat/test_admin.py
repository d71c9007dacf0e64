"""The admin code's aiokafka touch points, over aiokafka's real client (never connected: its
connection factory is scripted) and a scripted client: finding the security failure behind a
failed bootstrap, the principal named without its secret, and which connection a request takes."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from typing import Any

import aiokafka.conn
import aiokafka.errors as Errors
import pytest
from aiokafka.client import AIOKafkaClient, ConnectionGroup

from staticconsumer import _compat
from staticconsumer._compat.requests import api_versions_request
from tests._fake_client import FakeClient

SASL = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "app", "sasl_plain_password": "s3cret"}  # fmt: skip


class Conn:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


@dataclass
class Connects:
    """Scripted outcomes of aiokafka's ``create_conn`` per port (an exception or a connection;
    aiokafka shuffles the bootstrap addresses), and the calls made."""

    outcomes: dict[int, Any] = field(default_factory=dict)
    calls: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)

    async def create_conn(self, host: str, port: int, **kwargs: Any) -> Any:
        self.calls.append((host, port, kwargs))
        outcome = self.outcomes[port]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> Connects:
    scripted = Connects()
    monkeypatch.setattr(aiokafka.conn, "create_conn", scripted.create_conn)
    return scripted


def client(servers: list[str], **security: Any) -> tuple[AIOKafkaClient, dict[str, Any]]:
    """A client and the arguments it was made with (what ``bootstrap_failure_cause`` takes)."""
    settings = {"client_id": "cid", "request_timeout_ms": 5000, **security}
    return AIOKafkaClient(bootstrap_servers=servers, **settings), settings


async def test_a_plaintext_bootstrap_failure_is_the_network(connects: Connects) -> None:
    assert await _compat.bootstrap_failure_cause(*client(["127.0.0.1:1"])) is None
    assert connects.calls == [], "no connection tried"


async def test_the_login_failure_behind_a_failed_bootstrap_is_found(connects: Connects) -> None:
    refused = Errors.SaslAuthenticationFailed("bad credentials")
    connects.outcomes.update({1: ConnectionRefusedError("down"), 2: refused})
    probe = client(["127.0.0.1:1", "127.0.0.1:2"], **SASL)
    assert await _compat.bootstrap_failure_cause(*probe) is refused
    *_, (host, port, settings) = connects.calls
    assert (host, port) == ("127.0.0.1", 2), "a refused connection is passed over"
    assert settings["client_id"] == "cid" and settings["security_protocol"] == "SASL_PLAINTEXT"
    assert (settings["sasl_plain_username"], settings["sasl_mechanism"]) == ("app", "SCRAM-SHA-512")


async def test_a_tls_failure_is_found(connects: Connects) -> None:
    handshake = ssl.SSLCertVerificationError("certificate verify failed")
    connects.outcomes[1] = handshake
    tls = ssl.create_default_context()
    probe = client(["127.0.0.1:1"], security_protocol="SSL", ssl_context=tls)
    assert await _compat.bootstrap_failure_cause(*probe) is handshake


async def test_a_broker_that_lets_the_client_in_was_not_the_cause(connects: Connects) -> None:
    conn = Conn()
    connects.outcomes.update({1: Errors.KafkaConnectionError("down"), 2: conn})
    assert await _compat.bootstrap_failure_cause(*client(["a:1", "b:2"], **SASL)) is None
    assert conn.closed and len(connects.calls) == 2


async def test_the_principal_is_named_without_its_secret() -> None:
    assert _compat.client_principal(client(["a:1"], **SASL)[1]) == ("app", "SCRAM-SHA-512")
    assert _compat.client_principal(client(["a:1"])[1]) == (None, None)


async def test_open_admin_client_returns_a_bootstrapped_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    booted: list[AIOKafkaClient] = []

    async def bootstrap(self: AIOKafkaClient) -> None:
        booted.append(self)

    monkeypatch.setattr(AIOKafkaClient, "bootstrap", bootstrap)
    opened = await _compat.open_admin_client(["a:1"], request_timeout_ms=1000, client_id="adm",
                                             security=SASL)  # fmt: skip
    assert booted == [opened] and opened._client_id == "adm"
    assert (opened._sasl_plain_username, opened._sasl_mechanism) == ("app", "SCRAM-SHA-512")
    await _compat.close_client(opened)


async def test_open_admin_client_closes_what_failed_to_bootstrap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closed: list[AIOKafkaClient] = []
    failure = Errors.KafkaConnectionError("Unable to bootstrap")

    async def bootstrap(self: AIOKafkaClient) -> None:
        raise failure

    async def close(self: AIOKafkaClient) -> None:
        closed.append(self)

    monkeypatch.setattr(AIOKafkaClient, "bootstrap", bootstrap)
    monkeypatch.setattr(AIOKafkaClient, "close", close)
    with pytest.raises(Errors.KafkaConnectionError) as raised:
        await _compat.open_admin_client("a:1", request_timeout_ms=1000, client_id="adm")
    assert raised.value is failure and len(closed) == 1


async def test_a_group_request_takes_the_coordination_connection_others_the_plain_one() -> None:
    fake = FakeClient()
    await _compat.send_to_node(fake, 1, api_versions_request(), coordination=True)
    await _compat.send_to_node(fake, 1, api_versions_request(), coordination=False)
    assert [s.group for s in fake.sent] == [ConnectionGroup.COORDINATION, ConnectionGroup.DEFAULT]


async def test_metadata_is_refreshed_only_for_a_node_without_an_address() -> None:
    fake = FakeClient(brokers=(1, 2))
    assert _compat.any_known_node(fake) == 1
    await _compat.ensure_node_metadata(fake, 2)
    assert fake.metadata_updates == 0
    await _compat.ensure_node_metadata(fake, 5)
    assert fake.metadata_updates == 1
    assert _compat.any_known_node(FakeClient(brokers=())) is None
