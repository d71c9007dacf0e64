"""A streams group's description as the admin and the CLI render it (``_admin.describe_streams``,
``cli.render.format_streams_table``): tasks in Kafka's spelling, one member by instance id."""

from __future__ import annotations

from staticconsumer.admin import (
    StreamsGroupDescription,
    StreamsMemberDescription,
    StreamsTaskLists,
    format_tasks,
)
from staticconsumer.cli.render import format_streams_table


def member(
    instance_id: str | None, active: tuple[tuple[str, int], ...]
) -> StreamsMemberDescription:
    tasks = StreamsTaskLists(active=active, standby=(("0", 9),))
    return StreamsMemberDescription(f"m-{instance_id}", instance_id, f"p-{instance_id}", "c", "/h",
                                    7, tasks, tasks)  # fmt: skip


GROUP = StreamsGroupDescription("g", "Stable", 7, 7, 0, (
    member("app-1", (("0", 0), ("0", 2), ("1", 5))), member("app-2", ()),
))  # fmt: skip


def test_tasks_are_spelled_as_kafka_s_streams_group_tool_spells_them() -> None:
    assert format_tasks((("0", 0), ("0", 2), ("1", 5))) == "0:[0,2] 1:[5]"
    assert format_tasks(()) == "-"


def test_one_member_by_instance_id() -> None:
    found = GROUP.member("app-2")
    assert found is not None and found.process_id == "p-app-2"
    assert GROUP.member("app-3") is None


def test_the_table_shows_the_epochs_and_each_thread_s_tasks() -> None:
    table = format_streams_table(GROUP, None)
    assert "PROTOCOL  streams (KIP-1071)" in table and "EPOCH     7 (assignment 7)" in table
    row = next(line for line in table.splitlines() if line.startswith("app-1"))
    assert row.split()[1:5] == ["m-app-1", "p-app-1", "7", "0:[0,2]"]
    assert "0:[9]" in row
    one = format_streams_table(GROUP, "app-2")
    assert "app-2" in one and "app-1" not in one


def test_the_json_document_names_the_protocol_and_every_list() -> None:
    doc = GROUP.to_dict()
    assert doc["group_protocol"] == "streams" and doc["group_epoch"] == 7
    first = doc["members"][0]
    assert first["tasks"]["active"][0] == {"subtopology": "0", "partition": 0}
    assert set(first["tasks"]) == {"active", "standby", "warmup"}
