"""The chaos soak: an ETL group under the nemesis for a long seeded schedule, StaticConsumer on
each protocol beside plain aiokafka's AIOKafkaConsumer on the same schedule.

    .venv/bin/python benchmarks/chaos_bench.py [--duration 120] [--seed 29] [--rate 300]
        [--bootstrap HOST:PORT] [--only static-eager,aiokafka-eager]

The run is the chaos suite's (``tests/chaos``: ``_nemesis.py`` for the faults, ``_run.py`` for a
run, ``_verdict.py`` for what is read back from Kafka); the CI runs a short seed of it
(``tests/chaos/test_chaos.py``). Without ``--bootstrap`` a local single-node Apache Kafka is
started with the test suite's broker settings (``DEFAULT_TEST_BROKER_CONFIG``: no initial
rebalance delay, a 10 s consumer- and streams-protocol session). Members use a 10 s classic
session.

Printed per variant: records, lost, duplicates per fault kind (only crash windows may have any;
``outside`` must be 0), member rebalances (assignments heard by members that stayed up), liveness
(seconds from the last fault until the group is settled and committed to the end), end-to-end
lag (max, median), and per fault kind the time to recover: the longest end-to-end lag of a
record produced between that fault and the next (median / max over the faults of that kind).
Plain aiokafka runs dynamic members (no group_instance_id: the difference is static membership)
on eager ``range`` (it has no cooperative protocol); a dynamic member cannot be fenced, so its
"replacement while frozen" is a new member beside the thawed one, which is then stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/chaos
from _broker import bootstrap_servers  # benchmarks/, the script's own folder

from staticconsumer.testing.pytest_plugin import DEFAULT_TEST_BROKER_CONFIG
from tests.chaos._nemesis import KINDS, schedule
from tests.chaos._run import ChaosConfig, ChaosResult, run_chaos, summary

VARIANTS = {
    "static-eager": ChaosConfig(strategy="range"),
    "static-cooperative": ChaosConfig(strategy="cooperative-sticky"),
    "static-consumer": ChaosConfig(group_protocol="consumer", strategy=""),
    "static-streams": ChaosConfig(group_protocol="streams", strategy=""),
    "aiokafka-eager": ChaosConfig(kind="aiokafka", strategy="range"),
}


def _s(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1f}"


def table(results: dict[str, ChaosResult]) -> str:
    rows = [
        "| variant | records | lost | duplicates: kill / freeze / freeze_replace / outside "
        "| rebalances | liveness s | lag max / median s |",
        "|" + " --- |" * 7,
    ]
    for name, r in results.items():
        v, e = r.verdict, r.verdict.explained
        rows.append(
            f"| {name} | {v.inputs} | {len(v.lost)} | {e['kill']} / {e['freeze']} / "
            f"{e['freeze_replace']} / {len(v.unexplained)} | {r.rebalances} | {r.liveness_s:.1f} "
            f"| {v.max_lag_s:.1f} / {v.median_lag_s:.2f} |"
        )
    rows += ["", "Recovery after each fault kind, s (median / max; faults applied):", "",
             "| fault | " + " | ".join(results) + " |",
             "|" + " --- |" * (len(results) + 1)]  # fmt: skip
    costs = {name: r.costs() for name, r in results.items()}
    for kind in KINDS:
        cells = [f"{_s(c[kind]['recovery_median_s'])} / {_s(c[kind]['recovery_max_s'])} "
                 f"({int(c[kind]['count'])})" for c in costs.values()]  # fmt: skip
        rows.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


async def soak(bootstrap: str, args: argparse.Namespace) -> dict[str, ChaosResult]:
    faults = schedule(args.seed, args.duration, (args.gap_min, args.gap_max))
    print(f"seed {args.seed}: {len(faults)} faults over {faults[-1].at_s:.0f} s")
    results = {}
    for name in args.only.split(","):
        config = VARIANTS[name]
        config = ChaosConfig(**{**config.__dict__, "rate_per_s": args.rate, "liveness_s": 120})
        log_dir = Path(tempfile.mkdtemp(prefix=f"chaos-{name}-"))
        results[name] = await run_chaos(bootstrap, config, faults, log_dir)
        print(f"{name} (events in {log_dir}):\n{summary(results[name])}\n", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of faults")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--bootstrap", help="an existing broker (default: start a local one)")
    parser.add_argument("--only", default=",".join(VARIANTS), help="comma-separated variants")
    parser.add_argument("--rate", type=float, default=300.0, help="input records per second")
    parser.add_argument("--gap-min", type=float, default=2.0, help="seconds between faults, min")
    parser.add_argument("--gap-max", type=float, default=5.0, help="seconds between faults, max")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with bootstrap_servers(args.bootstrap, DEFAULT_TEST_BROKER_CONFIG) as bootstrap:
        results = asyncio.run(soak(bootstrap, args))
    print(table(results))
    failed = {n: r.failures() for n, r in results.items() if r.failures()}
    if failed:
        print(f"\nFAILED: {failed}")


if __name__ == "__main__":
    main()
