"""Client security settings (TLS and SASL), one type for every entry point.

Python APIs take aiokafka's keyword names (``security_protocol``, ``ssl_context``,
``sasl_mechanism``, ``sasl_plain_username``, ``sasl_plain_password``,
``sasl_oauth_token_provider``, ...); the CLI takes ``--command-config FILE`` with the Java client's
property names, as Kafka's own tools do (:meth:`SecuritySettings.from_properties`). Both end up as
one :class:`SecuritySettings`, which gives aiokafka its keyword arguments
(:meth:`~SecuritySettings.aiokafka_kwargs`) and Java clients their properties
(:meth:`~SecuritySettings.java_properties`; Spark's Kafka source takes them ``kafka.``-prefixed:
:func:`staticconsumer.analytics.spark_options`)::

    settings = SecuritySettings(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                                sasl_plain_username="svc", sasl_plain_password=secret,
                                ssl_cafile="/etc/kafka/ca.pem")
    await describe_group("broker:9093", "orders", security=settings)
    await describe_group("broker:9093", "orders", **settings.aiokafka_kwargs())   # the same

Certificates are PEM files (Java: ``ssl.truststore.type=PEM``, KIP-651); JKS and PKCS12 stores
are not supported (convert them: ``keytool -exportcert -rfc`` for a CA). Secrets never appear in
a ``repr``, a log line or an error message: :meth:`SecuritySettings.__repr__` shows ``'***'``.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ._java_properties import (
    JAVA_KEYS,
    PASSWORD_MECHANISMS,
    client_options,
    jaas_config,
    parse_bootstrap_servers,
    read_properties,
    security_kwargs,
    split_client_config,
)
from .errors import ConfigurationError

__all__ = [
    "JAVA_KEYS",
    "PROTOCOLS",
    "SASL_MECHANISMS",
    "ClientConfig",
    "SecuritySettings",
    "parse_bootstrap_servers",
]

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = (*PASSWORD_MECHANISMS, "OAUTHBEARER", "GSSAPI")
_SECRET_FIELDS = frozenset({"sasl_plain_password", "ssl_password"})
_REDACTED = "'***'"


@dataclass(frozen=True, kw_only=True, repr=False)
class SecuritySettings:
    """TLS and SASL settings for a Kafka client, validated here, before any I/O.

    ``security_protocol`` (Java ``security.protocol``, default ``PLAINTEXT``): PLAINTEXT, SSL,
    SASL_PLAINTEXT or SASL_SSL. ``ssl_context``: a ready ``ssl.SSLContext``; else one is built
    from ``ssl_cafile`` (Java ``ssl.truststore.location`` with ``ssl.truststore.type=PEM``; the
    system CAs when None), ``ssl_certfile``/``ssl_keyfile``/``ssl_password`` (Java
    ``ssl.keystore.location`` with type PEM, ``ssl.key.password``) and ``ssl_check_hostname``
    (Java ``ssl.endpoint.identification.algorithm``, ``https`` = True, the default).
    ``sasl_mechanism`` (Java ``sasl.mechanism``, default PLAIN when a SASL protocol is used):
    PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (KIP-84) with ``sasl_plain_username`` and
    ``sasl_plain_password`` (Java ``sasl.jaas.config``), OAUTHBEARER (KIP-255) with
    ``sasl_oauth_token_provider``, GSSAPI with ``sasl_kerberos_service_name``.
    """

    security_protocol: str = "PLAINTEXT"
    ssl_context: ssl.SSLContext | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_password: str | None = None
    ssl_check_hostname: bool = True
    sasl_mechanism: str | None = None
    sasl_plain_username: str | None = None
    sasl_plain_password: str | None = None
    sasl_oauth_token_provider: Any = None
    sasl_kerberos_service_name: str = "kafka"
    sasl_kerberos_domain_name: str | None = None

    def __post_init__(self) -> None:
        protocol = self.security_protocol
        if protocol not in PROTOCOLS:
            raise ConfigurationError(
                f"security_protocol (Java: security.protocol) must be one of "
                f"{', '.join(PROTOCOLS)}, got {protocol!r}"
            )
        if self.ssl_context is not None and not isinstance(self.ssl_context, ssl.SSLContext):
            raise ConfigurationError(
                f"ssl_context must be an ssl.SSLContext, got {type(self.ssl_context).__name__}"
            )
        self._check_files()
        if not self.uses_sasl:
            set_sasl = [
                f.name for f in fields(self)
                if f.name.startswith("sasl_") and f.name != "sasl_kerberos_service_name"
                and getattr(self, f.name)
            ]  # fmt: skip
            if set_sasl:
                raise ConfigurationError(
                    f"{', '.join(set_sasl)} given but security_protocol (Java: "
                    f"security.protocol) is {protocol}; use SASL_SSL or SASL_PLAINTEXT"
                )
            return
        if self.sasl_mechanism is None:
            object.__setattr__(self, "sasl_mechanism", "PLAIN")
        self._check_sasl()

    def _check_files(self) -> None:
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            value = getattr(self, name)
            if value is not None and not Path(value).is_file():
                raise ConfigurationError(f"{name}: no such PEM file {value!r}")
        if self.ssl_keyfile and not self.ssl_certfile:
            raise ConfigurationError("ssl_keyfile needs ssl_certfile (the client certificate)")
        tls_files = [n for n in ("ssl_cafile", "ssl_certfile") if getattr(self, n)]
        if tls_files and not self.uses_ssl:
            raise ConfigurationError(
                f"{', '.join(tls_files)} given but security_protocol (Java: security.protocol) "
                f"is {self.security_protocol}; use SSL or SASL_SSL"
            )
        if self.ssl_context is not None and tls_files:
            raise ConfigurationError(f"give either ssl_context or {', '.join(tls_files)}, not both")

    def _check_sasl(self) -> None:
        mechanism = self.sasl_mechanism
        if mechanism not in SASL_MECHANISMS:
            raise ConfigurationError(
                f"sasl_mechanism (Java: sasl.mechanism) must be one of "
                f"{', '.join(SASL_MECHANISMS)}, got {mechanism!r}"
            )
        if mechanism in PASSWORD_MECHANISMS:
            for name in ("sasl_plain_username", "sasl_plain_password"):
                value = getattr(self, name)
                if not isinstance(value, str) or not value:
                    raise ConfigurationError(
                        f"{name} (Java: sasl.jaas.config username/password) must be a "
                        f"non-empty str with sasl_mechanism {mechanism}"
                    )
        if mechanism == "OAUTHBEARER" and self.sasl_oauth_token_provider is None:
            raise ConfigurationError(
                "sasl_mechanism OAUTHBEARER (KIP-255) needs sasl_oauth_token_provider"
            )

    # -- what it says ----------------------------------------------------------------------------

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == f.default:
                continue
            shown.append(f"{f.name}={_REDACTED if f.name in _SECRET_FIELDS else repr(value)}")
        return f"SecuritySettings({', '.join(shown)})"

    __str__ = __repr__

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def coerce(cls, security: SecuritySettings | None = None, **kwargs: Any) -> SecuritySettings:
        """One settings object from ``security=`` or aiokafka-named keyword arguments (not
        both). An unknown keyword is a :class:`ConfigurationError` naming it."""
        if security is not None and not isinstance(security, SecuritySettings):
            raise ConfigurationError(
                f"security must be a SecuritySettings, got {type(security).__name__}"
            )
        if security is not None and kwargs:
            raise ConfigurationError(
                f"give either security= or {', '.join(sorted(kwargs))}, not both"
            )
        if security is not None:
            return security
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise ConfigurationError(
                f"unknown security setting {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**kwargs)

    @classmethod
    def from_properties(cls, path: str | Path) -> SecuritySettings:
        """Read a Java client config file (``--command-config``), as :class:`ClientConfig`
        does, and keep its security settings; its other keys are ignored."""
        return ClientConfig.from_properties(path).security

    @classmethod
    def from_java(cls, props: Mapping[str, str], *, source: str = "properties") -> SecuritySettings:
        """Settings from Java client property names (:data:`JAVA_KEYS`, or librdkafka's for the
        same settings). A key this client cannot honour (JKS/PKCS12 stores, Kerberos, login
        callback classes) raises a :class:`ConfigurationError` naming it and what is supported;
        other client keys (``bootstrap.servers``, ``acks``, ...) are ignored."""
        security, _bootstrap, _ignored = split_client_config(props, source=source)
        return cls(**security_kwargs(security, source=source))

    # -- using ---------------------------------------------------------------------------------

    def build_ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for aiokafka: ``ssl_context`` as given, else one built from the PEM
        files (system CAs when ``ssl_cafile`` is None); None without TLS."""
        if not self.uses_ssl:
            return None
        if self.ssl_context is not None:
            return self.ssl_context
        context = ssl.create_default_context(cafile=self.ssl_cafile)
        context.check_hostname = self.ssl_check_hostname
        if self.ssl_certfile:
            context.load_cert_chain(self.ssl_certfile, self.ssl_keyfile, self.ssl_password)
        return context

    def aiokafka_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``AIOKafkaClient``/``AIOKafkaConsumer``/``AIOKafkaProducer``."""
        kwargs: dict[str, Any] = {"security_protocol": self.security_protocol}
        if self.uses_ssl:
            kwargs["ssl_context"] = self.build_ssl_context()
        if self.uses_sasl:
            kwargs["sasl_mechanism"] = self.sasl_mechanism
            for name in ("sasl_plain_username", "sasl_plain_password",
                         "sasl_oauth_token_provider", "sasl_kerberos_domain_name"):  # fmt: skip
                if getattr(self, name) is not None:
                    kwargs[name] = getattr(self, name)
            kwargs["sasl_kerberos_service_name"] = self.sasl_kerberos_service_name
        return kwargs

    def java_properties(self) -> dict[str, str]:
        """The same settings with Java client names (for Spark's Kafka source and Java peers).
        Raises :class:`ConfigurationError` for what Java cannot be given from here: a ready
        ``ssl_context``, an OAuth token provider, separate certificate and key files."""
        props = {"security.protocol": self.security_protocol}
        if self.uses_ssl:
            if self.ssl_context is not None:
                raise ConfigurationError(
                    "a Java client cannot use ssl_context: give ssl_cafile (PEM) instead"
                )
            if self.ssl_cafile:
                props["ssl.truststore.type"] = "PEM"
                props["ssl.truststore.location"] = str(Path(self.ssl_cafile).resolve())
            if self.ssl_certfile:
                if self.ssl_keyfile not in (None, self.ssl_certfile):
                    raise ConfigurationError(
                        "a Java PEM keystore (ssl.keystore.location) is one file with the key "
                        "and its certificate: give ssl_certfile and ssl_keyfile as that file"
                    )
                props["ssl.keystore.type"] = "PEM"
                props["ssl.keystore.location"] = str(Path(self.ssl_certfile).resolve())
                if self.ssl_password:
                    props["ssl.key.password"] = self.ssl_password
            props["ssl.endpoint.identification.algorithm"] = (
                "https" if self.ssl_check_hostname else ""
            )
        if self.uses_sasl:
            mechanism = str(self.sasl_mechanism)
            if mechanism not in PASSWORD_MECHANISMS:
                raise ConfigurationError(
                    f"sasl_mechanism {mechanism} cannot be passed to a Java client from here; "
                    f"supported: {', '.join(PASSWORD_MECHANISMS)}"
                )
            props["sasl.mechanism"] = mechanism
            props["sasl.jaas.config"] = jaas_config(
                mechanism, str(self.sasl_plain_username), str(self.sasl_plain_password)
            )
        return props

    def secrets(self) -> tuple[str, ...]:
        """The secret values (for tests and log scrubbing): passwords that are set."""
        return tuple(v for n in sorted(_SECRET_FIELDS) if (v := getattr(self, n)))


@dataclass(frozen=True)
class ClientConfig:
    """A Java client config file as ``--command-config`` reads it, the way Kafka's own tools
    take one: the ``client.properties`` a managed Kafka service hands out works as it is.

    ``bootstrap_servers``: the file's ``bootstrap.servers`` (checked, None when absent);
    ``security``: its TLS/SASL settings (:meth:`SecuritySettings.from_java`); ``options``: the
    keywords of ``StaticConsumer`` and the admin calls it sets by their Java keys
    (``metadata.recovery.strategy`` and ``metadata.recovery.rebootstrap.trigger.ms``:
    ``{"metadata_recovery_strategy": "none"}``, KIP-899); ``ignored``: the
    names (never the values) of its other client keys, which these tools do not use
    (``acks``, ``session.timeout.ms``, ``client.dns.lookup``, ``basic.auth.user.info``, ...).
    A key this client cannot honour (JKS/PKCS12 stores, Kerberos, AWS_MSK_IAM, OAuth callback
    classes) is a :class:`ConfigurationError` naming the file, the key and what is supported.
    """

    source: str
    bootstrap_servers: str | None
    security: SecuritySettings
    ignored: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_properties(cls, path: str | Path) -> ClientConfig:
        """Read ``path`` as ``java.util.Properties`` does (ISO-8859-1, escapes, continuation
        lines, ``#``/``!`` comments)."""
        source = str(path)
        props = read_properties(Path(path))
        security, bootstrap, ignored = split_client_config(props, source=source)
        settings = SecuritySettings(**security_kwargs(security, source=source))
        return cls(source, bootstrap, settings, ignored, client_options(props, source=source))
