"""The demo's one retry policy: ``demo_condition`` polls a check (the group is stable, every
record was processed) every 0.2 s until it stops raising :class:`NotYet`, for at most
``timeout_s``; any other exception (an app died) ends the wait at once."""

from __future__ import annotations

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_delay, wait_fixed

DEMO_POLL_S = 0.2


class NotYet(Exception):
    """Raised by a polled check that is not satisfied yet."""


def demo_condition(timeout_s: float) -> AsyncRetrying:
    """Poll one of the demo's conditions until its check stops raising :class:`NotYet`."""
    return AsyncRetrying(
        stop=stop_after_delay(timeout_s),
        wait=wait_fixed(DEMO_POLL_S),
        retry=retry_if_exception_type(NotYet),
        reraise=True,
    )
