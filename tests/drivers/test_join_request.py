"""What a StaticConsumer's JoinGroup carries, from its constructor's options to the request the
real driver builds (no broker: the fake coordinator reads the request)."""

from __future__ import annotations

import pytest

from staticconsumer import StaticConsumer
from staticconsumer._compat import consumer_settings
from staticconsumer._consumer.assembly import make_driver
from staticconsumer.protocol import ApiKey, request_class

from ._fakes import VERSIONS, FakeCoordinator, FakeSeam, wait_for


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
    driver = make_driver(
        consumer_settings(consumer), consumer._group_protocol, seam, VERSIONS,
        on_fatal=lambda e: None, events=None, unreleased_wait_ms=45_000,
    )  # fmt: skip
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
