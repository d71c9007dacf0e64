"""``group_protocol="auto"`` (issue 51): checked at construction as the classic protocol's; at
start the consumer protocol where the broker offers it (the ApiVersions measured on each Kafka
line) and no option given needs the classic one, else classic, with the reason. No broker
needed: the choice is a pure function of the options and the broker's versions."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer._consumer.auto_protocol import AutoProtocol
from staticconsumer.protocol import FinalizedFeatures, negotiate

from ..protocol.test_versions import MEASURED

_made: list[StaticConsumer] = []


def make(**kwargs: Any) -> StaticConsumer:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g",
                              group_protocol="auto", **kwargs)  # fmt: skip
    _made.append(consumer)
    return consumer


def auto_of(consumer: StaticConsumer) -> AutoProtocol:
    auto = consumer._auto
    assert auto is not None
    return auto


async def test_auto_is_said_until_start_and_checked_as_the_classic_protocol() -> None:
    consumer = make(group_instance_id="svc-0")
    assert consumer.group_protocol == "auto" and consumer.group_protocol_reason is None
    assert consumer.options.session_timeout_ms == 45_000  # a static member's, as classic's
    with pytest.raises(ConfigurationError, match=r"heartbeat_interval_ms .* must be lower"):
        make(session_timeout_ms=6_000, heartbeat_interval_ms=8_000)


async def test_a_broker_assignor_with_auto_is_refused_naming_the_way() -> None:
    with pytest.raises(ConfigurationError, match="give group_protocol='consumer'"):
        make(group_remote_assignor="uniform")


async def test_takeover_with_auto_applies_if_the_consumer_protocol_runs() -> None:
    """The classic protocol always takes a held id over (KIP-345): it runs without."""
    auto = auto_of(make(group_instance_id="a", instance_takeover=True))
    on_4_4, _ = auto.choose(negotiate(MEASURED["4.4.0"]))
    on_3_9, _ = auto.choose(negotiate(MEASURED["3.9.1"]))
    assert on_4_4.instance_takeover is True and on_3_9.instance_takeover is False
    with pytest.raises(ConfigurationError, match="instance_takeover needs group_instance_id"):
        make(instance_takeover=True)


@pytest.mark.parametrize("kafka", ["4.0.2", "4.4.0"])
async def test_a_broker_with_the_consumer_protocol_gets_it(kafka: str) -> None:
    consumer = make(group_instance_id="orders-0")
    options, why = auto_of(consumer).choose(negotiate(MEASURED[kafka]))
    assert options.group_protocol == "consumer" and options.consumer_protocol
    assert options.partition_assignment_strategy == ()
    assert options.instance_takeover is False  # not a StatefulSet pod here (no $POD_NAME)
    assert why.startswith("consumer: the broker offers it (ConsumerGroupHeartbeat v1")


@pytest.mark.parametrize("kafka", ["2.8.2", "3.5.2", "3.9.1"])
async def test_a_broker_without_it_gets_the_classic_protocol_and_says_why(kafka: str) -> None:
    consumer = make(group_instance_id="orders-0")
    options, why = auto_of(consumer).choose(negotiate(MEASURED[kafka]))
    assert options.group_protocol == "classic" and options.partition_assignment_strategy
    assert why.startswith("classic: the broker has no consumer protocol (group_protocol=")
    assert "needs Apache Kafka 4.0 or newer" in why


async def test_a_cluster_with_group_version_0_gets_the_classic_protocol_and_says_why() -> None:
    """Kafka 4.x announces ConsumerGroupHeartbeat whatever its group.version; at 0 (a cluster
    upgraded from 3.x) every heartbeat would be refused: its finalized features decide."""
    auto = auto_of(make(group_instance_id="orders-0"))
    off = dataclasses.replace(negotiate(MEASURED["4.4.0"]), features=FinalizedFeatures(7, {}))
    options, why = auto.choose(off)
    assert options.group_protocol == "classic"
    assert why.startswith("classic: the broker has no consumer protocol (")
    assert "group.version feature at 1 or more, and it is finalized at 0" in why
    assert "kafka-features.sh --bootstrap-server ... upgrade --feature group.version=1" in why
    on = dataclasses.replace(off, features=FinalizedFeatures(7, {"group.version": 1}))
    unknown = dataclasses.replace(off, features=FinalizedFeatures())  # epoch -1: not concluded
    for versions in (on, unknown):
        assert auto.choose(versions)[0].group_protocol == "consumer"


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"session_timeout_ms": 30_000}, "session_timeout_ms was given"),
    ({"heartbeat_interval_ms": 1_000}, "heartbeat_interval_ms was given"),
    ({"partition_assignment_strategy": "roundrobin"}, "partition_assignment_strategy was given"),
    ({"roster_topic": "_rosters"}, "roster_topic was given"),
])  # fmt: skip
async def test_an_option_only_classic_takes_keeps_it_classic_on_any_broker(
    kwargs: dict[str, Any], named: str
) -> None:
    consumer = make(group_instance_id="orders-0", **kwargs)
    options, why = auto_of(consumer).choose(negotiate(MEASURED["4.4.0"]))
    assert options.group_protocol == "classic"
    assert why == f"classic: {named}, which only the classic protocol takes"


async def test_a_statefulset_pods_own_id_gets_takeover_under_the_consumer_protocol(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POD_NAME", "orders-3")
    consumer = make(group_instance_id="orders-3")
    options, _ = auto_of(consumer).choose(negotiate(MEASURED["4.4.0"]))
    assert options.instance_takeover is True  # as group_protocol="consumer" decides it


@pytest.fixture(autouse=True)
async def _stop_what_was_made() -> Any:
    yield
    while _made:
        await _made.pop().stop()
