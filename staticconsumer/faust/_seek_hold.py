"""The hold on a faust worker's stream partitions around an assignment, as a state object
without I/O (h11's way): :class:`~staticconsumer.faust._app.StaticFaustConsumer` tells it what
happens and asks it what to resume; ``tests/faust/test_seek_hold.py`` drives it with plain sets.

After an assignment faust's recovery resumes the stream partitions *before* it seeks them to
their committed offsets, so records its fetch loop handed on in between were handed again after
the seek. Until that seek the stream partitions stay paused; changelog partitions (the tables'
recovery and standbys) resume at once. faust's fetch also seeks when a fetch comes back while
the flow is stopped (just after an assignment, before or while recovery resumes and seeks): that
seek must not end the hold. Only a seek that ends after recovery's resume, with none left under
way, releases what is held. A fetch that was waiting while a seek moved the positions returns
records from before it: :meth:`SeekHold.moved_since` tells the consumer to drop them.
"""

from __future__ import annotations

from collections.abc import Collection, Set
from typing import Any


class SeekHold:
    """One worker consumer's hold (module docstring). Partitions are faust's ``TP`` objects, or
    anything with a ``topic`` (the tests use plain tuples' twins)."""

    def __init__(self) -> None:
        self.pending = False  # an assignment's recovery seek has not ended yet
        self.held: frozenset[Any] = frozenset()  # stream partitions resumed by recovery, held
        self.seeking = 0  # seeks under way
        self.seeks = 0  # seeks ended, ever: a fetch compares it before and after

    def assigned(self) -> None:
        """A new assignment: its recovery will resume, then seek, the stream partitions."""
        self.pending = True

    def resume(self, tps: Set[Any], changelog_topics: Collection[str]) -> set[Any]:
        """Of the partitions faust resumes, those to resume now: while an assignment's seek is
        pending, stream partitions are held until it (changelog partitions never are)."""
        now = set(tps)
        if self.pending:
            held = {tp for tp in now if tp.topic not in changelog_topics}
            self.held = self.held | held
            now -= held
        return now

    def seek_started(self) -> None:
        self.seeking += 1

    def seek_ended(self, assignment: Set[Any]) -> set[Any] | None:
        """A seek ended: when it was the last seek under way and something is held (recovery's
        resume came before it), the hold ends and the held partitions still assigned resume
        now (a set, maybe empty); else None."""
        self.seeking -= 1
        self.seeks += 1
        if self.seeking or not self.held:
            return None
        released, self.held = self.held, frozenset()
        self.pending = False
        return set(released & assignment)

    def moved_since(self, seeks: int) -> bool:
        """Whether a seek ended since ``seeks`` (:attr:`seeks` when a fetch began)."""
        return self.seeks != seeks
