"""The reaction lookups have no default table: a caller names the group protocol it speaks.

The classic and KIP-848 tables differ (STALE_MEMBER_EPOCH on OffsetCommit is RETRY for a
consumer-protocol member, RAISE in the classic table), so a default would turn a forgotten
argument into a silent wrong answer; without one it is a TypeError at the call.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from staticconsumer.membership import Api, GroupProtocol, Reaction, reaction
from staticconsumer.membership._log import LogIdentity, MemberLog
from staticconsumer.membership._offset_fetch import offset_fetch_verdict
from staticconsumer.protocol import ErrorCode

STALE = ErrorCode.STALE_MEMBER_EPOCH


def _log() -> MemberLog:
    return MemberLog(logging.getLogger(__name__), LogIdentity("g", "i-0", "c", lambda: "m"))


def test_the_tables_differ_where_a_default_would_hide_it() -> None:
    classic = reaction(Api.OFFSET_COMMIT, STALE, protocol=GroupProtocol.CLASSIC)
    consumer = reaction(Api.OFFSET_COMMIT, STALE, protocol=GroupProtocol.CONSUMER)
    assert (classic, consumer) == (Reaction.RAISE, Reaction.RETRY)


def test_reaction_without_a_protocol_is_a_type_error() -> None:
    lookup: Any = reaction  # the calls below are wrong on purpose: mypy would refuse them
    with pytest.raises(TypeError, match="protocol"):
        lookup(Api.OFFSET_COMMIT, STALE)
    with pytest.raises(TypeError):  # keyword-only: a bare third argument is refused too
        lookup(Api.OFFSET_COMMIT, STALE, GroupProtocol.CONSUMER)


def test_offset_fetch_verdict_without_a_protocol_is_a_type_error() -> None:
    verdict: Any = offset_fetch_verdict
    with pytest.raises(TypeError, match="protocol"):
        verdict([STALE], _log())
    with pytest.raises(TypeError):
        verdict([STALE], _log(), GroupProtocol.CONSUMER)


# -- the streams table (KIP-1071; issue 50) -----------------------------------------------------

S = GroupProtocol.STREAMS


@pytest.mark.parametrize(("code", "expected"), [
    (ErrorCode.STREAMS_INVALID_TOPOLOGY, Reaction.FATAL),
    (ErrorCode.STREAMS_INVALID_TOPOLOGY_EPOCH, Reaction.FATAL),
    (ErrorCode.STREAMS_TOPOLOGY_FENCED, Reaction.FATAL),
    (ErrorCode.FENCED_INSTANCE_ID, Reaction.FENCED),
    (ErrorCode.UNRELEASED_INSTANCE_ID, Reaction.RETRY),
    (ErrorCode.FENCED_MEMBER_EPOCH, Reaction.RESET),
    (ErrorCode.UNKNOWN_MEMBER_ID, Reaction.RESET),
    (ErrorCode.NOT_COORDINATOR, Reaction.FIND_COORDINATOR),
    (ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, Reaction.RETRY),
    (ErrorCode.GROUP_MAX_SIZE_REACHED, Reaction.FATAL),
    (ErrorCode.TOPIC_AUTHORIZATION_FAILED, Reaction.RAISE),
])  # fmt: skip
def test_a_streams_heartbeat_reacts_as_javas_streams_member(code: int, expected: Reaction) -> None:
    """Java's ``StreamsGroupHeartbeatRequestManager``: the topology codes are fatal, a fenced
    epoch loses the tasks and joins again; Kafka 4.4's static members as everywhere else."""
    assert reaction(Api.STREAMS_GROUP_HEARTBEAT, code, protocol=S) is expected


def test_streams_commits_and_fetches_react_as_the_consumer_protocols() -> None:
    """The member's OffsetCommit and OffsetFetch are a KIP-848 member's (its epoch on each)."""
    for code in ErrorCode:
        for api in (Api.OFFSET_COMMIT, Api.OFFSET_FETCH):
            expected = reaction(api, code, protocol=GroupProtocol.CONSUMER)
            assert reaction(api, code, protocol=S) is expected, (code, api)


def test_the_streams_table_has_no_classic_or_consumer_heartbeat_column() -> None:
    with pytest.raises(ValueError, match="not a column of the streams reactions table"):
        reaction(Api.CONSUMER_GROUP_HEARTBEAT, 0, protocol=S)
    with pytest.raises(ValueError, match="not a column of the consumer reactions table"):
        reaction(Api.STREAMS_GROUP_HEARTBEAT, 0, protocol=GroupProtocol.CONSUMER)
