"""A FastStream service on plain FastStream vs on ``StaticKafkaBroker``, same scenarios, same run.

    python benchmarks/faststream_bench.py [--bootstrap-servers HOST:PORT] [--watch-s 15]

Each row is one scenario of ``tests/faststream/_scenario.py``: 2 processes of a FastStream
service (two subscribers in one group, one per topic, 6 partitions each; the second a batch
subscriber with manual acks), run by FastStream's runner (``app.run()``), while a producer writes
50 records/s to each topic.

* **rolling restart**: each process stopped (SIGTERM: FastStream's graceful shutdown) and
  started again in turn;
* **duplicate base id**: a third process started with the first one's base id (a StatefulSet
  glitch, a copied manifest), watched for ``--watch-s`` seconds.

Kinds: **plain** is FastStream's ``KafkaBroker`` with ``group_instance_id=<base>-<topic>`` on each
subscriber (aiokafka's membership underneath); **static** is ``StaticKafkaBroker`` (the ids
derived); **static/consumer** the same with ``group_protocol="consumer"`` (KIP-848; plain
aiokafka has no consumer protocol). Columns: rebalances after the group was stable, records
handled twice, acknowledged records never handled, subscribers whose partitions moved, and for
the duplicate: seconds until the older holder exited (``-``: it did not) and its exit status.
A local broker is started unless ``--bootstrap-servers`` is given.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/faststream
from _broker import bootstrap_servers  # benchmarks/, the script's own folder

from staticconsumer.localkafka import create_topic
from tests.faststream._scenario import Figures, duplicate_base_id, rolling_restart
from tests.reliability._harness import PARTITIONS, Settings

BROKER_CONFIG = {"group.initial.rebalance.delay.ms": "0"}
ROWS = (("plain", "classic"), ("static", "classic"), ("static", "consumer"))


async def _row(bootstrap: str, kind: str, protocol: str, scenario: str, watch_s: float,
               log_dir: Path) -> tuple[Figures, float]:  # fmt: skip
    group = f"fsbench-{uuid.uuid4().hex[:8]}"
    topics = [f"{group}-t{i}" for i in (1, 2)]
    for topic in topics:
        await create_topic(bootstrap, topic, partitions=PARTITIONS)
    settings = Settings(kind, bootstrap, ",".join(topics), group, session_timeout_ms=30000,
                        group_protocol=protocol)  # fmt: skip
    started = time.monotonic()
    if scenario == "rolling restart":
        found = await rolling_restart(settings, log_dir)
    else:
        found = await duplicate_base_id(
            settings, log_dir, watch_s=watch_s, takeover=kind == "static" and protocol == "consumer"
        )
    return found, time.monotonic() - started


def _print(rows: list[tuple[str, Figures, float]]) -> None:
    print(f"{'scenario':<18} {'kind':<16} {'rebalances':>10} {'twice':>6} {'lost':>5} "
          f"{'moved':>5} {'older exit s':>12} {'status':>6} {'wall s':>7}")  # fmt: skip
    for label, f, wall in rows:
        exit_s = f.extra.get("older_exit_s", "")
        status = f.extra.get("older_rc", "")
        print(f"{f.scenario:<18} {label:<16} {f.rebalances:>10} {f.duplicates:>6} {f.lost:>5} "
              f"{len(f.moved):>5} {'-' if exit_s is None else exit_s!s:>12} "
              f"{'-' if status is None else status!s:>6} {wall:>7.1f}")  # fmt: skip


async def main(bootstrap: str, watch_s: float) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in ("rolling restart", "duplicate base id"):
            for kind, protocol in ROWS:
                label = kind if protocol == "classic" else f"{kind}/{protocol}"
                found, wall = await _row(bootstrap, kind, protocol, scenario, watch_s, Path(tmp))
                rows.append((label, found, wall))
    _print(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument("--watch-s", type=float, default=15.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with bootstrap_servers(args.bootstrap_servers, BROKER_CONFIG) as bootstrap:
        asyncio.run(main(bootstrap, args.watch_s))
