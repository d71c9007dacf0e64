"""The fetcher whose Fetch responses land in buffers the consumer keeps (issue 43).

:class:`KeptFetcher` is the compiled record path's fetcher (:class:`.tap.FetchSeam`: aiokafka's
``Fetcher``, its fetch loop and positions) with its own handling of a fetch: the request built
on our wire (``protocol.build_fetch``), sent on a :class:`.frames.FetchConnection`, the response
read in place (``protocol.read_fetch_response``) and each partition's records handed to the
compiled reader as a view of the kept frame; its snappy, lz4 and zstd batches are
decompressed into buffers the consumer keeps too (``_records.DecompressionBuffers``). What
aiokafka 0.14's ``Fetcher._proc_fetch_request`` does with a response, this does too, partition
by partition (tests/compat/fetch and aiokafka's own consumer tests hold it to that):

* a response that comes after the assignment changed, or a partition whose position moved while
  the fetch was out, is dropped;
* records: high watermark, last stable offset and the time updated, a ``FetchResult`` stored
  (aborted transactions for ``read_committed``); data without a whole batch is
  ``RecordTooLargeError`` and the position steps over it, as aiokafka does;
* KIP-392: the broker's preferred read replica is kept when ``client_rack`` is set and the
  broker answers Fetch v11; any partition error forgets it;
* errors: not leader or unknown partition, a metadata refresh; out of range, a reset by
  ``auto_offset_reset`` or ``OffsetOutOfRangeError``; topic authorization, the error; a failed
  request, an error log, the follower forgotten and ``retry_backoff_ms``.

A broker that speaks no Fetch version between 4 and 11 is fetched from by aiokafka's own code.
Fetch sessions (KIP-227): none, as aiokafka (every fetch is full, ``session_id`` 0, epoch -1).

aiokafka internals used, besides :mod:`.tap`'s and :mod:`.reader`'s (private, pinned to
aiokafka 0.14): the ``Fetcher``'s ``_fetch_max_wait_ms``, ``_fetch_min_bytes``,
``_fetch_max_bytes``, ``_max_partition_fetch_bytes``, ``_isolation_level``, ``_client_rack``,
``_rack_warning_logged``, ``_preferred_read_replica``, ``_update_preferred_read_replica``,
``_invalidate_preferred_read_replica_for_node``, ``_retry_backoff``, ``_default_reset_strategy``,
``_set_error`` and ``_records``; ``AIOKafkaClient.force_metadata_update``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import aiokafka.errors as Errors
from aiokafka.consumer.fetcher import OffsetResetStrategy
from aiokafka.structs import TopicPartition
from typing_extensions import override

from ...protocol import FetchedPartition, build_fetch, read_fetch_response
from .frames import FetchConnection, FrameBuffers
from .reader import DecompressionBuffers, compiled_result
from .tap import FetchSeam, backoff

log = logging.getLogger(__name__)


class KeptFetcher(FetchSeam):
    """aiokafka's ``Fetcher`` with Fetch responses read into kept buffers (module docstring)."""

    _rack_warning_logged: bool  # aiokafka's Fetcher's: the KIP-392 warning was logged

    def __init__(self, client: Any, subscriptions: Any, **settings: Any) -> None:
        super().__init__(client, subscriptions, **settings)
        self.buffers = FrameBuffers()
        #: what compressed batches are decompressed into (``_records.DecompressionBuffers``)
        self.decompression = DecompressionBuffers()
        self._raw_client = client
        self._connections: dict[int, FetchConnection] = {}

    @override
    async def _proc_fetch_request(self, assignment: Any, node_id: int, request: Any) -> bool:
        try:
            connection = await FetchConnection.open(
                self._raw_client, node_id, self.buffers, self._connections
            )
            version = connection.version()
            if version is None:  # a broker older than Kafka 0.11: aiokafka's own code
                return await super()._proc_fetch_request(assignment, node_id, request)
            frame = await connection.request(build_fetch(
                version, max_wait_ms=self._fetch_max_wait_ms, min_bytes=self._fetch_min_bytes,
                max_bytes=self._fetch_max_bytes, isolation_level=self._isolation_level,
                topics=request.topics, rack_id=self._client_rack or "",
            ))  # fmt: skip
            # the response header v0 (Fetch v4-v11 are not flexible): the correlation id alone
            response = connection.read(read_fetch_response, frame[4:], version)
        except Errors.KafkaError as err:
            log.error("Failed fetch messages from %s: %s", node_id, err)
            self._invalidate_preferred_read_replica_for_node(node_id, request)
            return await backoff(self._retry_backoff)
        except asyncio.CancelledError:  # closing, or the partitions were unassigned
            return False
        if not assignment.active:
            log.debug("Discarding fetch response since the assignment changed during fetch")
            return False
        offsets = {TopicPartition(topic, p): offset
                   for topic, parts in request.topics for p, offset, _ in parts}  # fmt: skip
        rack_aware = self._rack_aware(version)
        now_ms = int(1000 * time.time())
        woke = False
        for data in response.partitions:
            tp = TopicPartition(data.topic, data.partition)
            woke |= self._store(assignment, tp, offsets[tp], data, rack_aware, now_ms)
        return woke

    def _rack_aware(self, version: int) -> bool:
        """KIP-392 applies with ``client_rack`` and Fetch v11; else warned about once."""
        if not self._client_rack:
            return False
        if version < 11 and not self._rack_warning_logged:
            log.warning(
                "client_rack is set to %r but broker only supports FetchRequest v%d (v11+ "
                "required for KIP-392 rack-aware fetching). The consumer will fall back to "
                "fetching from the partition leader.", self._client_rack, version,
            )  # fmt: skip
            self._rack_warning_logged = True
        return version >= 11

    def _store(self, assignment: Any, tp: TopicPartition, fetch_offset: int,
               data: FetchedPartition, rack_aware: bool, now_ms: int) -> bool:  # fmt: skip
        """Act on one partition's data; whether a waiting getone/getmany should wake."""
        state = assignment.state_value(tp)
        if not state.has_valid_position or state.position != fetch_offset:
            log.debug("Discarding fetch response for partition %s since its offset %s does "
                      "not match the current position", tp, fetch_offset)  # fmt: skip
            return False
        if data.error_code != 0:
            return self._partition_error(state, tp, fetch_offset, data.error_code)
        if rack_aware:
            self._update_preferred_read_replica(tp, data.preferred_read_replica)
        state.highwater = data.high_watermark
        state.lso = data.last_stable_offset
        state.timestamp = now_ms
        records = data.records
        if records is None or len(records) == 0:
            return False
        if _holds_a_batch(records):
            aborted = data.aborted_transactions
            self._records[tp] = compiled_result(
                self, tp, assignment, records, aborted, fetch_offset, self.decompression
            )
            return True
        self._set_error(tp, Errors.RecordTooLargeError(
            "There are some messages at [Partition=Offset]: %s=%s whose size is larger than "
            "the fetch size %s and hence cannot be ever returned. Increase the fetch size, or "
            "decrease the maximum message size the broker will allow.",
            tp, fetch_offset, self._max_partition_fetch_bytes,
        ))  # fmt: skip
        state.consumed_to(state.position + 1)
        return True

    def _partition_error(self, state: Any, tp: TopicPartition, fetch_offset: int,
                         error_code: int) -> bool:  # fmt: skip
        self._preferred_read_replica.pop(tp, None)  # Java's consumer forgets it on any error
        error_type = Errors.for_code(error_code)
        if error_type in (Errors.NotLeaderForPartitionError,
                          Errors.UnknownTopicOrPartitionError):  # fmt: skip
            self._client.force_metadata_update()
        elif error_type is Errors.OffsetOutOfRangeError:
            log.info("Fetch offset %s is out of range for partition %s, resetting offset",
                     fetch_offset, tp)  # fmt: skip
            if self._default_reset_strategy != OffsetResetStrategy.NONE:
                state.await_reset(self._default_reset_strategy)
                return False
            self._set_error(tp, Errors.OffsetOutOfRangeError({tp: fetch_offset}))
            return True
        elif error_type is Errors.TopicAuthorizationFailedError:
            log.warning("Not authorized to read from topic %s.", tp.topic)
            self._set_error(tp, Errors.TopicAuthorizationFailedError(tp.topic))
            return True
        else:
            log.warning("Unexpected error while fetching data: %s", error_type.__name__)
        return False


def _holds_a_batch(records: memoryview) -> bool:
    """Whether a message set starts with a whole batch (its size: offset, then int32 length)."""
    return len(records) >= 12 and 12 + int.from_bytes(records[8:12], "big", signed=True) <= len(
        records
    )
