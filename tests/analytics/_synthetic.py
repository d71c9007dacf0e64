"""Random but plausible membership-event streams for comparing the Spark job with the reference.

One group: static members (and sometimes a dynamic one) go through rebalances with random join
reasons, static restarts with and without a rebalance, fencing of a stale process, dynamic joins and
leaves, members left without partitions, timestamps that tie, and duplicated records.
"""

from __future__ import annotations

import random
from typing import Any

from ._events import Member

REASONS = (
    "rebalance enforced by user: deploy",
    "need to re-join with the given member-id",
    "group is already rebalancing",
    "metadata changed",
    "member joined",
)


class _Group:
    def __init__(self, rng: random.Random, group_id: str, start_ms: int) -> None:
        self.rng = rng
        self.group_id = group_id
        self.clock = start_ms
        self.generation = 0
        self.events: list[dict[str, Any]] = []
        topics = ["orders"] + (["audit"] if rng.random() < 0.5 else [])
        self.partitions = [(t, p) for t in topics for p in range(rng.randint(1, 6))]
        self.active: list[Member] = [
            Member(group_id, f"{group_id}-i{k}", client_id=f"c{k}", host=f"h{k}")
            for k in range(rng.randint(1, 4))
        ]

    def tick(self) -> int:
        self.clock += self.rng.choice((0, 1, 3, 40, 250, 1200))
        return self.clock

    def member_id(self, member: Member) -> str:
        return f"{member.instance or 'dynamic'}-{self.rng.getrandbits(32):08x}"

    def rebalance(self, extra_reason: str | None = None) -> None:
        self.generation += 1
        for member in self.active:
            if member.owned or self.rng.random() < 0.3:
                self.events.append(member.revoked(self.tick()))
        for member in self.active:
            reason = extra_reason or self.rng.choice(REASONS)
            self.events.append(member.join_reason(self.tick(), reason))
        for index, member in enumerate(self.active):
            if member.member_id is None:
                member.member_id = self.member_id(member)
            self.events.append(member.joined(self.tick(), self.generation, leader=index == 0))
        order = list(self.active)
        if self.rng.random() < 0.5:
            self.rng.shuffle(order)
        shares: dict[int, list[tuple[str, int]]] = {id(m): [] for m in order}
        for index, tp in enumerate(self.partitions):
            shares[id(order[index % len(order)])].append(tp)
        for member in self.active:
            self.events.append(member.assigned(self.tick(), shares[id(member)]))

    def static_restart(self, *, rebalance: bool) -> None:
        statics = [m for m in self.active if m.instance is not None]
        if not statics:
            return
        old = self.rng.choice(statics)
        kept = list(old.owned)
        self.events.append(old.revoked(self.tick(), reason="close"))
        self.clock += self.rng.randint(0, 5000)
        new = Member(self.group_id, old.instance, client_id=old.client_id, host=old.host)
        self.active[self.active.index(old)] = new
        self.events.append(new.join_reason(self.tick(), "static member restarted"))
        if rebalance:
            self.rebalance()
            return
        new.member_id = self.member_id(new)
        self.events.append(new.joined(self.tick(), self.generation))
        self.events.append(new.assigned(self.tick(), kept))
        if self.rng.random() < 0.4:  # the old process was still alive: it gets fenced
            holder = new.member_id if self.rng.random() < 0.5 else None
            self.events.append(old.fenced(self.tick(), other_holder=holder))

    def dynamic_join(self) -> None:
        self.active.append(Member(self.group_id, None, client_id="dyn", host="hd"))
        self.rebalance("member joined")

    def dynamic_leave(self) -> None:
        dynamic = [m for m in self.active if m.instance is None]
        if not dynamic or len(self.active) == 1:
            return
        leaver = dynamic[0]
        self.events.append(leaver.revoked(self.tick(), reason="close"))
        self.events.append(leaver.emit("left", self.tick(), reason="consumer stopped"))
        self.active.remove(leaver)
        self.rebalance()


def random_group(rng: random.Random, group_id: str, start_ms: int) -> list[dict[str, Any]]:
    """The events of one group, shuffled, with a few duplicated records."""
    group = _Group(rng, group_id, start_ms)
    group.rebalance()
    for _ in range(rng.randint(3, 12)):
        action = rng.random()
        if action < 0.3:
            group.rebalance()
        elif action < 0.55:
            group.static_restart(rebalance=False)
        elif action < 0.7:
            group.static_restart(rebalance=True)
        elif action < 0.85:
            group.dynamic_join()
        else:
            group.dynamic_leave()
        group.clock += rng.randint(0, 10_000)
    events = group.events
    for item in events:
        item["event_id"] = f"{rng.getrandbits(128):032x}"
    events += [dict(item) for item in events if rng.random() < 0.1]
    rng.shuffle(events)
    return events
