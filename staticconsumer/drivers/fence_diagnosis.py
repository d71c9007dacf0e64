"""What a fatal error says: who holds our instance id now, and the broker's session-timeout bounds.

Both are best effort and bounded: a diagnosis must never delay or hide the fatal error itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from .. import _compat, _error_map
from ..errors import SessionTimeoutOutOfRangeError
from ..membership import ClassicMember
from ..protocol import (
    GroupApiVersions,
    build_consumer_group_describe,
    build_describe_groups,
    build_streams_group_describe,
    parse_consumer_group_describe,
    parse_describe_groups,
    parse_streams_group_describe,
)

log = logging.getLogger(__name__)

#: How long a fenced member may spend asking the coordinator who holds its instance id.
FENCE_DIAGNOSIS_S = 0.5


async def holder_of_instance_id(
    seam: _compat.ClientSeam, versions: GroupApiVersions, member: ClassicMember
) -> tuple[str, str] | None:
    """The member (id, description) that holds our instance id now, from DescribeGroups on the
    coordination connection, within :data:`FENCE_DIAGNOSIS_S`; None when it cannot be told."""
    cfg = member.config
    node = member.coordinator
    if node is None:
        return None
    request = build_describe_groups(versions.describe_groups, group_ids=[cfg.group_id])
    try:
        response = await asyncio.wait_for(seam.send(node, request), FENCE_DIAGNOSIS_S)
        groups = parse_describe_groups(response).groups
    except Exception as exc:  # diagnosis must never hide the fence itself
        member.identity.logger(log).debug("could not describe the group after the fence: %r",
                                          exc)  # fmt: skip
        return None
    for group in groups:
        for m in group.members:
            if m.group_instance_id == cfg.group_instance_id and m.member_id != member.member_id:
                # After a static replacement Kafka keeps the replaced member's client id and
                # host until the next rebalance; we report what the coordinator says.
                return m.member_id, (
                    f"member {m.member_id} (client id {m.client_id!r}, "
                    f"host {m.client_host}, as reported by the coordinator)"
                )
    return None


async def consumer_group_holder(
    seam: _compat.ClientSeam, versions: GroupApiVersions, member: Any
) -> tuple[str, str] | None:
    """As :func:`holder_of_instance_id`, for a KIP-848 consumer group (ConsumerGroupDescribe)."""
    version = versions.consumer_group_describe
    if version is None:
        return None
    request = build_consumer_group_describe(version, [member.config.group_id])
    return await _holder(seam, member, request, parse_consumer_group_describe)


async def streams_group_holder(
    seam: _compat.ClientSeam, version: int | None, member: Any
) -> tuple[str, str] | None:
    """As :func:`holder_of_instance_id`, for a KIP-1071 streams group (StreamsGroupDescribe,
    ``version`` None: the broker has none)."""
    if version is None:
        return None
    request = build_streams_group_describe(version, [member.config.group_id])
    return await _holder(seam, member, request, parse_streams_group_describe)


async def _holder(
    seam: _compat.ClientSeam, member: Any, request: Any, parse: Callable[[Any], Any]
) -> tuple[str, str] | None:
    """A heartbeat member's describe, asked within :data:`FENCE_DIAGNOSIS_S`: the other member
    with our instance id, named as the coordinator reports it."""
    cfg = member.config
    if member.coordinator is None:
        return None
    try:
        response = await asyncio.wait_for(seam.send(member.coordinator, request),
                                          FENCE_DIAGNOSIS_S)  # fmt: skip
        groups = parse(response)
    except Exception as exc:  # diagnosis must never hide the fence itself
        member.identity.logger(log).debug("could not describe the group after the fence: %r",
                                          exc)  # fmt: skip
        return None
    for group in groups:
        for m in group.members:
            if m.instance_id == cfg.group_instance_id and m.member_id != member.member_id:
                return m.member_id, (
                    f"member {m.member_id} (client id {m.client_id!r}, host {m.client_host}, "
                    f"epoch {m.member_epoch}, as reported by the coordinator)"
                )
    return None


async def session_timeout_error(
    seam: _compat.ClientSeam, node: int | None, session_timeout_ms: int
) -> SessionTimeoutOutOfRangeError:
    """INVALID_SESSION_TIMEOUT, with the broker's bounds when it tells them (worded by the
    error map)."""
    return _error_map.session_timeout_error(
        session_timeout_ms, await seam.session_timeout_bounds(node)
    )
