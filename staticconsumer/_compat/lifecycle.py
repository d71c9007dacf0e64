"""The consumer's lifecycle through the seam: ``AIOKafkaConsumer.start`` and ``stop`` as ours
(:func:`start_consumer`, :func:`stop_consumer`), and what ``StaticConsumer`` takes from
``AIOKafkaConsumer`` itself (its ``__anext__``, its signature, its logger)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiokafka
from aiokafka.consumer.group_coordinator import NoGroupCoordinator

from ..errors import StaticConsumerError
from ..membership import LogIdentity
from ..protocol import GroupApiVersions
from .consumer import ClientSeam, CoordinatorSeam, Driver, negotiate_versions
from .features import CONSUMER_ARGUMENTS, check_aiokafka_version
from .fetch import make_fetcher
from .log_redaction import redact_sasl_logs

#: aiokafka's consumer logger: a StaticConsumer's ``async for`` logs there what aiokafka's
#: ``__anext__`` logs there (a record too large to hand out).
AIOKAFKA_CONSUMER_LOG = logging.getLogger("aiokafka.consumer.consumer")


def aiokafka_anext() -> Callable[[Any], Awaitable[Any]]:
    """``AIOKafkaConsumer.__anext__``, for a subclass whose own ``getone`` ``async for`` must go
    through, as on aiokafka."""
    anext: Callable[[Any], Awaitable[Any]] = aiokafka.AIOKafkaConsumer.__anext__
    return anext


def aiokafka_consumer_parameters() -> frozenset[str]:
    """The names ``AIOKafkaConsumer.__init__`` of the installed aiokafka takes."""
    return frozenset(CONSUMER_ARGUMENTS)


#: The Fetcher's arguments that are the consumer's, by the same name.
_FETCHER_SETTINGS = (
    "key_deserializer", "value_deserializer", "fetch_min_bytes", "fetch_max_bytes",
    "fetch_max_wait_ms", "max_partition_fetch_bytes", "check_crcs", "retry_backoff_ms",
    "auto_offset_reset", "isolation_level",
)  # fmt: skip


def _fetcher_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The Fetcher's arguments, from the consumer's as ``AIOKafkaConsumer.start`` passes them
    (``consumer_timeout_ms`` in seconds; ``client_rack``, aiokafka 0.14's, only when set)."""
    chosen = {name: settings[name] for name in _FETCHER_SETTINGS}
    chosen["fetcher_timeout"] = settings["consumer_timeout_ms"] / 1000
    if settings.get("client_rack") is not None:
        chosen["client_rack"] = settings["client_rack"]
    return chosen


async def start_consumer(
    consumer: Any,
    settings: Mapping[str, Any],
    make_driver: Callable[[ClientSeam, GroupApiVersions], Driver],
    identity: LogIdentity | None = None,
    before_join: Callable[[ClientSeam], Awaitable[None]] | None = None,
    *,
    features: bool = False,
) -> None:
    """``AIOKafkaConsumer.start`` with our coordinator seam. ``settings``: the consumer's
    aiokafka arguments by ``AIOKafkaConsumer.__init__``'s names, each as given or defaulted (the
    fetcher and the group are built from them, not read back out of aiokafka's private
    attributes). ``before_join`` (the roster's join barrier) runs with the seam once the client
    is bootstrapped and versions negotiated, before the driver is made and joins. ``features``:
    ask the cluster's finalized features too (a consumer- or streams-protocol member)."""
    check_aiokafka_version()
    if consumer._fetcher is not None:
        raise StaticConsumerError("start() was called twice")
    client, subscription = consumer._client, consumer._subscription
    redact_sasl_logs(settings["security_protocol"])  # before the first connection
    await client.bootstrap()
    await consumer._wait_topics()
    # The record path: compiled or aiokafka's (.fetch.choose).
    consumer._fetcher = make_fetcher(client, subscription, **_fetcher_settings(settings))
    exclude_internal_topics = settings["exclude_internal_topics"]
    if settings["group_id"] is None:
        consumer._coordinator = NoGroupCoordinator(
            client, subscription, exclude_internal_topics=exclude_internal_topics
        )
        if subscription.subscription is not None and subscription.partitions_auto_assigned():
            await client.force_metadata_update()
            consumer._coordinator.assign_all_partitions(check_unknown=True)
        return
    versions = await negotiate_versions(
        client, settings["request_timeout_ms"] / 1000, settings["retry_backoff_ms"] / 1000,
        identity, static_member=settings["group_instance_id"] is not None, features=features,
    )  # fmt: skip
    seam = ClientSeam(client, subscription)
    if before_join is not None:
        await before_join(seam)
    driver = make_driver(seam, versions)
    coordinator = CoordinatorSeam(
        client, subscription, driver, exclude_internal_topics=exclude_internal_topics
    )
    seam.attach(coordinator)
    consumer._coordinator = coordinator
    sub = subscription.subscription
    if sub is not None and not subscription.partitions_auto_assigned():
        driver.start_commit_offsets_refresh_task(sub.assignment)
    driver.start()


async def stop_consumer(consumer: Any) -> None:
    """``AIOKafkaConsumer.stop`` for a consumer :func:`start_consumer` started (or none did):
    closes what that start made, coordinator, fetcher, then client, each even when the one
    before failed (the first failure is raised after). Never through aiokafka's ``stop()``,
    whose cleanup may rely on what only aiokafka's own ``start()`` sets up: aiokafka PR #1131
    closes through an exit stack that its ``start()`` fills, which ours does not run. Marks the
    consumer closed (aiokafka's ``getone``/``getmany`` then raise ``ConsumerStoppedError``);
    a second call does nothing."""
    if consumer._closed:
        return
    consumer._closed = True
    async with contextlib.AsyncExitStack() as closing:  # closes in reverse: the client last
        closing.push_async_callback(consumer._client.close)
        if consumer._fetcher is not None:
            closing.push_async_callback(consumer._fetcher.close)
        if consumer._coordinator is not None:
            closing.push_async_callback(consumer._coordinator.close)


def joins_group(consumer: Any, group_id: str | None) -> bool:
    """Whether ``start()`` joins a group: a group id and a subscription to topics or a pattern
    (as aiokafka, a consumer without a group has its partitions once started)."""
    return group_id is not None and subscribes_topics(consumer)


def subscribes_topics(consumer: Any) -> bool:
    """Whether ``subscribe()`` was called (not ``assign()``, not nothing). aiokafka's manual
    assignment is a subscription object too: only an automatic one counts."""
    sub = consumer._subscription
    return bool(sub.subscription is not None and sub.partitions_auto_assigned())


async def wait_for_assignment(consumer: Any) -> None:
    await consumer._subscription.wait_for_assignment()


def coordinator_of(consumer: Any) -> Driver | None:
    """The driver behind ``consumer._coordinator`` (for tests and benchmarks that look inside a
    consumer; ``StaticConsumer`` holds its own driver, typed)."""
    seam = consumer._coordinator
    driver: Driver | None = getattr(seam, "driver", None)
    return driver
