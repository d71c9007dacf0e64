"""One stream thread: a StaticConsumer in the group, the stores of its partitions, and the loop
consume → fold → changelog + output (acknowledged) → sqlite → commit input offsets.

Why the final aggregates are exact (no input record lost or counted twice), whoever owns a
partition and however often it moves:

1. The changelog is written (and acknowledged) before the local sqlite state, and the input offset
   is committed only after both. So ``committed - 1 <= local applied offset`` for the owner that
   committed, and the changelog is never behind any local state.
2. Every sqlite write stores the aggregates together with ``applied_offset`` (the last input
   offset folded in) in one transaction. Records at or below it are skipped, so replaying input
   from the committed offset after a restart or a rebalance never counts a record twice.
3. On assignment, a partition's local state is reused as it is when the changelog's end offset
   equals the checkpoint stored with it (nobody wrote since). Otherwise the changelog is replayed
   from that checkpoint (or from the start, for a new owner), which also restores
   ``applied_offset`` as the highest offset carried by a changelog record.
4. Dynamic members commit in ``on_partitions_revoked``, under the same lock as the processing
   loop, so an in-flight batch finishes and is committed before the partition can move.

Output records are at-least-once: a batch whose output was written but whose offsets were not
committed (a crash) is written again. Each output record carries the input offset it reflects,
so a reader keeps, per key, the record with the highest offset; those values are exact.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import CommitFailedError

from staticconsumer import StaticConsumer

from .aggregate import (
    Aggregate,
    BatchResult,
    decode_changelog,
    encode_changelog,
    encode_output,
    fold,
    parse_input,
)
from .config import AppConfig
from .membership import consumer_options
from .standby import Standbys
from .status import ThreadStats, emit
from .store import PartitionStore

log = logging.getLogger(__name__)

RESTORE_TIMEOUT_S = 120.0


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, thread: StreamThread) -> None:
        self._thread = thread

    async def on_partitions_revoked(self, revoked: Any) -> None:
        await self._thread.on_revoked(set(revoked))

    async def on_partitions_assigned(self, assigned: Any) -> None:
        await self._thread.on_assigned(set(assigned))


class StreamThread:
    """Thread ``n`` of the process: its own consumer, member of the app's group."""

    def __init__(self, n: int, config: AppConfig, producer: AIOKafkaProducer) -> None:
        self.config = config
        self.name = config.thread_name(n)
        self.stats = ThreadStats(self.name, config.instance_id(n))
        self.state_dir = config.state_dir / self.name
        self._producer = producer
        self._stores: dict[int, PartitionStore] = {}
        self._uncommitted: dict[TopicPartition, int] = {}
        self._lock = asyncio.Lock()
        self._failure: BaseException | None = None  # raised by a rebalance callback
        self._consumer = StaticConsumer(**consumer_options(config, n))
        self._standbys = Standbys(self.name, self.state_dir, config.input_topic)
        streams = self._consumer.streams
        if streams is not None:  # a streams group: standby tasks, task offsets (KIP-1071)
            streams.on_tasks = self._standbys.on_tasks
            streams.task_offsets = lambda: self._standbys.task_offsets(self._active_stores())
        self._consumer.subscribe([config.input_topic], listener=_Listener(self))
        self._restorer = AIOKafkaConsumer(
            bootstrap_servers=config.bootstrap_servers,
            client_id=f"{self.name}-restore",
            enable_auto_commit=False,
            fetch_max_wait_ms=50,  # a restore reads to a known end: no long polls
            auto_offset_reset="earliest",
        )

    @property
    def consumer(self) -> StaticConsumer:
        """The thread's consumer (the process's health endpoint serves its membership)."""
        return self._consumer

    # -- the processing loop ---------------------------------------------------------------------

    def note_generation(self) -> None:
        """Under the consumer and streams protocols a member's epoch moves on without an
        assignment when its partitions stay (the group's epoch moved): say it as an assignment
        of what the thread holds, so the generation a reader sees is the member's."""
        generation = self._consumer.generation_id
        if self.stats.assignments == 0 or generation in (self.stats.generation, -1):
            return
        self.stats.generation = generation
        self.stats.rebalances += 1
        emit("assigned", thread=self.name, instance_id=self.stats.instance_id,
             member_id=self._consumer.member_id, generation=generation,
             partitions=sorted(self._stores), rebalance=True, states={})  # fmt: skip

    def _active_stores(self) -> dict[int, PartitionStore]:
        return dict(self._stores)

    async def _standby_step(self) -> None:
        async with self._lock:
            await self._standbys.catch_up(set(self._stores), self.catch_up)
        self.stats.standby_records = self._standbys.records_read

    async def run(self, stopping: asyncio.Event) -> None:
        await self._restorer.start()
        standbys = asyncio.create_task(self._standbys.run(stopping, self._standby_step))
        try:
            await self._consumer.start()
            try:
                while not stopping.is_set():
                    batch = await self._consumer.getmany(
                        timeout_ms=200, max_records=self.config.max_records
                    )
                    if self._failure is not None:
                        raise self._failure
                    if batch:
                        async with self._lock:
                            await self._process(batch)
            finally:
                try:
                    async with self._lock:
                        await self._commit()
                except Exception:  # e.g. fenced: the error that ended the loop is what matters
                    log.warning("%s: last commit failed", self.name, exc_info=True)
                # Static members send no LeaveGroup here (StaticConsumer.stop's default);
                # dynamic members leave, as aiokafka does.
                await self._consumer.stop()
        finally:
            standbys.cancel()
            await asyncio.gather(standbys, return_exceptions=True)
            for store in self._stores.values():
                store.close()
            self._stores.clear()
            self._standbys.close()
            self.stats.standby_records = self._standbys.records_read
            await self._restorer.stop()

    async def _process(self, batch: Mapping[TopicPartition, list[Any]]) -> None:
        for tp, records in batch.items():
            store = self._stores.get(tp.partition)
            if store is None or not records:
                continue  # revoked meanwhile: not ours any more
            applied = store.applied_offset
            if applied >= 0 and records[0].offset > applied + 1:
                # Never skip input: go back to the first record the state lacks.
                log.warning(
                    "%s: partition %d: fetched offset %d but the state ends at %d; seeking back",
                    self.name,
                    tp.partition,
                    records[0].offset,
                    applied,
                )
                self._consumer.seek(tp, applied + 1)
                continue
            parsed = [parse_input(r.offset, r.key, r.value) for r in records]
            result = fold(
                store.get_many(r.key for r in parsed if r.value is not None), parsed, applied
            )
            if result.last_offset >= 0:
                changelog_next = store.changelog_next
                if result.updates:
                    changelog_next = await self._write_out(tp.partition, result)
                store.write(
                    result.updates, applied_offset=result.last_offset, changelog_next=changelog_next
                )
            if result.applied and not self.stats.processed:  # for benchmarks/streams_bench.py
                emit("processing", thread=self.name, partition=tp.partition)
            self.stats.processed += result.applied
            self.stats.skipped += result.skipped
            self.stats.bad_records += result.bad
            self._uncommitted[tp] = records[-1].offset + 1
        await self._commit()

    async def _write_out(self, partition: int, result: BatchResult) -> int:
        """Send the changelog (partition = input partition) and output records, wait for every
        acknowledgement, and return the changelog partition's new end offset."""
        changelog = [
            await self._producer.send(
                self.config.changelog_topic,
                encode_changelog(agg),
                key=key.encode(),
                partition=partition,
            )
            for key, agg in result.changelog_order()
        ]
        output = [
            await self._producer.send(
                self.config.output_topic, encode_output(key, agg, partition), key=key.encode()
            )
            for key, agg in result.changelog_order()
        ]
        written = await asyncio.gather(*changelog)
        await asyncio.gather(*output)
        return max(int(meta.offset) for meta in written) + 1

    async def _commit(self) -> None:
        if not self._uncommitted:
            return
        owned = self._consumer.assignment()
        offsets = {tp: off for tp, off in self._uncommitted.items() if tp in owned}
        self._uncommitted.clear()
        if not offsets:
            return
        try:
            await self._consumer.commit(offsets)
        except CommitFailedError as exc:
            # The group moved on without us; the changelog already holds this work, so the next
            # owner skips these records after restoring. Nothing is lost or double counted.
            self.stats.commit_failures += 1
            log.warning(
                "%s: commit failed (%s); the state is safe in the changelog", self.name, exc
            )

    # -- rebalance callbacks ---------------------------------------------------------------------

    async def on_revoked(self, revoked: set[TopicPartition]) -> None:
        try:
            async with self._lock:
                await self._commit()  # the in-flight batch is done (lock): commit it now
                for tp in revoked:
                    store = self._stores.pop(tp.partition, None)
                    if store is not None:
                        store.close()
                if revoked:
                    emit(
                        "revoked",
                        thread=self.name,
                        generation=self._consumer.generation_id,
                        partitions=sorted(tp.partition for tp in revoked),
                    )
        except Exception as exc:  # aiokafka only logs listener errors: make the loop raise it
            self._failure = exc
            raise

    async def on_assigned(self, assigned: set[TopicPartition]) -> None:
        try:
            async with self._lock:
                await self._on_assigned(assigned)
        except Exception as exc:
            self._failure = exc
            raise

    async def _on_assigned(self, assigned: set[TopicPartition]) -> None:
        stats = self.stats
        stats.assignments += 1
        rebalance = stats.assignments > 1
        stats.rebalances += int(rebalance)
        stats.generation = self._consumer.generation_id
        stats.member_id = self._consumer.member_id
        # ``assigned`` is what was added: the whole assignment under the classic protocol's
        # eager rebalance (everything was revoked first), only the new partitions under the
        # consumer and streams protocols (what stays is not handed over again).
        added = sorted(tp.partition for tp in assigned if tp.topic == self.config.input_topic)
        states: dict[str, dict[str, Any]] = {}
        for p in added:
            store = (self._stores.get(p) or self._standbys.take(p)
                     or PartitionStore(self.state_dir, self.config.input_topic, p))  # fmt: skip
            self._stores[p] = store
            outcome, restored = await self._prepare(store, p)
            states[str(p)] = {"outcome": outcome, "restored_records": restored}
        partitions = sorted(self._stores)
        stats.partitions = partitions
        emit(
            "assigned",
            thread=self.name,
            instance_id=stats.instance_id,
            member_id=stats.member_id,
            generation=stats.generation,
            partitions=partitions,
            rebalance=rebalance,
            states=states,
        )

    async def _prepare(self, store: PartitionStore, partition: int) -> tuple[str, int]:
        """Reuse the local state of ``partition`` or bring it up to date from the changelog."""
        ctp = TopicPartition(self.config.changelog_topic, partition)
        end = int((await self._restorer.end_offsets([ctp]))[ctp])
        mine = store.changelog_next
        if mine == end:
            if end == 0:
                self.stats.fresh += 1
                log.info(
                    "%s: partition %d: new state (nothing processed yet)", self.name, partition
                )
                return "fresh", 0
            self.stats.reused += 1
            log.info(
                "%s: partition %d: state reused (applied offset %d, changelog at %d)",
                self.name,
                partition,
                store.applied_offset,
                end,
            )
            return "reused", 0
        start = mine if mine < end else 0  # past the end: the changelog was recreated
        restored = await self._restore(store, ctp, start, end)
        self.stats.restored += 1
        self.stats.restored_records += restored
        log.info(
            "%s: partition %d: restored %d records from changelog (offsets %d..%d)",
            self.name,
            partition,
            restored,
            start,
            end,
        )
        return "restored", restored

    async def catch_up(self, store: PartitionStore, partition: int) -> tuple[int, int]:
        """A standby's step: read the changelog from the store's checkpoint to its end; the
        records read and that end."""
        ctp = TopicPartition(self.config.changelog_topic, partition)
        end = int((await self._restorer.end_offsets([ctp]))[ctp])
        mine = store.changelog_next
        if mine == end:
            return 0, end
        return await self._restore(store, ctp, mine if mine < end else 0, end), end

    async def _restore(
        self, store: PartitionStore, ctp: TopicPartition, start: int, end: int
    ) -> int:
        wipe = start == 0
        applied = -1 if wipe else store.applied_offset
        updates: dict[str, Aggregate] = {}
        self._restorer.assign([ctp])
        self._restorer.seek(ctp, start)
        try:
            count = await asyncio.wait_for(self._read(ctp, end, updates), RESTORE_TIMEOUT_S)
        finally:
            self._restorer.unsubscribe()
        applied = max([applied, *(agg.offset for agg in updates.values())])
        store.write(updates, applied_offset=applied, changelog_next=end, wipe=wipe)
        return count

    async def _read(self, ctp: TopicPartition, end: int, into: dict[str, Aggregate]) -> int:
        """Read the changelog partition up to ``end`` into ``into`` (latest value per key)."""
        count = 0
        while await self._restorer.position(ctp) < end:
            batch = await self._restorer.getmany(ctp, timeout_ms=500)
            for record in batch.get(ctp, []):
                if record.offset < end:
                    into[record.key.decode()] = decode_changelog(record.value)
                    count += 1
        return count
