"""``staticconsumer demo`` and the Streams-like app it runs (``staticconsumer/streams_app``).

The demo runs as users run it (``python -m staticconsumer demo --json``, a subprocess from the
repository root) against the test broker, once with static membership and once ``--dynamic``; the
pure parts (aggregation, sqlite store, reference check, summary tallies) are tested directly.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from staticconsumer import StaticConsumer
from staticconsumer._demo import _data
from staticconsumer._demo._scenario import DemoOptions, Scenario
from staticconsumer._demo._summary import tally
from staticconsumer.admin import remove_members
from staticconsumer.streams_app.aggregate import (
    Aggregate,
    decode_changelog,
    encode_changelog,
    encode_output,
    fold,
    parse_input,
)
from staticconsumer.streams_app.aggregate import reference as app_reference
from staticconsumer.streams_app.config import AppConfig
from staticconsumer.streams_app.membership import consumer_options
from staticconsumer.streams_app.standby import CATCH_UP_INTERVAL_S
from staticconsumer.streams_app.store import PartitionStore

from .._kafka_tools import set_group_config

REPO = Path(__file__).resolve().parents[2]
#: Generous bound for a shared 2-core CI machine; a run takes about 10 s on an idle one.
DEMO_TIMEOUT_S = 300


def run_demo(bootstrap: str, *extra: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "staticconsumer",
            "demo",
            "--json",
            "--bootstrap-servers",
            bootstrap,
            "--records",
            "1500",
            *extra,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"demo exited {done.returncode}\n{done.stderr[-4000:]}"
    doc: dict[str, Any] = json.loads(done.stdout)
    assert "rolling restart of app-1" in done.stderr, "progress is shown on stderr"
    return doc


def assert_exact(doc: dict[str, Any]) -> None:
    check = doc["check"]
    assert check["output_matches_reference"], check["mismatches"]
    assert check["changelog_matches_reference"], check["mismatches"]
    assert check["keys"] == _data.KEYS
    assert doc["records_produced"] == 3000
    assert doc["records_processed"] == doc["records_produced"], "each record folded in once"
    assert check["passed"] and doc["ok"]
    assert set(doc["exit_codes"].values()) == {0}, "every app process stopped cleanly"


# -- the demo on the real broker -------------------------------------------------------------------


def test_demo_static_restart_keeps_generation_partitions_and_state(kafka_bootstrap: str) -> None:
    doc = run_demo(kafka_bootstrap)
    assert doc["mode"] == "static"
    assert_exact(doc)
    assert doc["generation_after"] == doc["generation_before"], "no rebalance"
    assert doc["rebalances_seen"] == 0
    assert doc["partitions_after"] == doc["partitions_before"], "same partitions per instance id"
    assert sorted(doc["partitions_before"]) == [
        f"demo-app-{p}-thread-{t}" for p in (0, 1) for t in (0, 1)
    ]
    restart = doc["restart"]
    assert restart["process"] == "app-1"
    assert len(restart["partitions"]) > 0
    assert restart["reused"] == len(restart["partitions"]), "state reused for every partition"
    assert restart["restored"] == 0 and restart["restored_records"] == 0
    assert doc["state_during_restart"]["restored"] == 0, "nobody restored anything"
    assert doc["expectation_met"]


def test_demo_dynamic_restart_rebalances_and_restores(kafka_bootstrap: str) -> None:
    doc = run_demo(kafka_bootstrap, "--dynamic")
    assert doc["mode"] == "dynamic"
    assert_exact(doc)
    assert doc["generation_after"] > doc["generation_before"], "the restart rebalanced"
    assert doc["rebalances_seen"] >= 1
    assert doc["state_during_restart"]["restored"] > 0, "moved partitions were restored"
    assert doc["expectation_met"]


def test_demo_on_a_streams_group_static_threads_keep_their_tasks(kafka_bootstrap: str) -> None:
    """``--protocol streams`` (KIP-1071, Kafka 4.4 static members): threads ``<base>-<n>``
    from 1 as Java's Kafka Streams names them, tasks assigned by the broker, the changelog the
    broker's; a rolling restart moves no task, bumps no epoch, and reuses every state."""
    doc = run_demo(kafka_bootstrap, "--protocol", "streams")
    assert doc["mode"] == "static" and doc["protocol"] == "streams"
    assert_exact(doc)
    assert sorted(doc["partitions_before"]) == [f"demo-app-{p}-{t}" for p in (0, 1) for t in (1, 2)]
    assert doc["generation_after"] == doc["generation_before"], "the group epoch moved"
    assert doc["rebalances_seen"] == 0
    assert doc["partitions_after"] == doc["partitions_before"], "a task moved"
    restart = doc["restart"]
    assert restart["reused"] == len(restart["partitions"]) > 0, "state reused for every task"
    assert restart["restored"] == 0 and doc["state_during_restart"]["restored"] == 0
    assert doc["expectation_met"]


def test_demo_on_a_streams_group_dynamic_threads_move_tasks_to_their_standbys(
    kafka_bootstrap: str,
) -> None:
    """Without instance ids the restart moves tasks (new epochs); with one standby per task
    (the test broker's group.streams.num.standby.replicas) a moved task's state is already
    where it lands: what is restored is at most the changelog's tail."""
    doc = run_demo(kafka_bootstrap, "--protocol", "streams", "--dynamic")
    assert doc["mode"] == "dynamic" and doc["protocol"] == "streams"
    assert_exact(doc)
    assert doc["generation_after"] > doc["generation_before"], "the restart moved tasks"
    assert doc["standby_records"] > 0, "the standbys followed their changelogs"
    assert doc["expectation_met"]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
async def test_app_aggregates_stay_exact_when_a_process_is_killed_mid_stream(
    dynamic: bool, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """SIGKILL (no last commit, maybe between the changelog and sqlite writes, or between sqlite
    and the commit), restart: the final aggregates are still exact."""
    options = DemoOptions(dynamic=dynamic, records=1500, session_timeout_ms=6000)
    s = Scenario(kafka_bootstrap, options, tmp_path, say=lambda message: None)
    rng = random.Random(6)
    await s.create_topics()
    try:
        await s.produce(_data.sample_records(1500, rng))
        await s.warm_up()
        victim = next(a for a in s.live() if a.label == "app-1")
        before = victim.counter("processed")
        producing = asyncio.create_task(s.produce_paced(_data.sample_records(1500, rng)))
        await s.until("app-1 to be busy", lambda: victim.counter("processed") > before, 60)
        await victim.kill()
        restarted = await s.start_app(1)
        await s.until(
            "the restarted app-1 in a stable group",
            lambda: restarted.threads and s.stable(s.live()),
            90,
        )
        await producing
        await s.wait_processed("every record to be processed")
        for app in s.live():
            assert await app.terminate() == 0
        for app in s.apps:  # each thread says once when it first folds a record in
            said = [doc["thread"] for doc in app.events if doc["event"] == "processing"]
            busy = {t for t, stats in app.stats.items() if stats["processed"] > 0}
            assert len(said) == len(set(said)) and busy <= set(said), app.label
        expected = _data.reference(s.produced)
        for kind in ("output", "changelog"):
            records = await _data.read_topic(kafka_bootstrap, s.topics[kind], options.partitions)
            got = _data.latest_per_key(records)
            assert _data.mismatches(expected, got) == [], kind
    finally:
        for app in s.apps:
            await app.terminate()
        await s.close()
        await s.clean_up_cluster()


async def test_app_with_one_standby_a_moved_task_restores_only_the_tail_without_all(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    """The same move twice (streams protocol, two processes, one leaves for good): on a group
    with one standby per task (the test broker's ``group.streams.num.standby.replicas``) the
    tasks land on stores that followed their changelogs, and what is restored is at most the
    tail; on a group set to none (``streams.num.standby.replicas=0``, set with Kafka's own
    kafka-configs.sh) the whole changelog of each moved task is replayed."""
    with_standby = await _move_app_1_s_tasks(kafka_bootstrap, tmp_path / "one", standbys=None)
    without = await _move_app_1_s_tasks(kafka_bootstrap, tmp_path / "none", standbys=0)
    assert without["restored_records"] > 0 and without["reused"] == 0, without
    assert with_standby["reused"] > 0, with_standby
    assert with_standby["restored_records"] * 10 <= without["restored_records"], (
        with_standby, without)  # fmt: skip
    print(f"with one standby {with_standby}; with none {without}")


async def _move_app_1_s_tasks(
    bootstrap: str, workdir: Path, standbys: int | None
) -> dict[str, int]:
    """app-0 and app-1 join, then fold 1000 records; app-1 stops for good (dynamic: its threads
    leave at once); how app-0's threads came by app-1's tasks: reused stores, restored stores
    and changelog records replayed."""
    options = DemoOptions(dynamic=True, records=1000, protocol="streams")
    await asyncio.to_thread(workdir.mkdir)
    s = Scenario(bootstrap, options, workdir, say=lambda message: None)
    await s.create_topics()
    if standbys is not None:
        key = "streams.num.standby.replicas"
        await asyncio.to_thread(set_group_config, bootstrap, s.group, key, str(standbys))
    try:
        await s.warm_up()  # nothing produced yet: each app's state is only its own tasks'
        await s.produce(_data.sample_records(1000, random.Random(8)))
        await s.wait_processed("the 1000 records to be processed")
        app0, app1 = s.live()
        # The standbys read their changelogs each second (CATCH_UP_INTERVAL_S): give them two
        # rounds past the last write; what they missed would be restored, and counted.
        await asyncio.sleep(2 * CATCH_UP_INTERVAL_S + 1)
        seen = len(app0.events)
        assert await app1.terminate() == 0
        await s.until("app-0 holding every task", lambda: s.stable([app0]), 90)
        moved = [state for doc in app0.events[seen:] if doc["event"] == "assigned"
                 for state in doc["states"].values()]  # fmt: skip
        assert moved, "app-0 was handed none of app-1's tasks"
        return {"moved": len(moved),
                "reused": sum(st["outcome"] == "reused" for st in moved),
                "restored_records": sum(int(st["restored_records"]) for st in moved)}  # fmt: skip
    finally:
        for app in s.apps:
            await app.terminate()
        await s.close()
        await s.clean_up_cluster()


async def test_app_on_a_streams_group_stops_when_the_application_is_asked_to_shut_down(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    """Another thread of the application (here the test's, with the app's topology) asks the
    whole application to shut down (KIP-1071's ShutdownApplication): every app process hears
    SHUTDOWN_APPLICATION, says so, and stops cleanly."""
    s = Scenario(kafka_bootstrap, DemoOptions(protocol="streams", records=200), tmp_path,
                 say=lambda message: None)  # fmt: skip
    await s.create_topics()
    try:
        await s.produce(_data.sample_records(200, random.Random(9)))
        await s.warm_up()
        apps = s.live()
        config = AppConfig(kafka_bootstrap, s.group, "asker", 1, tmp_path / "asker",
                           s.topics["input"], s.topics["output"], s.topics["changelog"],
                           group_protocol="streams")  # fmt: skip
        asker = StaticConsumer(**consumer_options(config, 1))
        await asker.start()
        try:
            assert asker.streams is not None
            asker.streams.request_application_shutdown("test: the application must stop")
            await s.until("every app process to stop", lambda: not any(a.running for a in apps),
                          60)  # fmt: skip
        finally:
            await asker.stop()
        for app in apps:
            assert app.returncode == 0, app.log_tail()
            assert any(doc["event"] == "shutdown_requested" for doc in app.events), app.label
    finally:
        for app in s.apps:
            await app.terminate()
        await s.close()
        await s.clean_up_cluster()


async def test_app_catches_up_stale_state_and_skips_rewound_input(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    """Deterministic versions of the two crash windows: app-1's sqlite state loses its last
    writes (the changelog is ahead of it) and the group's input offsets go back to 0 (the state
    is ahead of them). Restarted, app-1 replays the changelog from its checkpoint and both apps
    skip every input record they already hold: the aggregates stay exact."""
    options = DemoOptions(records=1000)
    s = Scenario(kafka_bootstrap, options, tmp_path, say=lambda message: None)
    rng = random.Random(7)
    await s.create_topics()
    try:
        await s.produce(_data.sample_records(1000, rng))
        await s.warm_up()
        app1 = next(a for a in s.live() if a.label == "app-1")
        assert await app1.terminate() == 0
        state = tmp_path / "state" / "app-1"
        shutil.copytree(state, tmp_path / "stale")
        await s.start_app(1)
        await s.produce(_data.sample_records(1000, rng))
        await s.wait_processed("the second batch to be processed")
        for app in s.live():
            assert await app.terminate() == 0
        ids = [f"demo-app-{p}-thread-{t}" for p in (0, 1) for t in (0, 1)]
        await remove_members(kafka_bootstrap, s.group, ids, reason="test rewinds offsets")
        shutil.rmtree(state)
        shutil.move(tmp_path / "stale", state)  # app-1's state is now behind the changelog
        await rewind_to_zero(kafka_bootstrap, s.group, s.topics["input"], options.partitions)

        first = len(s.apps)
        await s.warm_up()  # waits until the group has committed everything again
        for app in s.live():
            assert await app.terminate() == 0
        again = s.apps[first:]
        outcomes = {
            (app.label.split()[0], p): state["outcome"]
            for app in again
            for doc in app.events
            if doc["event"] == "assigned"
            for p, state in doc["states"].items()
        }
        restored = {p for (label, p), o in outcomes.items() if label == "app-1" and o == "restored"}
        assert restored, f"app-1 replayed the changelog over its stale state: {outcomes}"
        assert sum(app.counter("skipped") for app in again) == len(s.produced)
        assert sum(app.counter("processed") for app in again) == 0, "nothing counted twice"
        expected = _data.reference(s.produced)
        for kind in ("output", "changelog"):
            records = await _data.read_topic(kafka_bootstrap, s.topics[kind], options.partitions)
            assert _data.mismatches(expected, _data.latest_per_key(records)) == [], kind
    finally:
        for app in s.apps:
            await app.terminate()
        await s.close()
        await s.clean_up_cluster()


async def rewind_to_zero(bootstrap: str, group: str, topic: str, partitions: int) -> None:
    """Commit offset 0 for every partition (the group must be empty)."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        consumer.assign(tps)
        await consumer.commit(dict.fromkeys(tps, 0))
    finally:
        await consumer.stop()


def test_app_runs_as_a_script_and_rejects_bad_arguments() -> None:
    common = [
        "--bootstrap-servers",
        "127.0.0.1:1",
        "--group",
        "g",
        "--state-dir",
        "/tmp/x",
        "--input-topic",
        "i",
        "--output-topic",
        "o",
        "--changelog-topic",
        "c",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "examples.streams_app", *common, "--instance-base", "bad id!"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--instance-base" in done.stderr and "group.instance.id" in done.stderr


# -- pure parts ------------------------------------------------------------------------------------


def test_fold_counts_and_sums_per_key_and_skips_what_the_state_holds() -> None:
    records = [
        parse_input(o, k, v)
        for o, k, v in [
            (5, b"a", b"10"),
            (6, b"b", b"1"),
            (7, b"a", b"-3"),
            (8, None, b"4"),
            (9, b"a", b"x"),
        ]
    ]
    result = fold({"a": Aggregate(2, 100, 4)}, records, applied_offset=5)
    assert result.skipped == 1, "offset 5 is already in the state"
    assert result.applied == 2 and result.bad == 2
    assert result.updates == {"b": Aggregate(1, 1, 6), "a": Aggregate(3, 97, 7)}
    assert result.last_offset == 9, "malformed records still advance the applied offset"
    assert [k for k, _ in result.changelog_order()] == ["b", "a"], "in input-offset order"


def test_fold_replayed_from_any_point_gives_the_same_state() -> None:
    pairs = [("k1", 3), ("k2", 5), ("k1", 7), ("k3", 1), ("k2", 2)]
    records = [parse_input(o, k.encode(), str(v).encode()) for o, (k, v) in enumerate(pairs)]
    whole = fold({}, records, -1).updates
    first = fold({}, records[:3], -1).updates
    replay = fold(first, records, applied_offset=2)  # a restart re-reads from offset 0
    assert {**first, **replay.updates} == whole
    assert replay.skipped == 3
    assert {k: (a.count, a.sum) for k, a in whole.items()} == app_reference(pairs)


def test_record_formats_round_trip() -> None:
    agg = Aggregate(3, 42, 17)
    assert decode_changelog(encode_changelog(agg)) == agg
    assert _data.latest_per_key([("k", encode_output("k", agg, 2))]) == {"k": (3, 42)}


def test_partition_store_keeps_state_and_positions_across_reopen(tmp_path: Path) -> None:
    store = PartitionStore(tmp_path, "in", 3)
    assert not store.existed
    assert (store.applied_offset, store.changelog_next) == (-1, 0)
    store.write({"a": Aggregate(1, 5, 0)}, applied_offset=0, changelog_next=1)
    store.write({"b": Aggregate(1, 2, 1)}, applied_offset=1, changelog_next=2)
    store.close()
    again = PartitionStore(tmp_path, "in", 3)
    assert again.existed
    assert again.all() == {"a": Aggregate(1, 5, 0), "b": Aggregate(1, 2, 1)}
    assert again.get_many(["b", "zz"]) == {"b": Aggregate(1, 2, 1)}
    assert (again.applied_offset, again.changelog_next) == (1, 2)
    again.write({"c": Aggregate(9, 9, 9)}, applied_offset=9, changelog_next=4, wipe=True)
    assert again.all() == {"c": Aggregate(9, 9, 9)}
    again.close()


def test_latest_per_key_keeps_the_highest_input_offset_not_the_last_record() -> None:
    def out(count: int, total: int, offset: int) -> bytes:
        return json.dumps({"count": count, "sum": total, "offset": offset}).encode()

    # at-least-once output: an older value written again after a newer one
    values = [("a", out(1, 5, 0)), ("a", out(2, 9, 4)), ("a", out(1, 5, 0)), ("b", out(1, 1, 2))]
    assert _data.latest_per_key(values) == {"a": (2, 9), "b": (1, 1)}


def test_reference_and_mismatches() -> None:
    import random

    pairs = _data.sample_records(500, random.Random(_data.SEED))
    assert pairs == _data.sample_records(500, random.Random(_data.SEED)), "seeded: same data"
    expected = _data.reference(pairs)
    assert sum(c for c, _ in expected.values()) == 500
    assert _data.mismatches(expected, dict(expected)) == []
    wrong = {**expected, "user-00": (0, 0)}
    wrong.pop("user-01", None)
    found = _data.mismatches(expected, wrong)
    assert any(m.startswith("user-00:") for m in found)
    assert any(m.startswith("user-01:") and m.endswith("got None") for m in found)


@pytest.mark.parametrize(
    ("states", "want"),
    [
        ({}, {"reused": 0, "restored": 0, "fresh": 0, "restored_records": 0}),
        (
            {
                "0": {"outcome": "reused", "restored_records": 0},
                "1": {"outcome": "restored", "restored_records": 7},
                "2": {"outcome": "fresh", "restored_records": 0},
            },
            {"reused": 1, "restored": 1, "fresh": 1, "restored_records": 7},
        ),
    ],
)
def test_tally(states: dict[str, Any], want: dict[str, int]) -> None:
    assert tally([{"event": "assigned", "states": states}]) == want
