"""Why a member (re-)joins or leaves: the reasons sent on JoinGroup v8+ and LeaveGroup v5+
(KIP-800). The coordinator logs them, so a broker log explains every rebalance."""

from __future__ import annotations

JOIN_REASON_INITIAL = "initial join of the consumer"
JOIN_REASON_GROUP_REBALANCING = "the group coordinator started a rebalance"
JOIN_REASON_METADATA_CHANGED = "subscription or topic metadata changed"
JOIN_REASON_REJOIN_AFTER_ERROR = "rejoining after an error from the group coordinator"
JOIN_REASON_MEMBER_ID_REQUIRED = "rejoining with the member id given by the coordinator (KIP-394)"
#: Prefix of an enforced rebalance, as the Java client words it.
JOIN_REASON_ENFORCED_PREFIX = "rebalance enforced by user"
LEAVE_REASON_PREFIX = "the consumer is being closed"
ADMIN_REMOVE_REASON = "member was removed by an admin"
JOIN_REASON_COOPERATIVE_REVOKED = "need to revoke partitions and re-join (KIP-429)"
LEAVE_REASON_POLL_TIMEOUT = "consumer poll timeout has expired"
#: Java's ``unsubscribe()`` leave reason (a dynamic member).
LEAVE_REASON_UNSUBSCRIBED = "the consumer unsubscribed from all topics"
JOIN_REASON_SUBSCRIPTION_CHANGED = "the consumer subscription changed"
