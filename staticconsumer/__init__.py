"""staticconsumer: Kafka static membership (KIP-345) done properly, on aiokafka.

>>> from staticconsumer import StaticConsumer, InstanceId
>>> consumer = StaticConsumer("orders", bootstrap_servers="...", group_id="billing",
...                           group_instance_id=InstanceId.from_env())   # doctest: +SKIP

Layout: the folders are the layers, top first; each imports only its own layer and those below
it (``tests/contract`` checks every arrow, and that this drawing keeps the contract's order)::

    public face     staticconsumer (__all__ below), admin (the group admin calls)
    consumer        _consumer/ (StaticConsumer, its construction and assembly)
    drivers         drivers/ (the asyncio loop: a Driver holding an engine; fence diagnosis)
    roster          roster/ (KIP-469 pre-registration, opt-in: its sans-IO record, plan and
                    barrier, the leader's gate, the join barrier, the admin's roster calls)
    admin calls     _admin/ (describe, remove, reconcile, the admin coordinator)
    observability   _observability/ (events emitter and publisher, health, metrics)
    compat          _compat/ (the only reader of aiokafka internals)
    error map       _error_map (the one error code -> exception map)
    membership      membership/ (sans-IO engines, reactions, reasons)
    options         options (the consumer's options: one frozen value), _option_checks,
                    _streams_options
    protocol        protocol/ (sans-IO wire structs and versions)
    vocabulary      errors, events, security (public), _instance_id, _java_properties,
                    _version, _roster_status
    assignors       assignors (a sibling package: pure, no aiokafka)
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
    GroupMembershipError,
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
from .options import ConsumerOptions, MembershipOperation
from .security import SecuritySettings

__all__ = [
    "AuthenticationError",
    "AuthorizationError",
    "ClusterUnavailableError",
    "ConfigurationError",
    "ConsumerOptions",
    "EnforceRebalanceRequested",
    "FencedInstanceIdError",
    "GroupJoined",
    "GroupLeft",
    "GroupMembershipError",
    "HealthServer",
    "InstanceFenced",
    "InstanceId",
    "InvalidInstanceIdError",
    "JoinGroupReason",
    "Membership",
    "MembershipEvent",
    "MembershipOperation",
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
