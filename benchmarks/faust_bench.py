"""A faust app on plain faust vs on ``StaticApp``, same scenarios, same run.

    python benchmarks/faust_bench.py [--bootstrap-servers HOST:PORT] [--watch-s 30] [--log-dir D]
                                     [--only "scale up,rolling restart"]

Each row is one scenario of ``tests/faust/_scenario.py``: three workers of a faust app
(``tests/faust/_worker.py``: an agent counting records per key in a RocksDB ``Table``, one
standby replica, 6 partitions) run by faust's own worker, while a producer writes 100 keyed
records/s.

* **rolling restart**: each worker stopped (SIGTERM) and started again in turn;
* **away and back**: ``w-1`` stopped, past its session (8 s), then started again;
* **duplicated worker**: a fourth worker started with ``w-1``'s id, watched for ``--watch-s``;
* **scale up**: two workers, then a third (an empty data directory) joins.

Kinds: **plain** is ``faust.App`` with ``consumer_group_instance_id`` (aiokafka's membership and
faust's assignor underneath); **static** is ``StaticApp``. Columns: rebalances after the group
was stable, changelog records restored into active table partitions, records handled twice,
acknowledged records never handled, and for the duplicate: seconds until the older holder
exited (``-``: it did not) and its exit status; for away and back: whether every worker ended
with its own actives and standbys; for scale up: the partitions whose active worker changed
(the fewest a balanced plan moves: 2 of 6) and whether the two first workers kept the rest of
their actives. ``--only`` runs the scenarios named (comma-separated). A local broker is
started unless ``--bootstrap-servers``; the workers' logs and events are kept in
``--log-dir`` when given.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/faust
from _broker import bootstrap_servers  # benchmarks/, the script's own folder

from staticconsumer.localkafka import create_topic
from tests.faust._harness import PARTITIONS, Figures, Settings
from tests.faust._scenario import away_and_back, duplicated_worker, rolling_restart, scale_up

BROKER_CONFIG = {"group.initial.rebalance.delay.ms": "0"}
SCENARIOS = ("rolling restart", "away and back", "duplicated worker", "scale up")


async def _row(bootstrap: str, kind: str, scenario: str, watch_s: float,
               log_dir: Path) -> tuple[Figures, float, str]:  # fmt: skip
    group = f"fbench-{uuid.uuid4().hex[:8]}"
    topic = f"{group}-orders"
    await create_topic(bootstrap, topic, partitions=PARTITIONS)
    run_dir = log_dir / f"{kind}-{scenario.replace(' ', '-')}"
    run_dir.mkdir(parents=True)
    settings = Settings(kind, bootstrap, topic, group, run_dir)
    started = time.monotonic()
    if scenario == "rolling restart":
        found = await rolling_restart(settings)
    elif scenario == "away and back":
        settings.session_timeout_s = 8.0
        found = await away_and_back(settings)
    elif scenario == "scale up":
        found = await scale_up(settings)
    else:
        found = await duplicated_worker(settings, watch_s=watch_s)
    return found, time.monotonic() - started, topic


def _moved(found: Figures, topic: str) -> tuple[str, str]:
    """Scale up: the partitions whose active worker changed, and whether the two first
    workers kept the rest of their actives (``("", "")`` for the other scenarios)."""
    if "restored_by" not in found.extra:
        return "", ""
    before, after = found.extra["before"], found.extra["after"]
    owner = {p: n for n, t in after.items() for p in t.get(topic, {}).get("actives", ())}
    was = {p: n for n, t in before.items() for p in t.get(topic, {}).get("actives", ())}
    moved = sorted(p for p in owner if owner[p] != was.get(p))
    kept = all(after[n][topic]["actives"] <= before[n][topic]["actives"] for n in before)
    return str(len(moved)), str(kept)


def _print(rows: list[tuple[str, str, Figures, float, str]]) -> None:
    header = ("scenario:<18", "kind:<7", "rebalances:>10", "restored:>8", "twice:>6", "lost:>5",
              "older exit s:>12", "status:>6", "own back:>8", "moved:>5", "kept:>5",
              "wall s:>7")  # fmt: skip
    print(" ".join(format(name, spec) for name, spec in (h.rsplit(":", 1) for h in header)))
    for scenario, kind, f, wall, topic in rows:
        exit_s, status = f.extra.get("older_exit_s", ""), f.extra.get("older_rc", "")
        own = "" if "during" not in f.extra else str(f.extra["after"] == f.extra["before"])
        exit_text = "-" if exit_s is None else (f"{exit_s:.1f}" if exit_s != "" else "")
        moved, kept = _moved(f, topic)
        print(f"{scenario:<18} {kind:<7} {f.rebalances:>10} {f.restored:>8} {f.duplicates:>6} "
              f"{f.lost:>5} {exit_text:>12} {'-' if status is None else status!s:>6} "
              f"{own:>8} {moved:>5} {kept:>5} {wall:>7.1f}")  # fmt: skip


async def main(bootstrap: str, watch_s: float, log_dir: str | None,
               only: tuple[str, ...]) -> None:  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in only:
            for kind in ("plain", "static"):
                where = Path(log_dir or tmp)
                found, wall, topic = await _row(bootstrap, kind, scenario, watch_s, where)
                rows.append((scenario, kind, found, wall, topic))
                print(scenario, kind, found, f"{wall:.1f} s", file=sys.stderr, flush=True)
    _print(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument("--watch-s", type=float, default=30.0)
    parser.add_argument("--log-dir", default=None)
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help=f"comma-separated, of: {', '.join(SCENARIOS)}")  # fmt: skip
    args = parser.parse_args()
    only = tuple(name.strip() for name in args.only.split(",") if name.strip())
    if unknown := [name for name in only if name not in SCENARIOS]:
        parser.error(
            f"--only: no scenario {', '.join(unknown)} (scenarios: {', '.join(SCENARIOS)})"
        )
    logging.basicConfig(level=logging.WARNING)
    with bootstrap_servers(args.bootstrap_servers, BROKER_CONFIG) as bootstrap:
        asyncio.run(main(bootstrap, args.watch_s, args.log_dir, only))
