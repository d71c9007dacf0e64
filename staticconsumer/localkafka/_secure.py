"""A secured local broker: SASL_SSL with SCRAM-SHA-512 and PLAIN users, TLS from a throwaway CA,
ACLs enforced by KRaft's ``StandardAuthorizer`` (``local-kafka --security sasl_ssl``).

At start the launcher makes, in its run directory (removed at stop):

- ``ca.pem``: a self-signed CA made with ``cryptography`` (extra ``secure-broker``), and
  ``broker.pem``: the broker's key and certificate (SAN ``127.0.0.1``, ``localhost``) signed by it;
- random passwords for the users below, SCRAM credentials written into the metadata log when the
  storage is formatted (``kafka-storage format --add-scram 'SCRAM-SHA-512=[name=..,password=..]'``,
  KIP-554: the only way to have SCRAM users before a KRaft broker first starts);
- one Java client config file per user (``client-<user>.properties``, mode 0600), the format
  ``--command-config`` reads.

Users: ``admin`` (super user: the broker's own inter-broker and controller principal, and the one
that creates ACLs), ``app`` (SCRAM-SHA-512) and ``app_plain`` (PLAIN), both granted ALL on every
topic and group (and DESCRIBE on the cluster) right after start, and ``limited`` (SCRAM-SHA-512)
with no ACL at all, for tests of what a principal without permissions gets.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ..security import SecuritySettings
from .errors import LocalKafkaError

SECURITY_MODES = ("plaintext", "sasl_ssl")
SCRAM = "SCRAM-SHA-512"
SUPER_USER = "admin"
#: user -> SASL mechanism its client config uses.
USERS = {"admin": SCRAM, "app": SCRAM, "app_plain": "PLAIN", "limited": SCRAM}
#: Users granted ALL on every topic and group right after start.
FULL_ACCESS_USERS = ("app", "app_plain")
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"


def jaas_for_broker_plain(username: str, password: str, users: dict[str, str]) -> str:
    """A broker's PLAIN listener config: its own login and the ``user_<name>`` it accepts."""

    def quoted(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    accepted = " ".join(f"user_{name}={quoted(secret)}" for name, secret in users.items())
    return (
        f"{PLAIN_MODULE} required username={quoted(username)} "
        f"password={quoted(password)} {accepted};"
    )


def _require_cryptography() -> None:
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise LocalKafkaError(
            "a secured local broker needs the 'cryptography' package: "
            "pip install 'staticconsumer[secure-broker]'"
        ) from None


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def make_certificates(directory: Path) -> tuple[Path, Path]:
    """A CA (``ca.pem``) and the broker's key and certificate (``broker.pem``), valid 7 days."""
    _require_cryptography()
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "staticconsumer local CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    ca_path, broker_path = directory / "ca.pem", directory / "broker.pem"
    ca_path.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )  # fmt: skip
    chain = cert.public_bytes(serialization.Encoding.PEM) + ca.public_bytes(
        serialization.Encoding.PEM
    )
    _write_private(broker_path, key_pem + chain)
    return ca_path, broker_path


@dataclass
class SecureBrokerSetup:
    """Certificates, users and client config files of one secured local cluster."""

    directory: Path
    passwords: dict[str, str] = field(default_factory=dict, repr=False)
    ca_path: Path = Path()
    keystore_path: Path = Path()

    def prepare(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.ca_path, self.keystore_path = make_certificates(self.directory)
        self.passwords = {user: secrets.token_hex(16) for user in USERS}
        for user in USERS:
            self._write_client_config(user)

    def client_config_path(self, user: str = "app") -> Path:
        return self.directory / f"client-{user}.properties"

    def settings(self, user: str = "app", *, password: str | None = None) -> SecuritySettings:
        """Client settings for ``user`` (``password`` overrides, e.g. a wrong one for tests)."""
        return SecuritySettings(
            security_protocol="SASL_SSL", sasl_mechanism=USERS[user],
            sasl_plain_username=user, sasl_plain_password=password or self.passwords[user],
            ssl_cafile=str(self.ca_path),
        )  # fmt: skip

    def _write_client_config(self, user: str) -> None:
        props = self.settings(user).java_properties()
        text = "".join(f"{key}={value}\n" for key, value in props.items())
        _write_private(self.client_config_path(user), text.encode())

    def scram_arguments(self) -> list[str]:
        """``kafka-storage format`` arguments that create the SCRAM users (KIP-554)."""
        args: list[str] = []
        for user, mechanism in USERS.items():
            if mechanism == SCRAM:
                args += ["--add-scram", f"{SCRAM}=[name={user},password={self.passwords[user]}]"]
        return args

    def broker_properties(self, port: int, controller_port: int) -> dict[str, str]:
        """Listener, TLS, SASL and authorizer configs for one combined KRaft node."""
        admin = self.passwords[SUPER_USER]
        plain_users = {u: self.passwords[u] for u, m in USERS.items() if m == "PLAIN"}
        plain_users[SUPER_USER] = admin
        plain_jaas = jaas_for_broker_plain(SUPER_USER, admin, plain_users)
        return {
            "listeners": f"SASL_SSL://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
            "advertised.listeners": f"SASL_SSL://127.0.0.1:{port}",
            "inter.broker.listener.name": "SASL_SSL",
            "listener.security.protocol.map": "SASL_SSL:SASL_SSL,CONTROLLER:SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": f"{SCRAM},PLAIN",
            "sasl.mechanism.inter.broker.protocol": "PLAIN",
            "sasl.mechanism.controller.protocol": "PLAIN",
            "listener.name.sasl_ssl.plain.sasl.jaas.config": plain_jaas,
            "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config":
                "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
            "listener.name.controller.plain.sasl.jaas.config": plain_jaas,
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(self.keystore_path),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(self.ca_path),
            "ssl.client.auth": "none",
            "authorizer.class.name": AUTHORIZER,
            "super.users": f"User:{SUPER_USER}",
            "allow.everyone.if.no.acl.found": "false",
        }  # fmt: skip
