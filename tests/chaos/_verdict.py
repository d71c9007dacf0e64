"""The chaos suite's verdict, read from Kafka after the chaos stopped and the group settled.

What Jepsen's Kafka checker and franz-go's ``TestGroupETL`` ask, for an ETL group (input topic ->
members -> output topic, ``_etl_member.py``):

* **lost** -- input records with no copy in the output;
* **duplicates** -- input records with more than one copy. A copy is *explained* when the
  incarnation that wrote it had a crash window (it was SIGKILLed, or frozen) and the record lies at
  or after that incarnation's last reported commit of its partition before the window began:
  the batch in flight, written but not committed (up to its first commit after the window, for
  a member that was thawed and went on). Every copy but one must be explained;
  the rest are ``unexplained`` (a defect), the explained ones are counted per fault kind;
* **order** -- in each output partition, the source offsets seen for the first time increase
  (a duplicate repeats; a new record never comes before an older one); every output record is in
  the partition it came from (``misrouted``);
* **committed** -- the group's committed offsets equal the input's end offsets;
* **lag** -- end-to-end lag of each record's first copy (output timestamp minus input timestamp),
  and per fault the time to recover: the longest lag of a record produced between that fault and
  the next (but the last ``RECOVERY_MARGIN_S`` before it).

The judging is a pure function (``judge``) over plain data, tested without a broker
(``test_verdict_units.py``); ``KafkaView`` reads the data from Kafka.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from tests.reliability._harness import committed_offsets

#: Records produced this close before a fault are not counted for the fault before (a median
#: record is written ~10 ms after it is produced; the next fault may hold it back).
RECOVERY_MARGIN_S = 0.5


@dataclass(frozen=True)
class Copy:
    """One output record: where it is, which input record it copies, who wrote it when."""

    partition: int
    offset: int
    src_partition: int
    src_offset: int
    name: str
    incarnation: int
    src_ts: int  # ms, the input record's timestamp
    ts: int  # ms, the output record's timestamp


@dataclass(frozen=True)
class Window:
    """A crash window of one incarnation (``kind``: the fault that opened it): per partition,
    from the position it had reported committed before the window began (``marks``) to the
    first position it committed after it (``until``; none: the incarnation never committed
    that partition again, it was killed or fenced)."""

    name: str
    incarnation: int
    kind: str
    marks: dict[int, int]
    until: dict[int, int] = field(default_factory=dict)


@dataclass
class Verdict:
    inputs: int = 0
    outputs: int = 0
    lost: list[tuple[int, int]] = field(default_factory=list)
    duplicates: int = 0
    explained: Counter[str] = field(default_factory=Counter)
    unexplained: list[tuple[int, int, list[str]]] = field(default_factory=list)
    order_violations: list[tuple[int, int, int]] = field(default_factory=list)
    misrouted: int = 0
    committed: dict[int, int] = field(default_factory=dict)
    ends: dict[int, int] = field(default_factory=dict)
    max_lag_s: float = 0.0
    median_lag_s: float = 0.0
    recovery_s: list[tuple[str, float]] = field(default_factory=list)

    @property
    def committed_at_end(self) -> bool:
        partitions = self.committed.keys() | self.ends.keys()
        return all(self.committed.get(p, 0) == self.ends.get(p, 0) for p in partitions)

    def problems(self) -> list[str]:
        """What breaks the contract (empty: the run held)."""
        out = []
        if self.lost:
            out.append(f"{len(self.lost)} lost, e.g. {self.lost[:5]}")
        if self.unexplained:
            out.append(f"{len(self.unexplained)} duplicates outside a crash window, "
                       f"e.g. {self.unexplained[:3]}")  # fmt: skip
        if self.order_violations:
            out.append(f"order broken (partition, offset, after): {self.order_violations[:5]}")
        if self.misrouted:
            out.append(f"{self.misrouted} records in another partition than their source's")
        if not self.committed_at_end:
            out.append(f"committed {self.committed} != end of input {self.ends}")
        return out


def judge(inputs: dict[tuple[int, int], int], copies: list[Copy], windows: list[Window],
          committed: dict[int, int], ends: dict[int, int],
          faults: Sequence[tuple[str, float]] = (),
          margin_s: float = RECOVERY_MARGIN_S) -> Verdict:  # fmt: skip
    """``inputs``: (partition, offset) -> timestamp (ms) of every input record; ``copies``: the
    output topic; ``faults``: (kind, wall-clock seconds) of each fault applied."""
    verdict = Verdict(inputs=len(inputs), outputs=len(copies), committed=dict(committed),
                      ends=dict(ends))  # fmt: skip
    by_source: dict[tuple[int, int], list[Copy]] = defaultdict(list)
    for copy in copies:
        by_source[(copy.src_partition, copy.src_offset)].append(copy)
    verdict.lost = sorted(set(inputs) - set(by_source))
    windows_of: dict[tuple[str, int], list[Window]] = defaultdict(list)
    for window in windows:
        windows_of[(window.name, window.incarnation)].append(window)
    for (partition, offset), found in sorted(by_source.items()):
        if len(found) < 2:
            continue
        verdict.duplicates += len(found) - 1
        kinds = [_window_kind(c, windows_of) for c in found]
        explained = [k for k in kinds if k is not None]
        verdict.explained.update(explained[: len(found) - 1])
        if len(explained) < len(found) - 1:
            who = [f"{c.name}#{c.incarnation}@{c.partition}:{c.offset}" for c in found]
            verdict.unexplained.append((partition, offset, who))
    _check_order(verdict, copies)
    firsts = {}
    for copy in sorted(copies, key=lambda c: (c.partition, c.offset)):
        firsts.setdefault((copy.src_partition, copy.src_offset), copy)
    lags = sorted((c.ts - c.src_ts) / 1000 for c in firsts.values())
    if lags:
        verdict.max_lag_s, verdict.median_lag_s = lags[-1], lags[len(lags) // 2]
    verdict.recovery_s = recovery(faults, [(c.src_ts, (c.ts - c.src_ts) / 1000)
                                           for c in firsts.values()], margin_s)  # fmt: skip
    return verdict


def _window_kind(copy: Copy, windows_of: dict[tuple[str, int], list[Window]]) -> str | None:
    for window in windows_of.get((copy.name, copy.incarnation), []):
        p = copy.src_partition
        if window.marks.get(p, 0) <= copy.src_offset < window.until.get(p, copy.src_offset + 1):
            return window.kind
    return None


def _check_order(verdict: Verdict, copies: list[Copy]) -> None:
    highest: dict[int, int] = {}
    seen: set[tuple[int, int]] = set()
    for copy in sorted(copies, key=lambda c: (c.partition, c.offset)):
        if copy.src_partition != copy.partition:
            verdict.misrouted += 1
        key = (copy.src_partition, copy.src_offset)
        if key in seen:
            continue
        seen.add(key)
        top = highest.get(copy.partition, -1)
        if copy.src_offset < top:
            verdict.order_violations.append((copy.partition, copy.src_offset, top))
        highest[copy.partition] = max(top, copy.src_offset)


def recovery(faults: Sequence[tuple[str, float]], lags: Sequence[tuple[int, float]],
             margin_s: float = RECOVERY_MARGIN_S) -> list[tuple[str, float]]:  # fmt: skip
    """Per fault (kind, wall-clock seconds, in order): the longest end-to-end lag of a record
    produced after it and more than ``margin_s`` before the next fault (``lags``: input timestamp
    in ms, lag in seconds). A partition the fault stalled holds its records back that long: the
    time to recover. (A record produced just before the next fault is that fault's to delay.)"""
    out: list[tuple[str, float]] = []
    bounds = [at - margin_s for _, at in faults[1:]] + [float("inf")] * bool(faults)
    for (kind, at), until in zip(faults, bounds, strict=True):
        window = [lag for ts, lag in lags if at * 1000 <= ts < until * 1000]
        if window:
            out.append((kind, max(window)))
    return out


# -- reading Kafka ------------------------------------------------------------------------------


class KafkaView:
    """What Kafka holds, read by one plain consumer (no group) for a whole run: a consumer
    started and stopped at once can raise CancelledError from ``stop()`` (aiokafka 0.14's
    NoGroupCoordinator cancels a task that never ran)."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self._partitions_of: dict[str, list[int]] = {}
        self._consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                          auto_offset_reset="earliest")  # fmt: skip

    async def __aenter__(self) -> KafkaView:
        await self._consumer.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await asyncio.sleep(0.1)  # let the coordinator's task start (class docstring)
        await self._consumer.stop()

    async def _partitions(self, topic: str) -> list[TopicPartition]:
        if topic not in self._partitions_of:
            admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
            await admin.start()
            try:
                (described,) = await admin.describe_topics([topic])
            finally:
                await admin.close()
            self._partitions_of[topic] = sorted(p["partition"] for p in described["partitions"])
        if not self._partitions_of[topic]:
            raise AssertionError(f"{topic} has no partitions")
        return [TopicPartition(topic, p) for p in self._partitions_of[topic]]

    async def ends(self, topic: str) -> dict[int, int]:
        tps = await self._partitions(topic)
        return {tp.partition: o for tp, o in (await self._consumer.end_offsets(tps)).items()}

    async def committed_and_ends(self, group: str,
                                 topic: str) -> tuple[dict[int, int], dict[int, int]]:  # fmt: skip
        """The group's committed offsets (it reads one topic) and ``topic``'s end offsets."""
        return await committed_offsets(self.bootstrap, group), await self.ends(topic)

    async def read(self, topic: str) -> list[Any]:
        """Every record of ``topic``, from the beginning to its end offsets."""
        tps = await self._partitions(topic)
        self._consumer.assign(tps)
        ends = await self._consumer.end_offsets(tps)
        await self._consumer.seek_to_beginning(*tps)
        out: list[Any] = []
        while any([await self._consumer.position(tp) < ends[tp] for tp in tps]):
            for records in (await self._consumer.getmany(timeout_ms=1000)).values():
                out.extend(records)
        self._consumer.unsubscribe()
        return out


def copies_of(records: list[Any]) -> list[Copy]:
    out = []
    for r in records:
        v = json.loads(r.value)
        out.append(Copy(r.partition, r.offset, v["p"], v["o"], v["i"], v["n"], v["ts"],
                        r.timestamp))  # fmt: skip
    return out
