"""Why a member (re-)joins or leaves: the reasons sent on JoinGroup v8+ and LeaveGroup v5+
(KIP-800). The coordinator logs them, so a broker log explains every rebalance."""

from __future__ import annotations

JOIN_REASON_INITIAL = "initial join of the consumer"
JOIN_REASON_GROUP_REBALANCING = "the group coordinator started a rebalance"
JOIN_REASON_METADATA_CHANGED = "subscription or topic metadata changed"
JOIN_REASON_REJOIN_AFTER_ERROR = "rejoining after an error from the group coordinator"
JOIN_REASON_MEMBER_ID_REQUIRED = "rejoining with the member id given by the coordinator (KIP-394)"
#: An enforced rebalance's reason: alone when no reason was given (Java's
#: ``KafkaConsumer.DEFAULT_REASON``), else the prefix of the given ones (KIP-800).
JOIN_REASON_ENFORCED_PREFIX = "rebalance enforced by user"
LEAVE_REASON_PREFIX = "the consumer is being closed"
#: An admin removal's reason: alone by default (Java's admin client's
#: ``DEFAULT_LEAVE_GROUP_REASON``), else the prefix of the given one (:func:`admin_remove_reason`).
ADMIN_REMOVE_REASON = "member was removed by an admin"
JOIN_REASON_COOPERATIVE_REVOKED = "need to revoke partitions and re-join (KIP-429)"
LEAVE_REASON_POLL_TIMEOUT = "consumer poll timeout has expired"
#: Java's ``unsubscribe()`` leave reason (a dynamic member).
LEAVE_REASON_UNSUBSCRIBED = "the consumer unsubscribed from all topics"
JOIN_REASON_SUBSCRIPTION_CHANGED = "the consumer subscription changed"


def enforced_join_reason(reasons: list[str]) -> str:
    """The JoinGroup reason of the enforces coalesced into one join (KIP-800): "rebalance
    enforced by user" for calls without a reason (which pass that default), else the given
    reasons after it, in call order.

    >>> enforced_join_reason(["rebalance enforced by user", "a", "b"])
    'rebalance enforced by user: a; b'
    """
    given = [r for r in reasons if r != JOIN_REASON_ENFORCED_PREFIX]
    if not given:
        return JOIN_REASON_ENFORCED_PREFIX
    return f"{JOIN_REASON_ENFORCED_PREFIX}: {'; '.join(given)}"


def admin_remove_reason(reason: str | None) -> str:
    """The LeaveGroup reason of an admin removal (KIP-800): "member was removed by an admin",
    followed by ``": <reason>"`` when one is given. (Java's admin client sends a given reason
    without the prefix; KIP-800's text prefixes it, and so do we, as for enforced rebalances.)

    >>> admin_remove_reason("scale-down")
    'member was removed by an admin: scale-down'
    """
    return ADMIN_REMOVE_REASON if reason is None else f"{ADMIN_REMOVE_REASON}: {reason}"


#: The leave reasons this client sends of its own accord (an application's ``stop(reason=...)``
#: is none of them).
OWN_LEAVE_REASONS = frozenset(
    {LEAVE_REASON_PREFIX, LEAVE_REASON_POLL_TIMEOUT, LEAVE_REASON_UNSUBSCRIBED}
)
