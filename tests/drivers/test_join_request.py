"""What a StaticConsumer's JoinGroup carries, from its constructor's options (and its
``enforce_rebalance`` calls) to the request the real driver builds (no broker: the fake
coordinator reads the request)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from staticconsumer import ConfigurationError, MembershipState, StaticConsumer
from staticconsumer._consumer.assembly import make_driver
from staticconsumer.protocol import ApiKey, request_class

from ._fakes import (
    VERSIONS,
    FakeCoordinator,
    FakeSeam,
    ScriptedAssignor,
    classic_harness,
    wait_for,
)


async def join_group_sent(**options: object) -> tuple[dict[str, object], bytes]:
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:9", group_id="g",
                              group_instance_id="i-0", **options)  # type: ignore[arg-type]  # fmt: skip
    coordinator = FakeCoordinator()
    seam = FakeSeam(coordinator)
    raw: list[bytes] = []
    answer = coordinator.answer

    async def capture(request: object) -> object:
        raw.append(request.encode())  # type: ignore[attr-defined]
        return await answer(request)

    coordinator.answer = capture  # type: ignore[method-assign]
    driver = make_driver(consumer.options, seam, VERSIONS, on_fatal=lambda e: None,
                         owned=consumer._owned)  # fmt: skip
    driver.start()
    try:
        await wait_for(lambda: bool(coordinator.sent("JOIN_GROUP")), "a JoinGroup")
    finally:
        await driver.close()
    index = [name for name, _ in coordinator.requests].index("JOIN_GROUP")
    return coordinator.requests[index][1], raw[index]


@pytest.mark.parametrize(
    ("options", "session_ms", "rebalance_ms"),
    [
        # Java's default: max.poll.interval.ms (300 s), whatever the session timeout.
        ({"session_timeout_ms": 120_000}, 120_000, 300_000),
        ({"session_timeout_ms": 120_000, "max_poll_interval_ms": 15_000}, 120_000, 15_000),
        # The explicit knob still wins.
        ({"session_timeout_ms": 120_000, "rebalance_timeout_ms": 60_000}, 120_000, 60_000),
    ],
)
async def test_join_group_sends_max_poll_interval_as_the_rebalance_timeout_as_java_does(
    options: dict[str, object], session_ms: int, rebalance_ms: int
) -> None:
    fields, raw = await join_group_sent(**options)
    sent = (fields["session_timeout_ms"], fields["rebalance_timeout_ms"])
    assert sent == (session_ms, rebalance_ms)
    # The bytes on the wire: the request decodes back to the same timeouts.
    decoded = request_class(ApiKey.JOIN_GROUP, VERSIONS.join_group).decode(raw).to_object()
    assert (decoded["session_timeout_ms"], decoded["rebalance_timeout_ms"]) == (
        session_ms, rebalance_ms)  # fmt: skip


class HeldSync(FakeCoordinator):
    """Holds the answer to the first SyncGroup until ``release`` is set: the member stays in its
    first rebalance (state ``rebalancing``) as long as the test likes."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def answer(self, request: Any) -> Any:
        if ApiKey(request.api_key) is ApiKey.SYNC_GROUP and not self.release.is_set():
            entry = ("SYNC_GROUP", request.struct.to_object())
            self.requests.append(entry)  # seen in flight
            await self.release.wait()
            self.requests.remove(entry)  # recorded once, as it is answered below
        return await super().answer(request)


async def test_an_enforce_during_a_rebalance_is_performed_once_that_rebalance_completes() -> None:
    """Issue 29: a member whose SyncGroup is in flight (``rebalancing``) is asked to enforce; the
    rebalance completes, then the member joins again with the reason (before: nothing followed)."""
    coordinator = HeldSync()
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=coordinator)
    h.driver.start()
    try:
        await wait_for(lambda: bool(coordinator.sent("SYNC_GROUP")), "the SyncGroup in flight")
        assert h.driver.membership_state() is MembershipState.REBALANCING
        h.driver.enforce_rebalance("new shard map")
        await asyncio.sleep(0.05)
        assert len(coordinator.sent("JOIN_GROUP")) == 1  # one join at a time
        coordinator.release.set()
        await wait_for(lambda: len(coordinator.sent("JOIN_GROUP")) == 2, "the enforced join")
        reasons = [fields["reason"] for fields in coordinator.sent("JOIN_GROUP")]
        assert reasons[-1] == "rebalance enforced by user: new shard map"
        await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
        assert h.driver.generation == 2
        await asyncio.sleep(0.2)
        assert len(coordinator.sent("JOIN_GROUP")) == 2  # performed once
    finally:
        await h.driver.close()


async def test_enforce_without_a_reason_sends_kip_800s_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``enforce_rebalance()`` sends Java's default reason (KIP-800), a blank reason is refused."""
    h = classic_harness(ScriptedAssignor((0, 1, 2)))
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:9", group_id="g",
                              group_instance_id="i-0")  # fmt: skip
    consumer._driver = h.driver
    h.driver.start()
    try:
        await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
        await consumer.enforce_rebalance()
        await wait_for(lambda: len(h.coordinator.sent("JOIN_GROUP")) == 2, "the enforced join")
        assert h.coordinator.sent("JOIN_GROUP")[-1]["reason"] == "rebalance enforced by user"
        for blank in ("", "   "):
            with pytest.raises(ConfigurationError, match="leave it out"):
                await consumer.enforce_rebalance(blank)
    finally:
        await h.driver.close()


@pytest.mark.parametrize(("options", "join_wait_ms"), [
    ({}, 305_000),  # Java's default rebalance timeout, max.poll.interval.ms (300 s), + 5 s
    ({"max_poll_interval_ms": 15_000}, 20_000),
    ({"rebalance_timeout_ms": 60_000}, 65_000),
])  # fmt: skip
async def test_join_group_waits_the_rebalance_timeout_plus_5_s_as_java_does(
    options: dict[str, object], join_wait_ms: int
) -> None:
    """Issue 42: the coordinator holds a JoinGroup until every known member re-joined or the
    rebalance timeout passed (a stopped static member holds it for its session). With only the
    connection's request_timeout_ms (40 s), a longer wait timed out, read as a dead coordinator.
    Java's JoinGroup waits ``max(request.timeout.ms, rebalance timeout + 5 s)``
    (``AbstractCoordinator.sendJoinGroupRequest``); every other request its request timeout."""
    consumer = StaticConsumer("t", bootstrap_servers="127.0.0.1:9", group_id="g",
                              group_instance_id="i-0", **options)  # type: ignore[arg-type]  # fmt: skip
    seam = FakeSeam(FakeCoordinator())
    driver = make_driver(consumer.options, seam, VERSIONS, on_fatal=lambda e: None,
                         owned=consumer._owned)  # fmt: skip
    driver.start()
    try:
        await wait_for(lambda: any(api == "HEARTBEAT" for api, _ in seam.timeouts), "a heartbeat")
    finally:
        await driver.close()
    waits = dict(seam.timeouts)
    assert waits["JOIN_GROUP"] == join_wait_ms
    assert {api: wait for api, wait in seam.timeouts if api != "JOIN_GROUP"} == {
        "SYNC_GROUP": None, "HEARTBEAT": None}  # fmt: skip
