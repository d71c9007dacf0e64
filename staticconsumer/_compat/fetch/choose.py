"""Choosing a fetcher: which record path a consumer runs (issue 37) and with which fetches.

A partition's fetched records become the ``ConsumerRecord`` objects ``getone``, ``getmany`` and
``async for`` hand out on one of two paths:

* ``compiled``: the extension's reader (:mod:`.reader`) in place of aiokafka's Python generator.
  With aiokafka 0.14 the fetches are :class:`.kept.KeptFetcher`'s: Fetch responses read into
  buffers the consumer keeps, on our own wire (issue 43; the default, :data:`KEPT_FETCH_ENV`
  switches back to aiokafka's fetcher and connection, the reader put in by :mod:`.tap`).
* ``pure``: aiokafka's ``Fetcher`` as it is. It runs when the extension is not built, or when
  ``STATICCONSUMER_PURE_RECORDS=1``.

:func:`make_fetcher` builds the consumer's fetcher and logs which path it runs at start;
:func:`record_path` says it. ``tests/compat/fetch`` proves, by difference over generated batches,
that both hand out the same records, positions and errors.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Literal

from aiokafka.consumer.fetcher import Fetcher

from ..features import AIOKAFKA_VERSION, KEPT_FETCH_AVAILABLE
from .reader import compiled_available
from .tap import FetchSeam

log = logging.getLogger(__name__)
#: Set to 1 (or true/yes/on) to run aiokafka's own record path though the extension is built.
PURE_RECORDS_ENV = "STATICCONSUMER_PURE_RECORDS"
RecordPath = Literal["compiled", "pure"]
#: Fetch responses are read into buffers the consumer keeps, on our own wire (issue 43:
#: ``.kept``), on the compiled path with aiokafka 0.14. Set to 0 (or false/no/off) to fetch with
#: aiokafka's own fetcher and connection instead (the compiled reader over its responses).
KEPT_FETCH_ENV = "STATICCONSUMER_KEPT_FETCH"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def record_path() -> RecordPath:
    """The record path a consumer started now runs: ``compiled`` unless the extension is not
    built or :data:`PURE_RECORDS_ENV` asks for ``pure``."""
    forced = os.environ.get(PURE_RECORDS_ENV, "").strip().lower() in _TRUE
    return "compiled" if compiled_available() and not forced else "pure"


def _kept_fetch_switched_off() -> bool:
    return os.environ.get(KEPT_FETCH_ENV, "").strip().lower() in _FALSE


def kept_fetch() -> bool:
    """Whether a consumer started now reads Fetch responses into kept buffers: on the compiled
    path, with aiokafka 0.14 (``features``), unless :data:`KEPT_FETCH_ENV` switches it off."""
    return not _kept_fetch_switched_off() and record_path() == "compiled" and KEPT_FETCH_AVAILABLE


def make_fetcher(client: Any, subscription: Any, **settings: Any) -> Any:
    """aiokafka's ``Fetcher`` on the :func:`record_path` in force (logged once per start)."""
    path = record_path()
    why = "" if path == "compiled" else (
        f" ({PURE_RECORDS_ENV} is set)" if compiled_available() else " (extension not built)"
    )  # fmt: skip
    if path == "pure":
        log.info("record path: %s%s", path, why)
        return Fetcher(client, subscription, **settings)
    if kept_fetch():
        from .kept import KeptFetcher  # only with the extension built, which it reads with

        log.info("record path: compiled, Fetch responses read into kept buffers")
        return KeptFetcher(client, subscription, **settings)
    if _kept_fetch_switched_off():
        why = f" (aiokafka's fetcher: {KEPT_FETCH_ENV} switches kept buffers off)"
    else:
        why = (" (aiokafka's fetcher: kept buffers need aiokafka 0.14, whose fetcher they mirror "
               "and whose connections keep the broker's ApiVersions; aiokafka "
               f"{AIOKAFKA_VERSION} is installed)")  # fmt: skip
    log.info("record path: %s%s", path, why)
    return FetchSeam(client, subscription, **settings)


def fetcher_path(fetcher: Any) -> RecordPath:
    """The path ``fetcher`` (a started consumer's) runs."""
    return "compiled" if isinstance(fetcher, FetchSeam) else "pure"


def kept_buffers_of(consumer: Any) -> Any:
    """The ``FrameBuffers`` a started consumer reads Fetch responses into; None when it runs
    aiokafka's connection (or has not started)."""
    return getattr(consumer._fetcher, "buffers", None)


def record_path_of(consumer: Any) -> RecordPath | None:
    """The path ``consumer`` runs; None before it started (it has no fetcher yet)."""
    fetcher = consumer._fetcher
    return None if fetcher is None else fetcher_path(fetcher)
