"""What each engine sends on close for each of Java 4.4's membership operations (KIP-1092,
``CloseOptions.GroupMembershipOperation``), static and dynamic: the classic member's LeaveGroup,
the KIP-848 member's leaving heartbeat (epoch -1 leaves, -2 stays for a static member, nothing
for a dynamic member that remains)."""

from __future__ import annotations

import pytest

from staticconsumer.membership import SendLeaveGroup
from staticconsumer.membership._consumer_group import SendConsumerGroupHeartbeat
from staticconsumer.options import MembershipOperation

from . import test_classic_member as classic
from . import test_consumer_group_member as kip848

DEFAULT = MembershipOperation.DEFAULT
LEAVE = MembershipOperation.LEAVE_GROUP
REMAIN = MembershipOperation.REMAIN_IN_GROUP
REASON = "the consumer is being closed: deploy"


@pytest.mark.parametrize(("operation", "static", "leave"), [
    (DEFAULT, True, None), (DEFAULT, False, "the consumer is being closed"),
    (LEAVE, True, REASON), (LEAVE, False, REASON), (REMAIN, True, None), (REMAIN, False, None),
])  # fmt: skip
def test_classic_member(operation: MembershipOperation, static: bool, leave: str | None) -> None:
    member = classic.new_member(static=static)
    classic.stable(member, ("t", 0))
    reason = REASON if operation is LEAVE else None
    sent = [a for a in member.close(operation, reason) if isinstance(a, SendLeaveGroup)]
    assert sent == ([] if leave is None else [SendLeaveGroup("m-1", leave)])


@pytest.mark.parametrize(("operation", "static", "epoch"), [
    (DEFAULT, True, -2), (DEFAULT, False, -1), (LEAVE, True, -1), (LEAVE, False, -1),
    (REMAIN, True, -2), (REMAIN, False, None),
])  # fmt: skip
def test_consumer_group_member(
    operation: MembershipOperation, static: bool, epoch: int | None
) -> None:
    m = kip848.member("svc-0" if static else None)
    kip848.stable(m, ("t", 0))
    sent = [a for a in m.close(operation) if isinstance(a, SendConsumerGroupHeartbeat)]
    assert sent == ([] if epoch is None else [SendConsumerGroupHeartbeat(epoch, False, None, None)])
