"""The human-readable outputs: a PNG timeline (matplotlib) and a self-contained HTML report.

Both are drawn from the small, already aggregated tables that :mod:`.job` collects; nothing here
touches Spark. The PNG shows, per group, one row per owner (instance id, or member id for dynamic
members) with a bar wherever it holds partitions (the number written on the bar) and a dashed line
at each rebalance, labelled with its generation and join reasons.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from matplotlib import colormaps, rcParams
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure

from ._time import format_ms

Row = Mapping[str, Any]
MAX_GROUPS_PLOTTED = 4
MAX_OWNERS_PLOTTED = 16
MAX_MARKER_LABELS = 12
_MS_PER_DAY = 86_400_000.0
# matplotlib.dates.date2num is untyped; this is what it computes, relative to rcParams' epoch.
_EPOCH = datetime.fromisoformat(str(rcParams["date.epoch"])).replace(tzinfo=timezone.utc)
_EPOCH_OFFSET_DAYS = (datetime(1970, 1, 1, tzinfo=timezone.utc) - _EPOCH).total_seconds() / 86400


@dataclass(frozen=True)
class ReportData:
    """Collected rows of the tables the report shows (each already limited in size)."""

    title: str
    groups: Sequence[Row]
    rebalances: Sequence[Row]
    timeline: Sequence[Row]
    fencing: Sequence[Row]
    restarts: Sequence[Row]
    instances: Sequence[Row]
    range_end_ms: int
    facts: Mapping[str, str] = field(default_factory=dict)
    notes: Sequence[str] = ()


def _date(ts_ms: int) -> float:
    """Matplotlib's date number: days since its epoch (1970-01-01 UTC unless changed)."""
    return float(_EPOCH_OFFSET_DAYS + ts_ms / _MS_PER_DAY)


def plotted_groups(groups: Sequence[Row]) -> list[str]:
    """The groups the timeline shows: those with the most events."""
    ranked = sorted(groups, key=lambda row: (-int(row["events"]), str(row["group_id"])))
    return [str(row["group_id"]) for row in ranked[:MAX_GROUPS_PLOTTED]]


def _segments(steps: Sequence[Row], end_ms: int) -> list[tuple[int, int, int]]:
    """(start, end, partitions) for each step of one owner, the last running to ``end_ms``."""
    ordered = sorted(steps, key=lambda row: int(row["ts_ms"]))
    out = []
    for index, row in enumerate(ordered):
        start = int(row["ts_ms"])
        stop = int(ordered[index + 1]["ts_ms"]) if index + 1 < len(ordered) else end_ms
        out.append((start, max(stop, start), int(row["partitions"])))
    return out


def _draw_group(axes: Any, group: str, data: ReportData) -> None:
    by_owner: dict[str, list[Row]] = {}
    for row in data.timeline:
        if row["group_id"] == group:
            by_owner.setdefault(str(row["owner"]), []).append(row)
    owners = sorted(by_owner)[:MAX_OWNERS_PLOTTED]
    top = max((int(r["partitions"]) for rows in by_owner.values() for r in rows), default=1) or 1
    colormap = colormaps["Blues"]
    first = min((int(r["ts_ms"]) for rows in by_owner.values() for r in rows), default=0)
    span = max(data.range_end_ms - first, 1)
    for y, name in enumerate(owners):
        bars, colors = [], []
        for start, stop, count in _segments(by_owner[name], data.range_end_ms):
            if count <= 0:
                continue
            shade = 0.35 + 0.55 * count / top
            width = max(stop - start, 1) / _MS_PER_DAY
            bars.append((_date(start), width))
            colors.append(colormap(shade))
            if (stop - start) / span >= 0.03:  # label only the bars wide enough to read
                axes.text(
                    _date(start) + width / 2, y, str(count), ha="center", va="center",
                    fontsize=7, color="white" if shade > 0.6 else "black", clip_on=True,
                )  # fmt: skip
        if bars:
            axes.broken_barh(bars, (y - 0.35, 0.7), facecolors=colors)
    markers = sorted(
        (row for row in data.rebalances if row["group_id"] == group),
        key=lambda row: int(row["ts_ms"]),
    )
    for index, row in enumerate(markers):
        x = _date(int(row["ts_ms"]))
        axes.axvline(x, color="crimson", linestyle="--", linewidth=0.8)
        if index < MAX_MARKER_LABELS:
            reasons = "; ".join(row["reasons"] or []) or "no reason reported"
            label = f"gen {row['generation_id']}: {reasons}"
            axes.text(
                x, len(owners) - 0.4, label[:60], rotation=90, fontsize=6,
                va="bottom", ha="right", color="crimson", clip_on=False,
            )  # fmt: skip
    axes.set_yticks(range(len(owners)), labels=owners, fontsize=7)
    axes.set_ylim(-0.6, max(len(owners), 1) - 0.4)
    hidden = len(by_owner) - len(owners)
    suffix = f" (+{hidden} owners not shown)" if hidden > 0 else ""
    title = f"{group}: {len(markers)} rebalances{suffix}"
    axes.set_title(title, fontsize=9, loc="left", pad=70 if markers else 6)
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    axes.grid(axis="x", alpha=0.3)


def render_timeline_png(data: ReportData) -> bytes:
    """The timeline as PNG bytes (an explanatory placeholder when there is nothing to draw)."""
    groups = plotted_groups(data.groups)
    rows = max(len(groups), 1)
    heights = []
    for group in groups:
        owners = {r["owner"] for r in data.timeline if r["group_id"] == group}
        heights.append(1.6 + 0.3 * min(len(owners), MAX_OWNERS_PLOTTED))
    figure = Figure(figsize=(11, sum(heights) + 1.2 * rows if groups else 2.5), dpi=100)
    FigureCanvasAgg(figure)
    if not groups:
        axes = figure.subplots()
        axes.axis("off")
        axes.text(0.5, 0.5, "no membership events in the range read", ha="center", va="center")
    else:
        grid = figure.subplots(rows, 1, squeeze=False, gridspec_kw={"height_ratios": heights})
        for axes, group in zip(grid[:, 0], groups, strict=True):
            _draw_group(axes, group, data)
        grid[-1, 0].set_xlabel("time (UTC)")
    figure.suptitle("partitions held per member over time; dashed: rebalances", fontsize=10)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


_TIMESTAMPS = frozenset(
    {"ts_ms", "first_ms", "last_ms", "from_ms", "to_ms", "revoked_ms", "assigned_ms"}
)
_DURATIONS = frozenset({"paused_ms", "duration_ms", "time_without_partitions_ms"})


def _cell(value: Any, column: str) -> str:
    if value is None:
        return "-"
    if column in _TIMESTAMPS:
        return html.escape(format_ms(int(value)))
    if column in _DURATIONS:
        return f"{int(value) / 1000:,.3f} s"
    if isinstance(value, float):
        return f"{value:,.3f}"
    if isinstance(value, (list, tuple)):
        return html.escape("; ".join(str(item) for item in value)) or "-"
    return html.escape(str(value))


def _table(rows: Sequence[Row], columns: Sequence[str], empty: str) -> str:
    if not rows:
        return f"<p class='empty'>{html.escape(empty)}</p>"
    head = "".join(f"<th>{html.escape(name)}</th>" for name in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(row.get(name), name)}</td>" for name in columns) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3} .empty{color:#777} img{max-width:100%;border:1px solid #ddd}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px} dt{font-weight:600}
"""

GROUP_COLUMNS = (
    "group_id", "rebalances", "rebalance_reasons", "partitions_moved",
    "paused_partition_seconds", "restarts", "restarts_without_rebalance", "fencing_incidents",
    "generations", "instances", "members", "events", "first_ms", "last_ms",
)  # fmt: skip
REBALANCE_COLUMNS = (
    "group_id", "generation_id", "ts_ms", "reasons", "partitions_moved", "members", "leader",
    "protocol",
)  # fmt: skip
FENCING_COLUMNS = (
    "group_id", "group_instance_id", "ts_ms", "api", "fenced_member_id", "fenced_client_id",
    "fenced_host", "holder_member_id", "holder_source", "holder_client_id", "holder_host",
)  # fmt: skip
RESTART_COLUMNS = (
    "group_id", "group_instance_id", "ts_ms", "previous_member_id", "member_id",
    "previous_generation_id", "generation_id", "without_rebalance",
)  # fmt: skip
INSTANCE_COLUMNS = (
    "group_id", "group_instance_id", "restarts", "restarts_without_rebalance", "fenced",
    "time_without_partitions_ms", "member_ids", "first_ms", "last_ms",
)  # fmt: skip


def render_html(data: ReportData, png: bytes) -> str:
    """A single HTML document with every section and the PNG inlined as base64."""
    facts = "".join(
        f"<dt>{html.escape(key)}</dt><dd>{html.escape(value)}</dd>"
        for key, value in data.facts.items()
    )
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in data.notes)
    image = base64.b64encode(png).decode("ascii")
    sections = [
        f"<h1>{html.escape(data.title)}</h1>",
        f"<dl>{facts}</dl>",
        f"<ul>{notes}</ul>" if notes else "",
        "<h2>Groups</h2>",
        _table(data.groups, GROUP_COLUMNS, "no membership events in the range read"),
        "<h2>Timeline</h2>",
        f"<img alt='partitions per member over time' src='data:image/png;base64,{image}'>",
        "<h2>Rebalances</h2>",
        _table(data.rebalances, REBALANCE_COLUMNS, "no rebalances"),
        "<h2>Fencing incidents</h2>",
        _table(data.fencing, FENCING_COLUMNS, "no member was fenced"),
        "<h2>Restarts</h2>",
        _table(data.restarts, RESTART_COLUMNS, "no static member restarted"),
        "<h2>Static members</h2>",
        _table(data.instances, INSTANCE_COLUMNS, "no static members"),
    ]
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(data.title)}</title><style>{_STYLE}</style></head><body>\n"
        + "\n".join(section for section in sections if section)
        + "\n</body></html>\n"
    )
