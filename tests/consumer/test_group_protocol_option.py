"""``group_protocol`` and its companions checked at construction, as Java's ConsumerConfig checks
``group.protocol`` (its lists CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS and
CLASSIC_PROTOCOL_UNSUPPORTED_CONFIGS, Kafka 4.3.1). No broker needed: construction sends nothing."""

from __future__ import annotations

from typing import Any

import pytest

from assignors import MemberAssignment, RangeAssignor
from staticconsumer import ConfigurationError, StaticConsumer, UnreleasedInstanceIdError
from staticconsumer._error_map import kafka_error
from staticconsumer.protocol import ErrorCode


def make(**kwargs: Any) -> StaticConsumer:
    return StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g", **kwargs)


async def test_classic_stays_the_default_and_consumer_is_accepted() -> None:
    assert make().options.group_protocol == "classic"
    consumer = make(group_protocol="consumer", group_remote_assignor="uniform",
                    group_instance_id="a", instance_takeover=True)  # fmt: skip
    assert consumer.options.consumer_protocol
    assert consumer.options.group_remote_assignor == "uniform"
    assert consumer.options.instance_takeover


@pytest.mark.parametrize(("field", "value", "java_key"), [
    ("partition_assignment_strategy", (RangeAssignor(),), "partition.assignment.strategy"),
    ("session_timeout_ms", 10_000, "session.timeout.ms"),
    ("heartbeat_interval_ms", 1000, "heartbeat.interval.ms"),
])  # fmt: skip
async def test_classic_only_options_are_refused_under_the_consumer_protocol(
    field: str, value: Any, java_key: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        make(group_protocol="consumer", **{field: value})
    message = str(caught.value)
    assert field in message and java_key in message and "KIP-848" in message


class _ReadsUserData(RangeAssignor):
    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        pass


async def test_an_assignor_that_reads_assignment_user_data_is_refused_naming_why() -> None:
    """KIP-848 assignments carry no user data: an assignor with on_assignment cannot get any."""
    with pytest.raises(ConfigurationError) as caught:
        make(group_protocol="consumer", partition_assignment_strategy=(_ReadsUserData(),))
    message = str(caught.value)
    for words in ("partition_assignment_strategy", "KIP-848", "_ReadsUserData",
                  "on_assignment", "no user data", "group_protocol='classic'"):  # fmt: skip
        assert words in message


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"group_protocol": "Consumer"}, ["group.protocol", "'classic' or 'consumer'", "KIP-848"]),
    ({"group_remote_assignor": "uniform"}, ["group.remote.assignor", "only to"]),
    ({"instance_takeover": True, "group_instance_id": "a"}, ["instance_takeover", "KIP-345"]),
    ({"group_protocol": "consumer", "group_remote_assignor": " "}, ["group.consumer.assignors"]),
    ({"group_protocol": "consumer", "instance_takeover": True}, ["needs group_instance_id"]),
    ({"group_protocol": "consumer", "instance_takeover": "yes", "group_instance_id": "a"},
     ["True or False"]),
])  # fmt: skip
async def test_bad_combinations_name_the_field_and_why(
    kwargs: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        make(**kwargs)
    for word in words:
        assert word in str(caught.value)


def test_unreleased_instance_id_is_a_typed_error_that_is_not_fatal() -> None:
    error = kafka_error(ErrorCode.UNRELEASED_INSTANCE_ID, group_id="g")
    assert isinstance(error, UnreleasedInstanceIdError) and not error.fatal
    assert error.group_id == "g" and "instance_takeover=True" in str(error)


@pytest.mark.parametrize(("env", "instance_id", "expected"), [
    # A StatefulSet pod's own name (and per-thread ids built on it): no other live pod has it.
    ({"POD_NAME": "orders-3"}, "orders-3", True),
    ({"HOSTNAME": "orders-0"}, "orders-0", True),
    ({"POD_NAME": "orders-3"}, "orders-3-thread-1", True),
    # Not this pod's identity, or not a StatefulSet name: takeover stays off.
    ({"POD_NAME": "orders-3"}, "orders-4", False),
    ({"POD_NAME": "orders-7d4b9c6f5b-x2k8q"}, "orders-7d4b9c6f5b-x2k8q", False),
    ({"STATICCONSUMER_INSTANCE_ID": "orders-3"}, "orders-3", False),
    ({}, "orders-3", False),
])  # fmt: skip
async def test_instance_takeover_defaults_to_on_for_this_pods_own_statefulset_identity(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], instance_id: str, expected: bool
) -> None:
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    consumer = make(group_protocol="consumer", group_instance_id=instance_id)
    assert consumer.options.instance_takeover is expected
    opted_out = make(group_protocol="consumer", group_instance_id=instance_id,
                     instance_takeover=False)  # fmt: skip
    assert opted_out.options.instance_takeover is False


async def test_the_classic_protocol_ignores_the_takeover_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POD_NAME", "orders-3")
    assert make(group_instance_id="orders-3").options.instance_takeover is False
