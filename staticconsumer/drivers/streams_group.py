"""The streams group protocol's sender (``group_protocol="streams"``, KIP-1071): the heartbeat
(topics by name, no topic ids), the tasks handed to the application, the task offsets reported
for the broker's warm-ups, and the fence's diagnosis. It feeds the answers back to
:class:`~staticconsumer.membership.StreamsGroupMember`, which decides the rest.

:func:`streams_group_driver` builds the :class:`~.driver.Driver` that holds this sender and its
engine; the versions it sends are :func:`~staticconsumer.protocol.for_streams_protocol`'s.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from typing import assert_never

from .. import _compat
from .._error_map import fatal_error, fenced_error
from .._observability.emitter import EventEmitter
from .._observability.metrics import ConsumerMetrics
from .._streams_options import application_endpoint, check_topology
from ..errors import StaticConsumerError
from ..events import InstanceFenced
from ..membership import (
    Api,
    BecomeFatal,
    DeliverTasks,
    Emit,
    Revoke,
    SendStreamsGroupHeartbeat,
    StreamsGroupAction,
    StreamsGroupConfig,
    StreamsGroupHeartbeatAnswered,
    StreamsGroupHeartbeatFailed,
    StreamsGroupMember,
    StreamsGroupSenderAction,
    TaskSet,
    task_ids,
    tasks_from_answer,
)
from ..options import ConsumerOptions
from ..protocol import (
    ErrorCode,
    GroupApiVersions,
    TaskOffset,
    build_streams_group_heartbeat,
    error_name,
    for_streams_protocol,
    parse_streams_group_heartbeat,
)
from .consumer_group import new_member_id
from .driver import Driver, FatalCallback
from .fence_diagnosis import streams_group_holder

log = logging.getLogger(__name__)

#: What the application reports for the broker's warm-ups: each task's changelog offsets summed
#: (TaskOffsets) and their end offsets summed (TaskEndOffsets), or None to report nothing.
TaskOffsetsProvider = Callable[[], tuple[Sequence[TaskOffset], Sequence[TaskOffset]] | None]


def streams_group_driver(
    seam: _compat.ClientSeam, versions: GroupApiVersions, options: ConsumerOptions, *,
    on_fatal: FatalCallback, events: EventEmitter | None,
    metrics: ConsumerMetrics | None = None,
) -> Driver[StreamsGroupSenderAction]:  # fmt: skip
    """A driver holding a :class:`StreamsGroupMember` and its :class:`StreamsGroupSender`;
    :class:`~staticconsumer.errors.UnsupportedBrokerError` for a broker that cannot serve it."""
    chosen = for_streams_protocol(versions, static_member=options.is_static)
    config = StreamsGroupConfig(
        options, new_member_id(), check_topology(options.streams_topology),
        options.streams_process_id or str(uuid.uuid4()),
        application_endpoint(options.streams_application_server),
    )  # fmt: skip
    engine = StreamsGroupMember(config)

    def sender(driver: Driver[StreamsGroupSenderAction]) -> StreamsGroupSender:
        return StreamsGroupSender(driver, engine, heartbeat_version=chosen.streams_group_heartbeat,
                                  describe_version=chosen.streams_group_describe)  # fmt: skip

    return Driver[StreamsGroupSenderAction](engine, sender, seam, versions, options,
                                            on_fatal=on_fatal, events=events,
                                            metrics=metrics)  # fmt: skip


class StreamsGroupSender:
    """Performs the KIP-1071 engine's sends (module docstring)."""

    def __init__(
        self, driver: Driver[StreamsGroupSenderAction], engine: StreamsGroupMember, *,
        heartbeat_version: int, describe_version: int | None,
    ) -> None:  # fmt: skip
        self._driver = driver
        self._engine = engine
        self._log = engine.identity.logger(log)
        self._heartbeat_version = heartbeat_version
        self._describe_version = describe_version
        #: The tasks the application holds now (all three lists), as the engine handed them.
        self.tasks = TaskSet()
        #: Called with each new :class:`TaskSet` (the application's standbys follow it).
        self.on_tasks: Callable[[TaskSet], None] | None = None
        #: What the task offsets report reads (None: nothing reported).
        self.task_offsets: TaskOffsetsProvider | None = None

    @property
    def is_leader(self) -> bool:
        return False  # the broker assigns (KIP-1071): no member leads

    async def perform(self, action: StreamsGroupSenderAction) -> Sequence[StreamsGroupAction]:
        """Perform one of the KIP-1071 engine's sends (``mypy --strict`` proves each has its
        case); the actions the answer calls for."""
        match action:
            case SendStreamsGroupHeartbeat():
                return await self._heartbeat(action)
            case DeliverTasks():
                self._deliver(action.tasks)
                return []
            case _:
                assert_never(action)

    def _deliver(self, tasks: TaskSet) -> None:
        self.tasks = tasks
        self._log.info("streams tasks: active %s, standby %s, warm-up %s",
                       sorted(tasks.active), sorted(tasks.standby),
                       sorted(tasks.warmup))  # fmt: skip
        if self.on_tasks is not None:
            try:
                self.on_tasks(tasks)
            except Exception:  # the application's callback must not end the membership
                self._log.exception("on_tasks raised")

    # -- what the driver asks of the protocol ------------------------------------------------------

    def stops_fetching(self, action: Revoke) -> bool:
        return action.lost

    def after_revoke(self, action: Revoke) -> None:
        if action.lost:
            self._driver.seam.assign(())

    def enforce_rebalance(self, reason: str) -> None:
        self._log.warning(
            "enforce_rebalance(%r) is not supported by group_protocol='streams' (KIP-1071: the "
            "broker assigns tasks, no member can trigger a rebalance); nothing happens", reason,
        )  # fmt: skip

    def on_metadata_change(self) -> None:
        """The broker watches the topology's topics itself (statuses say what is missing)."""

    def subscription_changed(self) -> None:
        """The subscription is the topology's sources; the heartbeat carries the topology."""

    async def before_poll(self) -> bool:
        return False

    # -- the heartbeat ----------------------------------------------------------------------------

    async def _heartbeat(self, action: SendStreamsGroupHeartbeat) -> list[StreamsGroupAction]:
        engine, loop = self._engine, asyncio.get_running_loop()
        sent_at = self._driver.metrics.now()
        try:
            request = self._request(action)
            result = parse_streams_group_heartbeat(await self._driver.to_coordinator(request))
        except StaticConsumerError:  # ours are KafkaErrors too: not an aiokafka failure here
            raise
        except _compat.KafkaError as exc:
            self._log.warning("StreamsGroupHeartbeat to the coordinator failed: %r", exc)
            self._driver.metrics.answered(Api.STREAMS_GROUP_HEARTBEAT, sent_at, None)
            return list(engine.handle(StreamsGroupHeartbeatFailed(loop.time())))
        self._driver.metrics.answered(Api.STREAMS_GROUP_HEARTBEAT, sent_at, result.error_code)
        if result.error_code != ErrorCode.NONE and result.error_message:
            self._log.info("StreamsGroupHeartbeat: %s (%s)", error_name(result.error_code),
                           result.error_message)  # fmt: skip
        tasks = None
        if result.error_code == ErrorCode.NONE:
            tasks = tasks_from_answer(result.active_tasks, result.standby_tasks,
                                      result.warmup_tasks, engine.tasks)  # fmt: skip
        return list(engine.handle(StreamsGroupHeartbeatAnswered(
            result.error_code, loop.time(), result.member_epoch, result.heartbeat_interval_ms,
            result.task_offset_interval_ms, tasks, result.statuses,
        )))  # fmt: skip

    def _request(self, action: SendStreamsGroupHeartbeat) -> object:
        """The heartbeat's request: a join carries every field and empty task lists; later
        ones the three lists when they changed, and the task offsets when due."""
        cfg, options, full = self._engine.config, self._driver.options, action.full
        owned = TaskSet() if full else action.owned
        offsets = self.task_offsets() if action.report_offsets and self.task_offsets else None
        return build_streams_group_heartbeat(
            self._heartbeat_version, group_id=cfg.group_id, member_id=cfg.member_id,
            member_epoch=action.member_epoch, endpoint_information_epoch=0,
            instance_id=cfg.group_instance_id, rack_id=options.client_rack if full else None,
            # Java's Kafka Streams sends max.poll.interval.ms as the rebalance timeout
            rebalance_timeout_ms=options.max_poll_interval_ms if full else -1,
            topology=cfg.topology if full and action.member_epoch == 0 else None,
            active_tasks=None if owned is None else task_ids(owned.active),
            standby_tasks=None if owned is None else task_ids(owned.standby),
            warmup_tasks=None if owned is None else task_ids(owned.warmup),
            process_id=cfg.process_id if full else None,
            user_endpoint=cfg.user_endpoint if full else None,
            client_tags=dict(cfg.client_tags) if full else None,
            task_offsets=None if offsets is None else offsets[0],
            task_end_offsets=None if offsets is None else offsets[1],
            shutdown_application=action.shutdown_application,
        )  # fmt: skip

    # -- fatal errors -----------------------------------------------------------------------------

    async def fatal_error(self, action: BecomeFatal) -> StaticConsumerError:
        """The error for the engine's fatal verdict; a fence names the member holding our
        instance id now (best effort, StreamsGroupDescribe)."""
        engine = self._engine
        if not action.fenced:
            return fatal_error(self._driver.context(), action.api.value, action.error_code)
        holder = await streams_group_holder(self._driver.seam, self._describe_version, engine)
        fields = {"api": action.api.value, "other_holder": holder and holder[0]}
        self._driver.emit(Emit(InstanceFenced, engine.member_id, engine.member_epoch, fields))
        return fenced_error(self._driver.context(), action.api.value, holder and holder[1])
