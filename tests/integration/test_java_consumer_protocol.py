"""Java ``KafkaConsumer``s and ``StaticConsumer``s as static members of one KIP-848 consumer
group (``group.protocol=consumer`` / ``group_protocol="consumer"``), on the real broker.

The coordinator assigns (its default ``uniform`` assignor), so nobody leads: the test checks that
both clients reconcile to the coordinator's plan, and that a static member of either side that
restarts gets its partitions back at its old epoch while nobody else notices (no epoch bump, no
callback). The coordinator's view (ConsumerGroupDescribe) is read alongside the clients' own and
is the oracle where they could disagree.

Java's view comes from the events ``tests/java/InteropConsumer.java`` prints: with the consumer
protocol, Java calls ``onPartitionsAssigned`` with the added partitions only, but the event carries
the whole assignment; its "generation" is the member epoch when the callback ran. Java runs no
callback when an epoch bump leaves its assignment as it is, so a Java member's epoch is read from
the coordinator (the member id in its event ties the two), its event's may trail it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, NamedTuple

import pytest

from staticconsumer import MembershipState
from staticconsumer.admin import GroupDescription, describe_group

from ._group import Member, owned, wait_until
from .test_consumer_protocol import start
from .test_java_interop import JavaPeers, interop_command, java_peers  # noqa: F401 (fixture)

pytestmark = pytest.mark.java

PARTITIONS = 8
JAVA = ["kip848-0", "kip848-2"]
PYTHON = ["kip848-1", "kip848-3"]
Parts = frozenset[int]


class Seat(NamedTuple):
    """A member as the coordinator sees it."""

    member_id: str
    epoch: int
    partitions: Parts


class Group:
    """One consumer group of Java and Python static members, and what the coordinator says."""

    def __init__(self, java: JavaPeers, bootstrap: str, group: str, topic: str) -> None:
        self.java, self.bootstrap, self.group, self.topic = java, bootstrap, group, topic
        self.python: dict[str, Member] = {}
        self.description: GroupDescription | None = None

    async def start_java(self, instance: str) -> None:
        await self.java.start(self.group, instance, [self.topic], group_protocol="consumer")

    async def start_python(self, instance: str) -> None:
        self.python[instance] = await start(self.topic, self.bootstrap, self.group, instance)

    def java_events(self, instance: str | None = None, since: int = 0) -> list[dict[str, Any]]:
        """Java's "assigned" and "revoked" events in this group (of ``instance``), in order,
        from index ``since`` of all events on."""
        return [
            e for e in self.java.events[since:]
            if e["event"] in ("assigned", "revoked") and e["group"] == self.group
            and instance in (None, e["instance"])
        ]  # fmt: skip

    def java_view(self, instance: str) -> tuple[int, Parts] | None:
        """(epoch, partitions) of a Java member from its events: the last "assigned" event's
        whole assignment, less what was revoked after it; None before its first assignment
        or once it closed."""
        closed = [i for i, e in enumerate(self.java.events)
                  if e["event"] == "closed" and e["instance"] == instance]  # fmt: skip
        events = self.java_events(instance, since=closed[-1] + 1 if closed else 0)
        assigned = [i for i, e in enumerate(events) if e["event"] == "assigned"]
        if not assigned:
            return None
        last = events[assigned[-1]]
        parts = {p for _t, p in last["partitions"]}
        for e in events[assigned[-1] + 1 :]:
            parts -= {p for _t, p in e["partitions"]}
        return last["generation"], frozenset(parts)

    def python_view(self, instance: str) -> tuple[int, Parts]:
        member = self.python[instance]
        return member.consumer.generation_id, frozenset(owned(member))

    def views(self) -> dict[str, tuple[int, Parts] | None]:
        """Every member's own (epoch, partitions), as the client reports it."""
        out: dict[str, tuple[int, Parts] | None] = {i: self.java_view(i) for i in JAVA}
        out.update({i: self.python_view(i) for i in PYTHON if i in self.python})
        return out

    def coordinator(self) -> dict[str, tuple[int, Parts, Parts]]:
        """instance id -> (member epoch, assignment, target assignment), as last described."""
        if self.description is None:
            return {}
        return {
            m.group_instance_id or m.member_id: (
                m.member_epoch if m.member_epoch is not None else -1,
                frozenset(p for _t, p in m.assignment),
                frozenset(p for _t, p in m.target_assignment),
            )
            for m in self.description.members
        }

    def settled(self) -> bool:
        """The coordinator's group is stable, every member at the group epoch with its target
        assignment reached, each partition owned once, two each; every client reports what the
        coordinator says (Python: its epoch too; Java: its partitions)."""
        d, seen, views = self.description, self.coordinator(), self.views()
        if d is None or d.state != "Stable" or set(seen) != set(JAVA + PYTHON):
            return False
        if set(views) != set(JAVA + PYTHON) or any(v is None for v in views.values()):
            return False
        owners = sorted(p for _e, parts, _t in seen.values() for p in parts)
        return (
            owners == list(range(PARTITIONS))
            and all(e == d.group_epoch and a == t and len(a) == 2 for e, a, t in seen.values())
            and all(self.python[i].consumer.membership.state is MembershipState.STABLE
                    and views[i] == seen[i][:2] for i in PYTHON)
            and all((v := views[i]) is not None and v[1] == seen[i][1] for i in JAVA)
        )  # fmt: skip

    async def describing(self) -> None:
        """Keep ``description`` fresh (the checks of ``wait_until`` are not async)."""
        while True:
            with contextlib.suppress(Exception):  # a describe that fails is retried
                self.description = await describe_group(self.bootstrap, self.group, timeout_s=5)
            await asyncio.sleep(0.3)

    async def wait_settled(self, what: str) -> dict[str, Seat]:
        await wait_until(self.settled, 90, f"{what}: a settled group")
        assert self.description is not None
        return {
            m.group_instance_id or "": Seat(m.member_id, m.member_epoch or 0,
                                           frozenset(p for _t, p in m.assignment))
            for m in self.description.members
        }  # fmt: skip

    def report(self) -> str:
        """What each side says, for failure messages."""
        events = self.java_events()
        closed = [e for e in self.java.events if e["event"] == "closed"]
        d = self.description.to_dict() if self.description else None
        return (
            f"clients (epoch, partitions): {self.views()}\ncoordinator: {d}\n"
            f"java events: {events}\njava closed: {closed}\n{self.java.diagnostics()}"
        )


@contextlib.asynccontextmanager
async def mixed_group(java: JavaPeers, bootstrap: str, group: str, topic: str
                      ) -> AsyncIterator[Group]:  # fmt: skip
    g = Group(java, bootstrap, group, topic)
    describer = asyncio.create_task(g.describing())
    try:
        yield g
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{g.report()}") from None
    finally:
        describer.cancel()
        await asyncio.gather(describer, return_exceptions=True)
        for member in g.python.values():
            await member.stop()


def assert_only_restarted_changed(
    before: dict[str, Seat], after: dict[str, Seat], restarted: str
) -> None:
    """The restarted member is a new member id (a new process, KIP-1082) in its old seat: same
    epoch, same partitions; every other member is exactly as it was."""
    assert after[restarted].member_id != before[restarted].member_id, "a new member id"
    assert after[restarted][1:] == before[restarted][1:], (before, after)
    others = {i: seat for i, seat in after.items() if i != restarted}
    assert others == {i: seat for i, seat in before.items() if i != restarted}, (before, after)


def counts(member: Member) -> tuple[int, int]:
    return len(member.listener.assigned), len(member.listener.revoked)


async def test_java_and_python_static_members_share_one_consumer_group(
    interop_command: list[str], kafka_bootstrap: str,  # noqa: F811
    topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
) -> None:  # fmt: skip
    topic, group = topic_factory(partitions=PARTITIONS), unique_group_id("kip848-java")
    async with (
        java_peers(interop_command, kafka_bootstrap) as java,
        mixed_group(java, kafka_bootstrap, group, topic) as g,
    ):
        for java_id, python_id in zip(JAVA, PYTHON, strict=True):
            await g.start_java(java_id)
            await g.start_python(python_id)

        # (a) One plan: every partition owned once across both clients, one epoch for all.
        before = await g.wait_settled("four members")
        epoch = g.description.group_epoch if g.description else None
        assert {seat.epoch for seat in before.values()} == {epoch}, before
        owners = sorted(p for seat in before.values() for p in seat.partitions)
        assert owners == list(range(PARTITIONS)), before
        for java_id in JAVA:
            last = [e for e in g.java_events(java_id) if e["event"] == "assigned"][-1]
            assert last["member_id"] == before[java_id].member_id, (java_id, last)
            assert g.java_view(java_id) == (last["generation"], before[java_id].partitions)
            assert last["generation"] <= before[java_id].epoch, (java_id, last)
        for python_id in PYTHON:
            consumer = g.python[python_id].consumer
            assert consumer.member_id == before[python_id].member_id, python_id
            assert g.python_view(python_id) == before[python_id][1:], python_id

        # (b) A Python member restarts: same partitions, same epoch; nobody else notices.
        restarted, stayer = PYTHON
        mark, stayer_counts = len(java.events), counts(g.python[stayer])
        await g.python[restarted].stop()  # static: epoch -2, the coordinator keeps its share
        await asyncio.sleep(1.0)  # a restart takes time: the others heartbeat meanwhile
        await g.start_python(restarted)
        await g.wait_settled(f"{restarted} back")
        await asyncio.sleep(1.5)  # room for a (wrong) epoch bump or callback to show up
        after = await g.wait_settled(f"{restarted} back, 1.5 s later")
        assert_only_restarted_changed(before, after, restarted)
        assert g.description is not None and g.description.group_epoch == epoch
        assert g.python_view(restarted) == before[restarted][1:], "its partitions, its old epoch"
        assert g.python_view(stayer) == before[stayer][1:]
        assert counts(g.python[stayer]) == stayer_counts, f"{stayer} saw a callback"
        assert g.java_events(since=mark) == [], "a Java member saw a revocation or assignment"

        # (c) A Java member restarts: the same, from the other side.
        before = after  # kip848-1 is a new member id now
        restarted, stayer = JAVA
        mark, python_counts = len(java.events), [counts(m) for m in g.python.values()]
        await java.close(restarted)
        closed = {"event": "closed", "instance": restarted}
        await wait_until(lambda: closed in java.events[mark:], 15, f"{restarted} closed")
        closed_at = len(java.events)
        await asyncio.sleep(1.0)
        await g.start_java(restarted)
        await wait_until(lambda: g.java_view(restarted) is not None, 30, f"{restarted} back")
        await asyncio.sleep(1.5)
        after = await g.wait_settled(f"{restarted} back, 1.5 s later")
        assert_only_restarted_changed(before, after, restarted)
        assert g.description is not None and g.description.group_epoch == epoch
        assert g.java_view(restarted) == before[restarted][1:], "its partitions, its old epoch"
        assert g.java_events(stayer, since=mark) == [], f"{stayer} saw a callback"
        for python_id in PYTHON:
            assert g.python_view(python_id) == before[python_id][1:], python_id
        assert [counts(m) for m in g.python.values()] == python_counts, "a Python callback"
        back = g.java_events(restarted, since=closed_at)
        # kafka-clients 4.4 may first run onPartitionsAssigned for an empty assignment (the
        # rejoin's first answer, before its old share comes back at the same epoch): allowed;
        # no revocation, no other partitions, and its last callback hands it its old share.
        empties = [e for e in back[:-1] if e["event"] == "assigned" and not e["partitions"]]
        assert [e["event"] for e in back] == ["assigned"] * len(back), back
        assert len(empties) == len(back) - 1, back
        assert {p for _t, p in back[-1]["partitions"]} == before[restarted].partitions, back
