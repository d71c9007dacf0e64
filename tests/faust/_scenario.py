"""The faust scenarios, each returning its :class:`~._harness.Figures` for the tests to assert on
(and for a benchmark to print plain faust's beside ours): three workers ``w-0``..``w-2`` with a
RocksDB table and one standby replica, a keyed producer running throughout.

* :func:`duplicated_worker`: a fourth worker starts with ``w-1``'s id;
* :func:`rolling_restart`: each worker stopped (SIGTERM) and started again in turn;
* :func:`away_and_back`: ``w-1`` stopped past its session, then started again;
* :func:`scale_up`: two workers, then a third joins.

Each waits on what the workers and the coordinator report (:func:`~._harness.wait_settled`:
one generation, every partition active once, every worker handling records), not on time.
"""

from __future__ import annotations

import time

from ..integration._group import wait_until
from ._harness import (
    Figures,
    Settings,
    Worker,
    commit_gaps,
    figures,
    group_instance_ids,
    now,
    running_group,
    wait_handled,
    wait_settled,
)


def _records(workers: list[Worker]) -> int:
    return sum(1 for w in workers for e in w.events if e["ev"] == "record")


async def duplicated_worker(
    settings: Settings, watch_s: float = 30, *, mid_commit: bool = False
) -> Figures:
    """``extra``: ``older_exit_s`` (None: it did not exit within ``watch_s``), ``older_rc``,
    ``fatal_lines`` (the older's one-line verdicts), ``others_rc`` (the three others'),
    ``went_on`` (the others handled records after the older's end), ``slow_stop`` (whether the
    older's fatal stop was slowed). ``mid_commit``: the older's agent is slow (a record is
    being handled when the fence lands, and the app's stop commits it) and so is its fatal
    consumer's stop in the consumer thread (issue 52's window, ``_worker.slow_down``)."""
    copy = Worker("w-1-copy", "w-1", settings)  # a copied manifest: the same id
    async with running_group(settings) as (workers, producer):
        older, others = workers[1], [workers[0], workers[2], copy]
        workers.append(copy)
        if mid_commit:
            older.slow_path.touch()
        started = now()
        await copy.start()
        try:
            await wait_until(lambda: older.returncode is not None, watch_s, "the older to exit")
        except AssertionError:
            pass  # plain faust: neither holder exits
        older_exit_s = None if older.returncode is None else now() - started
        before = _records(others)
        try:
            await wait_until(lambda: _records(others) > before, 30, "the others consuming")
            went_on = True
        except AssertionError:
            went_on = False
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=started)
    fatal = [line for line in older.log_text().splitlines()
             if "was fenced (FENCED_INSTANCE_ID" in line]  # fmt: skip
    found.extra = {"older_exit_s": older_exit_s, "older_rc": older.returncode,
                   "fatal_lines": fatal, "others_rc": [w.returncode for w in others],
                   "went_on": went_on,
                   "slow_stop": any(e["ev"] == "slow-stop" for e in older.events)}  # fmt: skip
    return found


async def rolling_restart(settings: Settings) -> Figures:
    """``extra``: ``before``/``after`` (each worker's tables), ``stop_rc`` (each stop's status),
    ``since_epoch`` (wall clock when the group was stable, for the broker's log), and after
    each stop, before the restart: ``held`` (the group's instance ids, the coordinator's
    view: a static member's clean stop sends no LeaveGroup) and ``commit_gaps`` (the stopped
    worker's partitions not committed exactly up to what it handled, :func:`commit_gaps`)."""
    async with running_group(settings) as (workers, producer):
        stable, since_epoch = now(), time.time()
        before = {w.name: w.tables() for w in workers}
        stop_rc, held, gaps = [], [], []
        for worker in workers:  # one at a time, as a StatefulSet rolls
            own = worker.actives(settings.topic)
            await worker.stop()
            stop_rc.append(worker.returncode)
            held.append(await group_instance_ids(settings))
            gaps.append(await commit_gaps(settings, workers, own))
            await worker.start()
            await wait_settled(workers, settings)
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=stable)
        found.extra = {"before": before, "after": {w.name: w.tables() for w in workers},
                       "stop_rc": stop_rc, "since_epoch": since_epoch, "held": held,
                       "commit_gaps": gaps}  # fmt: skip
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
        await wait_settled(workers, settings)
        during = {w.name: w.tables() for w in left}
        await away.start()  # ...until its session ends; then it comes back
        await wait_settled(workers, settings)
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=stable)
        found.extra = {"before": before, "during": during,
                       "after": {w.name: w.tables() for w in workers}}  # fmt: skip
    return found


async def scale_up(settings: Settings) -> Figures:
    """``w-0`` and ``w-1`` run; ``w-2`` (a new worker, an empty data directory) joins.
    ``extra``: each worker's tables ``before`` (the two) and ``after`` (the three), and
    ``restored_by``: the partitions each worker restored into an active table after the
    join (``{name: [partition]}``)."""
    async with running_group(settings, size=2) as (workers, producer):
        stable = now()
        before = {w.name: w.tables() for w in workers}
        newcomer = Worker("w-2", "w-2", settings)
        workers.append(newcomer)
        await newcomer.start()
        await wait_settled(workers, settings)
        after = {w.name: w.tables() for w in workers}
        await producer.stop()
        await wait_handled(workers, producer)
        found = figures(workers, producer, since=stable)
        restored_by = {w.name: sorted({e["partition"] for e in w.events
                                       if e["ev"] == "restored" and e["t"] > stable})
                       for w in workers}  # fmt: skip
        found.extra = {"before": before, "after": after, "restored_by": restored_by}
    return found
