"""A member subscribed by pattern fetches the cluster's metadata before each join and joins with
the topics the pattern matches then (Java's ``ConsumerCoordinator.poll``, aiokafka's
``ensure_active_group``). Without it, a member that joins a rebalance another member started for
a new topic joins without that topic, and one more rebalance follows once its own metadata
catches up (aiokafka's ``test_consumer_rebalance_on_new_topic`` saw that rebalance hand out the
old topics alone, 3 runs in 5)."""

from __future__ import annotations

import asyncio

from staticconsumer.protocol import decode_subscription

from ._fakes import TOPIC, ScriptedAssignor, Subscription, classic_harness, wait_for


def _joined_topics(join: dict[str, object]) -> set[str]:
    protocols = join["protocols"]
    assert isinstance(protocols, list)
    return set(decode_subscription(protocols[0]["metadata"]).topics)


async def test_a_pattern_member_joins_with_the_topics_a_fresh_metadata_fetch_matches() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)), group_instance_id=None)
    h.seam.subscription = Subscription(frozenset({TOPIC}))
    h.seam.pattern_topics = frozenset({TOPIC, "t-new"})  # created; this member has not seen it
    h.driver.start()
    try:
        await wait_for(lambda: bool(h.coordinator.sent("SYNC_GROUP")), "the first generation")
        await asyncio.sleep(0.3)  # heartbeats (every 100 ms): a rejoin would have been sent
    finally:
        await h.driver.close()
    joins = h.coordinator.sent("JOIN_GROUP")
    # KIP-394: a dynamic member's first JoinGroup is answered MEMBER_ID_REQUIRED; it joins
    # again at once with its member id. Both carry the fresh topics; no further join follows.
    assert [_joined_topics(j) for j in joins] == [{TOPIC, "t-new"}] * 2
    assert h.seam.refreshes[0] == {TOPIC}  # fetched before the first join, with the old topics


async def test_a_member_subscribed_by_name_fetches_no_metadata_before_joining() -> None:
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    h.driver.start()
    try:
        await wait_for(lambda: bool(h.coordinator.sent("SYNC_GROUP")), "the first generation")
    finally:
        await h.driver.close()
    assert h.seam.refreshes == []
    assert [_joined_topics(j) for j in h.coordinator.sent("JOIN_GROUP")] == [{TOPIC}]
