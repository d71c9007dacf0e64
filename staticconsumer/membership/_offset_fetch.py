"""What an OffsetFetch answer means, for both engines: a pure function over the answer's error
codes and the protocol's OffsetFetch column of ``_reactions``. No state, no I/O."""

from __future__ import annotations

from collections.abc import Iterable

from ..protocol import ErrorCode, error_name
from ._io import CommitOutcome
from ._log import MemberLog
from ._reactions import Api, GroupProtocol, Reaction, reaction


def offset_fetch_verdict(
    codes: Iterable[int], member_log: MemberLog, *, protocol: GroupProtocol
) -> tuple[CommitOutcome, int, bool]:
    """What an OffsetFetch answer's error codes (the group's, then each partition's) mean, as
    ``protocol``'s OffsetFetch column says: DONE when every offset in it can be used; RETRY when
    any code says "ask again" (the answer is then not used at all: a partition without a usable
    row must never start from ``auto_offset_reset``), with True when the coordinator must be
    found again first; FAILED with the code to raise otherwise. ``protocol`` has no default (the
    tables differ; see :func:`._reactions.reaction`)."""
    retry: bool | None = None
    for code in codes:
        what = reaction(Api.OFFSET_FETCH, code, protocol=protocol)
        if what is Reaction.OK:
            continue
        if what is Reaction.FIND_COORDINATOR:
            member_log.warning("OffsetFetch: %s -> %s", error_name(code), what.value)
            retry = True
        elif what is Reaction.RETRY:
            member_log.info("OffsetFetch: %s -> %s", error_name(code), what.value)
            retry = retry or False
        else:
            return CommitOutcome.FAILED, code, False
    if retry is not None:
        return CommitOutcome.RETRY, ErrorCode.NONE, retry
    return CommitOutcome.DONE, ErrorCode.NONE, False
