"""The human-readable outputs: a PNG timeline (matplotlib) and a self-contained HTML report.

Both are drawn from the small, already aggregated tables that :mod:`.job` collects; nothing here
touches Spark. The PNG shows, per group, one row per owner (instance id, or member id for dynamic
members, shortened when long) with a bar wherever it holds partitions (the number written on the
bar) and a dashed line at each rebalance labelled "gen N"; the join reasons of each rebalance are
listed, wrapped and truncated, under the panel.
"""

from __future__ import annotations

import base64
import html
import io
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from matplotlib import colormaps, rcParams
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine

from ._time import format_ms

Row = Mapping[str, Any]
MAX_GROUPS_PLOTTED = 4
MAX_OWNERS_PLOTTED = 16
MAX_MARKER_LABELS = 12
#: y tick labels longer than this are shortened (see :func:`short_owner`).
OWNER_LABEL_CHARS = 28
#: The reasons of one rebalance in the legend under its panel: truncated, then wrapped.
REASON_CHARS = 240
REASON_WRAP = 165
#: Levels of "gen N" labels along the top of a panel (close rebalances are stacked).
LABEL_LEVELS = 2
_MEMBER_ID = re.compile(r"^(.+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
_ROW_IN = 0.28  # inches per owner row
_LABEL_ROW = 0.6  # height of one level of marker labels, in owner rows
_LABEL_CHAR_IN = 0.055  # approximate width of a 7 pt character
_LINE_IN = 0.127  # inches per line of the reasons legend
_PANEL_EXTRA_IN = 0.75  # title, x tick labels with their date offset, x label, spacing
_FIGURE_WIDTH_IN = 11.0
_AXES_WIDTH_IN = 8.8  # roughly: the figure less the y tick labels
_MS_PER_DAY = 86_400_000.0
# matplotlib.dates.date2num is untyped; this is what it computes, relative to rcParams' epoch.
_EPOCH = datetime.fromisoformat(str(rcParams["date.epoch"])).replace(tzinfo=UTC)
_EPOCH_OFFSET_DAYS = (datetime(1970, 1, 1, tzinfo=UTC) - _EPOCH).total_seconds() / 86400


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


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def short_owner(name: str) -> str:
    """A y tick label for an owner: instance ids stay whole up to :data:`OWNER_LABEL_CHARS`;
    member ids (``<client id>-<uuid>``) keep the client id and the uuid's first characters."""
    match = _MEMBER_ID.match(name)
    if match:
        return f"{_clip(match.group(1), OWNER_LABEL_CHARS - 8)}-{match.group(2)[:6]}\u2026"
    return _clip(name, OWNER_LABEL_CHARS + 1)


def _owner_labels(owners: Sequence[str]) -> list[str]:
    """Short labels for ``owners``; any that would collide keep their head and tail instead."""
    labels = [short_owner(name) for name in owners]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [
        label if seen[label] == 1 or label == name else f"{name[:16]}\u2026{name[-10:]}"
        for name, label in zip(owners, labels, strict=True)
    ]


def _reason_lines(markers: Sequence[Row]) -> list[str]:
    """The legend under a panel: one wrapped entry per labelled rebalance, keyed by generation."""
    lines: list[str] = []
    for row in markers[:MAX_MARKER_LABELS]:
        reasons = "; ".join(str(reason) for reason in row["reasons"] or []) or "no reason reported"
        clock = format_ms(int(row["ts_ms"]))[11:]  # HH:MM:SS.mmm; the date is on the axis
        entry = f"gen {row['generation_id']}  {clock}  {_clip(reasons, REASON_CHARS)}"
        lines.extend(textwrap.wrap(entry, REASON_WRAP, subsequent_indent="      "))
    hidden = len(markers) - MAX_MARKER_LABELS
    if hidden > 0:
        lines.append(f"\u2026 and {hidden} more rebalances (see the Rebalances table)")
    return lines


def _label_levels(markers: Sequence[Row], left: float, right: float) -> list[int | None]:
    """For each marker, the level of its "gen N" label along the top of the axes: close labels
    are stacked on up to :data:`LABEL_LEVELS` levels; those that would still overlap (and those
    past :data:`MAX_MARKER_LABELS`) get None and stay unlabelled."""
    span = max(right - left, 1e-12)
    ends: list[float] = []  # per level: where its last label ends, as a fraction of the x span
    levels: list[int | None] = []
    for index, row in enumerate(markers):
        start = (_date(int(row["ts_ms"])) - left) / span
        text = f"gen {row['generation_id']}"
        stop = start + (len(text) * _LABEL_CHAR_IN + 0.1) / _AXES_WIDTH_IN
        level = next((i for i, end in enumerate(ends) if end <= start), len(ends))
        if index >= MAX_MARKER_LABELS or level >= LABEL_LEVELS:
            levels.append(None)
            continue
        if level == len(ends):
            ends.append(stop)
        ends[level] = stop
        levels.append(level)
    return levels


@dataclass(frozen=True)
class _Panel:
    """What one group's panel shows, computed before drawing so the figure can be sized."""

    group: str
    by_owner: Mapping[str, Sequence[Row]]
    owners: Sequence[str]
    markers: Sequence[Row]
    levels: Sequence[int | None]
    left: float
    right: float
    reasons: Sequence[str]

    @property
    def label_levels(self) -> int:
        return max((level + 1 for level in self.levels if level is not None), default=0)

    @property
    def axes_inches(self) -> float:
        return _ROW_IN * (max(len(self.owners), 1) + self.label_levels * _LABEL_ROW) + 0.15

    @property
    def legend_inches(self) -> float:
        return _LINE_IN * len(self.reasons) + 0.04 if self.reasons else 0.0


def _panel(group: str, data: ReportData) -> _Panel:
    by_owner: dict[str, list[Row]] = {}
    for row in data.timeline:
        if row["group_id"] == group:
            by_owner.setdefault(str(row["owner"]), []).append(row)
    markers = sorted(
        (row for row in data.rebalances if row["group_id"] == group),
        key=lambda row: (int(row["ts_ms"]), int(row["generation_id"] or 0)),
    )
    # x range: the group's events, and its bars that are still open at the end of the range
    times = [int(r["ts_ms"]) for rows in by_owner.values() for r in rows]
    times += [int(row["ts_ms"]) for row in markers]
    times += [
        stop
        for rows in by_owner.values()
        for _, stop, count in _segments(rows, data.range_end_ms)
        if count > 0
    ]
    first, last = min(times, default=data.range_end_ms), max(times, default=data.range_end_ms)
    pad = max(last - first, 1) * 0.015 / _MS_PER_DAY
    left, right = _date(first) - pad, _date(last) + pad
    return _Panel(
        group=group, by_owner=by_owner, owners=sorted(by_owner)[:MAX_OWNERS_PLOTTED],
        markers=markers, levels=_label_levels(markers, left, right), left=left, right=right,
        reasons=_reason_lines(markers),
    )  # fmt: skip


def _draw_group(axes: Axes, legend: Axes | None, panel: _Panel, data: ReportData) -> None:
    by_owner, owners = panel.by_owner, panel.owners
    top = max((int(r["partitions"]) for rows in by_owner.values() for r in rows), default=1) or 1
    colormap = colormaps["Blues"]
    span_days = panel.right - panel.left
    for y, name in enumerate(owners):
        bars, colors = [], []
        for start, stop, count in _segments(by_owner[name], data.range_end_ms):
            if count <= 0:
                continue
            shade = 0.35 + 0.55 * count / top
            width = max(stop - start, 1) / _MS_PER_DAY
            bars.append((_date(start), width))
            colors.append(colormap(shade))
            if width / span_days >= 0.03:  # label only the bars wide enough to read
                axes.text(
                    _date(start) + width / 2, y, str(count), ha="center", va="center",
                    fontsize=7, color="white" if shade > 0.6 else "black", clip_on=True,
                )  # fmt: skip
        if bars:
            axes.broken_barh(bars, (y - 0.35, 0.7), facecolors=colors)
    rows_top = max(len(owners), 1) - 0.4
    for row, level in zip(panel.markers, panel.levels, strict=True):
        x = _date(int(row["ts_ms"]))
        axes.axvline(x, color="crimson", linestyle="--", linewidth=0.9, zorder=3)
        if level is not None:
            axes.annotate(
                f"gen {row['generation_id']}", xy=(x, rows_top + 0.08 + level * _LABEL_ROW),
                xytext=(2, 0), textcoords="offset points", fontsize=7, color="crimson",
                ha="left", va="bottom", zorder=4,
            )  # fmt: skip
    axes.set_xlim(panel.left, panel.right)
    headroom = panel.label_levels * _LABEL_ROW + 0.1 if panel.label_levels else 0.0
    axes.set_ylim(-0.6, rows_top + headroom)
    axes.set_yticks(range(len(owners)), labels=_owner_labels(owners), fontsize=7)
    hidden = len(by_owner) - len(owners)
    suffix = f" (+{hidden} owners not shown)" if hidden > 0 else ""
    noun = "rebalance" if len(panel.markers) == 1 else "rebalances"
    title = f"{panel.group}: {len(panel.markers)} {noun}{suffix}"
    axes.set_title(title, fontsize=9, loc="left", pad=4)
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    axes.xaxis.get_offset_text().set_fontsize(8)
    axes.tick_params(axis="x", labelsize=8)
    axes.set_xlabel("time (UTC)", fontsize=8, labelpad=2)
    axes.grid(axis="x", alpha=0.3)
    if legend is not None:
        legend.axis("off")
        legend.text(
            0, 1, "\n".join(panel.reasons), transform=legend.transAxes, fontsize=7,
            va="top", ha="left", color="#333333", linespacing=1.3,
        )  # fmt: skip


def render_timeline_png(data: ReportData) -> bytes:
    """The timeline as PNG bytes (an explanatory placeholder when there is nothing to draw)."""
    panels = [_panel(group, data) for group in plotted_groups(data.groups)]
    # one grid row for each panel's axes and one for its reasons legend (when it has one)
    ratios = [inches for p in panels for inches in (p.axes_inches, p.legend_inches) if inches]
    # each panel also needs room for its title, x tick labels and x label; the figure its title
    height = sum(ratios) + _PANEL_EXTRA_IN * len(panels) + 0.35 if panels else 2.5
    layout = ConstrainedLayoutEngine(h_pad=0.06, hspace=0.0)  # nothing clipped, little slack
    figure = Figure(figsize=(_FIGURE_WIDTH_IN, height), dpi=100, layout=layout)
    FigureCanvasAgg(figure)
    if not panels:
        axes = figure.subplots()
        axes.axis("off")
        axes.text(0.5, 0.5, "no membership events in the range read", ha="center", va="center")
    else:
        grid = figure.add_gridspec(len(ratios), 1, height_ratios=ratios)
        row = 0
        for panel in panels:
            axes = figure.add_subplot(grid[row, 0])
            legend = figure.add_subplot(grid[row + 1, 0]) if panel.reasons else None
            row += 2 if legend is not None else 1
            _draw_group(axes, legend, panel, data)
    figure.suptitle(
        "partitions held per member over time (number on each bar); dashed: rebalances",
        fontsize=10,
    )
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
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
