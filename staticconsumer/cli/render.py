"""Text and JSON renderings of admin results for the command line (no I/O here)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from typing import Any

from ..admin import (
    GroupDescription,
    GroupMemberDescription,
    ReconcilePlan,
    StreamsGroupDescription,
    format_tasks,
)

_HEADERS: tuple[str, ...] = ("INSTANCE ID", "MEMBER ID", "CLIENT ID", "HOST", "ASSIGNMENT")


def format_assignment(assignment: Sequence[tuple[str, int]]) -> str:
    """``t0-0,t0-1,t1-0`` (Kafka's ``TopicPartition`` spelling); ``-`` when empty."""
    return ",".join(f"{topic}-{partition}" for topic, partition in assignment) or "-"


def format_table(description: GroupDescription) -> str:
    """A readable table: group, state and protocol, then one row per member. A consumer group
    (KIP-848) also shows its group epoch, each member's epoch, and the target assignment of a
    member still reconciling."""
    protocol = description.protocol or "-"
    if description.protocol_type and description.protocol_type != "consumer":
        protocol = f"{protocol} ({description.protocol_type})"
    consumer_group = description.group_epoch is not None
    if consumer_group:
        protocol = f"{protocol} (consumer group protocol, KIP-848)"
    lines = [
        f"GROUP     {description.group_id}",
        f"STATE     {description.state}",
        f"PROTOCOL  {protocol}",
        f"MEMBERS   {len(description.members)}",
    ]
    if consumer_group:
        lines.append(f"EPOCH     {description.group_epoch}")
    lines += _roster_lines(description)
    if not description.members:
        return "\n".join(lines) + "\n"
    headers = (*_HEADERS, "EPOCH") if consumer_group else _HEADERS
    rows = [_row(m, consumer_group) for m in description.members]
    widths = [max(len(r[i]) for r in (headers, *rows)) for i in range(len(headers))]
    lines.append("")
    for row in (headers, *rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines) + "\n"


_STREAMS_HEADERS = ("INSTANCE ID", "MEMBER ID", "PROCESS ID", "EPOCH", "ACTIVE", "STANDBY",
                    "WARMUP")  # fmt: skip


def format_streams_table(description: StreamsGroupDescription, instance_id: str | None) -> str:
    """A streams group (KIP-1071): its epochs, then one row per member (or the one with
    ``instance_id``), tasks in Kafka's spelling (``0:[0,1]``)."""
    lines = [
        f"GROUP     {description.group_id}",
        f"STATE     {description.state}",
        "PROTOCOL  streams (KIP-1071)",
        f"EPOCH     {description.group_epoch} (assignment {description.assignment_epoch})",
        f"MEMBERS   {len(description.members)}",
    ]
    members = [m for m in description.members
               if instance_id is None or m.group_instance_id == instance_id]  # fmt: skip
    if not members:
        return "\n".join(lines) + "\n"
    rows = [(m.group_instance_id or "-", m.member_id, m.process_id, str(m.member_epoch),
             format_tasks(m.tasks.active), format_tasks(m.tasks.standby),
             format_tasks(m.tasks.warmup)) for m in members]  # fmt: skip
    widths = [max(len(r[i]) for r in (_STREAMS_HEADERS, *rows)) for i in range(7)]
    lines.append("")
    for row in (_STREAMS_HEADERS, *rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines) + "\n"


def _roster_lines(description: GroupDescription) -> list[str]:
    """ROSTER: the registered ids, who of them is missing (since when), and the wait."""
    roster = description.roster
    if roster is None:
        return []
    since = dict(roster.registered)
    missing = ", ".join(f"{i} (registered {format_utc(since[i])})" for i in roster.missing)
    missing = missing or "none"
    state = "ran out" if roster.expired else "running"
    return [
        f"ROSTER    {', '.join(i for i, _ in roster.registered) or 'empty'}",
        f"MISSING   {missing}",
        f"WAIT      {roster.wait_ms} ms from {format_utc(roster.updated_at_ms)}: {state} "
        f"(until {format_utc(roster.deadline_ms)})",
    ]


def format_utc(ms: int) -> str:
    """Wall-clock ms as ``2024-11-23T22:13:20Z``."""
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _row(m: GroupMemberDescription, consumer_group: bool) -> tuple[str, ...]:
    assignment = format_assignment(m.assignment)
    if consumer_group and m.target_assignment != m.assignment:
        assignment += f" (target {format_assignment(m.target_assignment)})"
    row = (m.group_instance_id or "-", m.member_id, m.client_id, m.client_host, assignment)
    return (*row, str(m.member_epoch)) if consumer_group else row


def format_json(document: Any) -> str:
    """One JSON document, keys in a stable order, on one line ending with a newline."""
    return json.dumps(document, sort_keys=True) + "\n"


def removal_document(
    group_id: str, removed: Sequence[str], failed: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """The ``remove-members --json`` document: ``removed`` ids and ``failed`` with error names."""
    return {
        "group_id": group_id,
        "removed": list(removed),
        "failed": [{"group_instance_id": i, "error": name} for i, name in failed],
    }


def format_removal(group_id: str, removed: Sequence[str], failed: Sequence[tuple[str, str]]) -> str:
    lines = [f"removed from group {group_id}: {i}" for i in removed]
    lines += [f"NOT removed from group {group_id}: {i} ({name})" for i, name in failed]
    return "\n".join(lines) + "\n"


def format_reconcile(plan: ReconcilePlan, reason: str) -> str:
    """``reconcile-members`` as text: what is kept, removed (or would be), missing."""

    def ids(values: Sequence[str]) -> str:
        return ", ".join(values) or "-"

    lines = [
        f"group {plan.group_id}: {len(plan.keep) + len(plan.remove)} static member(s), "
        f"{len(plan.desired)} desired instance id(s)",
        f"  keep     {ids(plan.keep)}",
        f"  remove   {ids(plan.remove)}",
        f"  missing  {ids(plan.missing)} (desired, not in the group now)",
    ]
    if not plan.remove:
        lines.append("nothing to remove")
    elif not plan.applied:
        lines.append(f"dry run: nothing removed; add --execute to remove {ids(plan.remove)} "
                     f"in one LeaveGroup (reason: {reason})")  # fmt: skip
    else:
        lines.append(f"removed {ids(plan.removed)} (reason: {reason})")
        lines += [f"NOT removed: {i} ({name})" for i, name in plan.failed]
    return "\n".join(lines) + "\n"
