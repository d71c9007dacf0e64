"""KIP-345's compatibility rule on a broker before Kafka 2.3 (no JoinGroup v5): a member without
``group_instance_id`` downgrades to the versions the broker has and works as before; a member
with one is refused. The coordinator here announces what Apache Kafka 2.2.2 does (JoinGroup up to
v4) and refuses any other version, as aiokafka's connection does; no broker needed (the launcher
cannot run a Kafka older than 2.8)."""

from __future__ import annotations

import pytest
from aiokafka.structs import OffsetAndMetadata

from staticconsumer import MembershipState
from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol import build_join_group, negotiate
from tests._fake_client import KAFKA_2_2

from ._fakes import FakeCoordinator, ScriptedAssignor, classic_harness, wait_for


async def test_a_dynamic_member_joins_commits_and_leaves_with_kafka_2_2_versions() -> None:
    coordinator = FakeCoordinator(announced=KAFKA_2_2, heartbeat_errors=[0, 0])
    versions = negotiate(KAFKA_2_2, static_member=False)
    h = classic_harness(ScriptedAssignor((0, 1, 2)), coordinator=coordinator,
                        group_instance_id=None, versions=versions)  # fmt: skip
    h.driver.start()
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")
    await wait_for(lambda: bool(coordinator.sent("HEARTBEAT")), "a heartbeat")
    assert h.seam.assigned is not None
    offsets = {tp: OffsetAndMetadata(10, "") for tp in h.seam.assigned.tps}
    await h.driver.commit_offsets(h.seam.assigned, offsets)
    await h.driver.close()

    assert h.fatal == []
    first, second = coordinator.sent("JOIN_GROUP")[:2]
    assert (first["version"], first["member_id"]) == (4, "")
    assert second["member_id"] == "c-1", "KIP-394: joined again with the member id it was given"
    sent = {name: fields["version"] for name, fields in coordinator.requests}
    assert sent == {"JOIN_GROUP": 4, "SYNC_GROUP": 2, "HEARTBEAT": 2, "OFFSET_COMMIT": 6,
                    "LEAVE_GROUP": 2}  # fmt: skip
    assert all("group_instance_id" not in fields for _, fields in coordinator.requests)
    assert coordinator.commits == [{("t", 0): 10, ("t", 1): 10, ("t", 2): 10}]
    (leave,) = coordinator.sent("LEAVE_GROUP")
    assert leave["member_id"] == "c-1", "a dynamic member leaves on close, by member id"


def test_a_static_member_is_refused_before_any_request() -> None:
    with pytest.raises(UnsupportedBrokerError) as refused:
        negotiate(KAFKA_2_2)
    text = str(refused.value)
    assert "cannot carry group.instance.id (KIP-345 needs Apache Kafka 2.3 or newer)" in text
    assert "JoinGroup (api key 11): the broker supports v0-v4; static membership needs v5" in text
    assert refused.value.fatal


def test_an_instance_id_is_never_sent_on_a_version_without_it() -> None:
    """The protocol layer's own guard: a request of a pre-KIP-345 version with an instance id
    would make the broker treat a static member as a dynamic one."""
    with pytest.raises(UnsupportedBrokerError, match=r"JoinGroup v4 cannot carry group_instance"):
        build_join_group(
            4, group_id="g", session_timeout_ms=10_000, rebalance_timeout_ms=10_000,
            member_id="", group_instance_id="svc-0", protocol_type="consumer",
            protocols=[("range", b"")],
        )  # fmt: skip
