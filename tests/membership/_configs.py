"""Engine configs made by hand for the engine tests, from a consumer's options value (each
option's default is its row of ``staticconsumer.options.OPTIONS``)."""

from __future__ import annotations

from typing import Any

from staticconsumer.membership import ConsumerGroupConfig, MemberConfig, RebalanceProtocol
from staticconsumer.options import ConsumerOptions


def classic_config(
    group_instance_id: str | None = "i-0", *, session_timeout_ms: int = 10_000,
    heartbeat_interval_ms: int = 3_000, max_poll_interval_ms: int = 300_000,
    rebalance_protocol: RebalanceProtocol = RebalanceProtocol.EAGER, **more: Any,
) -> MemberConfig:  # fmt: skip
    """Group ``g``; ``more``: other options."""
    options = ConsumerOptions(group_id="g", group_instance_id=group_instance_id,
                              session_timeout_ms=session_timeout_ms,
                              heartbeat_interval_ms=heartbeat_interval_ms,
                              max_poll_interval_ms=max_poll_interval_ms, **more)  # fmt: skip
    return MemberConfig(options, rebalance_protocol)


def consumer_config(group_instance_id: str | None = "svc-0", **more: Any) -> ConsumerGroupConfig:
    """Group ``g``, member id ``m-uuid``, under the consumer protocol; ``more``: other options."""
    options = ConsumerOptions(group_id="g", group_instance_id=group_instance_id,
                              group_protocol="consumer", **more)  # fmt: skip
    return ConsumerGroupConfig(options, "m-uuid")
