"""Log lines a reader can attribute, on the real broker (issue 22, ``docs/logging.md``): two
StaticConsumers of one group in one process; every line from the driver and the engine names
its own consumer's instance id and member id, in ``extra`` fields and in the message prefix."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from ._group import start_member, wait_stable


async def test_two_consumers_of_one_group_log_lines_that_name_each_of_them(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    caplog.set_level(logging.DEBUG, logger="staticconsumer")
    topic, group = topic_factory(partitions=4), unique_group_id()
    members = [await start_member(topic, kafka_bootstrap, group, f"la-{n}") for n in "ab"]
    try:
        await wait_stable(members, 4)
        member_ids = {m.consumer.group_instance_id: m.consumer.member_id for m in members}
    finally:
        for m in members:
            await m.stop()

    coordination = [r for r in caplog.records if r.name.startswith(
        ("staticconsumer.drivers.", "staticconsumer.membership."))]  # fmt: skip
    seen: dict[str, set[str]] = {"la-a": set(), "la-b": set()}
    for record in coordination:
        fields = record.__dict__
        instance, member = fields["group_instance_id"], fields["member_id"]
        assert fields["group_id"] == group and instance in seen, record.getMessage()
        assert member in ("", member_ids[instance]), (instance, member, record.getMessage())
        assert record.getMessage().startswith(
            f"[group={group} instance={instance} member={member or '-'}] "
        ), record.getMessage()
        seen[instance].add(record.name)
    for instance, loggers in seen.items():
        assert {"staticconsumer.drivers.driver", "staticconsumer.drivers.handover",
                "staticconsumer.membership._classic"} <= loggers, (instance, loggers)  # fmt: skip
    assert len(set(member_ids.values())) == 2 and all(member_ids.values())
