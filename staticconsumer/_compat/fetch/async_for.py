"""``async for``'s fast path: a record already buffered is handed out without a coroutine.

:func:`next_record` is what the consumer's ``__anext__`` returns: an awaitable already done
(:class:`Ready`, or the extension's ``Ready``) when :func:`buffered_record` finds a record
``getone`` would return at once, else ``getone``'s coroutine. It reads aiokafka 0.14's
``getone`` and ``Fetcher.next_record`` state and takes a record as they take it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Generator
from typing import Any

from aiokafka.consumer.fetcher import FetchResult

from .reader import COMPILED

if COMPILED:
    from .reader import Ready as CompiledReady


def buffered_record(consumer: Any) -> Any:
    """The record ``consumer.getone()`` would return without waiting, taken exactly as it takes
    it (aiokafka 0.14's ``getone`` and ``Fetcher.next_record``); None when it would wait, stop
    or raise a fetch error, where the caller awaits ``getone`` instead. The coordinator's
    pending error is raised here, as ``getone`` raises it."""
    fetcher = consumer._fetcher
    if consumer._closed or fetcher is None or fetcher._closed:
        return None
    consumer._coordinator.check_errors()
    subscription = consumer._subscription
    if subscription.reassignment_in_progress:
        return None
    buffered = fetcher._records
    for tp in list(buffered):
        result = buffered[tp]
        if type(result) is not FetchResult:
            return None  # an error to raise: getone's
        record = result.getone()
        if record is not None:
            if subscription._fetch_count == 0:  # getone's fetch_context, as it ends
                subscription._last_fetch_ended = time.monotonic()
            return record
        del buffered[tp]
        fetcher._notify(fetcher._wait_consume_future)
    return None


class Ready:
    """An awaitable that is already done: ``await Ready(x)`` is ``x`` and never suspends."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        return self.value
        yield  # a generator function: the return above is its result


def next_record(consumer: Any, wait: Callable[[], Awaitable[Any]]) -> Awaitable[Any]:
    """``async for``'s next record: a buffered one at once, else ``wait()`` (the coroutine)."""
    record = buffered_record(consumer)
    if record is None:
        return wait()
    return (CompiledReady if COMPILED else Ready)(record)
