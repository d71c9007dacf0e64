"""Group admin on a KIP-848 consumer group (``group_protocol="consumer"``), on the real broker:
``describe_group`` reads ConsumerGroupDescribe (member epochs, instance ids, assignments and
target assignments) and ``remove_members`` removes a stopped static member by instance id, whose
partitions then go to the others at once; a group deleted under a live member is made anew when
the member joins again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka.client import AIOKafkaClient
from aiokafka.protocol.admin import ApiVersionRequest, DeleteGroupsRequest

from staticconsumer.admin import describe_group, remove_members
from staticconsumer.membership import Reaction

from ._group import owned, wait_until
from .test_consumer_protocol import settled, start


async def test_describe_and_remove_members_of_a_consumer_group(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a, b = [await start(topic, kafka_bootstrap, group, f"adm-{n}") for n in "ab"]
    try:
        await settled([a, b], 4)
        description = await describe_group(kafka_bootstrap, group)
        assert description.group_protocol == "consumer" and description.state == "Stable"
        assert description.protocol in ("uniform", "range")  # the broker assignor
        assert description.group_epoch is not None and description.group_epoch > 0
        by_id = {m.group_instance_id: m for m in description.members}
        assert set(by_id) == {"adm-a", "adm-b"}
        for member, consumer in ((by_id["adm-a"], a.consumer), (by_id["adm-b"], b.consumer)):
            assert member.member_id == consumer.member_id
            assert member.member_epoch == consumer.generation_id
            mine = tuple(sorted((tp.topic, tp.partition) for tp in consumer.assignment()))
            assert member.assignment == member.target_assignment == mine
        document = description.to_dict()
        assert document["group_protocol"] == "consumer"
        assert document["members"][0]["member_epoch"] == by_id["adm-a"].member_epoch

        await b.stop()  # epoch -2: its partitions wait for it
        await asyncio.sleep(1.5)
        assert len(owned(a)) == 2
        result = await remove_members(kafka_bootstrap, group, ["adm-b"], reason="scale down")
        assert result.removed == ("adm-b",)
        await wait_until(lambda: owned(a) == {0, 1, 2, 3}, 15, "a to own every partition")
        after = await describe_group(kafka_bootstrap, group)
        assert [m.group_instance_id for m in after.members] == ["adm-a"]
    finally:
        await a.stop()
        await b.stop()


async def test_a_classic_group_is_still_described_by_describe_groups(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    from ._group import start_member, wait_stable

    topic, group = topic_factory(partitions=2), unique_group_id()
    m = await start_member(topic, kafka_bootstrap, group, "classic-a")
    try:
        await wait_stable([m], 2)
        description = await describe_group(kafka_bootstrap, group)
        assert description.group_protocol == "classic" and description.group_epoch is None
        assert description.protocol == "range" and len(description.members) == 1
        assert "group_epoch" not in description.to_dict()
    finally:
        await m.stop()


async def test_a_live_member_removed_by_an_admin_loses_its_partitions_and_joins_again(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    """The coordinator forgets the member (UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH on its next
    heartbeat): not fatal; its partitions are revoked as lost (nothing committed for them), and
    it joins again at epoch 0 with the same member id and gets partitions back."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    m = await start(topic, kafka_bootstrap, group, "removed")
    try:
        await settled([m], 2)
        member_id, lost_before = m.consumer.member_id, len(m.listener.revoked)
        await remove_members(kafka_bootstrap, group, ["removed"], reason="test")
        await wait_until(lambda: len(m.listener.revoked) > lost_before, 15,
                         "the partitions to be revoked as lost")  # fmt: skip
        await settled([m], 2)
        assert m.consumer.fatal_error is None and m.consumer.member_id == member_id
    finally:
        await m.stop()


async def test_a_member_whose_group_was_deleted_joins_again(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """Issue 35: an operator removes a member and deletes its (then empty) group, as
    ``kafka-consumer-groups.sh --delete`` does. The member's next heartbeat, at its old epoch, is
    answered GROUP_ID_NOT_FOUND (in ConsumerGroupHeartbeat's spec from Kafka 4.4): it joins again
    at epoch 0, which makes the group anew, and gets its partitions back (it raised the error on
    every poll and never came back). The deletion races the member's 500 ms heartbeat, so it is
    tried until a heartbeat found the group gone."""
    topic, group = topic_factory(partitions=2), unique_group_id()
    client = AIOKafkaClient(bootstrap_servers=kafka_bootstrap)
    await client.bootstrap()
    node_id = next(iter(client.cluster.brokers())).nodeId  # one broker: the coordinator
    await client.send(node_id, ApiVersionRequest())  # connected before the race below
    m = await start(topic, kafka_bootstrap, group, "deleted")
    try:
        await settled([m], 2)
        for _ in range(5):
            lost_before = len(m.listener.revoked)
            await remove_members(kafka_bootstrap, group, ["deleted"], reason="test")
            answer = await client.send(node_id, DeleteGroupsRequest([group]))
            deleted = [code for name, code in answer.results if name == group] == [0]
            await wait_until(lambda before=lost_before: len(m.listener.revoked) > before, 15,
                             "the partitions to be revoked as lost")  # fmt: skip
            await settled([m], 2)
            if deleted and "GROUP_ID_NOT_FOUND" in caplog.text:
                break
        assert f"ConsumerGroupHeartbeat failed: GROUP_ID_NOT_FOUND -> {Reaction.RESET.value}" in (
            caplog.text
        )
        assert m.consumer.fatal_error is None and owned(m) == {0, 1}
        assert (await describe_group(kafka_bootstrap, group)).state == "Stable"
    finally:
        await m.stop()
        await client.close()
