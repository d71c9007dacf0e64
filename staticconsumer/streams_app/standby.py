"""A stream thread's standby and warm-up tasks in a streams group (KIP-1071): their stores
follow the changelog, so that a task moving here restores nothing or only the tail.

The broker places standby tasks (``streams.num.standby.replicas`` on the group, or the broker's
``group.streams.num.standby.replicas``) on another process than the active one, and warm-up
tasks where it means to move an active one once they caught up. For each such task ``(0, p)``
the thread keeps partition ``p``'s sqlite store and, every :data:`CATCH_UP_INTERVAL_S`, reads the
changelog partition from the store's checkpoint to its end (as an assignment does,
``StreamThread.catch_up``). When the task becomes active here, its store is handed over as it is.

The broker's warm-ups read the task offsets the thread reports: each task's changelog position
and the changelog's end as last seen (``task_offsets``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from staticconsumer.membership import TaskSet
from staticconsumer.protocol import TaskOffset

from .store import PartitionStore

log = logging.getLogger(__name__)

#: How often the standby stores read the changelog's new records.
CATCH_UP_INTERVAL_S = 1.0
#: The app's one subtopology (``membership.app_topology``).
SUBTOPOLOGY = "0"

CatchUp = Callable[[PartitionStore, int], Awaitable[tuple[int, int]]]


class Standbys:
    """The standby and warm-up stores of one thread (module docstring)."""

    def __init__(self, name: str, state_dir: Path, input_topic: str) -> None:
        self._name, self._state_dir, self._topic = name, state_dir, input_topic
        self.stores: dict[int, PartitionStore] = {}
        #: The partitions the broker wants kept up to date here now.
        self.wanted: frozenset[int] = frozenset()
        #: Each partition's changelog end as last read (for the task offsets report).
        self.ends: dict[int, int] = {}
        #: Changelog records read by the standbys (not counted as restores).
        self.records_read = 0

    def on_tasks(self, tasks: TaskSet) -> None:
        """The broker's new task lists (in the coordination loop: no I/O here)."""
        self.wanted = frozenset(p for s, p in tasks.standby | tasks.warmup if s == SUBTOPOLOGY)
        if self.wanted:
            log.info("%s: standby/warm-up partitions %s", self._name, sorted(self.wanted))

    def take(self, partition: int) -> PartitionStore | None:
        """The store of a standby that became active here (it leaves the standbys)."""
        return self.stores.pop(partition, None)

    async def catch_up(self, active: set[int], catch_up: CatchUp) -> None:
        """Open the wanted stores, close the others, read each to the changelog's end."""
        for p in set(self.stores) - self.wanted:
            self.stores.pop(p).close()
        for p in sorted(self.wanted - active):
            store = self.stores.get(p)
            if store is None:
                store = self.stores[p] = PartitionStore(self._state_dir, self._topic, p)
            read, end = await catch_up(store, p)
            self.records_read += read
            self.ends[p] = end

    async def run(self, stopping: asyncio.Event, step: Callable[[], Awaitable[None]]) -> None:
        """``step`` every :data:`CATCH_UP_INTERVAL_S` until ``stopping``."""
        while not stopping.is_set():
            try:
                await step()
            except Exception:  # a standby that fails to catch up is not worth the thread
                log.warning("%s: standby catch-up failed", self._name, exc_info=True)
            try:
                await asyncio.wait_for(stopping.wait(), CATCH_UP_INTERVAL_S)
            except TimeoutError:
                pass

    def task_offsets(
        self, active: dict[int, PartitionStore]
    ) -> tuple[list[TaskOffset], list[TaskOffset]]:
        """Each task's changelog position and the changelog's end (an active task's store is
        the end itself: it wrote it)."""
        offsets, ends = [], []
        for p, store in sorted({**self.stores, **active}.items()):
            position = store.changelog_next
            offsets.append(TaskOffset(SUBTOPOLOGY, p, position))
            ends.append(TaskOffset(SUBTOPOLOGY, p, position if p in active else
                                   max(position, self.ends.get(p, position))))  # fmt: skip
        return offsets, ends

    def close(self) -> None:
        for store in self.stores.values():
            store.close()
        self.stores.clear()
