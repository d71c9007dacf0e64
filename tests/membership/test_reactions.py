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
