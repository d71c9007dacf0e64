"""The chaos suite's short seed, run with the rest of the tests (``-m chaos`` selects it).

An ETL group of StaticConsumers, each in its own process (consume -> produce to an output topic ->
commit), under the nemesis (``_nemesis.py``: SIGTERM bounces, SIGKILL restarts, SIGSTOP freezes, a
replacement started while a member is frozen, TCP connection resets, scale up and down) on a seeded
schedule, on the classic protocol (eager ``range`` and ``cooperative-sticky``), on the consumer
protocol (KIP-848) and as the threads of a streams group (KIP-1071, static since 4.4). The verdict
is read from Kafka after the chaos (``_verdict.py``): nothing lost, no duplicate outside a crash
window, per-partition order kept, committed offsets at the end of the input, no member dead but the
one fenced on purpose, and the group settled and caught up within ``LIVENESS_S`` of the last fault.

``STATICCONSUMER_CHAOS_SEED`` picks another schedule (a failure prints the seed and the faults);
``benchmarks/chaos_bench.py`` runs the long soak, beside plain aiokafka.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ._nemesis import schedule
from ._run import ChaosConfig, run_chaos, summary

pytestmark = [pytest.mark.chaos, pytest.mark.kafka, pytest.mark.timeout(240)]
SEED = int(os.environ.get("STATICCONSUMER_CHAOS_SEED", "29"))
#: Faults for this long at least (every kind once, whatever the length), 0.5-1.5 s apart.
CHAOS_S = 8.0
LIVENESS_S = 60.0

VARIANTS = {
    "classic-eager": ChaosConfig(strategy="range", liveness_s=LIVENESS_S),
    "classic-cooperative": ChaosConfig(strategy="cooperative-sticky", liveness_s=LIVENESS_S),
    "consumer": ChaosConfig(group_protocol="consumer", strategy="", liveness_s=LIVENESS_S),
    "streams": ChaosConfig(group_protocol="streams", strategy="", liveness_s=LIVENESS_S),
}


@pytest.mark.parametrize("variant", VARIANTS)
async def test_etl_group_keeps_kafkas_contracts_under_chaos(
    kafka_bootstrap: str, tmp_path: Path, variant: str
) -> None:
    faults = schedule(SEED, CHAOS_S, gap_s=(0.5, 1.5))
    result = await run_chaos(kafka_bootstrap, VARIANTS[variant], faults, tmp_path)
    report = f"seed {SEED}, events in {tmp_path}\n{summary(result)}"
    print(report)
    assert not result.failures(), report
    assert result.liveness_s <= LIVENESS_S, report
