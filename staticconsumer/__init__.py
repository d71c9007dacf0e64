"""staticconsumer: Kafka static membership (KIP-345) done properly, on aiokafka.

>>> from staticconsumer import StaticConsumer, InstanceId
>>> consumer = StaticConsumer("orders", bootstrap_servers="...", group_id="billing",
...                           group_instance_id=InstanceId.from_env())   # doctest: +SKIP
"""

from __future__ import annotations

from ._consumer.static_consumer import StaticConsumer
from ._instance_id import InstanceId
from ._observability.health import HealthServer
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

__version__ = "0.1.0"

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
