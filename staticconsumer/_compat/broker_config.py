"""Reading the broker's group session-timeout bounds, to explain INVALID_SESSION_TIMEOUT."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from .requests import describe_configs_request

log = logging.getLogger(__name__)

_BROKER_RESOURCE = 4
MIN_KEY = "group.min.session.timeout.ms"
MAX_KEY = "group.max.session.timeout.ms"


async def session_timeout_bounds(
    client: Any, node_id: int | None, timeout_s: float = 5.0
) -> tuple[int, int] | None:
    """``(group.min.session.timeout.ms, group.max.session.timeout.ms)`` of broker ``node_id``,
    or None when they cannot be read (no permission, broker gone) within ``timeout_s``."""
    if node_id is None:
        return None
    request = describe_configs_request([(_BROKER_RESOURCE, str(node_id), [MIN_KEY, MAX_KEY])])
    with contextlib.suppress(Exception):
        response = await asyncio.wait_for(client.send(node_id, request), timeout_s)
        values: dict[str, int] = {}
        for resource in response.resources:
            for entry in resource[4]:
                if entry[0] in (MIN_KEY, MAX_KEY) and entry[1] is not None:
                    values[entry[0]] = int(entry[1])
        if len(values) == 2:
            return values[MIN_KEY], values[MAX_KEY]
    log.debug("could not read session timeout bounds from node %s", node_id)
    return None
