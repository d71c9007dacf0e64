"""The local Apache Kafka launcher's exception tree::

    LocalKafkaError                          the launcher (a test harness, not the consumer)
    │                                        could not give a broker
    ├── NoBrokerAvailableError               no KAFKA_BOOTSTRAP_SERVERS, no Docker, no Java 17+
    ├── KafkaResolutionError                 Maven / Maven Central could not supply the jars
    └── BrokerStartError                     a broker did not become ready in time

Deliberately apart from :class:`~staticconsumer.errors.StaticConsumerError`, so that an
application's ``except StaticConsumerError`` around its consumer never swallows a test-harness
failure (and a harness's ``except LocalKafkaError`` never swallows a consumer's). The same classes
are still importable from :mod:`staticconsumer.errors` (resolved there on first use, so that
``import staticconsumer`` does not load the launcher).
"""

from __future__ import annotations

__all__ = ["BrokerStartError", "KafkaResolutionError", "LocalKafkaError", "NoBrokerAvailableError"]


class LocalKafkaError(Exception):
    """The local Apache Kafka launcher could not provide a broker.

    Deliberately not a :class:`~staticconsumer.errors.StaticConsumerError`: the launcher is a test
    harness (the pytest fixtures, ``staticconsumer local-kafka``), not the consumer. None of its
    errors is ``fatal`` to a consumer.
    """


class NoBrokerAvailableError(LocalKafkaError):
    """None of the ways to get a broker is available on this machine."""


class KafkaResolutionError(LocalKafkaError):
    """The Apache Kafka jars could not be resolved from Maven Central."""


class BrokerStartError(LocalKafkaError):
    """A broker process did not start or did not become ready in time."""
