"""``--command-config`` with the client files managed Kafka services hand out (issue 23 item 1):
read as java.util.Properties reads them, bootstrap.servers used, other client keys ignored with
one notice naming them, only what this client cannot do refused, and no secret ever printed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import staticconsumer.admin
from staticconsumer._java_properties import read_properties
from staticconsumer.admin import GroupDescription
from staticconsumer.cli import EXIT_OK, EXIT_USAGE, main
from staticconsumer.errors import ConfigurationError
from staticconsumer.security import ClientConfig, SecuritySettings

SECRET = "cfltS3cr3t+/Pa55"
SR_SECRET = "sr-Secret-9"
KEY_PASSWORD = "k3y-Pa55"
CONFLUENT = f"""\
# Required connection configs for Kafka producer, consumer, and admin
bootstrap.servers=pkc-12345.eu-west-1.aws.confluent.cloud:9092
security.protocol=SASL_SSL
sasl.mechanisms=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\
    username='ABCDEFGH12345678' password='{SECRET}';
# Required for correctness in Apache Kafka clients prior to 2.6
client.dns.lookup=use_all_dns_ips
! Best practice for higher availability in Apache Kafka clients prior to 3.0
session.timeout.ms=45000
acks=all
schema.registry.url=https://psrc-12345.eu-central-1.aws.confluent.cloud
basic.auth.credentials.source=USER_INFO
basic.auth.user.info=SRKEY:{SR_SECRET}
"""
CONFLUENT_LIBRDKAFKA = f"""\
bootstrap.servers=pkc-12345.eu-west-1.aws.confluent.cloud:9092
security.protocol=SASL_SSL
sasl.mechanisms=PLAIN
sasl.username=ABCDEFGH12345678
sasl.password={SECRET}
session.timeout.ms=45000
"""
SCRAM = f"""\
# Redpanda / MSK SCRAM: the system CAs, three brokers
bootstrap.servers = b-1.msk.example:9096, b-2.msk.example:9096,b-3.msk.example:9096
security.protocol: SASL_SSL
sasl.mechanism SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="svc" \\
                 password="{SECRET}";
request.timeout.ms=20000
"""
AIVEN_JKS = f"""\
security.protocol=SSL
ssl.truststore.location=client.truststore.jks
ssl.truststore.password={SECRET}
ssl.keystore.type=PKCS12
ssl.keystore.location=client.keystore.p12
ssl.keystore.password={SECRET}
ssl.key.password={KEY_PASSWORD}
"""
MSK_IAM = """\
bootstrap.servers=b-1.msk.example:9098
security.protocol=SASL_SSL
sasl.mechanism=AWS_MSK_IAM
sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;
sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler
"""
KERBEROS = """\
security.protocol=SASL_PLAINTEXT
sasl.mechanism=GSSAPI
sasl.kerberos.service.name=kafka
"""


def _write(tmp_path: Path, text: str | bytes, name: str = "client.properties") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        text = text.encode("iso-8859-1")
    path.write_bytes(text)
    return path


def _pem(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    return path


def test_confluent_cloud_java_file(tmp_path: Path) -> None:
    config = ClientConfig.from_properties(_write(tmp_path, CONFLUENT))
    assert config.bootstrap_servers == "pkc-12345.eu-west-1.aws.confluent.cloud:9092"
    security = config.security
    assert (security.security_protocol, security.sasl_mechanism) == ("SASL_SSL", "PLAIN")
    assert (security.sasl_plain_username, security.sasl_plain_password) == (
        "ABCDEFGH12345678", SECRET)  # fmt: skip
    assert config.ignored == (
        "acks", "basic.auth.credentials.source", "basic.auth.user.info", "client.dns.lookup",
        "schema.registry.url", "session.timeout.ms",
    )  # fmt: skip
    for text in (repr(config), str(config)):
        assert SECRET not in text and SR_SECRET not in text


def test_confluent_librdkafka_names(tmp_path: Path) -> None:
    config = ClientConfig.from_properties(_write(tmp_path, CONFLUENT_LIBRDKAFKA))
    assert config.security.sasl_plain_password == SECRET
    assert config.security.sasl_mechanism == "PLAIN"
    assert config.ignored == ("session.timeout.ms",)


def test_scram_file_with_colon_and_space_separators(tmp_path: Path) -> None:
    config = ClientConfig.from_properties(_write(tmp_path, SCRAM))
    assert config.bootstrap_servers == (
        "b-1.msk.example:9096,b-2.msk.example:9096,b-3.msk.example:9096"
    )
    assert config.security.sasl_mechanism == "SCRAM-SHA-512"
    assert config.security.sasl_plain_password == SECRET
    assert config.security.ssl_cafile is None  # the system CAs
    assert config.ignored == ("request.timeout.ms",)


def test_aiven_pem_files_with_librdkafka_names(tmp_path: Path) -> None:
    ca, cert, key = (_pem(tmp_path / n) for n in ("ca.pem", "service.cert", "service.key"))
    text = (f"security.protocol=SSL\nssl.ca.location={ca}\nssl.certificate.location={cert}\n"
            f"ssl.key.location={key}\n")  # fmt: skip
    security = ClientConfig.from_properties(_write(tmp_path, text)).security
    assert (security.ssl_cafile, security.ssl_certfile, security.ssl_keyfile) == (
        str(ca), str(cert), str(key))  # fmt: skip


def test_latin1_bytes_and_escapes_read_as_java_does(tmp_path: Path) -> None:
    ca = _pem(tmp_path / "certs café" / "ca:1.pem")
    folder = str(ca.parent.parent)
    latin1 = (f"security.protocol=SSL\nssl.truststore.location={folder}/certs caf\xe9/ca\\:1.pem\n"
              "client.id=caf\\u00e9\n").encode("iso-8859-1")  # fmt: skip
    escaped = (
        f"security.protocol=SSL\nssl.truststore.location={folder}/certs caf\\u00e9/ca\\:1.pem\n"
    )
    for text in (latin1, escaped):
        assert ClientConfig.from_properties(_write(tmp_path, text)).security.ssl_cafile == str(ca)
    windows = _write(tmp_path, "ssl.truststore.location=C:\\\\certs\\\\ca.pem\nkey\\:a\\=b = v\n")
    assert read_properties(windows) == {
        "ssl.truststore.location": "C:\\certs\\ca.pem",
        "key:a=b": "v",
    }
    password = _write(tmp_path, (
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config="
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=u "
        "password=\"p\xe4ss\";\n").encode("iso-8859-1"))  # fmt: skip
    assert SecuritySettings.from_properties(password).sasl_plain_password == "päss"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (AIVEN_JKS, ("ssl.truststore.password", "JKS and PKCS12", "supported: ")),
        (MSK_IAM, ("AWS_MSK_IAM", "supported: ", "SCRAM-SHA-512")),
        (KERBEROS, ("GSSAPI", "supported: ")),
        ("security.protocol=SSL\nssl.truststore.type=JKS\n", ("JKS is not supported",)),
        ("ssl.cipher.suites=TLS_AES_128_GCM_SHA256\n", ("ssl.cipher.suites", "supported: ")),
        ("sasl.mechanism=OAUTHBEARER\nsecurity.protocol=SASL_SSL\n", ("OAUTHBEARER",)),
        ("bootstrap.servers=broker\n", ("bootstrap.servers", "'broker' is not host:port")),
        ("x=\\u00zz" + SECRET + "\n", ("malformed \\uXXXX",)),
    ],
)  # fmt: skip
def test_what_this_client_cannot_do_is_refused_naming_file_and_key(
    tmp_path: Path, text: str, words: tuple[str, ...]
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigurationError) as caught:
        ClientConfig.from_properties(path)
    message = str(caught.value)
    assert str(path) in message
    for word in words:
        assert word in message
    assert SECRET not in message and KEY_PASSWORD not in message


def test_a_truststore_that_is_not_pem_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "client.truststore.jks"
    store.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02")  # a JKS magic number
    path = _write(tmp_path, f"security.protocol=SSL\nssl.truststore.location={store}\n")
    with pytest.raises(ConfigurationError, match="is not a PEM file: JKS and PKCS12"):
        ClientConfig.from_properties(path)


def _fake_describe(calls: list[dict[str, Any]]) -> Any:
    async def describe_group(bootstrap: str, group: str, **kwargs: Any) -> GroupDescription:
        calls.append({"bootstrap": bootstrap, "group": group, **kwargs})
        return GroupDescription(group, "Empty", "consumer", "", ())

    return describe_group


def test_describe_group_from_the_file_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(staticconsumer.admin, "describe_group", _fake_describe(calls))
    path = _write(tmp_path, CONFLUENT)
    assert main(["describe-group", "--command-config", str(path), "--group", "g"]) == EXIT_OK
    assert calls[0]["bootstrap"] == "pkc-12345.eu-west-1.aws.confluent.cloud:9092"
    assert calls[0]["security"].sasl_plain_password == SECRET
    assert calls[0]["timeout_s"] == 30.0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "ignoring client keys" in line]
    assert len(notes) == 1
    assert "basic.auth.user.info" in notes[0] and "acks" in notes[0]
    assert SECRET not in err and SR_SECRET not in err and "USER_INFO" not in err
    # A flag wins over the file's bootstrap.servers, and the notice says so.
    argv = ["describe-group", "--command-config", str(path), "--group", "g",
            "--bootstrap-server", "other:9092"]  # fmt: skip
    assert main(argv) == EXIT_OK
    assert calls[1]["bootstrap"] == "other:9092"
    assert "bootstrap.servers (--bootstrap-server given)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("missing.properties", None, ("cannot read the client config file", "missing.properties")),
        ("jks.properties", AIVEN_JKS, ("jks.properties", "ssl.truststore.password")),
        ("nobootstrap.properties", "acks=all\n", ("--bootstrap-server is required",)),
    ],
)
def test_cli_usage_errors_name_the_file_and_print_no_secret(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str | None,
    words: tuple[str, ...],
) -> None:
    path = tmp_path / name
    if content is not None:
        _write(tmp_path, content, name)
    with pytest.raises(SystemExit) as caught:
        main(["describe-group", "--command-config", str(path), "--group", "g"])
    assert caught.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    for word in words:
        assert word in err
    assert SECRET not in err and KEY_PASSWORD not in err and "Traceback" not in err


RECOVERY = """\
bootstrap.servers=kafka.example:9092
metadata.recovery.strategy=none
metadata.recovery.rebootstrap.trigger.ms=60000
acks=all
"""


def test_metadata_recovery_keys_are_read_by_their_java_names(tmp_path: Path) -> None:
    """Issue 51: Java's metadata recovery keys (KIP-899, KIP-1102) are options, not ignored."""
    config = ClientConfig.from_properties(_write(tmp_path, RECOVERY))
    assert config.options == {
        "metadata_recovery_strategy": "none", "metadata_recovery_rebootstrap_trigger_ms": 60_000,
    }  # fmt: skip
    assert config.ignored == ("acks",)
    bad = _write(tmp_path, "metadata.recovery.rebootstrap.trigger.ms=5 min\n", "bad.properties")
    with pytest.raises(
        ConfigurationError, match=r"bad\.properties: metadata\.recovery\.rebootstrap"
    ):
        ClientConfig.from_properties(bad)


def test_the_files_option_keys_are_the_rows_java_keys() -> None:
    from staticconsumer._java_properties import OPTION_KEYS
    from staticconsumer.options import BY_NAME

    for key, (name, _whole) in OPTION_KEYS.items():
        assert BY_NAME[name].java == key


def test_the_cli_hands_the_files_metadata_recovery_to_the_admin_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(staticconsumer.admin, "describe_group", _fake_describe(calls))
    path = _write(tmp_path, RECOVERY)
    assert main(["describe-group", "--command-config", str(path), "--group", "g"]) == EXIT_OK
    assert calls[0]["metadata_recovery_strategy"] == "none"
    assert calls[0]["metadata_recovery_rebootstrap_trigger_ms"] == 60_000
