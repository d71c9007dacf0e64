"""Kafka's ``test_consumer_failure`` for static and dynamic members, on the 3-node cluster: the
owner of partition 0 stops cleanly or is SIGKILLed; the partition moves to another member and
consumption goes on, with nothing lost.

Static members (KIP-345) do not leave on a clean stop, so the partition moves only once the
session timeout passes, clean or not; a dynamic member that stops cleanly sends LeaveGroup, so
its partitions move at once (well before the session timeout). A clean stop commits what was
consumed, so nothing is consumed twice; after a crash, only records past the dead member's last
commit may be consumed again (at-least-once), and nothing before it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from staticconsumer.localkafka import LocalKafkaCluster

from . import _scenarios as sc
from ._harness import consumed_offsets

pytestmark = pytest.mark.timeout(600)
SESSION_TIMEOUT_MS = 10000


@pytest.mark.parametrize("clean_shutdown", [True, False], ids=["clean", "hard"])
@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
async def test_consumer_failure(
    kafka_cluster_3: LocalKafkaCluster, tmp_path: Path, static: bool, clean_shutdown: bool
) -> None:
    runs: list[sc.Run] = []

    async def body(run: sc.Run) -> None:
        runs.append(run)
        await sc.consumer_failure(clean_shutdown)(run)

    result = await sc.run_scenario(
        "consumer failure", kafka_cluster_3, "staticconsumer", body, log_dir=tmp_path,
        static=static, session_timeout_ms=SESSION_TIMEOUT_MS,
    )  # fmt: skip
    run = runs[0]
    detail = f"{result}"
    moved_after = run.extra["moved_after_s"]
    session_s = SESSION_TIMEOUT_MS / 1000
    if static or not clean_shutdown:
        # Nobody told the coordinator: the partition waits for the session to expire.
        assert moved_after >= session_s * 0.8, detail
    else:
        assert moved_after < session_s * 0.8, detail  # LeaveGroup: moved at once
    assert result.lost == 0 and result.failed_starts == 0, detail
    assert result.consumed.keys() == result.committed.keys(), detail
    if clean_shutdown:
        assert result.duplicates == 0, detail
        assert result.consumed == result.committed, detail
        assert result.committed == result.last_positions, detail
        return
    dead = next(m for m in run.members if any(e["ev"] == "killed" for e in m.events))
    committed_by_dead = sc.last_commits(dead)
    for partition, offsets in consumed_offsets(run.members).items():
        seen: set[int] = set()
        for offset in offsets:
            if offset in seen:  # consumed twice: only past the dead member's last commit
                assert offset >= committed_by_dead.get(partition, 0), (partition, offset, detail)
            seen.add(offset)
    assert result.committed == result.last_positions, detail
