"""What the installed aiokafka gives, read once at import from aiokafka itself (its names and
signatures, not its version number), and the version gate.

staticconsumer supports aiokafka 0.12, 0.13 and 0.14 (:data:`SUPPORTED_AIOKAFKA`). What differs
between them, for the names this package uses, and where the seam absorbs it::

    difference                      0.12            0.13            0.14
    request objects (PR #1136)      a struct per    a builder; the connection picks the
                                    version         version from the broker's ApiVersions
    AIOKafkaConsumer(client_rack=)  absent          absent          KIP-392 fetching (PR #1159)
    AIOKafkaConsumer(api_version=)  "auto"          absent          deprecated no-op (PR #1150)
    Fetcher(client_rack=)           absent          absent          present
    coordination connections        only to a coordinator aiokafka's     to any broker
    (issue #1151, PR #1153)         FindCoordinator registered           it knows
    create_conn(version_hint=)      SaslAuthenticate  always reads ApiVersions (PR #1136)
                                    only with a hint
    Fetcher: KIP-392 bookkeeping    absent          absent          present (PR #1159)

* Requests: everything we send is one fixed version (:class:`.wire.AiokafkaRequest` around a
  :class:`~staticconsumer.protocol.PinnedRequest`; aiokafka's own structs in :mod:`.requests`),
  which each release's connection sends as it is (0.12's takes it as the struct; 0.13 and 0.14
  call its ``prepare``, which refuses a version the broker does not serve). 0.12's
  connection reads no ApiVersions: there :meth:`.consumer.ClientSeam.send` asks each node's
  before its first group request and refuses the same way.
* Coordination connections: on 0.12 and 0.13 the seam registers a node it found itself (the
  admin's FindCoordinator, the roster read's partition leader) before it sends there
  (:func:`.helpers.open_coordination_to`); aiokafka would fail an assertion otherwise.
* SASL: aiokafka 0.12's connection logs in with SaslAuthenticate, whose error code says why a
  login failed, only when it knows the broker answers ApiVersions (``version_hint``); without,
  a wrong password is a closed connection. :func:`.admin.bootstrap_failure_cause` gives the hint.
* The kept-buffer fetch path (the default on 0.14) mirrors 0.14's fetcher: on 0.12 and 0.13
  the compiled path runs on aiokafka's fetcher, the start line saying why
  (:data:`KEPT_FETCH_AVAILABLE`).
* Arguments: a :class:`~staticconsumer.StaticConsumer` argument that the installed aiokafka lacks
  is refused at construction (:data:`LACKING_ARGUMENTS`); a default is aiokafka's own
  (:func:`consumer_default`).

The gate is the minor release; a patch release that breaks a name we use fails the seam's
tests (``tests/compat``), which CI runs on each minor release (``scripts/aiokafka_versions.sh``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import aiokafka
from aiokafka import AIOKafkaClient, AIOKafkaConsumer
from aiokafka.cluster import ClusterMetadata
from aiokafka.conn import create_conn
from aiokafka.consumer.fetcher import Fetcher

from ..errors import StaticConsumerError

#: The aiokafka minor releases whose internals the seam was written and tested against
#: (pyproject.toml pins ``aiokafka>=0.12,<0.15``).
SUPPORTED_AIOKAFKA = ((0, 12), (0, 13), (0, 14))
#: The installed aiokafka's version string.
AIOKAFKA_VERSION: str = aiokafka.__version__


def _parameters(function: Any) -> Mapping[str, Any]:
    return MappingProxyType({
        name: parameter.default
        for name, parameter in inspect.signature(function).parameters.items()
        if name not in ("self", "topics")
    })  # fmt: skip


#: ``AIOKafkaConsumer.__init__``'s arguments and their defaults on the installed aiokafka.
CONSUMER_ARGUMENTS = _parameters(AIOKafkaConsumer.__init__)
#: ``AIOKafkaClient.__init__``'s arguments and their defaults (the rebootstrapping client is
#: made with the consumer's, as ``AIOKafkaConsumer.__init__`` makes its own: ``rebootstrap.py``).
CLIENT_ARGUMENTS = _parameters(AIOKafkaClient.__init__)
#: Whether ``create_conn`` takes a broker version hint (aiokafka 0.12): with one of Kafka 0.10 or
#: newer the connection reads ApiVersions and logs in with SaslAuthenticate; 0.13 always does.
CONNECTION_VERSION_HINT: bool = "version_hint" in _parameters(create_conn)
#: Whether aiokafka's connection picks a request's version from the broker's ApiVersions and
#: asks the request object for it (``prepare``); without (0.12) it sends the object it is given
#: as the struct. One change of aiokafka 0.13 (PR #1136) with the hint's removal: the connection
#: reads ApiVersions itself. (Read from create_conn, a name the seam touches already.)
CONNECTION_PICKS_VERSIONS: bool = not CONNECTION_VERSION_HINT
#: Whether the consumer and its fetcher take ``client_rack`` (KIP-392, aiokafka 0.14, PR #1159).
CLIENT_RACK: bool = "client_rack" in CONSUMER_ARGUMENTS and "client_rack" in _parameters(
    Fetcher.__init__
)

#: Whether the kept-buffer fetch path (``fetch.KeptFetcher``, the default where it can run) can
#: run: it mirrors aiokafka 0.14's fetcher (KIP-392's preferred replica, PR #1159) and picks its
#: Fetch version from the ApiVersions aiokafka's connection keeps (PR #1136).
KEPT_FETCH_AVAILABLE: bool = CLIENT_RACK and CONNECTION_PICKS_VERSIONS

#: Whether a coordination connection opens only to a node aiokafka's own FindCoordinator
#: registered (``ClusterMetadata.add_coordinator``: 0.12 and 0.13; aiokafka PR #1153 removed it
#: in 0.14, and any broker the metadata knows will do).
COORDINATORS_REGISTERED: bool = callable(getattr(ClusterMetadata, "add_coordinator", None))


#: StaticConsumer's arguments that only some supported aiokafka releases have, and why.
_VERSIONED_ARGUMENTS = {
    "client_rack": (
        "client.rack", "KIP-392",
        "aiokafka 0.14 added it (fetching from the closest replica, aiokafka PR #1159)",
    ),
    "api_version": (
        "no Java key: aiokafka's broker version", "",
        "aiokafka 0.13 removed it (each connection negotiates versions with ApiVersions, "
        "aiokafka PR #1136); 0.12 uses it, 0.14 takes it as a deprecated no-op",
    ),
}  # fmt: skip
#: The arguments of :data:`_VERSIONED_ARGUMENTS` the installed aiokafka lacks:
#: name -> (Java key, KIP or "", why).
LACKING_ARGUMENTS: Mapping[str, tuple[str, str, str]] = MappingProxyType({
    name: why for name, why in _VERSIONED_ARGUMENTS.items() if name not in CONSUMER_ARGUMENTS
})  # fmt: skip


def consumer_default(name: str) -> Any:
    """aiokafka's default for its consumer argument ``name`` (None where it lacks it)."""
    return CONSUMER_ARGUMENTS.get(name)


def release(version: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a version string (``"0.14.0"``, ``"0.14.1.dev0"``, ``"0.14.0b1"``)."""
    found = re.match(r"(\d+)\.(\d+)(?:[.abrc]|$)", version)
    return (int(found[1]), int(found[2])) if found else None


def check_aiokafka_version() -> None:
    """Raise :class:`~staticconsumer.StaticConsumerError` unless aiokafka is a supported release."""
    if release(aiokafka.__version__) not in SUPPORTED_AIOKAFKA:
        supported = ", ".join(f"{major}.{minor}.x" for major, minor in SUPPORTED_AIOKAFKA)
        raise StaticConsumerError(
            f"staticconsumer supports aiokafka {supported}; "
            f"aiokafka {aiokafka.__version__} is installed"
        )
