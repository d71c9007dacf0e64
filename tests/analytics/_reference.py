"""A direct, pure-Python computation of the report's figures from a list of event dicts.

Written from the definitions in docs/membership-events.md and docs/analytics.md, without looking at
how the Spark job computes them: the tests compare the two on random event streams.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

Event = dict[str, Any]


def prepare(events: Iterable[Event], since: int | None, until: int | None) -> list[Event]:
    """Drop duplicates (by event_id) and events outside ``since <= ts_ms < until``."""
    seen: dict[str, Event] = {}
    for item in events:
        if since is not None and item["ts_ms"] < since:
            continue
        if until is not None and item["ts_ms"] >= until:
            continue
        seen.setdefault(item["event_id"], item)
    return list(seen.values())


def _owner(item: Event) -> str:
    return str(item["group_instance_id"] or item["member_id"])


def _by_group(events: list[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = defaultdict(list)
    for item in events:
        out[item["group_id"]].append(item)
    return out


def rebalances(events: list[Event]) -> dict[str, list[tuple[int, tuple[str, ...], int]]]:
    """group -> [(generation, sorted distinct join reasons, partitions moved)] per rebalance."""
    out: dict[str, list[tuple[int, tuple[str, ...], int]]] = {}
    for group, items in _by_group(events).items():
        first: dict[int, int] = {}
        for item in items:
            if item["type"] == "joined" and item["generation_id"] >= 0:
                gen = item["generation_id"]
                first[gen] = min(first.get(gen, item["ts_ms"]), item["ts_ms"])
        owners: dict[int, dict[tuple[str, int], str]] = defaultdict(dict)
        for item in items:
            if item["type"] == "assigned" and item["generation_id"] >= 0:
                table = owners[item["generation_id"]]
                for tp in item["partitions"] or []:
                    key = (tp["topic"], tp["partition"])
                    table[key] = min(table.get(key, _owner(item)), _owner(item))
        gens = sorted(first)
        rows = []
        for previous, gen in pairwise(gens):
            reasons = {
                item["reason"]
                for item in items
                if item["type"] == "join_reason"
                and item["reason"] is not None
                and first[previous] < item["ts_ms"] <= first[gen]
            }
            moved = sum(1 for tp, who in owners[gen].items() if owners[previous].get(tp) != who)
            rows.append((gen, tuple(sorted(reasons)), moved))
        out[group] = rows
    return out


def paused_ms(events: list[Event], range_end_ms: int) -> dict[str, int]:
    """group -> sum over revokes of (next assign of that partition at or after it) - revoke."""
    out: dict[str, int] = defaultdict(int)
    for group, items in _by_group(events).items():
        assigns: dict[tuple[str, int], list[int]] = defaultdict(list)
        for item in items:
            if item["type"] == "assigned":
                for tp in item["partitions"] or []:
                    assigns[(tp["topic"], tp["partition"])].append(item["ts_ms"])
        for item in items:
            if item["type"] != "revoked":
                continue
            for tp in item["partitions"] or []:
                later = [t for t in assigns[(tp["topic"], tp["partition"])] if t >= item["ts_ms"]]
                end = min(later) if later else range_end_ms
                out[group] += max(end - item["ts_ms"], 0)
    return dict(out)


def _instances(events: list[Event]) -> dict[tuple[str, str], list[Event]]:
    out: dict[tuple[str, str], list[Event]] = defaultdict(list)
    for item in events:
        if item["group_instance_id"] is not None:
            out[(item["group_id"], item["group_instance_id"])].append(item)
    for items in out.values():
        items.sort(key=lambda e: (e["ts_ms"], e["seq"], e["event_id"]))
    return out


def restarts(events: list[Event]) -> dict[tuple[str, str], tuple[int, int]]:
    """(group, instance) -> (restarts, restarts that caused no rebalance)."""
    out = {}
    for key, items in _instances(events).items():
        count = quiet = 0
        last_member = None
        last_generation = None
        for item in items:
            if (
                item["type"] == "joined"
                and last_member is not None
                and item["member_id"] != last_member
            ):
                count += 1
                quiet += last_generation == item["generation_id"]
            if item["member_id"] is not None:
                last_member = item["member_id"]
            if item["generation_id"] is not None and item["generation_id"] >= 0:
                last_generation = item["generation_id"]
        out[key] = (count, quiet)
    return out


def time_without_partitions(events: list[Event], range_end_ms: int) -> dict[tuple[str, str], int]:
    """(group, instance) -> ms without partitions, from its first event to the range end."""
    out = {}
    for key, items in _instances(events).items():
        total = 0
        holding = False
        for index, item in enumerate(items):
            if item["type"] == "assigned":
                holding = bool(item["partitions"])
            elif item["type"] in ("revoked", "left", "fenced", "session_expired"):
                holding = False
            end = items[index + 1]["ts_ms"] if index + 1 < len(items) else range_end_ms
            if not holding:
                total += max(end - item["ts_ms"], 0)
        out[key] = total
    return out
