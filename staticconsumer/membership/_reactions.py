"""What a classic-protocol group member does about each error code: one table.

Rows are Kafka error codes, columns the group APIs a member sends (JoinGroup, SyncGroup,
Heartbeat, OffsetCommit, OffsetFetch). A cell is a :class:`Reaction`. The rebalance protocol (eager
or cooperative, KIP-429) does not change the reaction; it changes only what "partitions lost" and
"re-join" mean for the owned partitions, which :mod:`staticconsumer.membership._classic` does.

Sources: the Java client's ``AbstractCoordinator`` response handlers (JoinGroup, SyncGroup,
Heartbeat), ``ConsumerCoordinator.OffsetCommitResponseHandler`` and
``OffsetFetchResponseHandler``, checked against Apache Kafka 4.3.1's group coordinator. Codes
missing from the table are :attr:`Reaction.RAISE`.

OffsetFetch answers a consumer's question "where do I start?". None of its retriable answers (a
moved or loading coordinator, an offset a transaction may still change) may ever be read as "no
committed offset": that would start the partition from ``auto_offset_reset`` and replay or skip
everything that was committed.
"""

from __future__ import annotations

import enum

from ..protocol import ErrorCode


class Api(enum.Enum):
    JOIN_GROUP = "JoinGroup"
    SYNC_GROUP = "SyncGroup"
    HEARTBEAT = "Heartbeat"
    OFFSET_COMMIT = "OffsetCommit"
    OFFSET_FETCH = "OffsetFetch"
    LEAVE_GROUP = "LeaveGroup"
    #: The consumer group protocol (KIP-848); its reactions are in ``_consumer_group``.
    CONSUMER_GROUP_HEARTBEAT = "ConsumerGroupHeartbeat"


class Reaction(enum.Enum):
    OK = "ok"
    RETRY = "back off, then send the same request again"
    FIND_COORDINATOR = "mark the coordinator dead, find it again, then retry"
    REJOIN = "re-join keeping member id and generation (partitions are kept)"
    RESET = "forget member id and generation, partitions are lost, then re-join"
    JOIN_WITH_MEMBER_ID = "join again at once with the member id the coordinator gave (KIP-394)"
    FATAL = "the consumer is finished: no heartbeat, join, commit or LeaveGroup from now on"
    RAISE = "raise to the application once, then go on (the next call may try again)"


_R = Reaction
_ALL = (Api.JOIN_GROUP, Api.SYNC_GROUP, Api.HEARTBEAT, Api.OFFSET_COMMIT, Api.OFFSET_FETCH)


def _row(*cells: Reaction) -> dict[Api, Reaction]:
    """One row: a reaction for each of JoinGroup, SyncGroup, Heartbeat, OffsetCommit,
    OffsetFetch, in that order (a row of another length is an error at import)."""
    return dict(zip(_ALL, cells, strict=True))


#: code -> {api -> reaction}. Read a row as "JoinGroup, SyncGroup, Heartbeat, OffsetCommit,
#: OffsetFetch".
TABLE: dict[int, dict[Api, Reaction]] = {
    ErrorCode.NONE: _row(*[_R.OK] * 5),
    # The coordinator moved or is down.
    ErrorCode.COORDINATOR_NOT_AVAILABLE: _row(*[_R.FIND_COORDINATOR] * 5),
    ErrorCode.NOT_COORDINATOR: _row(*[_R.FIND_COORDINATOR] * 5),
    ErrorCode.REQUEST_TIMED_OUT: _row(*[_R.FIND_COORDINATOR] * 5),
    # A new coordinator is still loading the group: ask again.
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: _row(*[_R.RETRY] * 5),
    # A transaction has a pending offset commit for the partition (KIP-447, require_stable):
    # the committed offset may still change, so ask again.
    ErrorCode.UNSTABLE_OFFSET_COMMIT: _row(_R.RAISE, _R.RAISE, _R.RAISE, _R.RAISE, _R.RETRY),
    # KIP-848: an OffsetFetch carrying a member epoch the heartbeat has just moved past; the
    # next fetch carries the new one (a classic member sends no epoch, so never sees it).
    ErrorCode.STALE_MEMBER_EPOCH: _row(_R.RAISE, _R.RAISE, _R.RAISE, _R.RAISE, _R.RETRY),
    # A rebalance started. A heartbeat answered so is still a heartbeat that kept the session
    # alive; a commit answered so fails (CommitFailedError) and the member re-joins.
    ErrorCode.REBALANCE_IN_PROGRESS: _row(*[_R.REJOIN] * 4, _R.RAISE),
    # The coordinator no longer knows this member or generation: what it owned is lost.
    ErrorCode.ILLEGAL_GENERATION: _row(*[_R.RESET] * 4, _R.RAISE),
    ErrorCode.UNKNOWN_MEMBER_ID: _row(*[_R.RESET] * 4, _R.RAISE),
    ErrorCode.MEMBER_ID_REQUIRED: _row(_R.JOIN_WITH_MEMBER_ID, *[_R.RAISE] * 4),
    # Another process holds our group.instance.id (KIP-345). OffsetFetch carries no instance id.
    ErrorCode.FENCED_INSTANCE_ID: _row(*[_R.FATAL] * 4, _R.RAISE),
    # session_timeout_ms outside the broker's bounds: configuration, it will never work.
    ErrorCode.INVALID_SESSION_TIMEOUT: _row(_R.FATAL, *[_R.RAISE] * 4),
    # Raised to the application, which may fix the cause (ACLs, protocols) and poll again.
    ErrorCode.GROUP_AUTHORIZATION_FAILED: _row(*[_R.RAISE] * 5),
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL: _row(*[_R.RAISE] * 5),
    ErrorCode.GROUP_MAX_SIZE_REACHED: _row(*[_R.RAISE] * 5),
    ErrorCode.INVALID_GROUP_ID: _row(*[_R.RAISE] * 5),
    ErrorCode.UNKNOWN_SERVER_ERROR: _row(*[_R.RAISE] * 5),
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: _row(*[_R.RAISE] * 5),
    ErrorCode.OFFSET_METADATA_TOO_LARGE: _row(*[_R.RAISE] * 5),
    ErrorCode.INVALID_COMMIT_OFFSET_SIZE: _row(*[_R.RAISE] * 5),
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: _row(*[_R.RAISE] * 5),
}


def reaction(api: Api, code: int) -> Reaction:
    """The member's reaction to ``code`` answered on ``api`` (:data:`TABLE`; RAISE otherwise)."""
    row = TABLE.get(code)
    if row is None:
        return Reaction.RAISE
    return row.get(api, Reaction.RAISE)
