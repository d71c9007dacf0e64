"""A streams-group member's tasks without a broker: a task's partitions, the order of a
change, the statuses' words (issue 50, the streams engine's plain-data pieces)."""

from __future__ import annotations

import pytest

from staticconsumer.membership._streams_tasks import (
    STATUSES,
    TaskSet,
    changelog_partitions,
    status_line,
    task_change,
    task_ids,
    task_partitions,
    tasks_of,
)
from staticconsumer.protocol import (
    StreamsGroupStatus,
    StreamsTopology,
    Subtopology,
    TaskIds,
    TopicInfo,
)

TOPOLOGY = StreamsTopology(1, (
    Subtopology("0", source_topics=("orders",),
                repartition_sink_topics=("app-by-key-repartition",),
                state_changelog_topics=(TopicInfo("app-counts-changelog"),)),
    Subtopology("1", repartition_source_topics=(TopicInfo("app-by-key-repartition"),),
                state_changelog_topics=(TopicInfo("app-totals-changelog"),)),
))  # fmt: skip


def test_a_task_consumes_partition_p_of_its_source_and_repartition_source_topics() -> None:
    assert task_partitions(TOPOLOGY, {("0", 2), ("1", 2)}) == {
        ("orders", 2), ("app-by-key-repartition", 2)}  # fmt: skip
    assert changelog_partitions(TOPOLOGY, {("0", 1), ("1", 3)}) == {
        ("app-counts-changelog", 1), ("app-totals-changelog", 3)}  # fmt: skip
    with pytest.raises(ValueError, match="subtopology the topology"):
        task_partitions(TOPOLOGY, {("7", 0)})


def test_the_wire_lists_and_the_sets_are_the_same_tasks() -> None:
    rows = (TaskIds("1", (3, 0)), TaskIds("0", (2,)))
    tasks = tasks_of(rows)
    assert tasks == {("1", 3), ("1", 0), ("0", 2)} and tasks_of(None) == frozenset()
    assert task_ids(tasks) == (TaskIds("0", (2,)), TaskIds("1", (0, 3)))  # sorted


def test_a_change_revokes_what_leaves_then_assigns_what_comes_and_acknowledges_all() -> None:
    owned = TaskSet(active=frozenset({("0", 0), ("0", 1)}), standby=frozenset({("0", 2)}))
    target = TaskSet(active=frozenset({("0", 1), ("0", 2)}), standby=frozenset({("0", 0)}),
                     warmup=frozenset({("0", 3)}))  # fmt: skip
    change = task_change(owned, target)
    assert change.revoked == {("0", 0)}  # active -> standby: revoked as active first
    assert change.assigned == {("0", 2)}  # standby -> active: its state is already local
    assert (change.standby, change.warmup) == (target.standby, target.warmup)
    assert change.acknowledge == target and not change.empty
    assert task_change(target, target).empty


def test_every_status_says_what_the_app_does_in_words_a_person_reads() -> None:
    assert set(STATUSES) == set(StreamsGroupStatus)
    line = status_line(StreamsGroupStatus.MISSING_SOURCE_TOPICS, "orders")
    assert line == "no tasks yet: source topics missing (orders); create them (the broker does not)"
    assert "CREATE" in status_line(StreamsGroupStatus.MISSING_INTERNAL_TOPICS, "")
    assert "no detail" in status_line(StreamsGroupStatus.ASSIGNMENT_DELAYED, "")
    assert "unknown to this version" in status_line(42, "x")
