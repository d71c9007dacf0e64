"""Cooperative sticky plans (KIP-429), without a broker: tables and properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assignors import (
    CooperativeStickyAssignor,
    Member,
    assign_cooperative_sticky,
    assign_sticky,
)
from assignors._userdata import decode_envelope


def owner_of(members: list[Member]) -> dict[tuple[str, int], str]:
    return {tp: m.member_id for m in members for tp in m.owned_partitions}


def test_docstring_example_two_rounds() -> None:
    c0 = Member("m0", "c0", ["t0"], owned_partitions=[("t0", 0), ("t0", 1), ("t0", 2)],
                generation=1)  # fmt: skip
    c1 = Member("m1", "c1", ["t0"])
    first = assign_cooperative_sticky([c0, c1], {"t0": 3})
    assert first == {"m0": [("t0", 0), ("t0", 1)], "m1": []}
    c0 = Member("m0", "c0", ["t0"], owned_partitions=first["m0"], generation=2)
    c1 = Member("m1", "c1", ["t0"], owned_partitions=[], generation=2)
    assert assign_cooperative_sticky([c0, c1], {"t0": 3}) == {
        "m0": [("t0", 0), ("t0", 1)],
        "m1": [("t0", 2)],
    }


def test_a_fresh_group_gets_the_sticky_plan_at_once() -> None:
    members = [Member(f"m{i}", f"c{i}", ["t"]) for i in range(3)]
    assert assign_cooperative_sticky(members, {"t": 7}) == assign_sticky(members, {"t": 7})


def test_user_data_is_javas_generation_then_our_envelope() -> None:
    data = CooperativeStickyAssignor.for_instance("svc-0").subscription_user_data(["t"], [], 7)
    assert data[:4] == (7).to_bytes(4, "big")
    envelope = decode_envelope(data)
    assert envelope is not None and envelope.group_instance_id == "svc-0"
    assert "cooperative" in CooperativeStickyAssignor.supported_protocols
    assert CooperativeStickyAssignor.name == "cooperative-sticky"


groups = st.integers(min_value=1, max_value=6).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.integers(min_value=0, max_value=20),
        st.lists(st.integers(min_value=0, max_value=n), min_size=20, max_size=20),
    )
)


@settings(max_examples=200, deadline=None)
@given(groups)
def test_no_partition_goes_to_a_new_owner_in_the_round_its_owner_still_holds_it(
    group: tuple[int, int, list[int]],
) -> None:
    """Owned partitions are a valid previous plan (index n = unowned); then: exclusive,
    never handed over in one round, and two rounds reach the balanced sticky plan."""
    n, partitions, owners = group
    owned: dict[int, list[tuple[str, int]]] = {i: [] for i in range(n)}
    for p in range(partitions):
        if owners[p] < n:
            owned[owners[p]].append(("t", p))
    members = [Member(f"m{i}", f"c{i}", ["t"], owned_partitions=owned[i], generation=3)
               for i in range(n)]  # fmt: skip
    first = assign_cooperative_sticky(members, {"t": partitions})
    previous = owner_of(members)
    all_assigned = [tp for tps in first.values() for tp in tps]
    assert len(all_assigned) == len(set(all_assigned)), "exclusive"
    for member_id, tps in first.items():
        for tp in tps:
            assert previous.get(tp, member_id) == member_id, "handed over while still owned"
    # Round two: each member owns what round one gave it; the result is balanced and complete.
    again = [Member(f"m{i}", f"c{i}", ["t"], owned_partitions=first[f"m{i}"], generation=4)
             for i in range(n)]  # fmt: skip
    second = assign_cooperative_sticky(again, {"t": partitions})
    sizes = [len(v) for v in second.values()]
    assert sum(sizes) == partitions and max(sizes) - min(sizes) <= 1
    for member_id, tps in first.items():
        assert set(tps) <= set(second[member_id]), "what a member kept, it keeps"
