"""Membership events as the documented JSON objects (docs/membership-events.md, schema v1)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Event = dict[str, Any]
TopicPartition = tuple[str, int]


def event(
    type_: str,
    ts_ms: int,
    *,
    group_id: str = "g",
    instance: str | None = None,
    member_id: str | None = None,
    generation_id: int | None = None,
    partitions: Sequence[TopicPartition] | None = None,
    reason: str | None = None,
    leader: bool | None = None,
    protocol: str | None = None,
    api: str | None = None,
    other_holder: str | None = None,
    seq: int = 0,
    client_id: str = "client",
    host: str = "host",
    event_id: str | None = None,
) -> Event:
    """One event with every documented field (``null`` where it does not apply)."""
    return {
        "schema": "staticconsumer.membership-event",
        "version": 1,
        "event_id": event_id or uuid.uuid4().hex,
        "seq": seq,
        "type": type_,
        "ts_ms": ts_ms,
        "group_id": group_id,
        "client_id": client_id,
        "host": host,
        "group_instance_id": instance,
        "member_id": member_id,
        "generation_id": generation_id,
        "leader": leader,
        "protocol": protocol,
        "partitions": None
        if partitions is None
        else [{"topic": t, "partition": p} for t, p in sorted(partitions)],
        "reason": reason,
        "api": api,
        "other_holder": other_holder,
    }


@dataclass
class Member:
    """One consumer object: numbers its events with ``seq`` like StaticConsumer does."""

    group_id: str
    instance: str | None
    member_id: str | None = None
    client_id: str = "client"
    host: str = "host"
    generation_id: int = -1
    owned: list[TopicPartition] = field(default_factory=list)
    seq: int = 0

    def emit(self, type_: str, ts_ms: int, **fields: Any) -> Event:
        fields.setdefault("generation_id", self.generation_id)
        out = event(
            type_, ts_ms, group_id=self.group_id, instance=self.instance,
            member_id=fields.pop("member_id", self.member_id), seq=self.seq,
            client_id=self.client_id, host=self.host, **fields,
        )  # fmt: skip
        self.seq += 1
        return out

    def join_reason(self, ts_ms: int, reason: str) -> Event:
        return self.emit("join_reason", ts_ms, reason=reason)

    def joined(self, ts_ms: int, generation_id: int, *, leader: bool = False) -> Event:
        self.generation_id = generation_id
        return self.emit("joined", ts_ms, leader=leader, protocol="range")

    def assigned(self, ts_ms: int, partitions: Iterable[TopicPartition]) -> Event:
        self.owned = sorted(partitions)
        return self.emit("assigned", ts_ms, partitions=self.owned)

    def revoked(self, ts_ms: int, reason: str = "rebalance") -> Event:
        owned, self.owned = self.owned, []
        return self.emit("revoked", ts_ms, partitions=owned, reason=reason)

    def fenced(self, ts_ms: int, api: str = "Heartbeat", other_holder: str | None = None) -> Event:
        return self.emit("fenced", ts_ms, api=api, other_holder=other_holder)


def to_json(events: Iterable[Event]) -> list[str]:
    return [json.dumps(item) for item in events]
