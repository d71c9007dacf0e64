"""``SeekHold`` with plain sets, no faust and no I/O: the stream partitions are held from an
assignment until a seek that ends after recovery's resume with no other seek under way
(``docs/faust.md``, "Commits and rebalances")."""

from __future__ import annotations

from typing import NamedTuple

from staticconsumer.faust._seek_hold import SeekHold


class TP(NamedTuple):
    topic: str
    partition: int


ORDERS = {TP("orders", 0), TP("orders", 1)}
CHANGELOG = TP("app-counts-changelog", 0)


def test_without_an_assignment_nothing_is_held() -> None:
    hold = SeekHold()
    assert hold.resume(ORDERS | {CHANGELOG}, {"app-counts-changelog"}) == ORDERS | {CHANGELOG}


def test_after_an_assignment_streams_wait_for_the_seek_and_changelogs_do_not() -> None:
    hold = SeekHold()
    hold.assigned()
    assert hold.resume(ORDERS | {CHANGELOG}, {"app-counts-changelog"}) == {CHANGELOG}
    hold.seek_started()
    assert hold.seek_ended(ORDERS | {CHANGELOG}) == ORDERS  # recovery's seek: released
    assert not hold.pending and hold.held == frozenset()
    assert hold.resume(ORDERS, ()) == ORDERS  # later resumes go through


def test_a_seek_before_recovery_resumes_anything_does_not_end_the_hold() -> None:
    hold = SeekHold()
    hold.assigned()
    hold.seek_started()  # faust's fetch came back while the flow was stopped
    assert hold.seek_ended(ORDERS) is None
    assert hold.resume(ORDERS, ()) == set() and hold.pending
    hold.seek_started()  # recovery's own
    assert hold.seek_ended(ORDERS) == ORDERS


def test_the_hold_ends_with_the_last_of_overlapping_seeks_and_keeps_only_what_is_assigned() -> None:
    hold = SeekHold()
    hold.assigned()
    assert hold.resume(ORDERS, ()) == set()
    hold.seek_started()
    hold.seek_started()
    assert hold.seek_ended(ORDERS) is None  # one is still under way
    assert hold.seek_ended({TP("orders", 1)}) == {TP("orders", 1)}  # orders-0 was revoked


def test_a_fetch_knows_whether_a_seek_moved_the_positions_while_it_waited() -> None:
    hold = SeekHold()
    before = hold.seeks
    assert not hold.moved_since(before)
    hold.seek_started()
    hold.seek_ended(set())
    assert hold.moved_since(before)
