"""Log lines a reader can attribute (issue 22, ``docs/logging.md``): two real Drivers over the
fake seam, in one process, with different instance ids; every line from the driver, its parts
and the engine names its consumer in ``extra`` fields and in the message prefix, with the member
id current when the line was logged. Recoverable events are not logged at ERROR."""

from __future__ import annotations

import logging
from collections import defaultdict

import pytest

from staticconsumer import MembershipState
from staticconsumer.membership import (
    LOG_FIELDS,
    ClassicMember,
    CoordinatorFound,
    JoinGroupAnswered,
    SyncGroupAnswered,
)
from staticconsumer.protocol import (
    Assignment,
    ErrorCode,
    encode_assignment,
    group_partitions,
)

from ..membership._configs import classic_config
from ._fakes import Harness, ScriptedAssignor, classic_harness, wait_for
from .test_consumer_group import ConsumerGroupCoordinator, kip848_driver, stable


async def _stable(h: Harness) -> None:
    await wait_for(lambda: h.driver.membership_state() is MembershipState.STABLE, "stable")


async def test_two_consumers_in_one_process_are_told_apart_by_fields_and_prefix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="staticconsumer")  # the parent catches every module
    a = classic_harness(ScriptedAssignor((0, 1, 2)), group_instance_id="billing-0")
    b = classic_harness(ScriptedAssignor((0, 1, 2)), group_instance_id="billing-1")
    a.driver.start()
    b.driver.start()
    await _stable(a)
    await _stable(b)
    a.coordinator.heartbeat_errors.append(ErrorCode.UNKNOWN_MEMBER_ID)  # a joins again
    await wait_for(lambda: a.driver.member_id == "billing-0-2", "a's new member id")
    await _stable(a)
    await a.driver.close()
    await b.driver.close()

    lines: dict[str | None, list[logging.LogRecord]] = defaultdict(list)
    for record in caplog.records:
        assert record.name.startswith("staticconsumer."), record.name
        for name in LOG_FIELDS:
            assert hasattr(record, name), (name, record.getMessage())
        lines[record.group_instance_id].append(record)  # type: ignore[attr-defined]
        assert record.group_id == "g" and record.client_id == "c"  # type: ignore[attr-defined]
        fields = record.__dict__
        member = fields["member_id"] or "-"
        assert record.getMessage().startswith(
            f"[group=g instance={fields['group_instance_id']} member={member}] "
        ), record.getMessage()
    assert set(lines) == {"billing-0", "billing-1"}
    for instance, records in lines.items():
        loggers = {r.name for r in records}
        assert {"staticconsumer.drivers.driver", "staticconsumer.drivers.handover",
                "staticconsumer.membership._classic"} <= loggers, (instance, loggers)  # fmt: skip
        members = {r.member_id for r in records} - {""}  # type: ignore[attr-defined]
        assert all(m.startswith(f"{instance}-") for m in members), members
    # The member id is read when the line is logged: a's lines name both of its member ids.
    assert {r.member_id for r in lines["billing-0"]} >= {"billing-0-1", "billing-0-2"}  # type: ignore[attr-defined]
    assert {r.member_id for r in lines["billing-1"]} - {""} == {"billing-1-1"}  # type: ignore[attr-defined]
    # UNKNOWN_MEMBER_ID is recoverable: a warning at most.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_caller_extra_is_kept_beside_the_identity(
    caplog: pytest.LogCaptureFixture,
) -> None:
    h = classic_harness(ScriptedAssignor((0,)), group_instance_id="billing-7")
    with caplog.at_level(logging.INFO, logger="staticconsumer"):
        h.driver.logger(logging.getLogger("staticconsumer.drivers.driver")).info(
            "hello", extra={"topic": "t"}
        )
    (record,) = caplog.records
    assert record.topic == "t" and record.group_instance_id == "billing-7"  # type: ignore[attr-defined]
    assert record.getMessage() == "[group=g instance=billing-7 member=-] hello"


def _stable_engine() -> ClassicMember:
    member = ClassicMember(classic_config(None, client_id="c"))
    member.handle(CoordinatorFound(1))
    member.poll(100.0, ("t",), 0.0)
    member.handle(JoinGroupAnswered(ErrorCode.NONE, 1, "m-1", "p", "other", False, ()))
    data = encode_assignment(Assignment(partitions=group_partitions([("t", 0)])))
    member.handle(SyncGroupAnswered(ErrorCode.NONE, data))
    member.poll(100.0, ("t",), 0.0)
    return member


def test_a_session_timeout_is_a_warning_from_the_engine_naming_a_dynamic_member(
    caplog: pytest.LogCaptureFixture,
) -> None:
    member = _stable_engine()
    with caplog.at_level(logging.DEBUG, logger="staticconsumer"):
        member.poll(111.0, ("t",), 0.0)  # no heartbeat answered for 11 s > session_timeout_ms
    (record,) = [r for r in caplog.records if "session_timeout_ms" in r.getMessage()]
    assert record.levelno == logging.WARNING and record.name == "staticconsumer.membership._classic"
    assert record.getMessage().startswith("[group=g instance=- member=m-1] ")
    assert (record.group_instance_id, record.member_id) == (None, "m-1")  # type: ignore[attr-defined]


async def test_kip848_lines_name_the_client_made_member_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    coordinator = ConsumerGroupCoordinator(target=(0, 1))
    caplog.set_level(logging.INFO, logger="staticconsumer")
    _seam, driver, _fatal = kip848_driver(coordinator)
    await stable(driver, 1)
    coordinator.heartbeat_errors.append(ErrorCode.FENCED_MEMBER_EPOCH)  # lost, then joined again
    await stable(driver, 2)
    await driver.close()
    member = driver.member_id
    loggers = {r.name for r in caplog.records}
    assert {"staticconsumer.membership._consumer_group",
            "staticconsumer.drivers.handover"} <= loggers  # fmt: skip
    for record in caplog.records:
        assert (record.group_instance_id, record.member_id) == ("i-0", member)  # type: ignore[attr-defined]
        assert record.getMessage().startswith(f"[group=g instance=i-0 member={member}] ")
