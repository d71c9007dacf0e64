"""Bad input to StaticConsumer fails at construction with a ConfigurationError (a ValueError)
naming the field, the Java key and, where one applies, the KIP (issue 22 item 5). Each row was
accepted, or answered by aiokafka with its own message, before."""

from __future__ import annotations

from typing import Any

import pytest

from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer.security import SecuritySettings


def make(**kwargs: Any) -> StaticConsumer:
    return StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g", **kwargs)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"session_timeout_ms": -1}, ["session_timeout_ms", "session.timeout.ms", "-1"]),
    ({"session_timeout_ms": "30000"}, ["session_timeout_ms", "session.timeout.ms", "'30000'"]),
    ({"heartbeat_interval_ms": 10_000}, ["heartbeat_interval_ms", "heartbeat.interval.ms",
                                         "lower than session_timeout_ms"]),
    ({"session_timeout_ms": 6_000, "heartbeat_interval_ms": 8_000},
     ["heartbeat.interval.ms", "session.timeout.ms", "8000 >= 6000"]),
    ({"auto_offset_reset": "smallest"}, ["auto_offset_reset", "auto.offset.reset", "earliest"]),
    ({"isolation_level": "committed"}, ["isolation_level", "isolation.level", "KIP-98"]),
    ({"security_protocol": "SASL_SSL"}, ["ssl_context", "SecuritySettings", "security.protocol"]),
    ({"security_protocol": "SSL"}, ["ssl_context", "SecuritySettings", "security.protocol"]),
    ({"security_protocol": "TLS"}, ["security_protocol", "security.protocol", "SASL_SSL"]),
    ({"security_protocol": "SASL_PLAINTEXT"}, ["sasl_plain_username", "sasl_plain_password",
                                               "sasl.jaas.config"]),
    ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "MD5"},
     ["sasl_mechanism", "sasl.mechanism", "SCRAM-SHA-512"]),
    ({"security": SecuritySettings(), "security_protocol": "PLAINTEXT"},
     ["security=", "security_protocol", "not both"]),
    ({"security": SecuritySettings(), "sasl_plain_username": "u"},
     ["security=", "sasl_plain_username", "not both"]),
    ({"security": {"security_protocol": "SSL"}}, ["security must be a SecuritySettings"]),
    ({"max_poll_interval_ms": 0}, ["max_poll_interval_ms", "max.poll.interval.ms", "KIP-62"]),
    ({"request_timeout_ms": -5}, ["request_timeout_ms", "request.timeout.ms", ">= 0"]),
    ({"retry_backoff_ms": "100"}, ["retry_backoff_ms", "retry.backoff.ms"]),
    ({"auto_commit_interval_ms": -1}, ["auto_commit_interval_ms", "auto.commit.interval.ms"]),
    ({"fetch_max_bytes": -1}, ["fetch_max_bytes", "fetch.max.bytes", "KIP-74"]),
    ({"fetch_min_bytes": 1.5}, ["fetch_min_bytes", "fetch.min.bytes"]),
    ({"fetch_max_wait_ms": -1}, ["fetch_max_wait_ms", "fetch.max.wait.ms"]),
    ({"max_partition_fetch_bytes": True}, ["max_partition_fetch_bytes",
                                           "max.partition.fetch.bytes"]),
    ({"metadata_max_age_ms": -1}, ["metadata_max_age_ms", "metadata.max.age.ms"]),
    ({"connections_max_idle_ms": -1}, ["connections_max_idle_ms", "connections.max.idle.ms",
                                       "or None"]),
    ({"max_poll_records": 0}, ["max_poll_records", "max.poll.records"]),
    ({"rebalance_timeout_ms": 0}, ["rebalance_timeout_ms", "max.poll.interval.ms"]),
    ({"consumer_timeout_ms": -1}, ["consumer_timeout_ms", "no Java key"]),
    ({"partition_assignment_strategy": "smallest"},
     ["partition.assignment.strategy", "'smallest'", "'range'", "'cooperative-sticky'"]),
])  # fmt: skip
async def test_bad_input_is_refused_at_construction_naming_the_field(
    kwargs: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        make(**kwargs)
    assert isinstance(caught.value, ValueError)
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))
    with pytest.raises(ConfigurationError) as checked:  # the same, without making a consumer
        StaticConsumer.check_options(bootstrap_servers="127.0.0.1:1", group_id="g", **kwargs)
    assert str(checked.value) == str(caught.value)


def test_check_options_returns_the_options_and_refuses_an_unknown_keyword() -> None:
    options = StaticConsumer.check_options(group_id="g", group_instance_id="svc-0")
    assert options.group_id == "g" and options.group_instance_id == "svc-0"
    assert options.session_timeout_ms == 45_000  # a static member's default (KIP-735)
    with pytest.raises(TypeError, match="unexpected keyword arguments: group_instnace_id"):
        StaticConsumer.check_options(group_id="g", group_instnace_id="svc-0")


async def test_good_values_at_the_edges_are_accepted() -> None:
    consumer = make(session_timeout_ms=6_000, heartbeat_interval_ms=5_999,
                    auto_offset_reset="none", fetch_min_bytes=0, max_poll_records=1,
                    connections_max_idle_ms=None, isolation_level="read_committed")  # fmt: skip
    assert consumer._session_timeout_ms == 6_000 and consumer._auto_offset_reset == "none"


async def test_the_heartbeat_check_is_left_to_the_coordinator_under_the_consumer_protocol() -> None:
    consumer = make(group_protocol="consumer")
    assert consumer.options.consumer_protocol
