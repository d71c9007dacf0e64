"""A group that never registers a roster needs no ACL on the roster topic (issue 31): on the
secured broker, a principal with literal ACLs on its topic and its group only runs a classic
static group, and no line mentions a roster. Before issue 31 its leader read
``_staticconsumer_rosters`` at every rebalance it led and logged ``planning without the group's
roster: ... TOPIC_AUTHORIZATION_FAILED`` as a WARNING.

Its own module, so its secured broker is fresh: ``limited`` has no roster ACL from another test.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest

from staticconsumer import StaticConsumer
from staticconsumer.localkafka import create_topic
from staticconsumer.localkafka._acls import Acl, create_acls

from .conftest import SecuredKafka

PARTITIONS = 4
START_BOUND_S = 90.0


async def test_a_group_without_a_roster_needs_no_roster_acl_and_logs_no_roster_line(
    secured_kafka: SecuredKafka, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="staticconsumer")
    kafka, suffix = secured_kafka, uuid.uuid4().hex[:8]
    topic, group = f"t-plain-{suffix}", f"g-plain-{suffix}"
    admin = kafka.settings("admin")
    await create_topic(kafka.bootstrap, topic, partitions=PARTITIONS, security=admin)
    principal = "User:limited"
    await create_acls(kafka.bootstrap, admin, [Acl(principal, "topic", topic),
                                               Acl(principal, "group", group)])  # fmt: skip
    limited = kafka.settings("limited").aiokafka_kwargs()
    members = [StaticConsumer(topic, bootstrap_servers=kafka.bootstrap, group_id=group,
                              group_instance_id=f"p-{i}", session_timeout_ms=30_000, **limited)
               for i in range(2)]  # fmt: skip
    try:
        for m in members:  # the second join makes the leader plan a second time
            await asyncio.wait_for(m.start(), START_BOUND_S)
        async with asyncio.timeout(60):
            while sorted(len(m.assignment()) for m in members) != [2, 2]:  # noqa: ASYNC110
                await asyncio.sleep(0.2)
        said = [r.getMessage() for r in caplog.records if "roster" in r.getMessage().lower()]
        assert said == []
    finally:
        for m in members:
            await m.stop()
