"""The leader's plan under a roster (issue 21 item 2): tables of members, roster and clock."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from assignors import (
    CooperativeStickyAssignor,
    RangeAssignor,
    StickyAssignor,
    encode_sticky_user_data,
)
from staticconsumer.membership._plan import plan_with_group_assignor
from staticconsumer.protocol import Subscription, group_partitions
from staticconsumer.roster._plan import (
    RosterPlan,
    RosterVerdict,
    RosterWait,
    plan_under_roster,
    roster_wait_reason,
)
from staticconsumer.roster._record import Roster

Decoded = dict[str, tuple[str | None, Subscription]]
DEADLINE = 10_000
WAIT = 120_000


def tps(spec: str) -> tuple[tuple[str, int], ...]:
    """'t0p0 t1p2' -> (('t0', 0), ('t1', 2))"""
    return tuple((t, int(p)) for t, p in (item.rsplit("p", 1) for item in spec.split()))


def sub(
    spec: str = "", topics: Sequence[str] = ("t0",), user_data: bytes | None = None
) -> Subscription:
    return Subscription(
        topics=tuple(topics), user_data=user_data,
        owned_partitions=group_partitions(tps(spec)), generation_id=3 if spec else -1,
    )  # fmt: skip


def roster(*ids: str) -> RosterWait:
    return RosterWait(frozenset(ids), DEADLINE, WAIT)


def got(plan: RosterPlan) -> dict[str, str]:
    return {m: " ".join(f"{t}p{p}" for t, p in a.partitions) for m, a in plan.assignments.items()}


def members(**owned: str) -> Decoded:
    """members(a="t0p0 t0p1", c="") -> member ids m-a, m-c with instance ids a, c."""
    return {f"m-{i}": (i, sub(spec)) for i, spec in owned.items()}


STABLE = {"a": "t0p0 t0p1 t0p2 t0p3", "b": "t0p4 t0p5 t0p6 t0p7"}
T0 = {"t0": 8}


@pytest.mark.parametrize("arrivals", [["c"], ["c", "d"], ["e", "c"], ["d"]])
def test_hold_gives_arrivals_nothing_and_takes_nothing(arrivals: list[str]) -> None:
    group = members(**STABLE, **dict.fromkeys(arrivals, ""))
    plan = plan_under_roster(StickyAssignor(), group, T0, roster("a", "b", "c", "d", "e"), 0)
    assert plan.verdict is RosterVerdict.HOLD
    want = {"m-a": STABLE["a"], "m-b": STABLE["b"], **{f"m-{i}": "" for i in arrivals}}
    assert got(plan) == want
    assert plan.missing == tuple(sorted({"c", "d", "e"} - set(arrivals)))
    assert plan.next_decision_ms == DEADLINE
    assert plan.reason == roster_wait_reason(plan.missing, WAIT)


@pytest.mark.parametrize(
    "assignor", [StickyAssignor(), CooperativeStickyAssignor(), RangeAssignor()],
    ids=["sticky", "cooperative-sticky", "range"],
)  # fmt: skip
def test_hold_plans_a_departed_members_partitions_among_the_holders(assignor: object) -> None:
    group = members(a="t0p0 t0p1", b="t0p2 t0p3", d="")  # c owned t0p4..t0p7 and left
    plan = plan_under_roster(assignor, group, T0, roster("a", "b", "d", "e"), 0)
    assert plan.verdict is RosterVerdict.HOLD
    assert plan.assignments["m-d"].partitions == ()
    a, b = (set(plan.assignments[m].partitions) for m in ("m-a", "m-b"))
    assert set(tps("t0p0 t0p1")) <= a and set(tps("t0p2 t0p3")) <= b
    assert a | b == set(tps("t0p0 t0p1 t0p2 t0p3 t0p4 t0p5 t0p6 t0p7")) and not a & b


def test_hold_partition_claimed_by_two_is_kept_by_neither() -> None:
    group = members(a="t0p0 t0p1 t0p2", b="t0p2 t0p3", c="")
    eager = plan_under_roster(StickyAssignor(), group, {"t0": 4}, roster("a", "b", "c", "d"), 0)
    # eager: planned like an orphan, through the assignor among the holders
    assert got(eager) == {"m-a": "t0p0 t0p1", "m-b": "t0p2 t0p3", "m-c": ""}
    coop = plan_under_roster(
        CooperativeStickyAssignor(), group, {"t0": 4}, roster("a", "b", "c", "d"), 0,
        cooperative=True,
    )  # fmt: skip
    # cooperative (KIP-429): both claimants revoke it first; nobody gets it this generation
    assert got(coop) == {"m-a": "t0p0 t0p1", "m-b": "t0p3", "m-c": ""}


def test_hold_an_unregistered_arrival_waits_too() -> None:
    group = {**members(**STABLE), "m-x": ("x", sub()), "m-dyn": (None, sub())}
    plan = plan_under_roster(StickyAssignor(), group, T0, roster("a", "b", "c"), 0)
    assert plan.verdict is RosterVerdict.HOLD and plan.missing == ("c",)
    assert plan.assignments["m-x"].partitions == plan.assignments["m-dyn"].partitions == ()


def test_hold_drops_what_is_no_longer_valid() -> None:
    group = {
        "m-a": ("a", sub("t0p0 t0p1 t1p0 t1p1", topics=["t0"])),  # t1 no longer subscribed
        "m-b": ("b", sub("t0p2 t0p3 t1p2 t0p9", topics=["t0", "t1"])),  # t0p9 is gone
        "m-c": ("c", sub()),
    }
    plan = plan_under_roster(
        StickyAssignor(), group, {"t0": 4, "t1": 3}, roster("a", "b", "c", "d"), 0
    )
    assert plan.verdict is RosterVerdict.HOLD
    # t1p0 and t1p1 are orphans: b is the only holder that reads t1
    assert got(plan) == {"m-a": "t0p0 t0p1", "m-b": "t0p2 t0p3 t1p0 t1p1 t1p2", "m-c": ""}


def test_hold_a_fresh_group_shares_what_nobody_holds() -> None:
    group = members(a="", b="")
    plan = plan_under_roster(StickyAssignor(), group, {"t0": 4}, roster("a", "b", "c", "d"), 0)
    assert plan.verdict is RosterVerdict.HOLD
    assert got(plan) == {"m-a": "t0p0 t0p1", "m-b": "t0p2 t0p3"}


def test_hold_keeps_a_java_eager_members_partitions_from_its_user_data() -> None:
    java = Subscription(topics=("t0",), user_data=encode_sticky_user_data(tps("t0p2 t0p3"), 4))
    group = {**members(a="t0p0 t0p1", c=""), "m-j": ("j", java)}
    plan = plan_under_roster(StickyAssignor(), group, {"t0": 4}, roster("a", "c", "d", "j"), 0)
    assert got(plan) == {"m-a": "t0p0 t0p1", "m-c": "", "m-j": "t0p2 t0p3"}


def today(assignor: object, group: Decoded, counts: Mapping[str, int]) -> dict[str, bytes]:
    return plan_with_group_assignor(assignor, group, counts)


@pytest.mark.parametrize(
    ("present", "registry", "now", "verdict", "missing"),
    [
        ({**STABLE, "c": "", "d": ""}, roster("a", "b", "c", "d"), 0, RosterVerdict.COMPLETE, ()),
        ({**STABLE, "c": ""}, roster("a", "b", "c", "d", "e"), DEADLINE, RosterVerdict.EXPIRED,
         ("d", "e")),
        ({**STABLE, "c": ""}, roster("a", "b", "c", "d"), DEADLINE + 1, RosterVerdict.EXPIRED,
         ("d",)),
        ({**STABLE, "c": ""}, None, 0, RosterVerdict.NONE, ()),
    ],
    ids=["complete", "expired-at-deadline", "expired-after", "no-roster"],
)  # fmt: skip
def test_otherwise_the_configured_assignors_plan_unchanged(
    present: dict[str, str], registry: RosterWait | None, now: int, verdict: RosterVerdict,
    missing: tuple[str, ...],
) -> None:  # fmt: skip
    group = members(**present)
    for assignor in (StickyAssignor(), CooperativeStickyAssignor(), RangeAssignor()):
        plan = plan_under_roster(assignor, group, T0, registry, now)
        assert (plan.verdict, plan.missing, plan.next_decision_ms) == (verdict, missing, None)
        assert plan.encoded() == today(assignor, group, T0)
    if verdict is RosterVerdict.EXPIRED:
        assert (
            plan.reason == f"roster wait ended: {', '.join(missing)} did not join within {WAIT} ms"
        )
    else:
        assert plan.reason is None


def test_the_registered_roster_value_is_accepted() -> None:
    registered = Roster.create("orders", ["a", "b", "c"], now_ms=1_000, wait_ms=60_000)
    plan = plan_under_roster(StickyAssignor(), members(**STABLE), T0, registered, 2_000)
    assert plan.verdict is RosterVerdict.HOLD and plan.next_decision_ms == 61_000
    assert plan.reason == "roster wait ended: c did not join within 60000 ms"
    assert plan_under_roster(
        StickyAssignor(), members(**STABLE), T0, registered, 61_000
    ).verdict is (RosterVerdict.EXPIRED)


def test_no_deadline_holds_and_schedules_nothing() -> None:
    plan = plan_under_roster(
        StickyAssignor(), members(**STABLE), T0, RosterWait(frozenset({"z"}), None), 10**15
    )
    assert plan.verdict is RosterVerdict.HOLD and plan.next_decision_ms is None
    assert plan.reason == "roster wait ended: z did not join"


def test_reason_is_cut_as_kafka_cuts_it() -> None:
    ids = [f"orders-consumer-{n:03d}" for n in range(40)]
    text = roster_wait_reason(reversed(ids), 120_000)
    assert text.startswith("roster wait ended: orders-consumer-000, orders-consumer-001, ")
    assert len(text) == 255
    assert roster_wait_reason(["svc-7", "svc-6"], 120_000) == (
        "roster wait ended: svc-6, svc-7 did not join within 120000 ms"
    )
