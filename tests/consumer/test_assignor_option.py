"""partition_assignment_strategy is checked at construction: one GroupAssignor contract."""

from __future__ import annotations

from typing import Any

import pytest
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

from assignors import AssignmentReceiver, MemberAssignment, RangeAssignor, StickyAssignor
from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer._compat import AiokafkaGroupAssignor


async def test_aiokafka_assignors_run_through_the_instance_id_ordering_adapter() -> None:
    """Issue 41 asks for this: aiokafka-style assignors, refused until then (they order members
    by member id), run through the adapter that hands them members in instance-id order."""
    consumer = StaticConsumer(
        "t", group_id="g", partition_assignment_strategy=(RoundRobinPartitionAssignor,)
    )
    (adapted,) = consumer._partition_assignment_strategy
    assert isinstance(adapted, AiokafkaGroupAssignor)
    assert adapted.assignor is RoundRobinPartitionAssignor  # used as given: a class of hooks
    assert adapted.name == "roundrobin" and adapted.supported_protocols == ("eager",)
    assert isinstance(adapted, AssignmentReceiver)


class _InstanceHooks(AbstractPartitionAssignor):
    name = "mine"

    def metadata(self, topics: Any) -> Any: ...
    def assign(self, cluster: Any, members: Any) -> Any: ...
    def on_assignment(self, assignment: Any) -> None: ...


class _Unfinished(AbstractPartitionAssignor):
    name = "unfinished"

    @classmethod
    def metadata(cls, topics: Any) -> Any: ...


@pytest.mark.parametrize(("entry", "why"), [
    (_InstanceHooks, "metadata, assign, on_assignment take self: pass an instance, _InstanceHooks"),
    (_Unfinished, "does not implement assign, on_assignment"),
])  # fmt: skip
async def test_an_aiokafka_assignor_that_cannot_run_as_given_is_refused_saying_why(
    entry: Any, why: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        StaticConsumer("t", group_id="g", partition_assignment_strategy=(entry,))
    assert "partition.assignment.strategy" in str(caught.value) and why in str(caught.value)


async def test_an_aiokafka_assignor_instance_is_accepted_alone_or_in_a_list() -> None:
    mine = _InstanceHooks()
    for strategy in (mine, [mine, "range"]):
        consumer = StaticConsumer("t", group_id="g", partition_assignment_strategy=strategy)
        adapted = consumer._partition_assignment_strategy[0]
        assert isinstance(adapted, AiokafkaGroupAssignor) and adapted.assignor is mine


async def test_an_empty_strategy_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="empty"):
        StaticConsumer("t", group_id="g", partition_assignment_strategy=())


async def test_classes_of_ours_become_one_object_per_consumer() -> None:
    a = StaticConsumer(
        "t", group_id="g", partition_assignment_strategy=(StickyAssignor, RangeAssignor())
    )
    b = StaticConsumer("t", group_id="g", partition_assignment_strategy=(StickyAssignor,))
    assert isinstance(a._partition_assignment_strategy[0], StickyAssignor)
    assert a._partition_assignment_strategy[0] is not b._partition_assignment_strategy[0]
    assert [s.name for s in a._partition_assignment_strategy] == ["sticky", "range"]


@pytest.mark.parametrize(("strategy", "names"), [
    ("range", ["range"]),
    ("roundrobin, cooperative-sticky", ["roundrobin", "cooperative-sticky"]),  # Java's list form
    ("org.apache.kafka.clients.consumer.CooperativeStickyAssignor", ["cooperative-sticky"]),
    (["sticky", "org.apache.kafka.clients.consumer.RangeAssignor"], ["sticky", "range"]),
    (StickyAssignor, ["sticky"]),
    (RangeAssignor(), ["range"]),
    (("range", StickyAssignor), ["range", "sticky"]),
])  # fmt: skip
async def test_java_names_and_a_single_value_are_accepted(strategy: Any, names: list[str]) -> None:
    consumer = StaticConsumer("t", group_id="g", partition_assignment_strategy=strategy)
    assert [s.name for s in consumer._partition_assignment_strategy] == names


async def test_roster_by_name_asks_for_its_roster() -> None:
    with pytest.raises(ConfigurationError, match=r"'roster' needs its roster.*with_roster") as e:
        StaticConsumer("t", group_id="g", partition_assignment_strategy="roster")
    assert "staticconsumer roster add" in str(e.value)  # the way that needs no restart


async def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError) as caught:
        StaticConsumer("t", group_id="g", partition_assignment_strategy=["range", "rnage"])
    message = str(caught.value)
    assert "'rnage'" in message and "partition.assignment.strategy" in message
    for known in ("'range'", "'roundrobin'", "'sticky'", "'cooperative-sticky'",
                  "'org.apache.kafka.clients.consumer.StickyAssignor'"):  # fmt: skip
        assert known in message


# -- the optional on_assignment hook (issue 41) ----------------------------------------------------


class _Hooked(RangeAssignor):
    """Range, plus the hook that receives this member's own assignment."""

    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        pass


class _OneArgument(RangeAssignor):
    def on_assignment(self, assignment: MemberAssignment) -> None:  # aiokafka's shape
        pass


class _Coroutine(RangeAssignor):
    async def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        pass


async def test_an_assignor_with_the_on_assignment_hook_is_accepted() -> None:
    consumer = StaticConsumer("t", group_id="g", partition_assignment_strategy=(_Hooked,))
    assert isinstance(consumer._partition_assignment_strategy[0], AssignmentReceiver)
    assert not isinstance(RangeAssignor(), AssignmentReceiver), "the hook stays optional"


@pytest.mark.parametrize("assignor", [_OneArgument, _Coroutine()])
async def test_an_on_assignment_that_cannot_take_the_assignment_is_refused(assignor: Any) -> None:
    with pytest.raises(ConfigurationError) as caught:
        StaticConsumer("t", group_id="g", partition_assignment_strategy=(assignor,))
    message = str(caught.value)
    for words in ("partition.assignment.strategy", "on_assignment", "(assignment", "generation"):
        assert words in message
