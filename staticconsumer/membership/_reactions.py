"""What a group member does about each error code, for both group protocols: the reactions room.

Every reaction of both engines is read from here (:func:`reaction`); an engine never compares an
error code to decide what to do. Two tables, one row per Kafka error code, one column per API
the member sends, each row of a fixed length (a row of another length fails at import)::

    CLASSIC_TABLE (group_protocol="classic", KIP-345 / KIP-429):
      code | JoinGroup | SyncGroup | Heartbeat | LeaveGroup | OffsetCommit | OffsetFetch
    CONSUMER_TABLE (group_protocol="consumer", KIP-848):
      code | ConsumerGroupHeartbeat | OffsetCommit | OffsetFetch
    STREAMS_TABLE (streams groups, KIP-1071; the streams engine reads it):
      code | StreamsGroupHeartbeat | OffsetCommit | OffsetFetch

A cell is a :class:`Reaction`. A code missing from a table is :attr:`Reaction.RAISE`, except on
LeaveGroup, whose every failure is :attr:`Reaction.IGNORE` (the member is leaving). The rebalance
protocol (eager or cooperative, KIP-429) does not change the reaction; it changes only what
"partitions lost" and "re-join" mean for the owned partitions, which
:mod:`staticconsumer.membership._classic` does. The engine decides *fenced* vs *failed* here too:
:attr:`Reaction.FENCED` is the fatal reaction to another process holding our
``group.instance.id``, :attr:`Reaction.FATAL` every other one.

Sources: the Java client's ``AbstractCoordinator`` response handlers (JoinGroup, SyncGroup,
Heartbeat, LeaveGroup), ``ConsumerCoordinator.OffsetCommitResponseHandler`` and
``OffsetFetchResponseHandler``; for KIP-848 ``AbstractHeartbeatRequestManager``,
``ConsumerMembershipManager`` and ``CommitRequestManager``; checked against Apache Kafka 4.3.1's
and 4.4.0's group coordinator.

OffsetFetch answers a consumer's question "where do I start?". None of its retriable answers (a
moved or loading coordinator, an offset a transaction may still change, a stale member epoch) may
ever be read as "no committed offset": that would start the partition from ``auto_offset_reset``
and replay or skip everything that was committed.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

from ..protocol import ErrorCode


class Api(enum.Enum):
    JOIN_GROUP = "JoinGroup"
    SYNC_GROUP = "SyncGroup"
    HEARTBEAT = "Heartbeat"
    OFFSET_COMMIT = "OffsetCommit"
    OFFSET_FETCH = "OffsetFetch"
    LEAVE_GROUP = "LeaveGroup"
    #: The consumer group protocol (KIP-848).
    CONSUMER_GROUP_HEARTBEAT = "ConsumerGroupHeartbeat"
    #: The streams group protocol (KIP-1071).
    STREAMS_GROUP_HEARTBEAT = "StreamsGroupHeartbeat"


class GroupProtocol(enum.Enum):
    """Which table a lookup reads: the values are ``group_protocol``'s (Java ``group.protocol``)."""

    CLASSIC = "classic"
    CONSUMER = "consumer"
    STREAMS = "streams"


class Reaction(enum.Enum):
    OK = "ok"
    RETRY = "back off, then send the same request again"
    FIND_COORDINATOR = "mark the coordinator dead, find it again, then retry"
    REJOIN = "re-join keeping member id and generation (partitions are kept)"
    RESET = "forget member id and generation, partitions are lost, then re-join"
    JOIN_WITH_MEMBER_ID = "join again at once with the member id the coordinator gave (KIP-394)"
    FENCED = (
        "fenced: another process holds our group.instance.id (KIP-345); the consumer is "
        "finished as on FATAL"
    )
    FATAL = "the consumer is finished: no heartbeat, join, commit or LeaveGroup from now on"
    RAISE = "raise to the application once, then go on (the next call may try again)"
    IGNORE = "log it and go on: the member is leaving, nothing is retried or raised"

    @property
    def fatal(self) -> bool:
        """The member is finished (:attr:`FENCED` or :attr:`FATAL`): the state sticks."""
        return self in (Reaction.FENCED, Reaction.FATAL)


_R = Reaction

CLASSIC_COLUMNS = (
    Api.JOIN_GROUP, Api.SYNC_GROUP, Api.HEARTBEAT, Api.LEAVE_GROUP, Api.OFFSET_COMMIT,
    Api.OFFSET_FETCH,
)  # fmt: skip
CONSUMER_COLUMNS = (Api.CONSUMER_GROUP_HEARTBEAT, Api.OFFSET_COMMIT, Api.OFFSET_FETCH)
STREAMS_COLUMNS = (Api.STREAMS_GROUP_HEARTBEAT, Api.OFFSET_COMMIT, Api.OFFSET_FETCH)


def _row(*cells: Reaction) -> dict[Api, Reaction]:
    """One classic row: a reaction for each of JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
    OffsetCommit, OffsetFetch, in that order (a row of another length is an error at import)."""
    return dict(zip(CLASSIC_COLUMNS, cells, strict=True))


def _consumer_row(*cells: Reaction) -> dict[Api, Reaction]:
    """One KIP-848 row: ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch, in that order (a row
    of another length is an error at import)."""
    return dict(zip(CONSUMER_COLUMNS, cells, strict=True))


def _streams_row(*cells: Reaction) -> dict[Api, Reaction]:
    """One KIP-1071 row: StreamsGroupHeartbeat, OffsetCommit, OffsetFetch, in that order (a row
    of another length is an error at import)."""
    return dict(zip(STREAMS_COLUMNS, cells, strict=True))


_FC, _IG, _RS = _R.FIND_COORDINATOR, _R.IGNORE, _R.RAISE

#: code -> {api -> reaction}. Read a row as "JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
#: OffsetCommit, OffsetFetch". A LeaveGroup answer other than NONE is logged and nothing else.
CLASSIC_TABLE: dict[int, dict[Api, Reaction]] = {
    ErrorCode.NONE: _row(*[_R.OK] * 6),
    # The coordinator moved or is down.
    ErrorCode.COORDINATOR_NOT_AVAILABLE: _row(_FC, _FC, _FC, _IG, _FC, _FC),
    ErrorCode.NOT_COORDINATOR: _row(_FC, _FC, _FC, _IG, _FC, _FC),
    ErrorCode.REQUEST_TIMED_OUT: _row(_FC, _FC, _FC, _IG, _FC, _FC),
    # A new coordinator is still loading the group: ask again.
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: _row(*[_R.RETRY] * 3, _IG, *[_R.RETRY] * 2),
    # A transaction has a pending offset commit for the partition (KIP-447, require_stable):
    # the committed offset may still change, so ask again.
    ErrorCode.UNSTABLE_OFFSET_COMMIT: _row(_RS, _RS, _RS, _IG, _RS, _R.RETRY),
    # A KIP-848 code (CONSUMER_TABLE): a classic member sends no epoch, so never sees it; its
    # OffsetFetch cell is kept as the consumer table's, so that a stray one is never used.
    ErrorCode.STALE_MEMBER_EPOCH: _row(_RS, _RS, _RS, _IG, _RS, _R.RETRY),
    # A rebalance started. A heartbeat answered so is still a heartbeat that kept the session
    # alive; a commit answered so fails (CommitFailedError) and the member re-joins.
    ErrorCode.REBALANCE_IN_PROGRESS: _row(*[_R.REJOIN] * 3, _IG, _R.REJOIN, _RS),
    # The coordinator no longer knows this member or generation: what it owned is lost.
    ErrorCode.ILLEGAL_GENERATION: _row(*[_R.RESET] * 3, _IG, _R.RESET, _RS),
    ErrorCode.UNKNOWN_MEMBER_ID: _row(*[_R.RESET] * 3, _IG, _R.RESET, _RS),
    ErrorCode.MEMBER_ID_REQUIRED: _row(_R.JOIN_WITH_MEMBER_ID, _RS, _RS, _IG, _RS, _RS),
    # Another process holds our group.instance.id (KIP-345). OffsetFetch carries no instance id.
    ErrorCode.FENCED_INSTANCE_ID: _row(*[_R.FENCED] * 3, _IG, _R.FENCED, _RS),
    # session_timeout_ms outside the broker's bounds: configuration, it will never work.
    ErrorCode.INVALID_SESSION_TIMEOUT: _row(_R.FATAL, _RS, _RS, _IG, _RS, _RS),
    # Raised to the application, which may fix the cause (ACLs, protocols) and poll again.
    ErrorCode.GROUP_AUTHORIZATION_FAILED: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.GROUP_MAX_SIZE_REACHED: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.INVALID_GROUP_ID: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.UNKNOWN_SERVER_ERROR: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.OFFSET_METADATA_TOO_LARGE: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.INVALID_COMMIT_OFFSET_SIZE: _row(_RS, _RS, _RS, _IG, _RS, _RS),
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: _row(_RS, _RS, _RS, _IG, _RS, _RS),
}

#: The name the classic table had before the KIP-848 one joined it (``staticconsumer.membership``).
TABLE = CLASSIC_TABLE

#: code -> {api -> reaction} for a consumer-protocol member (KIP-848). Read a row as
#: "ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch". There is no JoinGroup/SyncGroup barrier
#: and no LeaveGroup: the member joins and leaves with heartbeats (``_consumer_group``).
CONSUMER_TABLE: dict[int, dict[Api, Reaction]] = {
    ErrorCode.NONE: _consumer_row(*[_R.OK] * 3),
    ErrorCode.COORDINATOR_NOT_AVAILABLE: _consumer_row(_FC, _FC, _FC),
    ErrorCode.NOT_COORDINATOR: _consumer_row(_FC, _FC, _FC),
    ErrorCode.REQUEST_TIMED_OUT: _consumer_row(_FC, _FC, _FC),
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: _consumer_row(*[_R.RETRY] * 3),
    # As for a classic member: the committed offset may still change (KIP-447).
    ErrorCode.UNSTABLE_OFFSET_COMMIT: _consumer_row(_RS, _RS, _R.RETRY),
    # A commit or fetch carrying an epoch the heartbeat has just moved past: the heartbeat's news
    # arriving late. Sent again with the epoch the next heartbeat brings (Java's
    # CommitRequestManager does the same).
    ErrorCode.STALE_MEMBER_EPOCH: _consumer_row(_RS, _R.RETRY, _R.RETRY),
    # The coordinator no longer has this member at this epoch: what it owned is lost; it joins
    # again at epoch 0 with the same member id. A commit answered so fails; the heartbeat decides.
    ErrorCode.FENCED_MEMBER_EPOCH: _consumer_row(_R.RESET, _RS, _RS),
    ErrorCode.UNKNOWN_MEMBER_ID: _consumer_row(_R.RESET, _RS, _RS),
    # The group itself is gone (deleted while this member was away: its heartbeat carries an
    # epoch above 0 and only epoch 0 creates a group; listed in Kafka 4.4's spec). Java's member
    # turns fatal on it; here it joins again at epoch 0, as a classic member does when its
    # coordinator has forgotten the group (UNKNOWN_MEMBER_ID), instead of failing a static
    # member for an operator's clean-up. Answered again and again, it was raised on every poll.
    ErrorCode.GROUP_ID_NOT_FOUND: _consumer_row(_R.RESET, _RS, _RS),
    # The previous holder of our instance id has not left yet (``_consumer_group``'s docstring:
    # retried with a backoff, raised once it lasted ``unreleased_wait_ms``, or taken over).
    ErrorCode.UNRELEASED_INSTANCE_ID: _consumer_row(_R.RETRY, _RS, _RS),
    # Another process holds our group.instance.id. OffsetFetch carries no instance id.
    ErrorCode.FENCED_INSTANCE_ID: _consumer_row(_R.FENCED, _R.FENCED, _RS),
    # The configuration asks for something this group will never give.
    ErrorCode.UNSUPPORTED_ASSIGNOR: _consumer_row(_R.FATAL, _RS, _RS),
    ErrorCode.GROUP_MAX_SIZE_REACHED: _consumer_row(_R.FATAL, _RS, _RS),
    # The coordinator does not run the consumer protocol (a cluster at group.version 0 still
    # announces the API); start() refuses it first from the finalized features where the broker
    # reports them (``protocol.features``). Java: fatal (ConsumerHeartbeatRequestManager).
    ErrorCode.UNSUPPORTED_VERSION: _consumer_row(_R.FATAL, _RS, _RS),
    # Raised to the application, which may fix the cause (ACLs) and poll again.
    ErrorCode.GROUP_AUTHORIZATION_FAILED: _consumer_row(_RS, _RS, _RS),
    ErrorCode.UNKNOWN_SERVER_ERROR: _consumer_row(_RS, _RS, _RS),
}

#: code -> {api -> reaction} for a streams-group member (KIP-1071; static members since Kafka
#: 4.4). Read a row as "StreamsGroupHeartbeat, OffsetCommit, OffsetFetch". As the consumer
#: protocol's (the member joins and leaves with heartbeats, commits carry its epoch), with the
#: streams codes. Source: Java's ``StreamsGroupHeartbeatRequestManager.onErrorResponse``.
STREAMS_TABLE: dict[int, dict[Api, Reaction]] = {
    ErrorCode.NONE: _streams_row(*[_R.OK] * 3),
    ErrorCode.COORDINATOR_NOT_AVAILABLE: _streams_row(_FC, _FC, _FC),
    ErrorCode.NOT_COORDINATOR: _streams_row(_FC, _FC, _FC),
    ErrorCode.REQUEST_TIMED_OUT: _streams_row(_FC, _FC, _FC),
    ErrorCode.COORDINATOR_LOAD_IN_PROGRESS: _streams_row(*[_R.RETRY] * 3),
    ErrorCode.UNSTABLE_OFFSET_COMMIT: _streams_row(_RS, _RS, _R.RETRY),
    ErrorCode.STALE_MEMBER_EPOCH: _streams_row(_RS, _R.RETRY, _R.RETRY),
    # The coordinator no longer has this member at this epoch: its tasks are lost; it joins
    # again at epoch 0 with the same member id (Java: onFenced).
    ErrorCode.FENCED_MEMBER_EPOCH: _streams_row(_R.RESET, _RS, _RS),
    ErrorCode.UNKNOWN_MEMBER_ID: _streams_row(_R.RESET, _RS, _RS),
    ErrorCode.GROUP_ID_NOT_FOUND: _streams_row(_R.RESET, _RS, _RS),
    # Kafka 4.4's static members: a restarted thread whose previous process did not leave is
    # refused until its session ends (as the consumer protocol's); another process holding the
    # thread's instance id is fatal, as everywhere else (Java 4.4 fails on both).
    ErrorCode.UNRELEASED_INSTANCE_ID: _streams_row(_R.RETRY, _RS, _RS),
    ErrorCode.FENCED_INSTANCE_ID: _streams_row(_R.FENCED, _R.FENCED, _RS),
    # The topology: not valid, not the group's next epoch, or older than the group's (another
    # version of the application runs). Configuration or deployment: it will never work (Java:
    # fatal).
    ErrorCode.STREAMS_INVALID_TOPOLOGY: _streams_row(_R.FATAL, _RS, _RS),
    ErrorCode.STREAMS_INVALID_TOPOLOGY_EPOCH: _streams_row(_R.FATAL, _RS, _RS),
    ErrorCode.STREAMS_TOPOLOGY_FENCED: _streams_row(_R.FATAL, _RS, _RS),
    ErrorCode.INVALID_REQUEST: _streams_row(_R.FATAL, _RS, _RS),
    ErrorCode.GROUP_MAX_SIZE_REACHED: _streams_row(_R.FATAL, _RS, _RS),
    ErrorCode.UNSUPPORTED_VERSION: _streams_row(_R.FATAL, _RS, _RS),
    # Raised to the application, which may fix the ACLs and poll again (Java fails on a group
    # authorization failure; the consumer protocol's table raises it, and so does this one).
    ErrorCode.GROUP_AUTHORIZATION_FAILED: _streams_row(_RS, _RS, _RS),
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: _streams_row(_RS, _RS, _RS),
    ErrorCode.UNKNOWN_SERVER_ERROR: _streams_row(_RS, _RS, _RS),
}

#: Each protocol's table and its columns, in row order.
TABLES: Mapping[GroupProtocol, tuple[dict[int, dict[Api, Reaction]], tuple[Api, ...]]] = (
    MappingProxyType({
        GroupProtocol.CLASSIC: (CLASSIC_TABLE, CLASSIC_COLUMNS),
        GroupProtocol.CONSUMER: (CONSUMER_TABLE, CONSUMER_COLUMNS),
        GroupProtocol.STREAMS: (STREAMS_TABLE, STREAMS_COLUMNS),
    })
)  # fmt: skip

#: What a code missing from a table means on a column (RAISE on every other column).
_MISSING: Mapping[Api, Reaction] = MappingProxyType({Api.LEAVE_GROUP: Reaction.IGNORE})


def reaction(api: Api, code: int, *, protocol: GroupProtocol) -> Reaction:
    """The member's reaction to ``code`` answered on ``api`` under ``protocol`` (its table; a code
    missing from it is RAISE, IGNORE on LeaveGroup). An ``api`` that is not a column of the
    protocol's table is a :class:`ValueError`: the classic table says nothing about
    ConsumerGroupHeartbeat, nor the KIP-848 table about JoinGroup.

    ``protocol`` has no default: the tables differ (STALE_MEMBER_EPOCH is RETRY on a KIP-848
    OffsetCommit, RAISE in the classic table), so a caller that forgot it would read the wrong
    one without a word."""
    table, columns = TABLES[protocol]
    if api not in columns:
        raise ValueError(f"{api.value} is not a column of the {protocol.value} reactions table")
    row = table.get(code)
    if row is None:
        return _MISSING.get(api, Reaction.RAISE)
    return row[api]
