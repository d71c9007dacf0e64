"""The SDK's one retry policy outside the membership engine and the admin calls.

``events_producer_start`` retries the membership-events producer's ``start()`` on any exception,
first after 0.1 s, doubling up to 5 s, and never gives up (the publisher's ``stop()`` ends it).
The admin calls' coordinator policy lives with them (:mod:`staticconsumer._admin.coordinator`);
the tooling's policies (Maven downloads, local brokers, the demo) live in the tooling packages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_never,
    wait_exponential,
)

#: Events producer: first retry after 0.1 s, doubling up to 5 s between attempts.
EVENTS_BACKOFF_MIN_S = 0.1
EVENTS_BACKOFF_MAX_S = 5.0


def events_producer_start(
    *,
    after: Callable[[RetryCallState], None],
    sleep: Callable[[float], Awaitable[None]],
) -> AsyncRetrying:
    """Retry the events producer's ``start()`` on any exception, with exponential backoff and no
    limit: an unreachable cluster only delays publishing. ``sleep`` is the caller's, so that its
    ``stop()`` can end the wait (it raises to stop retrying); ``after`` sees every failure."""
    return AsyncRetrying(
        stop=stop_never,
        wait=wait_exponential(multiplier=EVENTS_BACKOFF_MIN_S, max=EVENTS_BACKOFF_MAX_S),
        retry=retry_if_exception_type(Exception),
        after=after,
        sleep=sleep,
        reraise=True,
    )


def attempt_number(state: RetryCallState) -> int:
    return int(state.attempt_number)


def failure(state: RetryCallState) -> BaseException | None:
    """The exception of the attempt that just failed, for a log line."""
    outcome: Any = state.outcome
    return None if outcome is None else outcome.exception()
