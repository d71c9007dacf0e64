"""SecuritySettings and --command-config, without a broker: validation, Java names, redaction."""

from __future__ import annotations

import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from staticconsumer.analytics import spark_options
from staticconsumer.errors import ConfigurationError
from staticconsumer.security import SecuritySettings

SECRET = "s3cr3t-Pa55"
SCRAM_JAAS = (
    "org.apache.kafka.common.security.scram.ScramLoginModule required "
    f'username="svc" password="{SECRET}";'
)


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "client.properties"
    path.write_text(text)
    return path


@pytest.fixture
def ca_file(tmp_path: Path) -> Path:
    from staticconsumer.localkafka._secure import make_certificates

    ca, _broker = make_certificates(tmp_path)
    return ca


def test_repr_and_str_redact_the_password() -> None:
    settings = SecuritySettings(
        security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username="svc", sasl_plain_password=SECRET,
    )  # fmt: skip
    for text in (repr(settings), str(settings), f"{settings}", repr([settings])):
        assert SECRET not in text
        assert "sasl_plain_password='***'" in text
        assert "sasl_plain_username='svc'" in text
    assert settings.secrets() == (SECRET,)


def test_scram_properties_file_with_a_continued_jaas_line(tmp_path: Path, ca_file: Path) -> None:
    path = _config(tmp_path, (
        "# a comment\n"
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism = SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
        f'    username="svc" password="{SECRET}";\n'
        f"ssl.truststore.location={ca_file}\n"
        "ssl.truststore.type=PEM\n"
        "ssl.endpoint.identification.algorithm=\n"
    ))  # fmt: skip
    settings = SecuritySettings.from_properties(path)
    assert settings.security_protocol == "SASL_SSL"
    assert settings.sasl_mechanism == "SCRAM-SHA-512"
    assert (settings.sasl_plain_username, settings.sasl_plain_password) == ("svc", SECRET)
    assert settings.ssl_cafile == str(ca_file)
    assert settings.ssl_check_hostname is False
    kwargs = settings.aiokafka_kwargs()
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
    assert kwargs["ssl_context"].check_hostname is False
    assert kwargs["ssl_context"].verify_mode == ssl.CERT_REQUIRED
    assert kwargs["sasl_plain_password"] == SECRET


def test_plain_login_module() -> None:
    jaas = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
            f'username="alice" password="{SECRET}";')  # fmt: skip
    settings = SecuritySettings.from_java(
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": jaas}
    )
    assert (settings.sasl_mechanism, settings.sasl_plain_username) == ("PLAIN", "alice")


def test_java_properties_round_trip_and_spark_options(ca_file: Path) -> None:
    settings = SecuritySettings(
        security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username='we"ird\\name', sasl_plain_password=SECRET, ssl_cafile=str(ca_file),
    )  # fmt: skip
    props = settings.java_properties()
    assert props["ssl.truststore.type"] == "PEM"
    assert props["sasl.jaas.config"].startswith(
        "org.apache.kafka.common.security.scram.ScramLoginModule required "
    )
    again = SecuritySettings.from_java(props)
    assert again.sasl_plain_username == 'we"ird\\name'
    assert again.sasl_plain_password == SECRET
    assert again.ssl_cafile == str(ca_file.resolve())
    spark = spark_options(settings)
    assert set(spark) == {f"kafka.{k}" for k in props}
    assert spark["kafka.security.protocol"] == "SASL_SSL"


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("sasl.kerberos.service.name=kafka", "sasl.kerberos.service.name"),
        ("ssl.keystore.password=x", "ssl.keystore.password"),
        ("ssl.truststore.password=x", "ssl.truststore.password"),
        ("ssl.truststore.type=JKS", "JKS is not"),
        ("sasl.login.callback.handler.class=x", "sasl.login.callback.handler.class"),
        ("security.protocol=SASL_SCRAM", "security.protocol"),
        ("ssl.endpoint.identification.algorithm=ldap", "ssl.endpoint.identification.algorithm"),
    ],
)
def test_unsupported_keys_are_errors_naming_the_key(tmp_path: Path, line: str, named: str) -> None:
    with pytest.raises(ConfigurationError, match=named.replace(".", r"\.")):
        SecuritySettings.from_properties(_config(tmp_path, line + "\n"))


@pytest.mark.parametrize(
    ("props", "match"),
    [
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
          "sasl.jaas.config": SCRAM_JAAS}, "ScramLoginModule but sasl.mechanism is PLAIN"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256",
          "sasl.jaas.config": SCRAM_JAAS.replace(f'password="{SECRET}"', "")}, "password missing"),
        ({"security.protocol": "SASL_SSL",
          "sasl.jaas.config": "com.example.Krb5LoginModule required;"}, "not supported"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256",
          "sasl.jaas.config": SCRAM_JAAS[:-1]}, "must be"),
        ({"security.protocol": "PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
          "sasl.jaas.config": SCRAM_JAAS}, "security_protocol"),
    ],
)  # fmt: skip
def test_bad_jaas_configs_are_errors_that_never_echo_the_password(
    props: dict[str, str], match: str
) -> None:
    with pytest.raises(ConfigurationError, match=match) as caught:
        SecuritySettings.from_java(props)
    assert SECRET not in str(caught.value)


def test_python_kwargs_are_validated_with_field_and_java_key() -> None:
    with pytest.raises(ConfigurationError, match=r"sasl_plain_password \(Java: sasl.jaas.config"):
        SecuritySettings(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                         sasl_plain_username="svc")  # fmt: skip
    with pytest.raises(ConfigurationError, match=r"security_protocol \(Java: security.protocol\)"):
        SecuritySettings(security_protocol="TLS")
    with pytest.raises(ConfigurationError, match="unknown security setting sasl_pasword"):
        SecuritySettings.coerce(sasl_pasword=SECRET)
    with pytest.raises(ConfigurationError, match="KIP-255"):
        SecuritySettings(security_protocol="SASL_SSL", sasl_mechanism="OAUTHBEARER")
    with pytest.raises(ConfigurationError, match="ssl_cafile: no such PEM file"):
        SecuritySettings(security_protocol="SSL", ssl_cafile="/nonexistent/ca.pem")


def test_a_java_client_cannot_take_an_ssl_context() -> None:
    settings = SecuritySettings(security_protocol="SSL", ssl_context=ssl.create_default_context())
    with pytest.raises(ConfigurationError, match="ssl_cafile"):
        spark_options(settings)


def test_cli_rejects_an_unknown_key_before_any_io(tmp_path: Path) -> None:
    path = _config(tmp_path, "security.protocol=SSL\nsasl.kerberos.service.name=kafka\n")
    done = subprocess.run(
        [sys.executable, "-m", "staticconsumer", "describe-group", "--bootstrap-server",
         "127.0.0.1:1", "--group", "g", "--command-config", str(path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "sasl.kerberos.service.name" in done.stderr


def test_other_client_keys_are_ignored_not_refused(tmp_path: Path) -> None:
    # Issue 23: a managed service's client file carries bootstrap.servers, acks, ... beside the
    # security keys; from_properties keeps the security settings and ignores the rest.
    path = _config(tmp_path, "bootstrap.servers=x:1\nacks=all\nsecurity.protocol=PLAINTEXT\n")
    assert SecuritySettings.from_properties(path) == SecuritySettings()
