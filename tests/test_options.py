"""``staticconsumer.options``: the one options value a consumer is built from (issue 34), the
static session default (KIP-735, KIP-345) and ``stop()``'s membership operations (KIP-1092).
No broker: construction sends nothing."""

from __future__ import annotations

import ast
import dataclasses
import tokenize
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
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
from staticconsumer._consumer.checks import close_options
from staticconsumer._error_map import MemberContext, fatal_error
from staticconsumer.membership import (
    ConsumerGroupConfig,
    MemberConfig,
    RebalanceProtocol,
)
from staticconsumer.options import BY_NAME, ENGINE_OPTIONS, OPTIONS, STATIC_SESSION_TIMEOUT_MS
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
    """Issue 49: each option is one row, which says its default and its Java key (or why there
    is none); each field of the value the engines read is a row, with the row's default."""
    for option in OPTIONS:
        assert option.java.strip(), option.name
        assert option.java.startswith("no ") or "." in option.java, option.name
    value = ConsumerOptions()
    for field in dataclasses.fields(ConsumerOptions):
        if field.name == "session_timeout_given":
            continue
        assert field.name in ENGINE_OPTIONS, field.name
        row = BY_NAME[field.name]
        decided = {
            "client_id",
            "instance_takeover",
            "partition_assignment_strategy",
            "rebalance_timeout_ms",
        }  # the row's default is decided at construction
        if field.name not in decided:
            assert getattr(value, field.name) == row.default, field.name


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
    assert config == MemberConfig(options, RebalanceProtocol.COOPERATIVE)
    assert (config.group_id, config.group_instance_id) == ("g", "svc-0")
    assert (options.session_timeout_ms, options.heartbeat_interval_ms) == (60_000, 2_000)
    assert options.max_poll_interval_ms == 90_000 and options.client_id == "svc"
    kip848 = ConsumerGroupConfig.of(
        make(group_protocol="consumer", group_instance_id="svc-0", **rack,
             group_remote_assignor="uniform").options, "m-1")  # fmt: skip
    expected = ("m-1", "uniform", rack.get("client_rack"))
    found = (kip848.member_id, kip848.options.group_remote_assignor, kip848.options.client_rack)
    assert found == expected


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


#: Literals equal to an option's default that are not that default, with why.
NOT_A_DEFAULT = {
    ("staticconsumer/drivers/classic.py", 5_000): "JOIN_GROUP_TIMEOUT_LAPSE_MS, Java's lapse",
}


#: Tooling with numbers of its own (the launcher's probes, the report, the demo's apps), not
#: consumer options; the frameworks (faust, faststream) are scanned.
TOOLING_OF_THEIR_OWN = {"localkafka", "analytics", "_demo", "streams_app", "testing", "cli"}


def test_every_default_is_written_once() -> None:
    """Issue 49: an option's default is written in its row and nowhere else in the SDK or the
    framework integrations (a
    number of 1 000 or more: smaller ones are everywhere for other reasons); the static
    session timeout is its one named constant."""
    root = Path(__file__).resolve().parents[1]
    wanted = Counter(o.default for o in OPTIONS if isinstance(o.default, int)
                     and not isinstance(o.default, bool) and o.default >= 1_000)  # fmt: skip
    wanted[STATIC_SESSION_TIMEOUT_MS] += 1
    found: dict[int, list[str]] = {}
    for path in sorted((root / "staticconsumer").rglob("*.py")):
        where = str(path.relative_to(root))
        if where.split("/")[1] in TOOLING_OF_THEIR_OWN:
            continue
        with path.open() as source:
            for token in tokenize.generate_tokens(source.readline):
                if token.type != tokenize.NUMBER or not token.string.replace("_", "").isdigit():
                    continue
                value = int(token.string.replace("_", ""))
                if value in wanted and (where, value) not in NOT_A_DEFAULT:
                    found.setdefault(value, []).append(f"{where}:{token.start[0]}")
    for value, count in wanted.items():
        assert len(found[value]) == count, (value, found[value])
        assert all(w.startswith("staticconsumer/options.py:") for w in found[value]), found[value]


def _files_naming(name: str) -> set[str]:
    """The SDK and framework modules whose code (not a docstring or a comment) names ``name``:
    a variable, parameter, attribute, keyword or string equal to it."""
    root = Path(__file__).resolve().parents[1]
    found = set()
    for path in sorted((root / "staticconsumer").rglob("*.py")):
        where = str(path.relative_to(root))
        if where.split("/")[1] in TOOLING_OF_THEIR_OWN:
            continue
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                    | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)}  # fmt: skip
        for node in ast.walk(tree):
            named = (
                (isinstance(node, ast.Name) and node.id == name)
                or (isinstance(node, ast.Attribute) and node.attr == name)
                or (isinstance(node, ast.keyword | ast.arg) and node.arg == name)
                or (isinstance(node, ast.Constant) and node.value == name
                    and id(node) not in docstrings)
            )  # fmt: skip
            if named:
                found.add(where)
                break
    return found


def test_session_timeout_crosses_four_files_from_the_constructor_to_the_bytes() -> None:
    """Issue 49, measured: ``session_timeout_ms`` goes from ``StaticConsumer(**options)`` (the
    constructor does not name it) through its row and value (options.py), the JoinGroup the
    classic driver builds, and the request's encoding (its builder and its schema): 4 files.
    The others that name it use it (they are not on its way to the wire): each says why."""
    on_the_way = {
        "staticconsumer/options.py", "staticconsumer/drivers/classic.py",
        "staticconsumer/protocol/group.py", "staticconsumer/protocol/_messages.py",
    }  # fmt: skip
    uses = {
        "staticconsumer/membership/_classic.py": "the engine: no heartbeat answered within it",
        "staticconsumer/drivers/fence_diagnosis.py": "INVALID_SESSION_TIMEOUT: the bounds",
        "staticconsumer/_error_map.py": "INVALID_SESSION_TIMEOUT's message names it",
        "staticconsumer/faust/_seam.py": "faust's broker_session_timeout setting, as faust's",
    }
    assert _files_naming("session_timeout_ms") == on_the_way | set(uses)
    assert len(on_the_way) <= 4
