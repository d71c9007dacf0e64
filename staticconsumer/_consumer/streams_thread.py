"""What a member of a streams group (``group_protocol="streams"``, KIP-1071) tells and takes
beyond a consumer's: ``consumer.streams``. Its tasks (all three lists, as the broker assigned
them), the statuses the broker reports, whether a member asked the whole application to shut
down, and the process id; the application gives a callback for new tasks (its standbys follow
them) and the task offsets it reports for the broker's warm-ups."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from aiokafka.errors import IllegalStateError

from .._streams_options import source_topics
from ..drivers import AnyDriver, StreamsGroupSender, TaskOffsetsProvider
from ..membership import StreamsGroupMember, TaskSet
from ..options import ConsumerOptions
from ..protocol import StreamsTopology, TaskOffset


class StreamsThread:
    """``consumer.streams`` (module docstring). Set :attr:`on_tasks` and :attr:`task_offsets`
    before ``start()`` or at any time after."""

    def __init__(self, topology: StreamsTopology) -> None:
        self.topology = topology
        #: Called with each new :class:`~staticconsumer.membership.TaskSet`, after the active
        #: tasks' partitions were revoked and assigned (in the coordination loop: keep it short).
        self.on_tasks: Callable[[TaskSet], None] | None = None
        #: Called when the task offsets are due (every TaskOffsetIntervalMs): each task's
        #: changelog offsets and end offsets, summed, or None to report nothing.
        self.task_offsets: TaskOffsetsProvider | None = None
        self._sender: StreamsGroupSender | None = None
        self._engine: StreamsGroupMember | None = None

    @classmethod
    def of(cls, options: ConsumerOptions) -> StreamsThread | None:
        """The face of a streams member; None under another protocol."""
        if not options.streams_protocol or options.streams_topology is None:
            return None
        return cls(options.streams_topology)

    @property
    def source_topics(self) -> tuple[str, ...]:
        """What the thread subscribes to: the topology's source and repartition-source topics."""
        return source_topics(self.topology)

    def attach(self, driver: AnyDriver) -> None:
        """The driver ``start()`` made: its sender hands the tasks over, reads the offsets."""
        sender, engine = driver.sender, driver.engine
        if not isinstance(sender, StreamsGroupSender) or not isinstance(engine, StreamsGroupMember):
            raise TypeError(f"a streams member needs the streams driver, got {sender!r}")
        self._sender, self._engine = sender, engine
        sender.on_tasks = self._tasks_changed
        sender.task_offsets = self._offsets

    def _tasks_changed(self, tasks: TaskSet) -> None:
        if self.on_tasks is not None:
            self.on_tasks(tasks)

    def _offsets(self) -> tuple[Sequence[TaskOffset], Sequence[TaskOffset]] | None:
        return None if self.task_offsets is None else self.task_offsets()

    @property
    def tasks(self) -> TaskSet:
        """The tasks the thread holds now (empty before its first assignment)."""
        return self._sender.tasks if self._sender is not None else TaskSet()

    @property
    def statuses(self) -> Mapping[int, str]:
        """The statuses the broker reported last, ``{code: detail}``
        (:class:`~staticconsumer.protocol.StreamsGroupStatus`)."""
        return MappingProxyType(dict(self._engine.statuses if self._engine else {}))

    @property
    def shutdown_requested(self) -> bool:
        """A member of the group asked the whole application to shut down
        (SHUTDOWN_APPLICATION): the application stops."""
        return self._engine is not None and self._engine.shutdown_requested

    def request_application_shutdown(self, reason: str = "requested by the application") -> None:
        """Ask every thread of the application, in every process, to stop (KIP-1071's
        ShutdownApplication, as Java's ``StreamThreadExceptionResponse.SHUTDOWN_APPLICATION``):
        the next heartbeat carries it, at once, and the coordinator answers every member with
        SHUTDOWN_APPLICATION, so :attr:`shutdown_requested` turns True on each (this one too).
        Stopping is the application's to do; before ``start()`` it raises ``IllegalStateError``."""
        if self._engine is None:
            raise IllegalStateError("request_application_shutdown() needs a started consumer")
        self._engine.request_application_shutdown(reason)

    @property
    def process_id(self) -> str | None:
        """The process id the thread joined with (None before ``start()``)."""
        return self._engine.config.process_id if self._engine is not None else None
