"""Broker faults lose nothing and replay nothing (issue 15), on the real 3-node cluster.

Ported from Apache Kafka's ``tests/kafkatest/tests/client/consumer_test.py``
(``test_broker_failure``, ``test_broker_rolling_bounce``) for static members, plus the two faults
issue 15 measured: a restarted member re-reading its partitions from offset 0 when the
coordinator's broker died as it got them, and ``start()`` failing while the coordinator moved.
Assertions, as Kafka's: no rebalance; nothing lost; after a clean stop, records consumed ==
committed position for every partition (so nothing was consumed twice); with auto-commit off,
the last commit == the position.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from staticconsumer.localkafka import LocalKafkaCluster

from . import _scenarios as sc
from ._harness import Figures

pytestmark = pytest.mark.timeout(600)
#: ``STATICCONSUMER_RELIABILITY_REPEAT=10`` runs each reproduction of issue 15 ten times in a row.
REPEAT = range(int(os.environ.get("STATICCONSUMER_RELIABILITY_REPEAT", "1")))


def assert_clean(result: Figures, *, auto_commit: bool) -> None:
    detail = f"{result} "
    assert result.failed_starts == 0, detail
    assert result.lost == 0, detail
    assert result.duplicates == 0, detail
    assert result.rebalances == 0, detail
    assert result.consumed == result.committed, detail
    if not auto_commit:
        assert result.committed == result.last_positions, detail


@pytest.mark.parametrize("attempt", REPEAT)
async def test_no_replay_when_the_coordinator_dies_as_a_restarted_member_is_assigned(
    kafka_cluster_3: LocalKafkaCluster, tmp_path: Path, attempt: int
) -> None:
    result = await sc.run_scenario(
        "coordinator killed as a restarted member is assigned", kafka_cluster_3,
        "staticconsumer", sc.coordinator_dies_as_restarted_member_is_assigned, log_dir=tmp_path,
    )  # fmt: skip
    assert_clean(result, auto_commit=False)


@pytest.mark.parametrize("attempt", REPEAT)
async def test_start_rides_over_a_coordinator_failover(
    kafka_cluster_3: LocalKafkaCluster, tmp_path: Path, attempt: int
) -> None:
    result = await sc.run_scenario(
        "a member starts while the coordinator is down", kafka_cluster_3, "staticconsumer",
        sc.member_starts_while_coordinator_is_down, log_dir=tmp_path,
    )  # fmt: skip
    assert_clean(result, auto_commit=False)


@pytest.mark.parametrize("auto_commit", [False, True], ids=["commit", "auto-commit"])
@pytest.mark.parametrize("clean_shutdown", [True, False], ids=["SIGTERM", "SIGKILL"])
async def test_broker_failure(
    kafka_cluster_3: LocalKafkaCluster, tmp_path: Path, clean_shutdown: bool, auto_commit: bool
) -> None:
    result = await sc.run_scenario(
        "broker failure", kafka_cluster_3, "staticconsumer", sc.broker_failure(clean_shutdown),
        log_dir=tmp_path, auto_commit=auto_commit,
    )  # fmt: skip
    assert_clean(result, auto_commit=auto_commit)


async def test_broker_rolling_bounce(kafka_cluster_3: LocalKafkaCluster, tmp_path: Path) -> None:
    result = await sc.run_scenario(
        "broker rolling bounce", kafka_cluster_3, "staticconsumer", sc.broker_rolling_bounce,
        log_dir=tmp_path,
    )  # fmt: skip
    assert_clean(result, auto_commit=False)
