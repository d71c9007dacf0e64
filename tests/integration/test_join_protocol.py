"""What goes on the wire when StaticConsumer joins: one JoinGroup per attempt carrying every
assignor, and instance ids reaching the leader's assignor."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from assignors import Member, MemberAssignment, RangeAssignor, RoundRobinAssignor, StickyAssignor
from staticconsumer import StaticConsumer
from staticconsumer._compat.consumer import ClientSeam
from staticconsumer.protocol import parse_join_group

from ._group import FAST, owned, start_member, wait_stable

JOIN_GROUP = 11


async def test_one_join_group_per_attempt_with_every_assignor(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    consumer = StaticConsumer(
        topic_factory(partitions=2), bootstrap_servers=kafka_bootstrap,
        group_id=unique_group_id(), group_instance_id="one-join",
        partition_assignment_strategy=(RangeAssignor(), RoundRobinAssignor(), StickyAssignor),
        **FAST,
    )  # fmt: skip
    joins: list[tuple[list[str], int]] = []
    client = consumer._client
    real_send = ClientSeam.send

    # Every group request goes through the consumer's ClientSeam.send (JoinGroup with its own,
    # longer timeout, so not through AIOKafkaClient.send): spied there, for this consumer only.
    async def spying_send(seam: ClientSeam, node_id: int, request: Any, **kw: Any) -> Any:
        response = await real_send(seam, node_id, request, **kw)
        if seam._client is client and request.api_key == JOIN_GROUP:
            names = [protocol[0] for protocol in request.struct.protocols]
            joins.append((names, parse_join_group(response).error_code))
        return response

    monkeypatch.setattr(ClientSeam, "send", spying_send)
    await consumer.start()
    try:
        assert joins, "the spy saw the JoinGroup"
        successful = [j for j in joins if j[1] == 0]
        assert len(successful) == 1, joins
        for names, _code in joins:
            assert names == ["range", "roundrobin", "sticky"], "every assignor in each JoinGroup"
        assert consumer.generation_id >= 1
    finally:
        await consumer.stop()


class RecordingRange(RangeAssignor):
    """Our range assignor that remembers what the leader handed it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str | None]] = []

    def assign_group(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: Any = None,
    ) -> dict[str, MemberAssignment]:
        self.calls.append(sorted((m.group_instance_id or "") for m in members))
        return super().assign_group(members, partitions_per_topic, partition_racks=partition_racks)


async def test_leader_hands_instance_ids_to_the_assignor(
    kafka_bootstrap: str, topic_factory: Callable[..., str], unique_group_id: Callable[..., str]
) -> None:
    topic, group = topic_factory(partitions=6), unique_group_id()
    recorders = [RecordingRange() for _ in range(3)]
    ids = ["zeta-0", "alpha-1", None]
    members = [
        await start_member(topic, kafka_bootstrap, group, iid,
                           partition_assignment_strategy=(rec,))
        for iid, rec in zip(ids, recorders, strict=True)
    ]  # fmt: skip
    try:
        await wait_stable(members, 6)
        last = [rec.calls[-1] for rec in recorders if rec.calls]
        assert last, "some leader ran the assignor"
        assert ["", "alpha-1", "zeta-0"] in last, last
        # Range over instance ids: the static member sorting first gets the first partitions.
        by_id = {m.consumer.group_instance_id: owned(m) for m in members}
        assert by_id["alpha-1"] == {0, 1} and by_id["zeta-0"] == {2, 3} and by_id[None] == {4, 5}
    finally:
        for m in members:
            await m.stop()
