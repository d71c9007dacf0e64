"""Java client config files (``--command-config``) and JAAS login strings, read and written.

A ``.properties`` file as ``java.util.Properties`` reads it: ``key=value``, ``key: value`` or
``key value``; ``#`` and ``!`` comments; a trailing backslash continues the line. Values are never
echoed in errors (a ``sasl.jaas.config`` holds a password); errors name the file, line and key.

``sasl.jaas.config`` holds one JAAS login module entry::

    org.apache.kafka.common.security.scram.ScramLoginModule required username="svc" password="...";

Only ``PlainLoginModule`` (SASL/PLAIN) and ``ScramLoginModule`` (SCRAM-SHA-256/512, KIP-84) are
understood, with their ``username`` and ``password`` options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigurationError

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_MODULES = {PLAIN_MODULE: "plain", SCRAM_MODULE: "scram"}
_FLAGS = ("required", "requisite", "sufficient", "optional")
_TOKEN = re.compile(
    r'\s*(?:(?P<word>[^\s=;"]+)|(?P<eq>=)|(?P<semi>;)|"(?P<quoted>(?:[^"\\]|\\.)*)")'
)


def read_properties(path: Path) -> dict[str, str]:
    """The key/value pairs of a Java properties file; a repeated key is an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        message = f"cannot read the client config file {path}: {exc.strerror}"
        raise ConfigurationError(message) from None
    props: dict[str, str] = {}
    logical = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.lstrip() if not logical else raw.strip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if _continues(line):
            logical += line[:-1]
            continue
        key, value = _split(logical + line)
        logical = ""
        if not key:
            raise ConfigurationError(f"{path}:{number}: a line without a key")
        if key in props:
            raise ConfigurationError(f"{path}:{number}: {key} is given twice")
        props[key] = value
    if logical:
        key, value = _split(logical)
        props[key] = value
    return props


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split(line: str) -> tuple[str, str]:
    match = re.match(r"((?:[^\s:=\\]|\\.)*)\s*[:=]?\s*(.*)$", line.strip())
    assert match is not None  # the pattern matches any string
    return match.group(1).replace("\\", ""), match.group(2).strip()


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
        raise ConfigurationError(f"{where}: options must be key=\"value\" pairs")
    for i in range(0, len(body), 3):
        (kind_k, key), (kind_eq, _), (kind_v, value) = body[i : i + 3]
        if kind_k != "word" or kind_eq != "eq" or kind_v not in ("word", "quoted"):
            raise ConfigurationError(f"{where}: options must be key=\"value\" pairs")
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
        if kind == "quoted":
            value = re.sub(r"\\(.)", r"\1", value)
        tokens.append((kind, value))
        position = match.end()
    return tokens


def jaas_config(mechanism: str, username: str, password: str) -> str:
    """The ``sasl.jaas.config`` string a Java client needs for ``mechanism``."""
    module = PLAIN_MODULE if mechanism == "PLAIN" else SCRAM_MODULE
    return f'{module} required username="{_quote(username)}" password="{_quote(password)}";'


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
