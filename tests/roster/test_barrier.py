"""The roster's join barrier, decided without I/O (``roster/_barrier.py``)."""

from __future__ import annotations

import pytest

from staticconsumer.errors import RosterFormatError
from staticconsumer.roster import Roster
from staticconsumer.roster._barrier import (
    BarrierVerdict,
    arrival_key,
    arrival_value,
    barrier,
    read_arrival,
)

V = BarrierVerdict
IDS = [f"svc-{i}" for i in range(6)]
ROSTER = Roster.create("orders", IDS, now_ms=10_000, wait_ms=60_000)
RUNNING = {"svc-0", "svc-1"}


@pytest.mark.parametrize(
    ("roster", "me", "in_group", "arrivals", "now", "verdict", "waiting_for"),
    [
        (None, "svc-2", RUNNING, {}, 11_000, V.NO_ROSTER, ()),
        (ROSTER, None, RUNNING, {}, 11_000, V.NOT_REGISTERED, ()),  # a dynamic member
        (ROSTER, "other", RUNNING, {}, 11_000, V.NOT_REGISTERED, ()),
        (ROSTER, "svc-1", RUNNING, {}, 11_000, V.IN_GROUP, ()),  # a restart never waits
        (ROSTER, "svc-2", RUNNING, {}, 70_000, V.EXPIRED, ()),  # the deadline is inclusive
        (ROSTER, "svc-2", RUNNING, {}, 11_000, V.WAIT, ("svc-3", "svc-4", "svc-5")),
        (ROSTER, "svc-2", RUNNING, {"svc-3": 10_500, "svc-5": 10_000}, 11_000, V.WAIT, ("svc-4",)),
        # An arrival from before the roster's last change is an earlier scale-up's.
        (ROSTER, "svc-2", RUNNING, {"svc-3": 9_999, "svc-4": 10_000, "svc-5": 10_000}, 11_000,
         V.WAIT, ("svc-3",)),
        (ROSTER, "svc-2", RUNNING | {"svc-3"}, {"svc-4": 10_001, "svc-5": 10_002}, 11_000,
         V.ALL_ARRIVED, ()),
        (ROSTER, "svc-5", set(IDS) - {"svc-5"}, {}, 11_000, V.ALL_ARRIVED, ()),  # the last one
    ],
)  # fmt: skip
def test_who_waits_for_whom(
    roster: Roster | None, me: str | None, in_group: set[str], arrivals: dict[str, int], now: int,
    verdict: BarrierVerdict, waiting_for: tuple[str, ...],
) -> None:  # fmt: skip
    decision = barrier(roster, me, in_group, arrivals, now)
    assert (decision.verdict, decision.waiting_for) == (verdict, waiting_for)
    assert decision.wait is (verdict is V.WAIT)
    assert decision.arrives is (verdict in (V.WAIT, V.ALL_ARRIVED))
    assert decision.deadline_ms == (70_000 if verdict is V.WAIT else None)


@pytest.mark.parametrize(
    ("in_group", "arrivals", "join_at"),
    [
        # Everyone joins JOIN_ALIGN_MS after the latest arrival, computed alike by each.
        (RUNNING, {"svc-2": 10_400, "svc-3": 10_100, "svc-4": 10_900, "svc-5": 10_000}, 11_900),
        # An arrival that is in the group already, or stale, does not set the moment.
        (RUNNING | {"svc-4"}, {"svc-2": 10_400, "svc-3": 10_100, "svc-4": 30_000, "svc-5": 10_000},
         11_400),
        # Never later than the roster's deadline.
        (RUNNING, {"svc-2": 69_500, "svc-3": 10_100, "svc-4": 10_900, "svc-5": 10_000}, 70_000),
        # Nobody else arriving: join now.
        (set(IDS) - {"svc-2"}, {"svc-2": 10_400}, None),
    ],
)  # fmt: skip
def test_everyone_joins_at_one_moment(
    in_group: set[str], arrivals: dict[str, int], join_at: int | None
) -> None:
    decision = barrier(ROSTER, "svc-2", in_group, arrivals, 11_000)
    assert decision.verdict is V.ALL_ARRIVED and decision.join_at_ms == join_at


def test_an_arrival_record_reads_back_and_is_never_a_roster_key() -> None:
    key, value = arrival_key("orders", "svc-2"), arrival_value("orders", "svc-2", 12_345)
    assert key == b'{"arrival":"svc-2","group":"orders"}' and key != b"orders"
    assert read_arrival(key, value, "orders") == ("svc-2", 12_345)
    assert read_arrival(key, value, "payments") is None  # another group's
    assert read_arrival(b"orders", ROSTER.to_json(), "orders") is None  # the roster itself
    assert read_arrival(key, None, "orders") is None  # a tombstone
    assert read_arrival(None, value, "orders") is None


@pytest.mark.parametrize(
    "value",
    [b"not json", b"[]",
     b'{"version":2,"group_id":"orders","instance_id":"svc-2","arrived_at_ms":1}',
     b'{"version":1,"group_id":"orders","instance_id":"svc-9","arrived_at_ms":1}',
     b'{"version":1,"group_id":"orders","instance_id":"svc-2","arrived_at_ms":"1"}',
     b'{"version":1,"group_id":"orders","instance_id":"svc-2","arrived_at_ms":true}'],
)  # fmt: skip
def test_an_arrival_of_this_group_it_cannot_read_raises(value: bytes) -> None:
    with pytest.raises(RosterFormatError, match="arrival record of group 'orders'"):
        read_arrival(arrival_key("orders", "svc-2"), value, "orders")
