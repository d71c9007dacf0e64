"""The readiness and liveness endpoint on the real broker: not ready while the member joins or
its partitions are still being handed over, ready once it holds them, not live once fenced
(KIP-345), closed by stop(). Requests go through the standard library's HTTP client."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

from aiokafka import ConsumerRebalanceListener

from staticconsumer import JoinGroupReason, MembershipEvent, StaticConsumer
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


async def probes(address: tuple[str, int]) -> tuple[Answer, Answer]:
    return await http_request(address, READY_PATH), await http_request(address, LIVE_PATH)


def with_refused(address: tuple[str, int]) -> None:
    """Nothing listens on ``address`` any more."""
    with socket.socket() as probe:
        assert probe.connect_ex(address) != 0, f"{address} still accepts connections"
