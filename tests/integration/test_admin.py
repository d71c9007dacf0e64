"""Group admin for static members (describe, remove by instance id) on the real broker."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from staticconsumer.admin import (
    DEFAULT_REMOVE_REASON,
    GroupDescription,
    GroupMemberDescription,
    describe_group,
    remove_members,
)
from staticconsumer.errors import UnknownMemberError
from staticconsumer.localkafka import KafkaCluster

from ._group import Member, owned, start_member, wait_stable, wait_until

REPO = Path(__file__).resolve().parents[2]
LONG_SESSION = {"session_timeout_ms": 60000}


def _members_by_instance(
    description: GroupDescription,
) -> dict[str | None, GroupMemberDescription]:
    return {m.group_instance_id: m for m in description.members}


def _left_with_reason(logs: str, group: str, instance_id: str, reason: str) -> bool:
    head = f"[Group {group}] Member {instance_id}-"
    tail = f"has left group through explicit `LeaveGroup` request; client reason: {reason}"
    return any(head in line and tail in line for line in logs.splitlines())


async def _stopped_all(members: list[Member]) -> None:
    for m in members:
        await m.stop()


async def test_remove_stopped_static_member_rebalances_now_and_broker_logs_reason(
    kafka_cluster: KafkaCluster,
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    a = await start_member(topic, kafka_bootstrap, group, "admin-a", **LONG_SESSION)
    b = await start_member(topic, kafka_bootstrap, group, "admin-b", **LONG_SESSION)
    try:
        await wait_stable([a, b], 4)
        await b.stop()  # a static member stays in the group (KIP-345): its partitions wait
        await asyncio.sleep(1.0)
        assert len(owned(a)) < 4, "without removal, b's partitions wait for the session timeout"
        reason = f"retired by test {group}"
        started = time.monotonic()
        result = await remove_members(kafka_bootstrap, group, ["admin-b"], reason=reason)
        assert result.removed == ("admin-b",)
        await wait_until(lambda: owned(a) == {0, 1, 2, 3}, 15, "a to own every partition")
        assert time.monotonic() - started < 15, "rebalance long before session.timeout.ms (60 s)"
        description = await describe_group(kafka_bootstrap, group)
        assert set(_members_by_instance(description)) == {"admin-a"}

        # What Kafka 4.3's GroupMetadataManager logs for each member of the batch (the member
        # id of a static member is "<instance id>-<uuid>"):
        #   [Group <g>] Member <member id> has left group through explicit `LeaveGroup`
        #   request; client reason: member was removed by an admin: <reason>   (KIP-800)
        def logged() -> bool:
            sent = f"member was removed by an admin: {reason}"
            return _left_with_reason(kafka_cluster.logs(), group, "admin-b", sent)

        await wait_until(logged, 10, "the broker to log the removal reason")
    finally:
        await _stopped_all([a])


async def test_remove_default_reason_is_javas(
    kafka_cluster: KafkaCluster,
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    unique_group_id: Callable[..., str],
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    a = await start_member(topic, kafka_bootstrap, group, "default-reason-a", **LONG_SESSION)
    await a.stop()
    await remove_members(kafka_bootstrap, group, ["default-reason-a"])

    def logged() -> bool:
        logs = kafka_cluster.logs()
        return _left_with_reason(logs, group, "default-reason-a", DEFAULT_REMOVE_REASON)

    await wait_until(logged, 10, "the broker to log the default reason")


async def test_remove_known_and_unknown_instance_ids(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    a = await start_member(topic, kafka_bootstrap, group, "mixed-a", **LONG_SESSION)
    b = await start_member(topic, kafka_bootstrap, group, "mixed-b", **LONG_SESSION)
    try:
        await wait_stable([a, b], 2)
        await b.stop()
        with pytest.raises(UnknownMemberError) as caught:
            await remove_members(kafka_bootstrap, group, ["mixed-b", "no-such-member"])
        assert caught.value.instance_ids == ("no-such-member",)
        assert "no-such-member" in str(caught.value)
        assert "mixed-b" in str(caught.value), "the message says which were removed"
        description = await describe_group(kafka_bootstrap, group)
        assert "mixed-b" not in _members_by_instance(description)
        assert "mixed-a" in _members_by_instance(description)
    finally:
        await _stopped_all([a])


async def test_describe_unknown_group_is_dead_and_empty(
    kafka_bootstrap: str, unique_group_id: Callable[..., str]
) -> None:
    group = unique_group_id()
    description = await describe_group(kafka_bootstrap, group)
    assert (description.group_id, description.state, description.members) == (group, "Dead", ())
    with pytest.raises(UnknownMemberError) as caught:
        await remove_members(kafka_bootstrap, group, ["ghost-1", "ghost-2"])
    assert caught.value.instance_ids == ("ghost-1", "ghost-2")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "staticconsumer", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


async def test_cli_describe_group_and_remove_members(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=3), unique_group_id()
    ids = ["cli-a", "cli-b", "cli-c"]
    members = [await start_member(topic, kafka_bootstrap, group, i, **LONG_SESSION) for i in ids]
    try:
        await wait_stable(members, 3)
        where = ("--bootstrap-server", kafka_bootstrap, "--group", group)

        table = await asyncio.to_thread(_cli, "describe-group", *where)
        assert table.returncode == 0, table.stderr
        assert "Stable" in table.stdout
        for i in ids:
            assert i in table.stdout
        assert f"{topic}-0" in table.stdout

        as_json = await asyncio.to_thread(_cli, "describe-group", *where, "--json")
        assert as_json.returncode == 0, as_json.stderr
        document = json.loads(as_json.stdout)
        assert document["state"] == "Stable" and document["protocol_type"] == "consumer"
        by_id = {m["group_instance_id"]: m for m in document["members"]}
        assert set(by_id) == set(ids)
        assigned = sorted(p["partition"] for m in by_id.values() for p in m["assignment"])
        assert assigned == [0, 1, 2]
        assert all(p["topic"] == topic for m in by_id.values() for p in m["assignment"])

        await members[2].stop()
        unknown = await asyncio.to_thread(
            _cli, "remove-members", *where, "--instance-id", "cli-nope", "--json"
        )
        assert unknown.returncode == 1, unknown.stderr
        assert json.loads(unknown.stdout) == {
            "group_id": group,
            "removed": [],
            "failed": [{"group_instance_id": "cli-nope", "error": "UNKNOWN_MEMBER_ID"}],
        }
        known = await asyncio.to_thread(
            _cli, "remove-members", *where, "--instance-id", "cli-c", "--reason", "cli test"
        )
        assert known.returncode == 0, known.stderr
        assert "cli-c" in known.stdout
        await wait_until(
            lambda: sum(len(owned(m)) for m in members[:2]) == 3, 15, "a and b to own all"
        )
    finally:
        await _stopped_all(members[:2])
