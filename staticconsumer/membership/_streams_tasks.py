"""A streams-group member's tasks (KIP-1071), as plain data: the pieces of the streams engine
that need no state machine.

* A task is ``(subtopology_id, partition)``. The member processing active task ``(s, p)``
  consumes partition ``p`` of each of subtopology ``s``'s source topics and repartition-source
  topics (:func:`task_partitions`); a standby task ``(s, p)`` keeps partition ``p`` of ``s``'s
  changelog topics up to date; a warm-up task is a standby the broker intends to make active.
* An assignment change is applied in order (:func:`task_change`): commit what the revoked
  active tasks consumed, revoke them, assign the new ones, then acknowledge with all three
  lists in the next heartbeat.
* Each status the coordinator reports has what the application does about it and a log line a
  person understands (:data:`STATUSES`, :func:`status_line`).

Sources: Java's ``StreamsMembershipManager`` (reconciliation order) and
``StreamsGroupHeartbeatResponse``'s status codes (kafka-clients 4.4.0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..protocol import StreamsGroupStatus, StreamsTopology, TaskIds

Task = tuple[str, int]
Tasks = frozenset[Task]


def tasks_of(rows: Iterable[TaskIds] | None) -> Tasks:
    """The wire's task lists as a set of ``(subtopology_id, partition)``."""
    return frozenset((row.subtopology_id, p) for row in rows or () for p in row.partitions)


def task_ids(tasks: Iterable[Task]) -> tuple[TaskIds, ...]:
    """A set of tasks as the wire's lists: one per subtopology, sorted (equal sets, equal bytes)."""
    by_subtopology: dict[str, list[int]] = {}
    for subtopology, partition in tasks:
        by_subtopology.setdefault(subtopology, []).append(partition)
    return tuple(TaskIds(s, tuple(sorted(ps))) for s, ps in sorted(by_subtopology.items()))


@dataclass(frozen=True)
class TaskSet:
    """A member's active, standby and warm-up tasks."""

    active: Tasks = field(default_factory=frozenset)
    standby: Tasks = field(default_factory=frozenset)
    warmup: Tasks = field(default_factory=frozenset)


def task_partitions(topology: StreamsTopology, tasks: Iterable[Task]) -> frozenset[tuple[str, int]]:
    """The partitions active ``tasks`` consume: partition ``p`` of each source and
    repartition-source topic of the task's subtopology. A task of a subtopology the topology
    does not have is a ``ValueError`` (the broker assigned from another topology)."""
    sources: dict[str, tuple[str, ...]] = {
        s.subtopology_id: (*s.source_topics, *(t.name for t in s.repartition_source_topics))
        for s in topology.subtopologies
    }
    out: set[tuple[str, int]] = set()
    for subtopology, partition in tasks:
        if subtopology not in sources:
            raise ValueError(f"task {subtopology}_{partition} names a subtopology the topology "
                             f"(epoch {topology.epoch}) does not have")  # fmt: skip
        out.update((topic, partition) for topic in sources[subtopology])
    return frozenset(out)


def changelog_partitions(
    topology: StreamsTopology, tasks: Iterable[Task]
) -> frozenset[tuple[str, int]]:
    """The changelog partitions a standby or warm-up of ``tasks`` keeps up to date."""
    changelogs = {s.subtopology_id: tuple(t.name for t in s.state_changelog_topics)
                  for s in topology.subtopologies}  # fmt: skip
    return frozenset((topic, p) for s, p in tasks for topic in changelogs.get(s, ()))


@dataclass(frozen=True)
class TaskChange:
    """One reconciliation, in the order it is applied: ``revoked`` active tasks (what they
    consumed is committed first, then they are revoked), then ``assigned`` ones; the standby
    and warm-up tasks the member now keeps; ``acknowledge`` is what the next heartbeat says it
    owns (all three lists)."""

    revoked: Tasks
    assigned: Tasks
    standby: Tasks
    warmup: Tasks
    acknowledge: TaskSet

    @property
    def empty(self) -> bool:
        return not (self.revoked or self.assigned)


def task_change(owned: TaskSet, target: TaskSet) -> TaskChange:
    """From the tasks the member owns to the coordinator's target. A task moving from standby
    to active is assigned as active (its state is already local: little or nothing to
    restore); one moving from active to standby is revoked as active first."""
    return TaskChange(
        revoked=owned.active - target.active, assigned=target.active - owned.active,
        standby=target.standby, warmup=target.warmup, acknowledge=target,
    )  # fmt: skip


@dataclass(frozen=True)
class StatusAction:
    """What the application does while a status is active, and how it is said."""

    does: str
    says: str


_S = StreamsGroupStatus
#: Each status: what the app does and the words it logs (``{detail}`` is the broker's).
STATUSES: Mapping[int, StatusAction] = MappingProxyType({
    _S.STALE_TOPOLOGY: StatusAction(
        "keeps running its tasks; a newer version of the application owns the group's topology",
        "the group runs a newer topology than this process's ({detail}): this process is an "
        "older version of the application; roll it forward"),
    _S.MISSING_SOURCE_TOPICS: StatusAction(
        "gets no tasks until the source topics exist; it goes on heartbeating",
        "no tasks yet: source topics missing ({detail}); create them (the broker does not)"),
    _S.INCORRECTLY_PARTITIONED_TOPICS: StatusAction(
        "gets no tasks until the topics are partitioned as the topology needs",
        "no tasks yet: topics not partitioned as the topology needs ({detail}); copartitioned "
        "source topics need the same partition count"),
    _S.MISSING_INTERNAL_TOPICS: StatusAction(
        "gets no tasks until the broker has created the changelog and repartition topics",
        "no tasks yet: the broker is creating the internal topics, or could not ({detail}); "
        "it needs CREATE on them (docs/streams-groups.md)"),
    _S.SHUTDOWN_APPLICATION: StatusAction(
        "stops, as every member of the group does (a member asked the whole application to)",
        "a member asked the whole application to shut down ({detail}): stopping"),
    _S.ASSIGNMENT_DELAYED: StatusAction(
        "keeps the tasks it has; the broker computes the assignment later",
        "the broker has delayed the assignment ({detail}); tasks come with a later heartbeat"),
    _S.MISSING_CLIENT_TAGS: StatusAction(
        "keeps running; standbys are placed without rack awareness",
        "client tags missing for rack-aware standbys ({detail}); set the same tags on every "
        "process"),
})  # fmt: skip


def status_line(code: int, detail: str) -> str:
    """The log line for a status the coordinator reports (an unknown code says so)."""
    action = STATUSES.get(code)
    if action is None:
        return f"streams group status {code} ({detail}), unknown to this version"
    return action.says.format(detail=detail or "no detail")
