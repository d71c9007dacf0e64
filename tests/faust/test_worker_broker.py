"""faust's real worker (``faust worker`` through ``app.main()``, in subprocesses) with
``StaticApp`` on a real broker (the scenarios of ``_scenario.py``): a duplicated worker stops
the older holder; a rolling restart rebalances and restores nothing; a worker away past its
session gets its own tables back; a third worker joining two moves the fewest partitions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from staticconsumer.localkafka import KafkaCluster, LocalKafkaCluster

from ..reliability._harness import rebalance_reasons
from ._harness import PARTITIONS, Settings
from ._scenario import away_and_back, duplicated_worker, rolling_restart, scale_up

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(400)]


def _settings(
    kafka_cluster: KafkaCluster, group: str, log_dir: Path, kind: str = "static"
) -> Settings:
    """``kind``: "static" (StaticApp) or "plain" (faust.App, for plain faust's figures)."""
    topic = kafka_cluster.create_topic(f"{group}-orders", partitions=PARTITIONS)
    return Settings(kind, kafka_cluster.bootstrap_servers, topic, group, log_dir)


async def test_a_duplicated_worker_stops_the_older_and_the_rest_go_on(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    found = await duplicated_worker(_settings(kafka_cluster, unique_group_id("fdup"), tmp_path))
    extra = found.extra
    assert extra["older_rc"] not in (0, None), found
    assert extra["older_exit_s"] < 15, found
    assert len(extra["fatal_lines"]) == 1 and "group.instance.id w-1" in extra["fatal_lines"][0]
    assert extra["others_rc"] == [0, 0, 0], found  # each stopped by SIGTERM at the end
    assert extra["went_on"], found
    assert found.lost == 0, found


async def test_a_worker_fenced_with_a_commit_in_flight_exits(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    """Issue 52: the fence lands while the older's agent handles a record, and its consumer
    thread's stop is slow: the app's stop commits that record through the thread, whose
    method queue has stopped. The commit fails at once, the older exits 1 within the bound
    (the slowed stop's 8 s and a fence's seconds), the rest go on."""
    settings = _settings(kafka_cluster, unique_group_id("fmid"), tmp_path)
    found = await duplicated_worker(settings, mid_commit=True)
    extra = found.extra
    assert extra["slow_stop"], found
    assert extra["older_rc"] not in (0, None), found
    assert extra["older_exit_s"] < 25, found
    assert len(extra["fatal_lines"]) == 1, found
    assert extra["others_rc"] == [0, 0, 0], found
    assert extra["went_on"], found
    assert found.lost == 0, found


async def test_a_rolling_restart_rebalances_nothing_and_restores_nothing(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    settings = _settings(kafka_cluster, unique_group_id("froll"), tmp_path)
    found = await rolling_restart(settings)
    before, topic = found.extra["before"], settings.topic
    actives = sorted(p for tables in before.values() for p in tables[topic]["actives"])
    assert actives == list(range(PARTITIONS)), before
    assert found.extra["after"] == before  # each worker's own actives and standbys
    assert found.extra["stop_rc"] == [0, 0, 0], found
    # each clean stop kept the worker in the group (no LeaveGroup) and committed exactly
    # what it had handled
    assert found.extra["held"] == [["w-0", "w-1", "w-2"]] * 3, found
    assert found.extra["commit_gaps"] == [{}, {}, {}], found
    assert (found.rebalances, found.restored, found.duplicates, found.lost) == (0, 0, 0, 0), found
    if isinstance(kafka_cluster, LocalKafkaCluster):  # its log is ours: no LeaveGroup, no join
        logs, since = kafka_cluster.logs(), found.extra["since_epoch"]
        assert rebalance_reasons(logs, settings.group, 0), "the first joins rebalanced: seen"
        assert rebalance_reasons(logs, settings.group, since) == []


async def test_a_worker_away_past_its_session_gets_its_own_tables_back(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    settings = _settings(kafka_cluster, unique_group_id("faway"), tmp_path)
    settings.session_timeout_s = 8.0
    found = await away_and_back(settings)
    before, during, after = (found.extra[k] for k in ("before", "during", "after"))
    topic = settings.topic
    gone = before["w-1"][topic]["actives"]
    assert gone, before
    for name in ("w-0", "w-2"):  # while w-1 was away only its partitions moved, to them
        assert before[name][topic]["actives"] <= during[name][topic]["actives"], found
    assert during["w-0"][topic]["actives"] | during["w-2"][topic]["actives"] == set(
        range(PARTITIONS)), found  # fmt: skip
    assert after == before, found  # its own actives and standbys back to it, and theirs
    assert found.lost == 0, found


async def test_a_third_worker_takes_only_the_partitions_the_plan_moves(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path
) -> None:
    settings = _settings(kafka_cluster, unique_group_id("fscale"), tmp_path)
    found = await scale_up(settings)
    before, after, topic = found.extra["before"], found.extra["after"], settings.topic
    moved = before["w-0"][topic]["actives"] | before["w-1"][topic]["actives"]
    moved -= after["w-0"][topic]["actives"] | after["w-1"][topic]["actives"]
    for name in ("w-0", "w-1"):  # the two keep the rest of their actives, gain none
        assert after[name][topic]["actives"] <= before[name][topic]["actives"], found
    assert after["w-2"][topic]["actives"] == moved, found
    assert len(moved) == PARTITIONS // 3, found  # P // (N + 1): the fewest a balanced plan moves
    # the newcomer restored the moved partitions' tables, and only those; the two, nothing
    assert found.extra["restored_by"] == {"w-0": [], "w-1": [], "w-2": sorted(moved)}, found
    # nothing handled twice or lost around the eager rebalance (docs/faust.md, "Commits and
    # rebalances": the hold until recovery's seek)
    assert (found.duplicates, found.lost) == (0, 0), found
