"""Reaching a group's coordinator for admin calls: FindCoordinator, bounded retries, timeouts.

Every admin request goes through :func:`with_coordinator`: look the coordinator up (FindCoordinator,
key type ``group``), run one request against it, and start over — with exponential backoff, at most
:data:`MAX_ATTEMPTS` attempts or :data:`MAX_RETRY_S` seconds — when the answer is one of
:data:`RETRIABLE` (the coordinator moved, is not up yet, or is still loading the group). Any other
error code is final and becomes a :class:`~staticconsumer.errors.GroupAdminError` that names the
group, the API and Kafka's error name. Transport failures (timeouts, refused connections) are not
retried here: they become a ``GroupAdminError`` at once, with the aiokafka error as its cause.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiokafka.errors as Errors
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
)

from .._compat import any_known_node, ensure_node_metadata, negotiate_versions, send_to_node
from .._error_map import admin_error
from ..errors import ClusterUnavailableError, GroupAdminError, StaticConsumerError
from ..protocol import (
    CoordinatorType,
    ErrorCode,
    GroupApiVersions,
    build_find_coordinator,
    error_name,
    parse_find_coordinator,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Error codes after which the coordinator is looked up again and the request retried.
RETRIABLE = frozenset(
    {
        ErrorCode.NOT_COORDINATOR,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
    }
)
MAX_ATTEMPTS = 10
MAX_RETRY_S = 30.0


class CoordinatorRetry(Exception):
    """Internal: a :data:`RETRIABLE` code; never leaves :func:`with_coordinator`."""

    def __init__(self, api: str, code: int) -> None:
        super().__init__(f"{api} answered {error_name(code)}")
        self.api = api
        self.code = code


def check_code(group_id: str, api: str, code: int, detail: str | None = None) -> None:
    """Return on NONE; :class:`CoordinatorRetry` for a retriable code; else raise
    :class:`GroupAdminError`."""
    if code == ErrorCode.NONE:
        return
    if code in RETRIABLE:
        raise CoordinatorRetry(api, code)
    raise admin_error(group_id, api, code, detail)


async def send(
    client: Any, node_id: int, request: Any, *, group_id: str, api: str, timeout_s: float,
    coordinator: bool = True,
) -> Any:  # fmt: skip
    """Send ``request`` to ``node_id`` (its coordination connection unless ``coordinator`` is
    False), bounded by ``timeout_s``; aiokafka and timeout errors → GroupAdminError."""
    log.debug("sending %s for group %r to node %s", api, group_id, node_id)
    try:
        return await asyncio.wait_for(
            send_to_node(client, node_id, request, coordination=coordinator), timeout_s
        )
    except TimeoutError:
        raise GroupAdminError(
            f"{api} for group {group_id!r} got no answer from node {node_id} in {timeout_s:g}s"
        ) from None
    except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
        raise
    except Errors.KafkaError as exc:
        raise GroupAdminError(
            f"{api} for group {group_id!r} to node {node_id} failed: {exc!r}"
        ) from exc


async def group_api_versions(client: Any, timeout_s: float) -> GroupApiVersions:
    """The group API versions to use with this cluster (ApiVersions of one broker)."""
    try:
        return await asyncio.wait_for(negotiate_versions(client, timeout_s, 0.1), timeout_s)
    except (TimeoutError, ClusterUnavailableError):
        raise GroupAdminError(f"ApiVersions got no answer in {timeout_s:g}s") from None
    except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
        raise
    except Errors.KafkaError as exc:
        raise GroupAdminError(f"ApiVersions failed: {exc!r}") from exc


async def find_coordinator(
    client: Any, group_id: str, versions: GroupApiVersions, timeout_s: float
) -> int:
    """The node id of ``group_id``'s coordinator (FindCoordinator, key type group)."""
    node_id = any_known_node(client)
    if node_id is None:
        raise GroupAdminError(f"FindCoordinator for group {group_id!r}: no broker is known")
    request = build_find_coordinator(
        versions.find_coordinator, keys=[group_id], key_type=CoordinatorType.GROUP
    )
    response = await send(
        client, node_id, request, group_id=group_id, api="FindCoordinator",
        timeout_s=timeout_s, coordinator=False,
    )  # fmt: skip
    rows = parse_find_coordinator(response).coordinators
    row = next((c for c in rows if c.key in (None, group_id)), None)
    if row is None:
        raise GroupAdminError(f"FindCoordinator for group {group_id!r}: no answer for the group")
    check_code(group_id, "FindCoordinator", row.error_code, row.error_message)
    try:
        await asyncio.wait_for(ensure_node_metadata(client, row.node_id), timeout_s)
    except TimeoutError:
        raise GroupAdminError(
            f"FindCoordinator for group {group_id!r}: no metadata for coordinator node "
            f"{row.node_id} after {timeout_s:g}s"
        ) from None
    log.debug(
        "coordinator of group %r is node %s (%s:%s)", group_id, row.node_id, row.host, row.port
    )
    return int(row.node_id)


def _before_sleep(group_id: str) -> Callable[[RetryCallState], None]:
    def report(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        log.info(
            "group %r: %s; retrying with a fresh coordinator lookup (attempt %d of %d)",
            group_id, exc, state.attempt_number + 1, MAX_ATTEMPTS,
        )  # fmt: skip

    return report


async def with_coordinator(
    client: Any,
    group_id: str,
    fn: Callable[[int, GroupApiVersions], Awaitable[T]],
    *,
    timeout_s: float,
    versions: GroupApiVersions | None = None,
) -> T:
    """Run ``fn(coordinator_node_id, versions)`` against ``group_id``'s coordinator.

    ``fn`` signals a retriable answer by raising :class:`CoordinatorRetry` (see
    :func:`check_code`); the coordinator is then looked up again, under a bounded tenacity policy.
    When the policy gives up, the last retriable code becomes a ``GroupAdminError``.
    """
    if versions is None:
        versions = await group_api_versions(client, timeout_s)
    retrying = AsyncRetrying(
        stop=stop_after_attempt(MAX_ATTEMPTS) | stop_after_delay(MAX_RETRY_S),
        wait=wait_exponential(multiplier=0.1, min=0.1, max=2.0),
        retry=retry_if_exception_type(CoordinatorRetry),
        before_sleep=_before_sleep(group_id),
        reraise=True,
    )
    try:
        async for attempt in retrying:
            with attempt:
                node_id = await find_coordinator(client, group_id, versions, timeout_s)
                return await fn(node_id, versions)
    except CoordinatorRetry as exc:
        raise admin_error(
            group_id, exc.api, exc.code, f"still failing after {MAX_ATTEMPTS} attempts or "
            f"{MAX_RETRY_S:g}s"
        ) from None  # fmt: skip
    raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover
