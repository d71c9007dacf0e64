"""The reliability scenarios, each a function of (cluster, kind) that returns its figures.

The tests (``test_broker_faults.py``, ``test_consumer_failure.py``) run them with
``kind="staticconsumer"`` and assert; ``figures.py`` runs the same functions for both
``staticconsumer`` and plain ``aiokafka`` and prints the table in ``docs/reliability.md``.

Every scenario: a fresh topic (6 partitions, replication factor 3) on the 3-node cluster, three
members (``m0``-``m2``, static unless said), an idempotent ``acks=all`` producer running throughout;
the fault; then the producer stops, the members drain what it wrote, and stop cleanly.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from staticconsumer.localkafka import LocalKafkaCluster

from ..integration._group import wait_until
from ._harness import (
    PARTITIONS,
    Figures,
    MemberProcess,
    Producer,
    Settings,
    committed_offsets,
    consumed_offsets,
    coordinator_of,
    covered,
    drain,
    figures,
    live_bootstrap,
    rebalance_reasons,
    settled,
    wait_fully_replicated,
)

log = logging.getLogger("staticconsumer.reliability")
#: How long a killed broker stays down before it is started again (as in the issue's runs).
BROKER_DOWN_S = 10.0
_names = itertools.count()


@dataclass
class Run:
    cluster: LocalKafkaCluster
    settings: Settings
    members: list[MemberProcess]
    producer: Producer
    extra: dict[str, float]

    async def consumed_more(self, records: int, timeout_s: float = 180) -> None:
        """Wait until the group consumed ``records`` more records than now."""

        def count() -> int:
            return sum(len(o) for o in consumed_offsets(self.members).values())

        base = count()
        await wait_until(lambda: count() >= base + records, timeout_s, f"{records} more records")

    async def coordinator(self) -> int:
        return await coordinator_of(live_bootstrap(self.cluster), self.settings.group)

    async def restart_broker_later(self, node_id: int, down_since: float) -> None:
        await asyncio.sleep(max(0.0, BROKER_DOWN_S - (time.monotonic() - down_since)))
        await asyncio.to_thread(self.cluster.restart_broker, node_id)


Body = Callable[[Run], Awaitable[None]]


async def run_scenario(name: str, cluster: LocalKafkaCluster, kind: str, body: Body, *,
                       log_dir: Path, static: bool = True, auto_commit: bool = False,
                       session_timeout_ms: int = 45000,
                       group_protocol: str = "classic") -> Figures:  # fmt: skip
    topic = cluster.create_topic(f"reliability-{next(_names)}-{int(time.time() * 1000)}",
                                 partitions=PARTITIONS, replication_factor=3)  # fmt: skip
    settings = Settings(kind, cluster.bootstrap_servers, topic, f"group-{topic}", static=static,
                        auto_commit=auto_commit, session_timeout_ms=session_timeout_ms,
                        group_protocol=group_protocol)  # fmt: skip
    members = [MemberProcess(f"m{i}", settings, log_dir) for i in range(3)]
    producer = Producer(cluster.bootstrap_servers, topic)
    run = Run(cluster, settings, members, producer, {})
    try:
        await wait_fully_replicated(cluster)
        await asyncio.gather(*(m.start() for m in members))
        await asyncio.gather(*(m.wait_for(lambda e: e["ev"] == "started", 120) for m in members))
        await settled(members, 60)
        await producer.start()
        await run.consumed_more(200)
        since, since_epoch_s = time.monotonic(), time.time()
        await body(run)
        await producer.stop()
        await drain(members, producer, 180)
        for member in members:
            await member.stop()
        committed = await committed_offsets(live_bootstrap(cluster), settings.group)
        result = figures(name, members, producer, committed, since)
        result.notes.extend(f"{k}={v:.1f}" for k, v in run.extra.items())
        if result.rebalances:  # the coordinator's reasons, for the assertion's message
            result.notes.extend(rebalance_reasons(cluster.logs(), settings.group, since_epoch_s))
        return result
    finally:
        with (log_dir / "events.json").open("w") as out:  # for a failed run's post-mortem
            json.dump({m.name: m.events for m in members}, out, indent=None)
        for member in members:
            await member.kill()
        if producer.stopped_at == 0.0 and producer.started_at:
            await producer.stop()
        for broker in cluster.brokers:
            if not broker.is_running():
                await asyncio.to_thread(cluster.restart_broker, broker.node_id)


# -- issue 15's two faults ---------------------------------------------------------------------


async def coordinator_dies_as_restarted_member_is_assigned(run: Run) -> None:
    """m0 restarts; the coordinator's broker is SIGKILLed the moment m0 holds its partitions,
    before m0 could ask for their committed offsets; it comes back 10 s later."""
    victim = run.members[0]
    await victim.stop()
    coordinator = await run.coordinator()
    mark = len(victim.events)
    await victim.start(pause_on_assign=True)
    await victim.wait_for(lambda e: e["ev"] == "assigned" and bool(e["partitions"]), 120, mark)
    run.cluster.kill_broker(coordinator)
    down_since = time.monotonic()
    victim.resume()
    await run.restart_broker_later(coordinator, down_since)
    await run.consumed_more(1000)


async def member_starts_while_coordinator_is_down(run: Run) -> None:
    """m0 stops; the coordinator's broker is SIGKILLed; m0 starts again at once, while the
    group has no coordinator; the broker comes back 10 s later."""
    victim = run.members[0]
    await victim.stop()
    coordinator = await run.coordinator()
    run.cluster.kill_broker(coordinator)
    down_since = time.monotonic()
    restart = asyncio.ensure_future(run.restart_broker_later(coordinator, down_since))
    mark = len(victim.events)
    await victim.start()
    event = await victim.wait_for(lambda e: e["ev"] in ("started", "start_failed"), 180, mark)
    run.extra["start_s"] = float(event.get("seconds", -1))
    await restart
    await run.consumed_more(1000)


# -- Kafka's consumer_test.py, for static members ------------------------------------------------


def broker_failure(clean_shutdown: bool) -> Body:
    """``test_broker_failure``: the coordinator's broker stops (SIGTERM) or dies (SIGKILL); the
    members keep consuming; it comes back later. (Kafka's test picks a broker arbitrarily and
    notes it should target the coordinator: we do.)"""

    async def body(run: Run) -> None:
        coordinator = await run.coordinator()
        if clean_shutdown:
            await asyncio.to_thread(run.cluster.stop_broker, coordinator)
        else:
            run.cluster.kill_broker(coordinator)
        down_since = time.monotonic()
        await run.consumed_more(1000)
        await run.restart_broker_later(coordinator, down_since)
        await run.consumed_more(200)

    return body


async def broker_rolling_bounce(run: Run) -> None:
    """``test_broker_rolling_bounce``: every broker gets a controlled restart in turn, about
    8 s apart, while the members consume."""
    for broker in list(run.cluster.brokers):
        await asyncio.to_thread(run.cluster.stop_broker, broker.node_id)
        await asyncio.to_thread(run.cluster.restart_broker, broker.node_id)
        await asyncio.sleep(8)
        await wait_fully_replicated(run.cluster)  # a bounce, not an outage of a partition
    await run.consumed_more(1000)


async def member_bounce_then_broker_rolling_bounce(run: Run) -> None:
    """``test_static_consumer_persisted_after_rejoin``: one static member is bounced (clean stop,
    started again: a new process, so a new member id under KIP-848), then every broker restarts
    in turn; the coordinator must keep that member (its new id and its partitions) throughout.
    ``extra["member_ids"]``: how many member ids the bounced member reported after its restart."""
    member = run.members[0]
    before = member.current_assignment()
    await member.stop()
    await member.start()
    await member.wait_for(lambda e: e["ev"] == "started", 120)
    await wait_until(lambda: member.current_assignment() == before, 60,
                     "the bounced member's partitions back")  # fmt: skip
    await broker_rolling_bounce(run)
    spawned = max(i for i, e in enumerate(member.events) if e["ev"] == "spawned")
    ids = {e.get("member_id") for e in member.events[spawned:] if e["ev"] == "assigned"}
    run.extra["member_ids"] = float(len(ids))


def consumer_failure(clean_shutdown: bool) -> Body:
    """``test_consumer_failure``: the owner of partition 0 stops cleanly or is SIGKILLed; the
    others take the partition over (``extra["moved_after_s"]``) and go on consuming."""

    async def body(run: Run) -> None:
        owner = next(m for m in run.members if 0 in m.current_assignment())
        others = [m for m in run.members if m is not owner]
        began = time.monotonic()
        if clean_shutdown:
            await owner.stop()
        else:
            await owner.kill()
        timeout = run.settings.session_timeout_ms / 1000 * 2 + 30
        await wait_until(lambda: any(0 in m.current_assignment() for m in others), timeout,
                         "another member taking partition 0 over")  # fmt: skip
        run.extra["moved_after_s"] = time.monotonic() - began
        await covered(others, 60)
        await run.consumed_more(1000)

    return body


def last_commits(member: MemberProcess) -> dict[int, int]:
    """The positions of a member's last successful commit per partition."""
    out: dict[int, int] = {}
    for event in member.events:
        if event["ev"] == "commit":
            out.update({int(p): o for p, o in event["positions"].items()})
    return out


__all__ = [
    "PARTITIONS",
    "Run",
    "broker_failure",
    "broker_rolling_bounce",
    "consumer_failure",
    "coordinator_dies_as_restarted_member_is_assigned",
    "last_commits",
    "member_starts_while_coordinator_is_down",
    "run_scenario",
]
