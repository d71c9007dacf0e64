"""Run every reliability scenario for StaticConsumer and for plain aiokafka (the same scenario
code, the same cluster) and print the table of ``docs/reliability.md``.

    python -m tests.reliability.figures [--runs N] [--only NAME]

It starts its own 3-node Apache Kafka cluster (``LocalKafkaCluster(3)``); expect about a minute
per scenario run. Figures are printed as they come, then the table.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from staticconsumer.localkafka import LocalKafkaCluster
from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG

from . import _scenarios as sc
from ._harness import Figures

KINDS = ("staticconsumer", "aiokafka")
#: name -> (body, run_scenario keyword arguments)
SCENARIOS: dict[str, tuple[Callable[[], sc.Body], dict[str, object]]] = {
    "coordinator SIGKILL as a restarted member is assigned": (
        lambda: sc.coordinator_dies_as_restarted_member_is_assigned, {}),
    "member start()s while the coordinator is down": (
        lambda: sc.member_starts_while_coordinator_is_down, {}),
    "broker failure, SIGTERM": (lambda: sc.broker_failure(True), {}),
    "broker failure, SIGKILL": (lambda: sc.broker_failure(False), {}),
    "broker failure, SIGKILL, auto-commit": (lambda: sc.broker_failure(False),
                                             {"auto_commit": True}),
    "broker rolling bounce": (lambda: sc.broker_rolling_bounce, {}),
    "static consumer failure, hard": (lambda: sc.consumer_failure(False),
                                      {"session_timeout_ms": 10000}),
    "dynamic consumer failure, clean": (lambda: sc.consumer_failure(True),
                                        {"static": False, "session_timeout_ms": 10000}),
}  # fmt: skip

HEADER = (
    "| scenario | client | duplicates | lost | rebalances | failed starts | longest stall (s) |\n"
    "|---|---|---:|---:|---:|---:|---:|"
)


async def main(runs: int, only: str | None, kinds: tuple[str, ...]) -> int:
    results: list[Figures] = []
    log_dir = Path(tempfile.mkdtemp(prefix="reliability-"))
    with LocalKafkaCluster(3, broker_config=DEFAULT_TEST_BROKER_CONFIG) as cluster:
        for name, (body, options) in SCENARIOS.items():
            if only and only not in name:
                continue
            for kind in kinds:
                for _ in range(runs):
                    try:
                        result = await sc.run_scenario(name, cluster, kind, body(),
                                                       log_dir=log_dir, **options)  # type: ignore[arg-type]  # fmt: skip
                    except Exception as exc:  # a run that did not finish is a figure too
                        result = Figures(name, kind, notes=[f"did not finish: {exc!r}"])
                    print(result.row(), " ".join(result.notes), flush=True)
                    results.append(result)
    print()
    print(HEADER)
    for result in results:
        print(result.row())
    print(f"\nmember logs: {log_dir}")
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default=None, help="run the scenarios whose name has this")
    parser.add_argument("--kind", choices=KINDS, default=None, help="one client only")
    args = parser.parse_args()
    kinds = (args.kind,) if args.kind else KINDS
    sys.exit(asyncio.run(main(args.runs, args.only, kinds)))
