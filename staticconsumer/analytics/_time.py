"""Parse the report's ``--since`` / ``--until`` bounds: ISO-8601 or epoch milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime

from ..errors import ConfigurationError


def parse_time_ms(text: str, *, field: str = "time") -> int:
    """Return epoch milliseconds (UTC) for ``text``.

    Accepted: an integer (epoch milliseconds, e.g. ``1767225600000``) or an ISO-8601 date or
    date-time (``2026-01-01``, ``2026-01-01T12:00:00Z``, ``2026-01-01 12:00:00+02:00``). A time
    without an offset is taken as UTC, like the events' own ``ts_ms``.
    """
    value = text.strip()
    if not value:
        raise ConfigurationError(
            f"{field}: empty; give ISO-8601 (2026-01-01T12:00:00Z) or epoch ms"
        )
    if value.lstrip("-").isdigit():
        return int(value)
    iso = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        raise ConfigurationError(
            f"{field}: {text!r} is neither epoch milliseconds nor ISO-8601 "
            "(e.g. 2026-01-01T12:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def format_ms(ts_ms: int | None) -> str:
    """``ts_ms`` as ``YYYY-MM-DD HH:MM:SS.mmm`` UTC, or ``-``."""
    if ts_ms is None:
        return "-"
    moment = datetime.fromtimestamp(ts_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ts_ms % 1000:03d}"
