"""The faust scenarios, each returning its :class:`~._harness.Figures` for the tests to assert on
(and for a benchmark to print plain faust's beside ours): three workers ``w-0``..``w-2`` with a
RocksDB table and one standby replica, a keyed producer running throughout.

* :func:`duplicated_worker`: a fourth worker starts with ``w-1``'s id;
* :func:`rolling_restart`: each worker stopped (SIGTERM) and started again in turn;
* :func:`away_and_back`: ``w-1`` stopped past its session, then started again.
"""

from __future__ import annotations

import asyncio
import time

from ..integration._group import wait_until
from ._harness import Figures, Settings, Worker, figures, now, running_group, wait_handled


def _records(workers: list[Worker]) -> int:
    return sum(1 for w in workers for e in w.events if e["ev"] == "record")


async def duplicated_worker(settings: Settings, watch_s: float = 30) -> Figures:
    """``extra``: ``older_exit_s`` (None: it did not exit within ``watch_s``), ``older_rc``,
    ``fatal_lines`` (the older's one-line verdicts), ``others_rc`` (the three others'),
    ``went_on`` (the others handled records after the older's end)."""
    copy = Worker("w-1-copy", "w-1", settings)  # a copied manifest: the same id
    async with running_group(settings) as (workers, producer):
        older, others = workers[1], [workers[0], workers[2], copy]
        workers.append(copy)
        started = now()
        await copy.start()
        try:
            await wait_until(lambda: older.returncode is not None, watch_s, "the older to exit")
        except AssertionError:
            pass  # plain faust: neither holder exits
        older_exit_s = None if older.returncode is None else now() - started
        before = _records(others)
        await asyncio.sleep(5)
        went_on = _records(others) > before
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=started)
    fatal = [line for line in older.log_text().splitlines()
             if "was fenced (FENCED_INSTANCE_ID" in line]  # fmt: skip
    found.extra = {"older_exit_s": older_exit_s, "older_rc": older.returncode,
                   "fatal_lines": fatal, "others_rc": [w.returncode for w in others],
                   "went_on": went_on}  # fmt: skip
    return found


async def rolling_restart(settings: Settings) -> Figures:
    """``extra``: ``before``/``after`` (each worker's tables), ``stop_rc`` (each stop's status),
    ``since_epoch`` (wall clock when the group was stable, for the broker's log)."""
    async with running_group(settings) as (workers, producer):
        stable, since_epoch = now(), time.time()
        before = {w.name: w.tables() for w in workers}
        stop_rc = []
        for worker in workers:  # one at a time, as a StatefulSet rolls
            await worker.stop()
            stop_rc.append(worker.returncode)
            await worker.start()
            await worker.wait_assigned()
            await asyncio.sleep(2)
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=stable)
        found.extra = {"before": before, "after": {w.name: w.tables() for w in workers},
                       "stop_rc": stop_rc, "since_epoch": since_epoch}  # fmt: skip
    return found


async def away_and_back(settings: Settings) -> Figures:
    """``w-1`` stopped; after its session the others rebalance without it; then it starts
    again. ``extra``: each worker's tables ``before``, ``during`` (the others) and ``after``."""
    async with running_group(settings) as (workers, producer):
        stable = now()
        away, left = workers[1], [workers[0], workers[2]]
        before = {w.name: w.tables() for w in workers}
        seen = len(left[0].assignments())
        await away.stop()  # a static member's clean stop keeps it in the group...
        await wait_until(lambda: len(left[0].assignments()) > seen, 60, "the rebalance")
        await asyncio.sleep(3)
        during = {w.name: w.tables() for w in left}
        seen = len(left[0].assignments())
        await away.start()  # ...until its session ends; then it comes back
        await away.wait_assigned()
        await wait_until(lambda: len(left[0].assignments()) > seen, 60, "w-1 back")
        await asyncio.sleep(3)
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=stable)
        found.extra = {"before": before, "during": during,
                       "after": {w.name: w.tables() for w in workers}}  # fmt: skip
    return found
