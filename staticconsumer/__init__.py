"""staticconsumer: Kafka static membership (KIP-345) done properly, on aiokafka."""

from __future__ import annotations

from .errors import (
    ConfigurationError,
    FencedInstanceIdError,
    InvalidInstanceIdError,
    StaticConsumerError,
)

__version__ = "0.1.0"

__all__ = [
    "ConfigurationError",
    "FencedInstanceIdError",
    "InvalidInstanceIdError",
    "StaticConsumerError",
    "__version__",
]
