"""The pure part of the app: per-key running aggregates (count and sum) and their record formats.

Input record: key = the aggregate key (UTF-8), value = an integer as text, e.g. ``b"42"``.
Changelog record (compacted topic, partition = the input partition): key = the aggregate key,
value = ``{"count": c, "sum": s, "offset": o}`` where ``o`` is the input offset of the last record
folded into this aggregate. Output record: key = the aggregate key, value =
``{"key": k, "count": c, "sum": s, "partition": p, "offset": o}``.

Because every changelog value is a whole aggregate (not a delta), replaying any suffix of the
changelog over a state that reflects the prefix gives the state of the whole changelog, and
compaction never changes that result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Aggregate:
    """count and sum of the values seen for one key, and the input offset of the last one."""

    count: int = 0
    sum: int = 0
    offset: int = -1

    def add(self, value: int, offset: int) -> Aggregate:
        return Aggregate(self.count + 1, self.sum + value, offset)


@dataclass(frozen=True)
class InputRecord:
    """One input record; ``value`` is None when the record is malformed (no key, or a value
    that is not an integer): it is counted and passed over, but its offset still counts."""

    offset: int
    key: str
    value: int | None


@dataclass
class BatchResult:
    """What folding one batch of one partition produced."""

    updates: dict[str, Aggregate] = field(default_factory=dict)  # touched keys, final values
    applied: int = 0  # records folded in
    skipped: int = 0  # records at or below the last applied offset (already in the state)
    bad: int = 0  # malformed records passed over
    last_offset: int = -1  # highest input offset handled (folded in or passed over), -1 if none

    def changelog_order(self) -> list[tuple[str, Aggregate]]:
        """Updates in input-offset order, so the changelog partition's last record always
        carries the highest applied offset."""
        return sorted(self.updates.items(), key=lambda item: item[1].offset)


def parse_input(offset: int, key: bytes | None, value: bytes | None) -> InputRecord:
    """An input record; malformed ones get ``value=None``."""
    try:
        if key is None or value is None:
            raise ValueError("no key or no value")
        return InputRecord(offset, key.decode(), int(value))
    except (UnicodeDecodeError, ValueError):
        return InputRecord(offset, "", None)


def fold(
    current: Mapping[str, Aggregate], records: Iterable[InputRecord], applied_offset: int
) -> BatchResult:
    """Fold ``records`` (in offset order) into the aggregates in ``current``; records at or
    below ``applied_offset`` are skipped because the state already holds them."""
    result = BatchResult()
    for record in records:
        if record.offset <= applied_offset:
            result.skipped += 1
            continue
        result.last_offset = record.offset
        if record.value is None:
            result.bad += 1
            continue
        base = result.updates.get(record.key) or current.get(record.key) or Aggregate()
        result.updates[record.key] = base.add(record.value, record.offset)
        result.applied += 1
    return result


def reference(pairs: Iterable[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """``key -> (count, sum)`` computed directly from input ``(key, value)`` pairs."""
    totals: dict[str, tuple[int, int]] = {}
    for key, value in pairs:
        count, total = totals.get(key, (0, 0))
        totals[key] = (count + 1, total + value)
    return totals


def encode_changelog(agg: Aggregate) -> bytes:
    return json.dumps({"count": agg.count, "sum": agg.sum, "offset": agg.offset}).encode()


def decode_changelog(value: bytes) -> Aggregate:
    doc = json.loads(value)
    return Aggregate(int(doc["count"]), int(doc["sum"]), int(doc["offset"]))


def encode_output(key: str, agg: Aggregate, partition: int) -> bytes:
    doc = {"key": key, "count": agg.count, "sum": agg.sum, "partition": partition}
    return json.dumps({**doc, "offset": agg.offset}).encode()
