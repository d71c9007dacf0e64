"""Machine-readable status: one JSON object per line on stdout (for ``staticconsumer demo``).

Every line has ``"event"`` and ``"ts"`` (Unix seconds) and the process's ``"pid"``:

* ``started``: ``mode`` ("static" or "dynamic"), ``group``, ``threads`` (their names), and with
  ``--health-port`` ``health``: ``[host, port]`` the one health endpoint listens on.
* ``assigned``: one thread got an assignment: ``thread``, ``instance_id`` (null when dynamic),
  ``member_id``, ``generation``, ``partitions``, ``rebalance`` (false for the thread's first
  assignment), and ``states``: ``{partition: {"outcome": "reused" | "restored" | "fresh",
  "restored_records": n}}``.
* ``revoked``: ``thread``, ``generation``, ``partitions``.
* ``processing``: the first input record this thread folded in since the process started:
  ``thread``, ``partition`` (a restart's time to processing again, ``benchmarks/streams_bench.py``).
* ``status`` (every second) and ``stopped`` (last line): ``threads``, a list of
  :meth:`ThreadStats.to_dict`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ThreadStats:
    """Counters of one stream thread (one consumer) over this process's life."""

    thread: str
    instance_id: str | None
    member_id: str = ""
    generation: int = -1
    partitions: list[int] = field(default_factory=list)
    processed: int = 0  # input records folded into the state
    skipped: int = 0  # input records already in the state (a replay)
    bad_records: int = 0  # no key, or a value that is not an integer
    reused: int = 0  # partition assignments that reused the local state as it was
    restored: int = 0  # partition assignments that replayed the changelog
    restored_records: int = 0  # changelog records replayed
    fresh: int = 0  # partition assignments with no state anywhere yet
    assignments: int = 0  # on_partitions_assigned calls
    rebalances: int = 0  # assignments after the first: rebalances this member took part in
    commit_failures: int = 0  # input offset commits refused (the group moved on); state is safe
    standby_records: int = 0  # changelog records standby tasks read (streams groups, KIP-1071)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def emit(event: str, **fields: Any) -> None:
    """Write one status line to stdout and flush it."""
    doc = {"event": event, "ts": round(time.time(), 3), "pid": os.getpid(), **fields}
    sys.stdout.write(json.dumps(doc, sort_keys=True) + "\n")
    sys.stdout.flush()
