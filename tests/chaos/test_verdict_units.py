"""The chaos verdict and schedule without a broker: each rule shown to hold and to fail."""

from __future__ import annotations

import itertools
from pathlib import Path

from tests.chaos._nemesis import KINDS, EtlMember, Group, schedule
from tests.chaos._run import windows_of
from tests.chaos._verdict import Copy, Window, judge
from tests.reliability._harness import Settings


def copy(partition: int, offset: int, src: int, name: str = "m0", n: int = 1,
         ts: int = 2000) -> Copy:  # fmt: skip
    return Copy(partition, offset, partition, src, name, n, src_ts=1000 + src, ts=ts + offset)


INPUTS = {(0, o): 1000 + o for o in range(4)}
ENDS = {0: 4}


def test_a_clean_copy_holds() -> None:
    copies = [copy(0, i, i) for i in range(4)]
    verdict = judge(INPUTS, copies, [], {0: 4}, ENDS)
    assert verdict.problems() == []
    assert verdict.duplicates == 0 and verdict.max_lag_s == (2003 - 1003) / 1000


def test_a_record_without_a_copy_is_lost() -> None:
    verdict = judge(INPUTS, [copy(0, i, i) for i in range(3)], [], {0: 4}, ENDS)
    assert verdict.lost == [(0, 3)]


def test_a_duplicate_from_a_killed_incarnations_uncommitted_batch_is_explained() -> None:
    # m0#1 committed 2, wrote 2 and 3, was killed; m0#2 wrote 2 and 3 again.
    copies = [copy(0, 0, 0), copy(0, 1, 1), copy(0, 2, 2), copy(0, 3, 3),
              copy(0, 4, 2, n=2), copy(0, 5, 3, n=2)]  # fmt: skip
    verdict = judge(INPUTS, copies, [Window("m0", 1, "kill", {0: 2})], {0: 4}, ENDS)
    assert verdict.problems() == []
    assert verdict.duplicates == 2 and verdict.explained == {"kill": 2}


def test_a_duplicate_before_the_last_commit_is_not_explained() -> None:
    copies = [copy(0, 0, 0), copy(0, 1, 1), copy(0, 2, 1, n=2), copy(0, 3, 2, n=2),
              copy(0, 4, 3, n=2)]  # fmt: skip
    verdict = judge(INPUTS, copies, [Window("m0", 1, "kill", {0: 2})], {0: 4}, ENDS)
    assert [u[:2] for u in verdict.unexplained] == [(0, 1)]


def test_a_duplicate_without_a_crash_window_is_not_explained() -> None:
    copies = [copy(0, i, i) for i in range(4)] + [copy(0, 4, 3, name="m1")]
    verdict = judge(INPUTS, copies, [], {0: 4}, ENDS)
    assert len(verdict.unexplained) == 1 and verdict.problems()


def test_a_zombies_late_copy_is_explained_whichever_comes_first() -> None:
    # The frozen m0#1 writes its batch after its replacement m0#2 already did.
    copies = [copy(0, 0, 0), copy(0, 1, 1, n=2), copy(0, 2, 1), copy(0, 3, 2, n=2),
              copy(0, 4, 3, n=2)]  # fmt: skip
    verdict = judge(INPUTS, copies, [Window("m0", 1, "freeze_replace", {0: 1})], {0: 4}, ENDS)
    assert verdict.problems() == [] and verdict.explained == {"freeze_replace": 1}


def test_a_new_record_before_an_older_one_breaks_order() -> None:
    copies = [copy(0, 0, 0), copy(0, 1, 2), copy(0, 2, 1), copy(0, 3, 3)]
    verdict = judge(INPUTS, copies, [], {0: 4}, ENDS)
    assert verdict.order_violations == [(0, 1, 2)]


def test_committed_short_of_the_end_is_reported() -> None:
    verdict = judge(INPUTS, [copy(0, i, i) for i in range(4)], [], {0: 3}, ENDS)
    assert not verdict.committed_at_end and verdict.problems()
    assert judge({}, [], [], {}, {1: 0}).committed_at_end  # nothing to commit, nothing committed


def test_recovery_is_the_longest_lag_of_a_record_produced_before_the_next_fault() -> None:
    # record i produced at 1000 + i ms; written at 2000 + i ms, but record 2 at 2500 ms
    copies = [copy(0, 0, 0), copy(0, 1, 1), Copy(0, 2, 0, 2, "m0", 1, 1002, 2500), copy(0, 3, 3)]
    faults = [("kill", 1.0005), ("bounce", 1.003)]
    verdict = judge(INPUTS, copies, [], {0: 4}, ENDS, faults=faults, margin_s=0)
    assert verdict.recovery_s == [("kill", 1.498), ("bounce", 1.0)]
    # record 2 produced within 1.5 ms before the bounce: the bounce's to delay
    verdict = judge(INPUTS, copies, [], {0: 4}, ENDS, faults=faults, margin_s=0.0015)
    assert verdict.recovery_s == [("kill", 1.0), ("bounce", 1.0)]


def test_the_schedule_is_the_seeds_and_has_every_kind() -> None:
    assert schedule(7, 5) == schedule(7, 5) != schedule(8, 5)
    short = schedule(7, 0.1)
    assert sorted(f.kind for f in short) == sorted(KINDS)
    long = schedule(7, 60)
    assert long[-1].at_s >= 60 and all(a.at_s < b.at_s for a, b in itertools.pairwise(long))


def test_a_thawed_members_window_closes_at_its_next_commit() -> None:
    # m0#1 frozen after committing 1, thawed, committed 3: a copy of 1 or 2 is the batch it
    # had in flight; one of 3 is not.
    window = Window("m0", 1, "freeze", {0: 1}, until={0: 3})
    inflight = [copy(0, 0, 0), copy(0, 1, 1), copy(0, 2, 2), copy(0, 3, 1, name="m1"),
                copy(0, 4, 2, name="m1"), copy(0, 5, 3)]  # fmt: skip
    assert judge(INPUTS, inflight, [window], {0: 4}, ENDS).problems() == []
    later = [copy(0, 0, 0), copy(0, 1, 1), copy(0, 2, 2), copy(0, 3, 3), copy(0, 4, 3, name="m1")]
    assert [u[:2] for u in judge(INPUTS, later, [window], {0: 4}, ENDS).unexplained] == [(0, 3)]


def test_windows_are_read_from_the_members_events(tmp_path: Path) -> None:
    settings = Settings("staticconsumer", "127.0.0.1:9092", "in", "g")
    group = Group(lambda name, n: EtlMember(name, n, settings, tmp_path, "out", "range"))
    frozen, killed = group.make("m0", 1), group.make("m1", 1)
    group.all += [frozen, killed]
    frozen.events = [{"ev": "commit", "positions": {"0": 5, "1": 7}}, {"ev": "frozen", "fault":
                     "freeze"}, {"ev": "thawed"},
                     {"ev": "commit", "positions": {"0": 9}},  # sent before the freeze
                     {"ev": "produced"}, {"ev": "commit", "positions": {"0": 12, "1": 8}},
                     {"ev": "commit", "positions": {"1": 20}}]  # fmt: skip
    killed.events = [{"ev": "commit", "positions": {"2": 3}}, {"ev": "killed"}]
    assert windows_of(group) == [Window("m0", 1, "freeze", {0: 5, 1: 7}, until={0: 12, 1: 8}),
                                 Window("m1", 1, "kill", {2: 3})]  # fmt: skip
