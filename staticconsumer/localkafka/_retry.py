"""The local broker launcher's retry policies, one per purpose, named.

Each is a small factory around tenacity, so that what is retried, how often, how long apart and
when it stops reads in one place. The caller adds only what is its own (a log line).

========================= =============================================== =====================
policy                    retries                                         gives up
========================= =============================================== =====================
``maven_download``        a GET from Maven Central (transient failures)   after 3 attempts
``broker_port_clash``     starting local brokers whose port was taken     after 3 attempts
``topic_metadata``        reading a new topic's partitions and leaders    after ``timeout_s``
``broker_listening``      connecting to a starting broker's port          at the deadline
========================= =============================================== =====================
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_fixed,
    wait_incrementing,
)

#: Maven Central: 3 attempts, 1 s then 2 s apart.
MAVEN_ATTEMPTS = 3
#: A local broker's port taken between choosing it and the broker binding it: 3 starts at most.
PORT_CLASH_ATTEMPTS = 3
#: Polling intervals while waiting for a topic's metadata and for a broker's port.
METADATA_POLL_S = 0.2
LISTENING_POLL_S = 0.2


def maven_download(
    *,
    transient: Callable[[BaseException], bool],
    before_sleep: Callable[[RetryCallState], None],
) -> Retrying:
    """Retry a Maven Central request while ``transient(exc)`` says the failure may pass (a 5xx,
    a timeout, a reset connection); anything else, or the last attempt's failure, is raised."""
    return Retrying(
        stop=stop_after_attempt(MAVEN_ATTEMPTS),
        wait=wait_incrementing(start=1, increment=1),
        retry=retry_if_exception(transient),
        before_sleep=before_sleep,
        reraise=True,
    )


def broker_port_clash(
    *,
    clashed: Callable[[BaseException], bool],
    before_sleep: Callable[[RetryCallState], None],
) -> Retrying:
    """Start the local brokers again, on new ports, when ``clashed(exc)`` says a start failed
    because another process took a port we had picked; no wait (new ports are picked)."""
    return Retrying(
        stop=stop_after_attempt(PORT_CLASH_ATTEMPTS),
        retry=retry_if_exception(clashed),
        before_sleep=before_sleep,
        reraise=True,
    )


class NotYet(Exception):
    """Raised by a polled check that is not satisfied yet (retried by the polling policies)."""


def topic_metadata(timeout_s: float) -> AsyncRetrying:
    """Poll a new topic's metadata every 0.2 s until the check stops raising :class:`NotYet`,
    for at most ``timeout_s``; then the last ``NotYet`` is raised."""
    return AsyncRetrying(
        stop=stop_after_delay(timeout_s),
        wait=wait_fixed(METADATA_POLL_S),
        retry=retry_if_exception_type(NotYet),
        reraise=True,
    )


def broker_listening(deadline: float) -> Retrying:
    """Poll a starting broker's port every 0.2 s until the check stops raising :class:`NotYet`
    or ``time.monotonic()`` passes ``deadline``; then the last ``NotYet`` is raised. Any other
    exception (the process exited) ends the wait at once."""

    def past_deadline(_state: RetryCallState) -> bool:
        return time.monotonic() >= deadline

    return Retrying(
        stop=past_deadline,
        wait=wait_fixed(LISTENING_POLL_S),
        retry=retry_if_exception_type(NotYet),
        reraise=True,
    )


def failure(state: RetryCallState) -> BaseException | None:
    """The exception of the attempt that just failed, for a log line."""
    outcome: Any = state.outcome
    return None if outcome is None else outcome.exception()
