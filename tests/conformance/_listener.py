"""A rebalance listener that records its calls in order."""

from __future__ import annotations

import asyncio

from aiokafka import ConsumerRebalanceListener, TopicPartition

Call = tuple[str, frozenset[int]]


class Recorder(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka is untyped
    """Records ``("revoked" | "assigned" | "lost", partitions)``; ``assigned`` is set after each
    assignment."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.assigned = asyncio.Event()

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.calls.append(("revoked", frozenset(tp.partition for tp in revoked)))
        self.assigned.clear()

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.calls.append(("assigned", frozenset(tp.partition for tp in assigned)))
        self.assigned.set()

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.calls]
