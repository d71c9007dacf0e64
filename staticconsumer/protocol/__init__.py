"""The wire protocol of consumer groups with static membership (KIP-345), without I/O.

* request builders and response parsers for the group APIs, at versions negotiated per broker
  (:func:`negotiate`); builders return a :class:`PinnedRequest` that
  ``aiokafka.AIOKafkaClient.send(node_id, request)`` sends as is, flexible headers included;
* the consumer protocol carried inside JoinGroup and SyncGroup (:class:`Subscription`,
  :class:`Assignment`);
* Kafka's error codes by name (:class:`ErrorCode`).

Nothing here opens a socket or runs on an event loop; everything is tested with bytes that Apache
Kafka's own message classes produced (``tests/protocol/golden.py``).
"""

from staticconsumer.protocol._messages import (
    IMPLEMENTED_VERSIONS,
    ApiKey,
    request_class,
    response_class,
)
from staticconsumer.protocol._wire import PinnedRequest
from staticconsumer.protocol.admin import (
    AUTHORIZED_OPERATIONS_OMITTED,
    Coordinator,
    CoordinatorType,
    DescribedGroup,
    DescribedMember,
    DescribeGroupsResult,
    FindCoordinatorResult,
    build_describe_groups,
    build_find_coordinator,
    parse_describe_groups,
    parse_find_coordinator,
)
from staticconsumer.protocol.commit import (
    NO_LEADER_EPOCH,
    CommitOffset,
    CommitPartitionResult,
    OffsetCommitResult,
    build_offset_commit,
    parse_offset_commit,
)
from staticconsumer.protocol.consumer_protocol import (
    ASSIGNMENT_VERSION,
    CONSUMER_PROTOCOL_TYPE,
    NO_GENERATION,
    SUBSCRIPTION_VERSION,
    Assignment,
    Subscription,
    TopicPartitions,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    group_partitions,
)
from staticconsumer.protocol.error_codes import ErrorCode, error_name
from staticconsumer.protocol.group import (
    MAX_REASON_LENGTH,
    UNKNOWN_MEMBER_ID,
    HeartbeatResult,
    JoinGroupMember,
    JoinGroupResult,
    LeaveGroupMemberResult,
    LeaveGroupResult,
    MemberIdentity,
    SyncGroupResult,
    build_heartbeat,
    build_join_group,
    build_leave_group,
    build_sync_group,
    parse_heartbeat,
    parse_join_group,
    parse_leave_group,
    parse_sync_group,
    truncate_reason,
)
from staticconsumer.protocol.offset_fetch import (
    NO_COMMITTED_OFFSET,
    FetchedOffset,
    OffsetFetchResult,
    build_offset_fetch,
    parse_offset_fetch,
)
from staticconsumer.protocol.versions import (
    STATIC_MEMBERSHIP_MIN_VERSIONS,
    GroupApiVersions,
    api_versions_from_response,
    negotiate,
)

__all__ = [
    "ASSIGNMENT_VERSION",
    "AUTHORIZED_OPERATIONS_OMITTED",
    "CONSUMER_PROTOCOL_TYPE",
    "IMPLEMENTED_VERSIONS",
    "MAX_REASON_LENGTH",
    "NO_COMMITTED_OFFSET",
    "NO_GENERATION",
    "NO_LEADER_EPOCH",
    "STATIC_MEMBERSHIP_MIN_VERSIONS",
    "SUBSCRIPTION_VERSION",
    "UNKNOWN_MEMBER_ID",
    "ApiKey",
    "Assignment",
    "CommitOffset",
    "CommitPartitionResult",
    "Coordinator",
    "CoordinatorType",
    "DescribeGroupsResult",
    "DescribedGroup",
    "DescribedMember",
    "ErrorCode",
    "FetchedOffset",
    "FindCoordinatorResult",
    "GroupApiVersions",
    "HeartbeatResult",
    "JoinGroupMember",
    "JoinGroupResult",
    "LeaveGroupMemberResult",
    "LeaveGroupResult",
    "MemberIdentity",
    "OffsetCommitResult",
    "OffsetFetchResult",
    "PinnedRequest",
    "Subscription",
    "SyncGroupResult",
    "TopicPartitions",
    "api_versions_from_response",
    "build_describe_groups",
    "build_find_coordinator",
    "build_heartbeat",
    "build_join_group",
    "build_leave_group",
    "build_offset_commit",
    "build_offset_fetch",
    "build_sync_group",
    "decode_assignment",
    "decode_subscription",
    "encode_assignment",
    "encode_subscription",
    "error_name",
    "group_partitions",
    "negotiate",
    "parse_describe_groups",
    "parse_find_coordinator",
    "parse_heartbeat",
    "parse_join_group",
    "parse_leave_group",
    "parse_offset_commit",
    "parse_offset_fetch",
    "parse_sync_group",
    "request_class",
    "response_class",
    "truncate_reason",
]
