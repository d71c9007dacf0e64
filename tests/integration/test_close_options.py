"""``stop(membership=...)``: Java 4.4's three membership operations on close (KIP-1092,
``CloseOptions.GroupMembershipOperation``), on a real broker and the three group protocols (a
streams thread: epoch -1 to leave, -2 to stay, Kafka 4.4), read back from the coordinator
(DescribeGroups / ConsumerGroupDescribe / StreamsGroupDescribe) right after ``stop()`` returns:

* ``remain_in_group``: a *dynamic* member stays a member (the coordinator would remove it only
  when its session times out); a static one stays as by default;
* ``leave_group``: a *static* member leaves at once (the group no longer lists its instance id);
* ``default``: a static member stays, a dynamic member leaves (KIP-345, aiokafka's behaviour).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from staticconsumer import StaticConsumer
from staticconsumer.admin import describe_group, describe_streams_group
from staticconsumer.protocol import StreamsTopology, Subtopology

CASES = [
    # (membership, static, stays a member after stop())
    ("remain_in_group", False, True),
    ("remain_in_group", True, True),
    ("leave_group", True, False),
    ("default", True, True),
    ("default", False, False),
]


async def _member_ids(bootstrap: str, group: str, group_protocol: str) -> set[str]:
    describe = describe_streams_group if group_protocol == "streams" else describe_group
    description = await describe(bootstrap, group)
    return {m.member_id for m in description.members}


def _protocol_options(group_protocol: str, topic: str) -> dict[str, object]:
    if group_protocol == "classic":  # a session far longer than the test: only a leave removes
        return {"session_timeout_ms": 60_000}
    if group_protocol == "streams":  # the broker's 10 s session: the test reads back at once
        return {"streams_topology": StreamsTopology(0, (Subtopology("0", source_topics=(topic,)),))}
    return {}


@pytest.mark.parametrize("group_protocol", ["classic", "consumer", "streams"])
@pytest.mark.parametrize(("membership", "static", "stays"), CASES)
async def test_stop_leaves_or_stays_as_its_membership_operation_says(
    group_protocol: str, membership: str, static: bool, stays: bool, kafka_bootstrap: str,
    topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=2), unique_group_id()
    consumer = StaticConsumer(
        topic, bootstrap_servers=kafka_bootstrap, group_id=group, group_protocol=group_protocol,
        group_instance_id="closer-0" if static else None, auto_offset_reset="earliest",
        **_protocol_options(group_protocol, topic),
    )  # fmt: skip
    await consumer.start()
    try:
        async with asyncio.timeout(30):
            while not consumer.assignment():
                await consumer.getmany(timeout_ms=200)
        member_id = consumer.member_id
        assert member_id in await _member_ids(kafka_bootstrap, group, group_protocol)
    finally:
        reason = "test" if membership == "leave_group" else None
        await consumer.stop(reason=reason, membership=membership)
    members = await _member_ids(kafka_bootstrap, group, group_protocol)
    assert (member_id in members) is stays, (membership, static, members)
