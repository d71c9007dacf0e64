"""Apache Kafka's static-membership system tests (``consumer_test.py``), run with
``group_protocol="consumer"`` (KIP-848) on the real 3-node cluster, as Kafka runs them for both
protocols: brokers bounced in turn, a broker killed, and a static member bounced before every
broker restarts (``test_static_consumer_persisted_after_rejoin``). Assertions, as Kafka's: no
rebalance, nothing lost, records consumed == committed position after a clean stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from staticconsumer.localkafka import LocalKafkaCluster

from . import _scenarios as sc
from .test_broker_faults import assert_clean

pytestmark = pytest.mark.timeout(600)


async def test_broker_rolling_bounce(kafka_cluster_3: LocalKafkaCluster, tmp_path: Path) -> None:
    result = await sc.run_scenario(
        "broker rolling bounce", kafka_cluster_3, "staticconsumer", sc.broker_rolling_bounce,
        log_dir=tmp_path, group_protocol="consumer",
    )  # fmt: skip
    assert_clean(result, auto_commit=False)


@pytest.mark.parametrize("clean_shutdown", [True, False], ids=["SIGTERM", "SIGKILL"])
async def test_broker_failure(
    kafka_cluster_3: LocalKafkaCluster, tmp_path: Path, clean_shutdown: bool
) -> None:
    result = await sc.run_scenario(
        "broker failure", kafka_cluster_3, "staticconsumer", sc.broker_failure(clean_shutdown),
        log_dir=tmp_path, group_protocol="consumer",
    )  # fmt: skip
    assert_clean(result, auto_commit=False)


async def test_a_bounced_static_member_persists_through_a_broker_rolling_restart(
    kafka_cluster_3: LocalKafkaCluster, tmp_path: Path
) -> None:
    runs: list[sc.Run] = []

    async def body(run: sc.Run) -> None:
        runs.append(run)
        await sc.member_bounce_then_broker_rolling_bounce(run)

    result = await sc.run_scenario(
        "static member persisted after rejoin", kafka_cluster_3, "staticconsumer", body,
        log_dir=tmp_path, group_protocol="consumer",
    )  # fmt: skip
    assert_clean(result, auto_commit=False)
    assert runs[0].extra["member_ids"] == 1, f"one member id after the bounce: {result}"
