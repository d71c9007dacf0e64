"""faust's assignment, planned by instance id: :class:`TableAssignor`, a ``GroupAssignor`` that
speaks faust's bytes around :func:`assignors.assign_tables`.

On the wire it is faust's own assignor (protocol ``faust``, version 4): a subscription is
faust's ``ClientMetadata`` JSON (the worker's URL, its last assignment), an assignment is
``zlib`` of a ``ClientMetadata`` (actives, standbys, the URL of every worker's tables), so plain
faust workers and ours read each other's data and a group can move to ``StaticApp`` by a
rolling restart. Both carry one key faust ignores, ``staticconsumer``: the roster the group
remembers (instance ids in the order first seen, :mod:`assignors._tables`) and its version,
which every member receives with its assignment and sends back in its next subscription; the
leader plans with the newest it is sent. The broker keeps each static member's last
assignment, so the roster outlives restarts and a new leader.

The Kafka assignment of a member is faust's: its actives, plus its standbys of changelog
topics (a standby replays the changelog); a global table's changelog is active on every member.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from assignors import Member, MemberAssignment, TablePlan, assign_tables

from . import _seam

log = logging.getLogger(__name__)

#: The key of our data inside faust's JSON.
KEY = "staticconsumer"


class TableAssignor:
    """faust's assignor for ``StaticConsumer``: plans with :func:`assignors.assign_tables`,
    keeps faust's ``app.assignor`` told (the tables read their actives and standbys there)."""

    name: ClassVar[str] = _seam.PROTOCOL
    supported_protocols: ClassVar[tuple[str, ...]] = ("eager",)

    def __init__(self, app: Any, group_instance_id: str) -> None:
        self.app = app
        self.group_instance_id = group_instance_id
        self.roster: tuple[str, ...] = ()
        self.roster_version = 0

    def __repr__(self) -> str:
        return f"TableAssignor(group_instance_id={self.group_instance_id!r})"

    # -- every member ------------------------------------------------------------------------

    def subscription_user_data(
        self, topics: Iterable[str], owned: Sequence[tuple[str, int]], generation: int
    ) -> bytes:
        """faust's ``ClientMetadata`` JSON, with our instance id and the roster we know."""
        ours = {"instance_id": self.group_instance_id, "roster": list(self.roster),
                "version": self.roster_version}  # fmt: skip
        return _seam.subscription_bytes(self.app, {KEY: ours})

    def on_assignment(self, assignment: MemberAssignment, generation: int) -> None:
        """Our assignment (``assignors.AssignmentReceiver``): faust's assignor takes it, as
        aiokafka's coordinator would hand it; we keep the roster it carries."""
        previous = _seam.hand_assignment(
            self.app, list(assignment.partitions), assignment.user_data
        )
        if previous is not None:
            log.warning(
                "group.instance.id %s took an assignment planned for %s (its previous process, "
                "kept by the coordinator across the restart); this worker's URL is %s. Other "
                "workers route table lookups to %s until the next rebalance: give each worker "
                "a stable canonical_url (a StatefulSet pod's host name)",
                self.group_instance_id, previous, _seam.canonical_url(self.app), previous,
            )  # fmt: skip
        ours = _seam.read_assignment(assignment.user_data).get(KEY) or {}
        self.roster = tuple(str(i) for i in ours.get("roster", ()))
        self.roster_version = int(ours.get("version", 0))

    # -- the leader --------------------------------------------------------------------------

    def assign_group(
        self,
        members: Sequence[Member],
        partitions_per_topic: Mapping[str, int],
        *,
        partition_racks: Any = None,
    ) -> dict[str, MemberAssignment]:
        """The plan (:func:`assignors.assign_tables`) in faust's assignment format."""
        reports = {m.member_id: _seam.read_subscription(m.user_data) for m in members}
        roster, version = newest_roster(r.get(KEY) or {} for r in reports.values())
        plan = assign_tables(members, partitions_per_topic,
                             standby_replicas=_seam.standby_replicas(self.app),
                             remembered=roster)  # fmt: skip
        urls = {m: str(r.get("url") or "") for m, r in reports.items()}
        changelogs = _seam.changelog_topics(self.app)
        actives, standbys = _with_global_tables(self.app, plan, partitions_per_topic)
        shared: dict[str, Any] = {
            "changelog_distribution": _distribution(urls, actives, lambda t: t in changelogs),
            "external_topic_distribution": _distribution(
                urls, actives, lambda t: t not in changelogs),
            "topic_groups": plan.topic_groups,
            "extra": {KEY: {"roster": list(plan.roster), "version": version + 1}},
        }  # fmt: skip
        if plan.roster != roster:
            log.info("roster of group %s: %s", self.app.conf.id, ", ".join(plan.roster))
        return {
            member_id: MemberAssignment(
                _kafka_partitions(actives[member_id], standbys[member_id], changelogs),
                _seam.assignment_bytes(
                    actives=actives[member_id], standbys=standbys[member_id], url=url, **shared
                ),
            )
            for member_id, url in urls.items()
        }


def newest_roster(reports: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, ...], int]:
    """The roster of the highest version among members' reports (on a tie, the longest, then
    the first in order of its ids): ``((), 0)`` when none has one."""
    best: tuple[int, int, tuple[str, ...]] = (0, 0, ())
    for report in reports:
        roster = tuple(str(i) for i in report.get("roster") or ())
        candidate = (int(report.get("version") or 0), len(roster), roster)
        if candidate[:2] > best[:2] or (candidate[:2] == best[:2] and roster < best[2]):
            best = candidate
    return best[2], best[0]


def _with_global_tables(
    app: Any, plan: TablePlan, partitions_per_topic: Mapping[str, int]
) -> tuple[dict[str, dict[str, list[int]]], dict[str, dict[str, list[int]]]]:
    """Actives and standbys as lists; a global table's changelog active on every member (and
    standby where the plan had not made it active, or everywhere when the table says so), as
    faust's own assignor makes them."""
    actives = {m: {t: list(ps) for t, ps in a.items()} for m, a in plan.actives.items()}
    standbys = {m: {t: list(ps) for t, ps in s.items()} for m, s in plan.standbys.items()}
    for topic, everywhere in _seam.global_tables(app):
        every = list(range(partitions_per_topic.get(topic, 0)))
        for member_id in actives:
            own = set(actives[member_id].get(topic, ()))
            standbys[member_id][topic] = every if everywhere else [p for p in every if p not in own]
            actives[member_id][topic] = every
    return actives, standbys


def _distribution(
    urls: Mapping[str, str], actives: Mapping[str, Mapping[str, list[int]]], keep: Any
) -> dict[str, dict[str, list[int]]]:
    """``{url: {topic: actives}}`` for the topics ``keep`` says (faust's two distributions)."""
    return {
        urls[m]: {t: ps for t, ps in active.items() if keep(t)} for m, active in actives.items()
    }


def _kafka_partitions(
    actives: Mapping[str, list[int]], standbys: Mapping[str, list[int]], changelogs: set[str]
) -> tuple[tuple[str, int], ...]:
    """What the member consumes: its actives and its changelog standbys (faust's rule)."""
    held = {(t, p) for t, ps in actives.items() for p in ps}
    held |= {(t, p) for t, ps in standbys.items() if t in changelogs for p in ps}
    return tuple(sorted(held))
