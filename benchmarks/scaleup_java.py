"""The Java client's scale-up, the reference for ``scaleup_bench.py``: kafka-clients 4.3.1
``KafkaConsumer``s (static members) in one JVM, run by ``tests/java/InteropConsumer.java``,
classic with Java's ``CooperativeStickyAssignor`` or ``group.protocol=consumer``. Their rebalance
listeners' calls, read from the JVM's output with the time they were read, become the same
``(time, kind, member, partitions)`` calls the Python scenarios record."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/java
from tests.java import assignor_harness
from tests.java.interop_peers import JavaPeers, java_peers

TP = tuple[str, int]
Calls = list[tuple[float, str, str, frozenset[TP]]]
#: Scenario name -> (group.protocol, cooperative)
JAVA_SCENARIOS = {
    "Java cooperative-sticky": ("classic", True),
    "Java consumer protocol": ("consumer", False),
}


def java_command() -> list[str] | None:
    """The InteropConsumer JVM's command, or None (with a line on stderr) without JDK/Maven."""
    try:
        return assignor_harness.build("InteropConsumer")
    except assignor_harness.JavaToolMissing as exc:
        print(f"Java scenarios skipped: {exc}", file=sys.stderr)
        return None


def java_calls(peers: JavaPeers, group: str) -> tuple[Calls, dict[str, int]]:
    """Listener calls (``assigned``: what the call added) and each instance's last generation."""
    owned: dict[str, frozenset[TP]] = {}
    generation: dict[str, int] = {}
    calls: Calls = []
    for e, t in zip(list(peers.events), list(peers.read_at), strict=False):
        if e.get("group") != group or e["event"] not in ("assigned", "revoked"):
            continue
        who, tps = e["instance"], frozenset((t, p) for t, p in e["partitions"])
        if e["event"] == "assigned":
            calls.append((t, "assigned", who, tps - owned.get(who, frozenset())))
            owned[who], generation[who] = tps, e["generation"]
        else:
            calls.append((t, "revoked", who, tps))
            owned[who] = owned.get(who, frozenset()) - tps
    return calls, generation


def take(owned: dict[str, set[TP]], kind: str, who: str, tps: frozenset[TP]) -> None:
    """One listener call applied to each member's partitions (``assigned`` carries what it
    adds)."""
    mine = owned.setdefault(who, set())
    if kind == "assigned":
        mine |= tps
    else:
        mine -= tps


def owners_at(calls: Calls, until: float) -> dict[TP, str]:
    owned: dict[str, set[TP]] = {}
    for t, kind, who, tps in sorted(calls):
        if t > until:
            break
        take(owned, kind, who, tps)
    return {tp: who for who, tps in owned.items() for tp in tps}


async def java_stable(
    peers: JavaPeers, group: str, instances: list[str], partitions: int, *, classic: bool
) -> None:
    """Every partition owned once by ``instances`` (``classic``: on one generation; the consumer
    protocol's member epochs differ from member to member), nothing reported for 2 s."""
    async with asyncio.timeout(180):
        while True:
            calls, generation = java_calls(peers, group)
            last = max((c[0] for c in calls), default=time.monotonic())
            owners = owners_at(calls, time.monotonic())
            ok = len(owners) == partitions and set(owners.values()) == set(instances)
            ok = ok and (not classic or len({generation.get(i) for i in instances}) == 1)
            if ok and time.monotonic() - last >= 2.0:
                return
            if any(e["event"] == "error" for e in peers.events):
                raise RuntimeError(peers.diagnostics())
            await asyncio.sleep(0.1)


async def java_run(
    command: list[str], bootstrap: str, name: str, topic: str, group: str,
    shape: tuple[int, int, int], stagger_s: float, epoch: Callable[[], Awaitable[int]],
) -> tuple[Calls, float, dict[TP, str], int]:  # fmt: skip
    """Grow a Java group of ``running`` to ``running + arriving`` members on ``partitions``
    (``shape``), arrivals ``stagger_s`` apart: (calls, t0, owners at t0, rebalances)."""
    protocol, cooperative = JAVA_SCENARIOS[name]
    running, arriving, partitions = shape
    async with java_peers(command, bootstrap) as peers:
        ids = [f"j-{i}" for i in range(running + arriving)]
        for i in ids[:running]:
            await peers.start(group, i, [topic], cooperative=cooperative, group_protocol=protocol)
        await java_stable(peers, group, ids[:running], partitions, classic=protocol == "classic")
        calls, generation = java_calls(peers, group)
        before = max(generation.values()) if protocol == "classic" else await epoch()
        t0 = time.monotonic()
        owners = owners_at(calls, t0)
        for i in ids[running:]:
            await peers.start(group, i, [topic], cooperative=cooperative, group_protocol=protocol)
            await asyncio.sleep(stagger_s)
        await java_stable(peers, group, ids, partitions, classic=protocol == "classic")
        calls, generation = java_calls(peers, group)
        after = max(generation.values()) if protocol == "classic" else await epoch()
        return calls, t0, owners, after - before
