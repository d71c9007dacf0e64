"""Local state for one input partition: a sqlite file that survives a process restart.

Besides the aggregates it keeps two positions, written in the same sqlite transaction as the
aggregates they describe:

* ``applied_offset``: the highest input offset folded into the state (-1: none). Records at or
  below it are skipped, so a replay after a restart never counts a record twice.
* ``changelog_next``: the changelog partition's end offset right after this state's last write
  (Kafka Streams calls this the checkpoint). When the changelog's end offset is still the same on
  the next assignment, nobody else wrote to this partition's changelog meanwhile: the local state
  is current and is reused. Otherwise the changelog from ``changelog_next`` on is replayed over it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from .aggregate import Aggregate

_SCHEMA = """
CREATE TABLE IF NOT EXISTS aggregates (
    key TEXT PRIMARY KEY, count INTEGER NOT NULL, sum INTEGER NOT NULL, offset INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS positions (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


class PartitionStore:
    """The aggregates of one input partition in ``<dir>/<topic>-<partition>.sqlite``."""

    def __init__(self, directory: Path, topic: str, partition: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"{topic}-{partition}.sqlite"
        self.existed = self.path.exists()
        self._db = sqlite3.connect(self.path)
        self._db.executescript(_SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def _position(self, name: str, default: int) -> int:
        row = self._db.execute("SELECT value FROM positions WHERE name = ?", (name,)).fetchone()
        return default if row is None else int(row[0])

    @property
    def applied_offset(self) -> int:
        return self._position("applied_offset", -1)

    @property
    def changelog_next(self) -> int:
        return self._position("changelog_next", 0)

    def get_many(self, keys: Iterable[str]) -> dict[str, Aggregate]:
        wanted = sorted(set(keys))
        found: dict[str, Aggregate] = {}
        for start in range(0, len(wanted), 500):  # sqlite's host-parameter limit
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, count, sum, offset FROM aggregates WHERE key IN ({marks})", chunk
            )
            found.update({k: Aggregate(c, s, o) for k, c, s, o in rows})
        return found

    def all(self) -> dict[str, Aggregate]:
        rows = self._db.execute("SELECT key, count, sum, offset FROM aggregates")
        return {k: Aggregate(c, s, o) for k, c, s, o in rows}

    def write(
        self,
        updates: Mapping[str, Aggregate],
        *,
        applied_offset: int,
        changelog_next: int,
        wipe: bool = False,
    ) -> None:
        """Store ``updates`` and both positions atomically (``wipe`` first drops every key)."""
        with self._db:  # one transaction: commits on success, rolls back on error
            if wipe:
                self._db.execute("DELETE FROM aggregates")
            self._db.executemany(
                "INSERT OR REPLACE INTO aggregates (key, count, sum, offset) VALUES (?, ?, ?, ?)",
                [(k, a.count, a.sum, a.offset) for k, a in updates.items()],
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO positions (name, value) VALUES (?, ?)",
                [("applied_offset", applied_offset), ("changelog_next", changelog_next)],
            )
