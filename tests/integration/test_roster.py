"""Pre-registration (issue 21 item 1) on the real broker: the roster's compacted topic, the
admin calls, describe-group, the CLI, and scale-down by unregistering with ``remove=True``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from staticconsumer.admin import (
    DEFAULT_ROSTER_TOPIC,
    delete_roster,
    describe_group,
    describe_roster,
    read_roster,
    register_members,
    set_roster,
    unregister_members,
)
from staticconsumer.errors import ConfigurationError, RosterUnreadableError

from ._group import owned, start_member, wait_stable, wait_until

REPO = Path(__file__).resolve().parents[2]
LONG_SESSION = {"session_timeout_ms": 60000}
IDS = ["svc-4", "svc-5", "svc-6", "svc-7"]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "staticconsumer", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


async def test_register_describe_change_and_delete(
    kafka_bootstrap: str, unique_group_id: Callable[..., str]
) -> None:
    group = unique_group_id()
    before = _now_ms()
    stored = await register_members(kafka_bootstrap, group, IDS, wait_ms=30_000)
    read = await describe_roster(kafka_bootstrap, group)
    assert read == stored
    assert read is not None and read.instance_ids == tuple(IDS)
    assert all(before <= read.registered_at_ms(i) <= _now_ms() for i in IDS)
    assert read.wait_ms == 30_000 and read.deadline_ms == read.updated_at_ms + 30_000
    first = read.registered_at_ms("svc-4")

    await asyncio.sleep(0.01)
    added = await register_members(kafka_bootstrap, group, ["svc-8", "svc-4"])
    assert added.instance_ids == (*IDS, "svc-8")
    assert added.registered_at_ms("svc-4") == first, "a re-registered id keeps its time"
    assert added.registered_at_ms("svc-8") > first and added.wait_ms == 30_000

    removed = await unregister_members(kafka_bootstrap, group, ["svc-5", "svc-6"])
    assert removed is not None and removed.instance_ids == ("svc-4", "svc-7", "svc-8")
    assert await read_roster(kafka_bootstrap, group) == removed

    replaced = await set_roster(kafka_bootstrap, group, ["svc-7", "svc-9"], wait_ms=5_000)
    assert replaced.instance_ids == ("svc-7", "svc-9") and replaced.wait_ms == 5_000
    assert await describe_roster(kafka_bootstrap, group) == replaced

    dry = await register_members(kafka_bootstrap, group, ["svc-10"], dry_run=True)
    assert "svc-10" in dry
    assert await describe_roster(kafka_bootstrap, group) == replaced, "a dry run writes nothing"

    assert await delete_roster(kafka_bootstrap, group) == replaced
    assert await describe_roster(kafka_bootstrap, group) is None, "a tombstone deletes it"
    assert await read_roster(kafka_bootstrap, group) is None
    assert await unregister_members(kafka_bootstrap, group, ["svc-7"]) is None


async def test_roster_in_describe_group_and_the_cli(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    a = await start_member(topic, kafka_bootstrap, group, "svc-0", **LONG_SESSION)
    try:
        await wait_stable([a], 2)
        shown = await asyncio.to_thread(
            _cli, "roster", "add", "--bootstrap-server", kafka_bootstrap, "--group", group,
            "--instance-id", "svc-0", "--instance-id", "svc-1", "--wait-ms", "1", "--json",
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["applied"] is False, "a dry run by default"
        assert await describe_roster(kafka_bootstrap, group) is None
        done = await asyncio.to_thread(
            _cli, "roster", "add", "--bootstrap-servers", kafka_bootstrap, "--group", group,
            "--instance-id", "svc-0", "--instance-id", "svc-1", "--wait-ms", "1", "--execute",
            "--timeout", "20000",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "svc-1  registered" in done.stdout

        description = await describe_group(kafka_bootstrap, group)
        assert description.roster is not None
        assert description.roster.missing == ("svc-1",)
        assert description.roster.expired is True  # wait_ms=1 has run out
        assert [i for i, _ in description.roster.registered] == ["svc-0", "svc-1"]

        listed = await asyncio.to_thread(
            _cli, "describe-group", "--bootstrap-servers", kafka_bootstrap, "--group", group,
            "--json",
        )  # fmt: skip
        document = json.loads(listed.stdout)
        assert {"group_id", "state", "protocol_type", "protocol", "members"} <= set(document)
        assert document["roster"]["missing"] == ["svc-1"]
        assert document["roster"]["expired"] is True
        ids = [r["group_instance_id"] for r in document["roster"]["registered"]]
        assert ids == ["svc-0", "svc-1"]
        table = await asyncio.to_thread(
            _cli, "describe-group", "--bootstrap-servers", kafka_bootstrap, "--group", group
        )
        assert "MISSING   svc-1 (registered " in table.stdout and "ran out" in table.stdout

        show = await asyncio.to_thread(
            _cli, "roster", "show", "--bootstrap-server", kafka_bootstrap, "--group", group,
            "--json",
        )  # fmt: skip
        assert [r["group_instance_id"] for r in json.loads(show.stdout)["roster"]["registered"]] \
            == ["svc-0", "svc-1"]  # fmt: skip
        gone = await asyncio.to_thread(
            _cli, "roster", "delete", "--bootstrap-server", kafka_bootstrap, "--group", group,
            "--execute",
        )  # fmt: skip
        assert gone.returncode == 0, gone.stderr
        assert (await describe_group(kafka_bootstrap, group)).roster is None
    finally:
        await a.stop()


async def test_unregister_with_remove_moves_partitions_at_once(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    await register_members(kafka_bootstrap, group, ["down-a", "down-b"])
    a = await start_member(topic, kafka_bootstrap, group, "down-a", **LONG_SESSION)
    b = await start_member(topic, kafka_bootstrap, group, "down-b", **LONG_SESSION)
    try:
        await wait_stable([a, b], 4)
        await b.stop()  # the pod is gone; a static member stays in the group (KIP-345)
        await asyncio.sleep(1.0)
        assert len(owned(a)) < 4, "without removal, b's partitions wait for the session timeout"
        started = time.monotonic()
        left = await unregister_members(kafka_bootstrap, group, ["down-b"], remove=True)
        assert left is not None and left.instance_ids == ("down-a",)
        await wait_until(lambda: owned(a) == {0, 1, 2, 3}, 15, "a to own every partition")
        assert time.monotonic() - started < 15, "long before session.timeout.ms (60 s)"
        members = (await describe_group(kafka_bootstrap, group)).members
        assert [m.group_instance_id for m in members] == ["down-a"]
    finally:
        await a.stop()


async def test_a_roster_that_cannot_be_read(
    kafka_bootstrap: str, unique_group_id: Callable[..., str]
) -> None:
    group = unique_group_id()
    missing_topic = f"no-rosters-{uuid.uuid4().hex[:8]}"
    assert await read_roster(kafka_bootstrap, group, roster_topic=missing_topic) is None
    assert await describe_roster(kafka_bootstrap, group, roster_topic=missing_topic) is None
    assert (await describe_group(kafka_bootstrap, group, roster_topic=missing_topic)).roster is None
    with pytest.raises(RosterUnreadableError, match="could not be read"):
        await read_roster("127.0.0.1:1", group, timeout_s=0.5)  # nobody listens there
    with pytest.raises(ConfigurationError, match="instance_ids"):
        await register_members(kafka_bootstrap, group, ["bad id"])
    # A record of a newer format is unreadable, never guessed at; delete still clears it.
    from aiokafka import AIOKafkaProducer

    await register_members(kafka_bootstrap, group, ["svc-0"])  # creates the default topic
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
    await producer.start()
    try:
        newer = {"version": 2, "group_id": group, "instance_ids": {}, "updated_at_ms": 0,
                 "wait_ms": 0}  # fmt: skip
        await producer.send_and_wait(
            DEFAULT_ROSTER_TOPIC, json.dumps(newer).encode(), key=group.encode()
        )
    finally:
        await producer.stop()
    with pytest.raises(RosterUnreadableError, match="version 2") as caught:
        await read_roster(kafka_bootstrap, group, timeout_s=10)
    assert caught.value.topic == DEFAULT_ROSTER_TOPIC
    assert (await describe_group(kafka_bootstrap, group)).roster is None  # a warning, no failure
    assert await delete_roster(kafka_bootstrap, group) is None
    assert await read_roster(kafka_bootstrap, group, timeout_s=10) is None
