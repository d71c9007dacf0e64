"""A pre-registered scale-up under the consumer protocol (KIP-848) on the secured broker, with
the literal ACLs a managed cluster hands out: its topic, its group and the roster topic, nothing
else (issue 31). Since Kafka 4.0 the coordinator checks DESCRIBE on every subscribed topic name
(KAFKA-18813): a member that subscribed to any name but its topic's was refused
(TOPIC_AUTHORIZATION_FAILED) in ``start()``. Every arrival starts and gets partitions."""

from __future__ import annotations

import asyncio
import uuid

from staticconsumer import StaticConsumer
from staticconsumer.admin import register_members
from staticconsumer.localkafka import create_topic
from staticconsumer.localkafka._acls import Acl, create_acls
from staticconsumer.roster import DEFAULT_ROSTER_TOPIC

from .conftest import SecuredKafka

PARTITIONS = 4
START_BOUND_S = 90.0


def _literal_acls(user: str, topic: str, group: str) -> list[Acl]:
    principal = f"User:{user}"
    return [
        Acl(principal, "topic", topic), Acl(principal, "group", group),
        Acl(principal, "topic", DEFAULT_ROSTER_TOPIC, "describe"),
        Acl(principal, "topic", DEFAULT_ROSTER_TOPIC, "read"),
        Acl(principal, "topic", DEFAULT_ROSTER_TOPIC, "write"),
    ]  # fmt: skip


async def test_a_registered_kip_848_scale_up_starts_every_arrival_under_literal_acls(
    secured_kafka: SecuredKafka,
) -> None:
    kafka, suffix = secured_kafka, uuid.uuid4().hex[:8]
    topic, group = f"t-scale-{suffix}", f"g-scale-{suffix}"
    admin = kafka.settings("admin")
    await create_topic(kafka.bootstrap, topic, partitions=PARTITIONS, security=admin)
    running, arriving = ["r-0", "r-1"], ["a-0", "a-1"]
    await create_acls(kafka.bootstrap, admin, _literal_acls("limited", topic, group))
    limited = kafka.settings("limited").aiokafka_kwargs()

    def member(instance_id: str) -> StaticConsumer:
        return StaticConsumer(topic, bootstrap_servers=kafka.bootstrap, group_id=group,
                              group_instance_id=instance_id, group_protocol="consumer",
                              roster_topic=DEFAULT_ROSTER_TOPIC, **limited)  # fmt: skip

    members = [member(i) for i in running]
    try:
        for m in members:
            await asyncio.wait_for(m.start(), START_BOUND_S)
        await register_members(kafka.bootstrap, group, running + arriving, security=admin)
        newcomers = [member(i) for i in arriving]
        members += newcomers
        await asyncio.wait_for(asyncio.gather(*(m.start() for m in newcomers)), START_BOUND_S)
        for m in newcomers:
            assert m.membership.in_group, m.membership
        async with asyncio.timeout(60):
            while sorted(len(m.assignment()) for m in members) != [1] * PARTITIONS:  # noqa: ASYNC110
                await asyncio.sleep(0.2)
    finally:
        for m in members:
            await m.stop()
