"""What the framework integrations share (:mod:`staticconsumer.faust`,
:mod:`staticconsumer.faststream`): one home (issue 49) for

* the check of the installed framework against the versions its seam was checked on
  (:func:`check_supported`);
* the unreleased wait: under the consumer protocol, how long a worker's start may wait for an
  instance id another member still holds before it stops as on a fence
  (:data:`UNRELEASED_WAIT_MS`, :func:`unreleased_wait_s`);
* the start bounded by it (:func:`bounded_start`);
* the one line a fatal worker logs (:func:`fatal_line`).

Tooling: public names of the SDK only.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
from collections.abc import Awaitable, Callable

from .errors import (
    ConfigurationError,
    FencedInstanceIdError,
    StaticConsumerError,
    UnreleasedInstanceIdError,
)

#: A StaticConsumer raises UNRELEASED_INSTANCE_ID to the application after its
#: ``unreleased_instance_wait_ms`` (45 s); a framework's worker without an assignment by then
#: stops a little later, at this bound.
UNRELEASED_WAIT_MS = 60_000

Versions = tuple[tuple[int, ...], tuple[int, ...]]


def installed_version(distribution: str) -> tuple[int, ...]:
    """The installed distribution's version as numbers (``0.15.3`` -> ``(0, 15, 3)``)."""
    installed = importlib.metadata.version(distribution)
    return tuple(int(part) for part in installed.split(".")[:3] if part.isdigit())


def check_supported(
    distribution: str, supported: Versions, installed: tuple[int, ...], *, package: str,
    extra: str,
) -> None:  # fmt: skip
    """Refuse an installed ``distribution`` outside ``supported`` (``>=`` first, ``<``
    second): the integration's seam may not hold there."""
    low, high = supported
    if not low <= installed < high:
        raise ConfigurationError(
            f"{package} supports {distribution}>={'.'.join(map(str, low))},"
            f"<{'.'.join(map(str, high))}; {importlib.metadata.version(distribution)} is "
            f"installed (pip install 'staticconsumer[{extra}]')"
        )


def unreleased_wait_s(value: object) -> float:
    """``unreleased_wait_ms`` checked (an int > 0), in seconds."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigurationError(
            "unreleased_wait_ms (staticconsumer option, no Java key; KIP-848's "
            f"UNRELEASED_INSTANCE_ID) must be an int > 0, got {value!r}"
        )
    return value / 1000


async def bounded_start(
    start: Awaitable[None], wait_s: float | None, on_timeout: Callable[[], StaticConsumerError]
) -> None:
    """Await ``start`` for at most ``wait_s`` (None: no bound); past it, the error
    ``on_timeout`` makes (the caller reports it as fatal) is raised."""
    if wait_s is None:
        await start
        return
    try:
        async with asyncio.timeout(wait_s):
            await start
    except TimeoutError:
        raise on_timeout() from None


def fatal_line(
    who: str, error: StaticConsumerError, *, fenced: str, unreleased: str, ends: str
) -> str:
    """The one line a fatal worker logs: ``who``, what happened (a fence names the member
    holding the id now, when the coordinator said; ``fenced`` and ``unreleased`` say what to
    check) and how the worker ends."""
    if isinstance(error, FencedInstanceIdError):
        holder = f" (now held by {error.holder})" if error.holder else ""
        what = fenced.format(holder=holder)
    elif isinstance(error, UnreleasedInstanceIdError):
        what = unreleased
    else:
        what = f"failed fatally: {error}"
    return f"{who} {what}; {ends}"


__all__ = [
    "UNRELEASED_WAIT_MS",
    "bounded_start",
    "check_supported",
    "fatal_line",
    "installed_version",
    "unreleased_wait_s",
]
