"""The tap (issue 37): aiokafka's ``Fetcher`` whose buffered results read with the compiled
reader, over aiokafka's own fetches.

The reader needs the fetched bytes, which aiokafka wraps in an opaque ``MemoryRecords``:
:class:`_FetchTap` (the fetcher's client) keeps each Fetch response's message sets for the few
lines between the response and the ``FetchResult`` aiokafka builds from it, and
:class:`_ResultBuffer` (the fetcher's ``_records``) swaps the reader in as aiokafka stores the
result (:func:`.reader.install_reader`). A result the tap has no bytes for keeps aiokafka's own
reader. :class:`FetchSeam` is that fetcher; the kept fetcher (:mod:`.kept`) derives from it.
Nothing is patched: both are attributes of one fetcher instance.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

from aiokafka.consumer.fetcher import Fetcher, FetchResult
from aiokafka.structs import TopicPartition
from typing_extensions import override

from .reader import install_reader

#: The Fetch API's key (Kafka's ApiKeys.FETCH).
FETCH_API_KEY = 1


class _FetchTap:
    """The fetcher's client: every call goes to aiokafka's client; a Fetch response's message
    sets are kept, per partition, until the fetcher has stored its results."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.message_sets: dict[TopicPartition, bytes] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def send(self, node_id: int, request: Any, **kwargs: Any) -> Any:
        response = await self._client.send(node_id, request, **kwargs)
        if request.API_KEY == FETCH_API_KEY:
            # No await from here to the fetcher's loop over this response (aiokafka 0.14's
            # _proc_fetch_request): what is kept is this response's, read at once.
            self.message_sets.clear()
            for topic, partitions in response.topics:
                for partition, error_code, _highwater, *data in partitions:
                    if error_code == 0 and type(data[-1]) is bytes:
                        self.message_sets[TopicPartition(topic, partition)] = data[-1]
        return response


class _ResultBuffer(collections.OrderedDict):  # type: ignore[type-arg]
    """The fetcher's ``_records``: a ``FetchResult`` stored gets the compiled reader."""

    def __init__(self, tap: _FetchTap) -> None:
        super().__init__()
        self._tap = tap

    def __setitem__(self, tp: Any, result: Any) -> None:
        if type(result) is FetchResult:
            message_set = self._tap.message_sets.pop(tp, None)
            if message_set is not None:
                install_reader(result, tp, message_set)
        super().__setitem__(tp, result)


class FetchSeam(Fetcher):  # type: ignore[misc]  # aiokafka is untyped
    """aiokafka's ``Fetcher`` whose results read with the compiled reader (module docstring)."""

    def __init__(self, client: Any, subscriptions: Any, **settings: Any) -> None:
        super().__init__(client, subscriptions, **settings)
        self._tap = _FetchTap(client)
        self._client = self._tap
        self._records = _ResultBuffer(self._tap)

    @override
    async def _proc_fetch_request(self, assignment: Any, node_id: int, request: Any) -> bool:
        try:
            return bool(await super()._proc_fetch_request(assignment, node_id, request))
        except asyncio.CancelledError:  # in aiokafka's retry backoff: see backoff()
            return False
        finally:
            self._tap.message_sets.clear()  # a response's sets are read or dropped by now


async def backoff(seconds: float) -> bool:
    """A failed fetch's wait before the next (``retry_backoff_ms``); False. A fetch is cancelled
    only by the fetcher's close or a lost assignment, and its result is then of no interest:
    aiokafka's fetcher returns False when cancelled while it sends, but not while it backs off,
    and its close awaits the fetch, so ``stop()`` raised the cancellation (a broker down: most
    of the time goes to backing off)."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        pass
    return False
