"""Text and JSON renderings of admin results for the command line (no I/O here)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .admin import GroupDescription, ReconcilePlan

_HEADERS = ("INSTANCE ID", "MEMBER ID", "CLIENT ID", "HOST", "ASSIGNMENT")


def format_assignment(assignment: Sequence[tuple[str, int]]) -> str:
    """``t0-0,t0-1,t1-0`` (Kafka's ``TopicPartition`` spelling); ``-`` when empty."""
    return ",".join(f"{topic}-{partition}" for topic, partition in assignment) or "-"


def format_table(description: GroupDescription) -> str:
    """A readable table: group, state and protocol, then one row per member."""
    protocol = description.protocol or "-"
    if description.protocol_type and description.protocol_type != "consumer":
        protocol = f"{protocol} ({description.protocol_type})"
    lines = [
        f"GROUP     {description.group_id}",
        f"STATE     {description.state}",
        f"PROTOCOL  {protocol}",
        f"MEMBERS   {len(description.members)}",
    ]
    if not description.members:
        return "\n".join(lines) + "\n"
    rows = [
        (
            m.group_instance_id or "-",
            m.member_id,
            m.client_id,
            m.client_host,
            format_assignment(m.assignment),
        )
        for m in description.members
    ]
    widths = [max(len(r[i]) for r in (_HEADERS, *rows)) for i in range(len(_HEADERS))]
    lines.append("")
    for row in (_HEADERS, *rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines) + "\n"


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
        lines.append(f"dry run: nothing removed; add --apply to remove {ids(plan.remove)} "
                     f"in one LeaveGroup (reason: {reason})")  # fmt: skip
    else:
        lines.append(f"removed {ids(plan.removed)} (reason: {reason})")
        lines += [f"NOT removed: {i} ({name})" for i, name in plan.failed]
    return "\n".join(lines) + "\n"
