"""``staticconsumer.options``: the one options value a consumer is built from (issue 34), the
static session default (KIP-735, KIP-345) and ``stop()``'s membership operations (KIP-1092).
No broker: construction sends nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from assignors import CooperativeStickyAssignor, RangeAssignor
from staticconsumer import (
    ConfigurationError,
    ConsumerOptions,
    GroupMembershipError,
    MembershipOperation,
    StaticConsumer,
)
from staticconsumer._compat.features import CLIENT_RACK
from staticconsumer._consumer.options import close_options
from staticconsumer._error_map import MemberContext, fatal_error
from staticconsumer.membership import (
    ConsumerGroupConfig,
    MemberConfig,
    RebalanceProtocol,
)
from staticconsumer.options import STATIC_SESSION_TIMEOUT_MS
from staticconsumer.protocol import ErrorCode

_made: list[StaticConsumer] = []


def make(**kwargs: Any) -> StaticConsumer:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g", **kwargs)
    _made.append(consumer)
    return consumer


@pytest.fixture(autouse=True)
async def _stop_what_was_made() -> AsyncIterator[None]:
    """Stop every consumer a test made (never started: nothing is sent)."""
    yield
    while _made:
        await _made.pop().stop()


def test_the_value_is_frozen_and_keyword_only() -> None:
    options = ConsumerOptions(group_id="g")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.group_id = "h"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ConsumerOptions("g")  # type: ignore[misc]


def test_every_field_documents_its_default_and_its_java_key_or_why_none() -> None:
    source = open(ConsumerOptions.__module__.replace(".", "/") + ".py").read()
    for field in dataclasses.fields(ConsumerOptions):
        if field.name == "session_timeout_given":
            continue
        before = source[: source.index(f"    {field.name}: ")].rsplit("\n\n", 1)[-1]
        assert "Default" in before, field.name
        assert "Java" in before, field.name


async def test_the_constructor_builds_the_value_and_the_engines_are_built_from_it() -> None:
    # client_rack: aiokafka 0.14's (refused before it: tests/compat/test_features.py)
    rack: dict[str, Any] = {"client_rack": "r1"} if CLIENT_RACK else {}
    consumer = make(group_instance_id="svc-0", client_id="svc", **rack,
                    partition_assignment_strategy="cooperative-sticky",
                    session_timeout_ms=60_000, heartbeat_interval_ms=2_000,
                    max_poll_interval_ms=90_000, retry_backoff_ms=50)  # fmt: skip
    options = consumer.options
    assert (options.group_id, options.group_instance_id, options.client_id) == ("g", "svc-0", "svc")
    assert options.session_timeout_ms == 60_000 and options.session_timeout_given
    assert options.rebalance_timeout_ms == 90_000, "Java sends max.poll.interval.ms"
    [assignor] = options.partition_assignment_strategy
    assert isinstance(assignor, CooperativeStickyAssignor)
    config = MemberConfig.of(options)
    assert config == MemberConfig("g", "svc-0", 60_000, 2_000, 90_000,
                                  RebalanceProtocol.COOPERATIVE, client_id="svc")  # fmt: skip
    kip848 = ConsumerGroupConfig.of(
        make(group_protocol="consumer", group_instance_id="svc-0", **rack,
             group_remote_assignor="uniform").options, "m-1")  # fmt: skip
    expected = ("m-1", "uniform", rack.get("client_rack"))
    assert (kip848.member_id, kip848.server_assignor, kip848.rack_id) == expected


def test_an_eager_assignor_among_the_strategies_keeps_the_member_eager() -> None:
    options = ConsumerOptions(group_id="g", partition_assignment_strategy=(
        CooperativeStickyAssignor(), RangeAssignor()))  # fmt: skip
    assert MemberConfig.of(options).rebalance_protocol is RebalanceProtocol.EAGER


async def test_a_static_member_gets_javas_45_s_session_unless_it_gives_one() -> None:
    """KIP-735's default for a static member; aiokafka's 10 s would rebalance any restart
    slower than 10 s (KIP-345 sizes the timeout to the restart time)."""
    static = make(group_instance_id="svc-0")
    assert static.options.session_timeout_ms == STATIC_SESSION_TIMEOUT_MS == 45_000
    assert not static.options.session_timeout_given
    assert static._session_timeout_ms == 45_000, "aiokafka is told the same"
    assert make().options.session_timeout_ms == 10_000, "a dynamic member keeps aiokafka's"
    assert (
        make(group_instance_id="svc-0", session_timeout_ms=10_000).options.session_timeout_ms
        == 10_000
    ), "a timeout given on purpose is kept, even aiokafka's default value"
    # The heartbeat is checked against the session the member will have.
    assert (
        make(group_instance_id="a", heartbeat_interval_ms=15_000).options.session_timeout_ms
        == 45_000
    )
    with pytest.raises(ConfigurationError, match="heartbeat_interval_ms"):
        make(heartbeat_interval_ms=15_000)


@pytest.mark.parametrize(
    ("leave_group", "reason", "membership", "expected"),
    [
        (False, None, "default", (MembershipOperation.DEFAULT, None)),
        (True, "scale down", "default",
         (MembershipOperation.LEAVE_GROUP, "the consumer is being closed: scale down")),
        (False, "scale down", "leave_group",
         (MembershipOperation.LEAVE_GROUP, "the consumer is being closed: scale down")),
        (False, None, MembershipOperation.REMAIN_IN_GROUP,
         (MembershipOperation.REMAIN_IN_GROUP, None)),
        (False, "deploy", "REMAIN_IN_GROUP",
         (MembershipOperation.REMAIN_IN_GROUP, "the consumer is being closed: deploy")),
    ],
)  # fmt: skip
def test_stop_takes_javas_three_membership_operations(
    leave_group: bool, reason: str | None, membership: Any, expected: tuple[Any, Any]
) -> None:
    assert close_options(leave_group, reason, membership) == expected


@pytest.mark.parametrize(
    ("leave_group", "reason", "membership", "words"),
    [
        (True, None, "default", "needs a non-empty reason"),
        (False, None, "leave_group", "needs a non-empty reason"),
        (True, "  ", "default", "non-empty string"),
        (True, "x", "remain_in_group", "contradicts itself"),
        (False, None, "stay", "KIP-1092"),
        ("yes", None, "default", "True or False"),
    ],
)  # fmt: skip
async def test_stop_refuses_what_makes_no_sense_before_it_stops_anything(
    leave_group: Any, reason: Any, membership: Any, words: str
) -> None:
    consumer = make(group_instance_id="svc-0")
    with pytest.raises(ConfigurationError, match=words):
        await consumer.stop(leave_group, reason, membership=membership)
    assert consumer.membership.state.value == "not_started", "nothing was stopped"
    await consumer.stop()


@pytest.mark.parametrize(("membership", "static", "leaves"), [
    (MembershipOperation.DEFAULT, True, False), (MembershipOperation.DEFAULT, False, True),
    (MembershipOperation.LEAVE_GROUP, True, True), (MembershipOperation.LEAVE_GROUP, False, True),
    (MembershipOperation.REMAIN_IN_GROUP, True, False),
    (MembershipOperation.REMAIN_IN_GROUP, False, False),
])  # fmt: skip
def test_who_leaves_on_close(membership: MembershipOperation, static: bool, leaves: bool) -> None:
    assert membership.leaves(static=static) is leaves


def test_a_fatal_verdict_that_is_no_fence_is_worded_by_the_error_map_and_typed() -> None:
    error = fatal_error(MemberContext("g", "svc-0", "m-1", "svc"), "JoinGroup",
                        ErrorCode.GROUP_MAX_SIZE_REACHED)  # fmt: skip
    assert isinstance(error, GroupMembershipError) and error.fatal
    assert (error.api, error.error_code, error.group_id) == ("JoinGroup", 81, "g")
    assert error.error_name == "GROUP_MAX_SIZE_REACHED"
    assert "GROUP_MAX_SIZE_REACHED" in str(error) and "'svc-0'" in str(error)
