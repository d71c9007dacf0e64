"""staticconsumer: Kafka static membership (KIP-345) done properly, on aiokafka.

>>> from staticconsumer import StaticConsumer, InstanceId
>>> consumer = StaticConsumer("orders", bootstrap_servers="...", group_id="billing",
...                           group_instance_id=InstanceId.from_env())   # doctest: +SKIP

Layout: the folders are the layers, each importing only those below it::

    public face     staticconsumer (__all__ below), errors, events, security, admin
    consumer        _consumer/ (StaticConsumer), _admin/ (describe, remove, reconcile)
    feature         roster/ (KIP-469 pre-registration, opt-in: its sans-IO record, plan and
                    barrier, the leader's gate, the join barrier, the admin's roster calls)
    I/O             drivers/ (the asyncio loop), _observability/ (events, health),
                    _compat/ (the only reader of aiokafka internals)
    sans-IO         membership/ (engines, reactions, reasons), protocol/ (wire), _error_map
    pure            assignors (a sibling package; no aiokafka)
    ── the wall ──  tooling, importing only the public names above and never imported by
                    them: cli/, localkafka/, testing/, analytics/, _demo/, streams_app/,
                    faststream/ (FastStream services as static members, extra ``faststream``)

``import staticconsumer`` loads no tooling package; ``tests/contract`` holds the house to this.
"""

from __future__ import annotations

from ._consumer.static_consumer import StaticConsumer
from ._instance_id import InstanceId
from ._observability.health import HealthServer
from ._version import __version__
from .errors import (
    AuthenticationError,
    AuthorizationError,
    ClusterUnavailableError,
    ConfigurationError,
    FencedInstanceIdError,
    InvalidInstanceIdError,
    SessionTimeoutOutOfRangeError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
    UnsupportedBrokerError,
)
from .events import (
    EnforceRebalanceRequested,
    GroupJoined,
    GroupLeft,
    InstanceFenced,
    JoinGroupReason,
    MembershipEvent,
    PartitionsAssigned,
    PartitionsRevoked,
    SessionExpired,
)
from .membership import Membership, MembershipState
from .security import SecuritySettings

__all__ = [
    "AuthenticationError",
    "AuthorizationError",
    "ClusterUnavailableError",
    "ConfigurationError",
    "EnforceRebalanceRequested",
    "FencedInstanceIdError",
    "GroupJoined",
    "GroupLeft",
    "HealthServer",
    "InstanceFenced",
    "InstanceId",
    "InvalidInstanceIdError",
    "JoinGroupReason",
    "Membership",
    "MembershipEvent",
    "MembershipState",
    "PartitionsAssigned",
    "PartitionsRevoked",
    "SecuritySettings",
    "SessionExpired",
    "SessionTimeoutOutOfRangeError",
    "StaticConsumer",
    "StaticConsumerError",
    "UnreleasedInstanceIdError",
    "UnsupportedBrokerError",
    "__version__",
]
