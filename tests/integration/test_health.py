"""The readiness and liveness endpoint on the real broker: not ready while the member joins for the
first time or its first partitions are still being handed over, ready once it holds them and
through a rebalance it takes part in (issue 22's contract), not live once fenced (KIP-345),
closed by stop(); one process-level HealthServer aggregating several consumers. Requests go
through the standard library's HTTP client."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

from aiokafka import ConsumerRebalanceListener

from staticconsumer import HealthServer, JoinGroupReason, MembershipEvent, StaticConsumer
from staticconsumer._observability.health import LIVE_PATH, READY_PATH
from staticconsumer.membership import Membership, MembershipState

from .._http import Answer, http_request
from ._group import FAST, wait_until


class HeldListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Keeps the first assignment in the application's hands until the test lets it go."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def on_partitions_revoked(self, revoked: Any) -> None:
        pass

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.entered.set()
        await self.release.wait()


async def test_probes_follow_the_member_through_join_fence_and_stop(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=2), unique_group_id()
    everything = [{"topic": topic, "partition": 0}, {"topic": topic, "partition": 1}]
    at_join: list[Membership] = []

    def on_event(event: MembershipEvent) -> None:
        if isinstance(event, JoinGroupReason):
            at_join.append(old.membership)

    old = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group,
                         group_instance_id="twin", health_port=0, health_host="127.0.0.1",
                         on_event=on_event, **FAST)  # fmt: skip
    listener = HeldListener()
    old.subscribe([topic], listener=listener)
    assert old.membership.state is MembershipState.NOT_STARTED and old.health_address is None
    starting = asyncio.create_task(old.start())
    new: StaticConsumer | None = None
    try:
        async with asyncio.timeout(60):  # a guard against a hang, not a measurement
            await listener.entered.wait()
        # Every JoinGroup of this first join (a new coordinator may make it send two) is sent
        # while the member is joining.
        assert at_join and {m.state for m in at_join} == {MembershipState.JOINING}
        address = old.health_address
        assert address is not None
        ready, live = await probes(address)
        assert (ready.status, live.status) == (503, 200)  # partitions still being handed over
        assert ready.json()["state"] == "rebalancing" and ready.json()["assignment"] == everything

        listener.release.set()
        await starting
        await wait_until(lambda: old.membership.ready, 30, "the member to hold its partitions")
        ready = await http_request(address, READY_PATH)
        assert ready.status == 200
        assert ready.json() == {
            "state": "stable", "ready": True, "live": True, "group_id": group,
            "group_instance_id": "twin", "member_id": old.member_id,
            "generation_id": old.generation_id, "assignment": everything,
        }  # fmt: skip
        assert old.generation_id >= 1 and old.member_id
        assert (await http_request(address, LIVE_PATH)).status == 200

        # Another process takes the instance id: the old member is fenced, for good.
        new = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                             group_instance_id="twin", health_port=0, health_host="127.0.0.1",
                             **FAST)  # fmt: skip
        await new.start()
        await wait_until(lambda: old.membership.state is MembershipState.FENCED, 30,
                         "the old member to be fenced")  # fmt: skip
        ready, live = await probes(address)
        assert (ready.status, live.status) == (503, 503)
        assert live.json()["state"] == "fenced" and live.json()["assignment"] == []
        await wait_until(lambda: new.membership.ready, 30, "the new member to hold the partitions")
        new_address = new.health_address
        assert new_address is not None
        assert (await http_request(new_address, READY_PATH)).json()["assignment"] == everything

        await old.stop()
        assert old.health_address is None
        assert old.membership.state is MembershipState.FENCED  # sticks after stop()
        with_refused(address)
        await old.stop()  # idempotent
        await new.stop()
        assert new.membership.state is MembershipState.STOPPED
        with_refused(new_address)
    finally:
        listener.release.set()
        if not starting.done():
            starting.cancel()
        await asyncio.gather(starting, return_exceptions=True)
        await old.stop()
        if new is not None:
            await new.stop()


class HeldRevocation(ConsumerRebalanceListener):  # type: ignore[misc]
    """Keeps the first revocation of owned partitions (a rebalance) waiting until released."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def on_partitions_revoked(self, revoked: Any) -> None:
        if revoked and not self.entered.is_set():
            self.entered.set()
            await self.release.wait()

    async def on_partitions_assigned(self, assigned: Any) -> None:
        pass


async def test_one_endpoint_stays_ready_through_a_rebalance_and_follows_a_fence(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=4), unique_group_id()
    listener = HeldRevocation()
    a = StaticConsumer(bootstrap_servers=kafka_bootstrap, group_id=group, group_instance_id="a",
                       **FAST)  # fmt: skip
    a.subscribe([topic], listener=listener)
    b = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                       group_instance_id="b", health_port=0, health_host="127.0.0.1",
                       **FAST)  # fmt: skip
    twin = StaticConsumer(topic, bootstrap_servers=kafka_bootstrap, group_id=group,
                          group_instance_id="a", **FAST)  # fmt: skip
    sampled: list[int] = []
    try:
        async with HealthServer(port=0, host="127.0.0.1") as health:
            assert health.address is not None
            health.register(a)
            assert (await http_request(health.address, READY_PATH)).status == 503  # not started
            async with asyncio.timeout(60):  # a guard against a hang, not a measurement
                await a.start()
            await wait_until(lambda: a.membership.state is MembershipState.STABLE, 30,
                             "a to hold the partitions")  # fmt: skip
            assert (await http_request(health.address, READY_PATH)).status == 200
            generation = a.generation_id

            # A second member joins: the group rebalances; a takes part and stays ready.
            sampler = asyncio.create_task(_sample(health.address, sampled))
            joining = asyncio.create_task(b.start())
            async with asyncio.timeout(60):
                await listener.entered.wait()
            assert a.membership.state is MembershipState.REBALANCING and a.membership.ready
            ready = await http_request(health.address, READY_PATH)
            assert ready.status == 200, ready.json()
            assert ready.json()["consumers"][0]["state"] == "rebalancing"
            listener.release.set()
            async with asyncio.timeout(60):
                await joining
            await wait_until(lambda: a.generation_id > generation and a.membership.state is
                             MembershipState.STABLE and b.membership.ready, 30,
                             "both members to hold their partitions")  # fmt: skip
            sampler.cancel()
            await asyncio.gather(sampler, return_exceptions=True)
            assert sampled and set(sampled) == {200}, sampled  # ready throughout the rebalance
            assert len(a.assignment()) + len(b.assignment()) == 4

            health.register(b)
            ready, live = await probes(health.address)
            assert (ready.status, live.status) == (200, 200)
            assert [c["group_instance_id"] for c in ready.json()["consumers"]] == ["a", "b"]

            # Another process takes a's instance id: a is fenced; the aggregate follows.
            await twin.start()
            await wait_until(lambda: a.membership.state is MembershipState.FENCED, 30,
                             "a to be fenced")  # fmt: skip
            ready, live = await probes(health.address)
            assert (ready.status, live.status) == (503, 503)
            assert [(c["state"], c["live"]) for c in live.json()["consumers"]] == [
                ("fenced", False), (b.membership.state.value, True)]  # fmt: skip
            b_address = b.health_address
            assert b_address is not None
            assert (await http_request(b_address, LIVE_PATH)).status == 200  # b's own endpoint
            health.unregister(a)
            assert (await http_request(health.address, LIVE_PATH)).status == 200
            address = health.address
        with_refused(address)
    finally:
        listener.release.set()
        for consumer in (a, b, twin):
            await consumer.stop()


async def _sample(address: tuple[str, int], into: list[int]) -> None:
    """``/readyz`` every 100 ms until cancelled."""
    while True:
        into.append((await http_request(address, READY_PATH)).status)
        await asyncio.sleep(0.1)


async def probes(address: tuple[str, int]) -> tuple[Answer, Answer]:
    return await http_request(address, READY_PATH), await http_request(address, LIVE_PATH)


def with_refused(address: tuple[str, int]) -> None:
    """Nothing listens on ``address`` any more."""
    with socket.socket() as probe:
        assert probe.connect_ex(address) != 0, f"{address} still accepts connections"
