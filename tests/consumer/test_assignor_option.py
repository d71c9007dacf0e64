"""partition_assignment_strategy is checked at construction: one GroupAssignor contract."""

from __future__ import annotations

import pytest
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

from assignors import RangeAssignor, StickyAssignor
from staticconsumer import ConfigurationError, StaticConsumer


async def test_aiokafka_assignors_are_refused_with_a_message_that_says_why() -> None:
    with pytest.raises(ConfigurationError, match=r"partition\.assignment\.strategy.*KIP-345"):
        StaticConsumer(
            "t", group_id="g", partition_assignment_strategy=(RoundRobinPartitionAssignor,)
        )


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
