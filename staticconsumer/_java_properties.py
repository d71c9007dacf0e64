"""Java client config files (``--command-config``), ``bootstrap.servers`` and JAAS login strings.

A ``.properties`` file is read as ``java.util.Properties.load(InputStream)`` reads it, by the
``javaproperties`` library: ISO-8859-1 bytes, ``\\uXXXX`` and backslash escapes (``C:\\\\certs``,
``\\:``), ``#`` and ``!`` comments, ``=``, ``:`` or whitespace between key and value, a trailing
backslash continuing the line, and the last of a repeated key winning. Values are never echoed in
errors (a ``sasl.jaas.config`` holds a password); errors name the file and the key.

A managed service's client file holds more than security settings. :func:`split_client_config`
sorts its keys: ``bootstrap.servers``; the security keys :func:`security_kwargs` reads (Java's
names, and librdkafka's for the same settings); keys it cannot honour (JKS/PKCS12 stores,
Kerberos, login callback classes: refused, naming what is supported); the client options read
by their Java names (:data:`OPTION_KEYS`, :func:`client_options`: metadata recovery, KIP-899);
and every other client key (``acks``, ``session.timeout.ms``, ``basic.auth.user.info``, ...),
which it ignores by name.

``sasl.jaas.config`` holds one JAAS login module entry (values in double or single quotes, as
Kafka's JAAS parser takes them)::

    org.apache.kafka.common.security.scram.ScramLoginModule required username="svc" password="...";

Only ``PlainLoginModule`` (SASL/PLAIN) and ``ScramLoginModule`` (SCRAM-SHA-256/512, KIP-84) are
understood, with their ``username`` and ``password`` options.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import javaproperties

from .errors import ConfigurationError

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_MODULES = {PLAIN_MODULE: "plain", SCRAM_MODULE: "scram"}
_FLAGS = ("required", "requisite", "sufficient", "optional")
_TOKEN = re.compile(
    r"\s*(?:(?P<word>[^\s=;\"']+)|(?P<eq>=)|(?P<semi>;)"
    r"|\"(?P<quoted>(?:[^\"\\]|\\.)*)\"|'(?P<squoted>(?:[^'\\]|\\.)*)')"
)
PASSWORD_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
#: The Java client keys read into :class:`~staticconsumer.security.SecuritySettings`.
JAVA_KEYS = (
    "security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.location",
    "ssl.truststore.type", "ssl.keystore.location", "ssl.keystore.type", "ssl.key.password",
    "ssl.endpoint.identification.algorithm",
)  # fmt: skip
#: librdkafka's names for the same settings, as the non-Java snippets of managed services give them.
LIBRDKAFKA_KEYS = (
    "sasl.mechanisms", "sasl.username", "sasl.password", "ssl.ca.location",
    "ssl.certificate.location", "ssl.key.location",
)  # fmt: skip
SUPPORTED = (
    "supported: security.protocol; sasl.mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 with "
    "sasl.jaas.config (PlainLoginModule or ScramLoginModule, username and password); PEM files in "
    "ssl.truststore.location and ssl.keystore.location, with ssl.key.password and "
    "ssl.endpoint.identification.algorithm; librdkafka's " + ", ".join(LIBRDKAFKA_KEYS)
)
_NO_STORES = "JKS and PKCS12 stores are not supported (export them as PEM files, KIP-651)"
_NO_CALLBACKS = (
    "login callback classes (OAUTHBEARER, AWS_MSK_IAM) are Java code; OAUTHBEARER is supported "
    "from Python only (sasl_oauth_token_provider=)"
)
#: Keys (or key prefixes, ending in ".") this client cannot honour, and why.
_CANNOT = {
    "ssl.truststore.password": _NO_STORES + "; a PEM truststore has no password",
    "ssl.keystore.password": _NO_STORES + "; a PEM keystore has no store password, use "
    "ssl.key.password",
    "sasl.kerberos.": "GSSAPI (Kerberos) is not supported from a client config file",
    "sasl.login.": _NO_CALLBACKS,
    "sasl.client.callback.handler.class": _NO_CALLBACKS,
    "sasl.oauthbearer.": _NO_CALLBACKS,
}
#: Client options a config file may set by their Java keys: Java key -> the keyword of
#: ``StaticConsumer`` and the admin calls (its row of ``staticconsumer.options.OPTIONS``, which
#: checks the value; a test holds the two tables together) and whether it is an int.
OPTION_KEYS: Mapping[str, tuple[str, bool]] = {
    "metadata.recovery.strategy": ("metadata_recovery_strategy", False),
    "metadata.recovery.rebootstrap.trigger.ms": ("metadata_recovery_rebootstrap_trigger_ms", True),
}
_HOST = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)$")


def read_properties(path: Path) -> dict[str, str]:
    """The key/value pairs of a Java properties file, read as ``java.util.Properties`` does."""
    try:
        with path.open("rb") as fp:  # bytes: javaproperties decodes them as ISO-8859-1, as Java
            props: dict[str, str] = javaproperties.load(fp)
    except OSError as exc:
        message = f"cannot read the client config file {path}: {exc.strerror or exc}"
        raise ConfigurationError(message) from None
    except ValueError:  # javaproperties.InvalidUEscapeError; not echoed: it may be in a password
        raise ConfigurationError(
            f"cannot read the client config file {path}: a malformed \\uXXXX escape "
            "(java.util.Properties refuses it too)"
        ) from None
    return props


def parse_bootstrap_servers(value: str, *, where: str = "bootstrap.servers") -> str:
    """``host:port[,host:port...]`` checked as the Java client checks ``bootstrap.servers``
    (a port 1-65535 on every address; IPv6 in brackets); returned without blanks."""
    addresses = [a.strip() for a in value.split(",") if a.strip()]
    if not addresses:
        raise ConfigurationError(f"{where} must name at least one host:port, got {value!r}")
    for address in addresses:
        host, sep, port = address.rpartition(":")
        if not sep or not host:
            raise ConfigurationError(f"{where}: {address!r} is not host:port (e.g. broker:9092)")
        if not _HOST.match(host):
            raise ConfigurationError(f"{where}: {address!r} has an invalid host {host!r}")
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ConfigurationError(f"{where}: {address!r} needs a port from 1 to 65535")
    return ",".join(addresses)


def _cannot(key: str) -> str | None:
    for name, why in _CANNOT.items():
        if key == name or (name.endswith(".") and key.startswith(name)):
            return why
    if (
        key not in JAVA_KEYS
        and key not in LIBRDKAFKA_KEYS
        and key.startswith(("ssl.", "sasl.", "security."))
    ):
        return "a security setting this client cannot apply"
    return None


def split_client_config(
    props: Mapping[str, str], *, source: str
) -> tuple[dict[str, str], str | None, tuple[str, ...]]:
    """``(security keys, bootstrap.servers or None, ignored key names)`` of a client config;
    a key this client cannot honour raises a :class:`ConfigurationError` naming it."""
    security: dict[str, str] = {}
    ignored: list[str] = []
    for key, value in props.items():
        why = _cannot(key)
        if why is not None:
            raise ConfigurationError(f"{source}: {key} is not supported: {why}; {SUPPORTED}")
        if key in JAVA_KEYS or key in LIBRDKAFKA_KEYS:
            security[key] = value
        elif key != "bootstrap.servers" and key not in OPTION_KEYS:
            ignored.append(key)
    servers = props.get("bootstrap.servers")
    bootstrap = None
    if servers is not None:
        bootstrap = parse_bootstrap_servers(servers, where=f"{source}: bootstrap.servers")
    return security, bootstrap, tuple(sorted(ignored))


def client_options(props: Mapping[str, str], *, source: str) -> dict[str, Any]:
    """The keywords a config file sets by Java key (:data:`OPTION_KEYS`), as
    ``{"metadata_recovery_strategy": "none", ...}``; an int key that is not a whole number is a
    :class:`ConfigurationError` naming the file and the key (the value's range is checked by the
    option's row where it is used)."""
    options: dict[str, Any] = {}
    for key, (name, whole) in OPTION_KEYS.items():
        if key not in props:
            continue
        value = props[key].strip()
        if whole:
            if not value.lstrip("-").isdigit():
                raise ConfigurationError(f"{source}: {key} must be a whole number of ms, got "
                                         f"{value!r}")  # fmt: skip
            options[name] = int(value)
        else:
            options[name] = value
    return options


def _one_of(props: Mapping[str, str], java: str, librdkafka: str, source: str) -> str | None:
    if java in props and librdkafka in props and props[java] != props[librdkafka]:
        raise ConfigurationError(f"{source}: {java} and {librdkafka} disagree; give one")
    return props.get(java, props.get(librdkafka))


def _check_stores(props: Mapping[str, str], truststore: str | None, source: str) -> None:
    for key in ("ssl.truststore.type", "ssl.keystore.type"):
        kind = props.get(key, "PEM").upper()
        if kind != "PEM":
            raise ConfigurationError(f"{source}: {key}={kind} is not supported: {_NO_STORES}")
    if truststore and Path(truststore).is_file():
        with Path(truststore).open("rb") as fp:
            head = fp.read(65536)
        if b"-----BEGIN" not in head:
            raise ConfigurationError(
                f"{source}: ssl.truststore.location {truststore} is not a PEM file: {_NO_STORES}"
            )


def _mechanism(props: Mapping[str, str], source: str) -> str | None:
    mechanism = _one_of(props, "sasl.mechanism", "sasl.mechanisms", source)
    if mechanism is not None and mechanism.upper() not in PASSWORD_MECHANISMS:
        raise ConfigurationError(
            f"{source}: sasl.mechanism={mechanism} is not supported from a client config file "
            f"(GSSAPI, AWS_MSK_IAM and OAUTHBEARER are not); {SUPPORTED}"
        )
    return mechanism.upper() if mechanism else None


def security_kwargs(props: Mapping[str, str], *, source: str) -> dict[str, Any]:
    """``SecuritySettings`` keyword arguments from the security keys of a client config."""
    truststore = _one_of(props, "ssl.truststore.location", "ssl.ca.location", source)
    _check_stores(props, truststore, source)
    algorithm = props.get("ssl.endpoint.identification.algorithm", "https")
    if algorithm not in ("https", ""):
        raise ConfigurationError(
            f"{source}: ssl.endpoint.identification.algorithm must be 'https' or empty, "
            f"got {algorithm!r}"
        )
    mechanism = _mechanism(props, source)
    kwargs: dict[str, Any] = {
        "security_protocol": props.get("security.protocol", "PLAINTEXT").upper(),
        "sasl_mechanism": mechanism,
        "ssl_cafile": truststore,
        "ssl_password": props.get("ssl.key.password"),
        "ssl_check_hostname": algorithm == "https",
    }
    keystore = props.get("ssl.keystore.location")
    if keystore:  # Java's PEM keystore holds the key and its certificate chain in one file
        kwargs["ssl_certfile"] = kwargs["ssl_keyfile"] = keystore
    elif props.get("ssl.certificate.location"):
        kwargs["ssl_certfile"] = props["ssl.certificate.location"]
        kwargs["ssl_keyfile"] = props.get("ssl.key.location")
    if "sasl.jaas.config" in props:
        if "sasl.username" in props or "sasl.password" in props:
            raise ConfigurationError(
                f"{source}: give sasl.jaas.config or sasl.username/sasl.password, not both"
            )
        credentials = parse_jaas(props["sasl.jaas.config"], source=source)
        if ((mechanism or "PLAIN") == "PLAIN") != (credentials.module == "plain"):
            raise ConfigurationError(
                f"{source}: sasl.jaas.config uses {credentials.login_module} but "
                f"sasl.mechanism is {mechanism or 'PLAIN'}"
            )
        kwargs["sasl_plain_username"] = credentials.username
        kwargs["sasl_plain_password"] = credentials.password
    elif "sasl.username" in props or "sasl.password" in props:
        kwargs["sasl_plain_username"] = props.get("sasl.username")
        kwargs["sasl_plain_password"] = props.get("sasl.password")
    return kwargs


@dataclass(frozen=True, repr=False)
class JaasCredentials:
    login_module: str
    module: str  # "plain" or "scram"
    username: str
    password: str


def parse_jaas(text: str, *, source: str) -> JaasCredentials:
    """Username and password from a PlainLoginModule/ScramLoginModule ``sasl.jaas.config``."""
    where = f"{source}: sasl.jaas.config"
    tokens = _tokens(text, where)
    if len(tokens) < 3 or tokens[-1] != ("semi", ";"):
        raise ConfigurationError(f"{where} must be '<LoginModule> required key=\"value\" ... ;'")
    (_, module), (_, flag) = tokens[0], tokens[1]
    if module not in _MODULES:
        raise ConfigurationError(
            f"{where}: login module {module!r} is not supported; use {PLAIN_MODULE} or "
            f"{SCRAM_MODULE}"
        )
    if flag not in _FLAGS:
        raise ConfigurationError(f"{where}: expected a control flag like 'required' after {module}")
    options: dict[str, str] = {}
    body = tokens[2:-1]
    if len(body) % 3:
        raise ConfigurationError(f'{where}: options must be key="value" pairs')
    for i in range(0, len(body), 3):
        (kind_k, key), (kind_eq, _), (kind_v, value) = body[i : i + 3]
        if kind_k != "word" or kind_eq != "eq" or kind_v not in ("word", "quoted"):
            raise ConfigurationError(f'{where}: options must be key="value" pairs')
        options[key] = value
    missing = [k for k in ("username", "password") if not options.get(k)]
    if missing:
        raise ConfigurationError(f"{where}: {' and '.join(missing)} missing")
    unknown = sorted(set(options) - {"username", "password"})
    if unknown:  # e.g. user_alice=... is broker-side configuration, or tokenauth
        raise ConfigurationError(f"{where}: unsupported option {', '.join(unknown)}")
    return JaasCredentials(module, _MODULES[module], options["username"], options["password"])


def _tokens(text: str, where: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            raise ConfigurationError(f"{where}: cannot parse it at character {position}")
        kind = match.lastgroup or ""
        value = match.group(kind)
        if kind in ("quoted", "squoted"):
            kind, value = "quoted", re.sub(r"\\(.)", r"\1", value)
        tokens.append((kind, value))
        position = match.end()
    return tokens


def jaas_config(mechanism: str, username: str, password: str) -> str:
    """The ``sasl.jaas.config`` string a Java client needs for ``mechanism``."""
    module = PLAIN_MODULE if mechanism == "PLAIN" else SCRAM_MODULE
    return f'{module} required username="{_quote(username)}" password="{_quote(password)}";'


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
