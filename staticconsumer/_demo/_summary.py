"""The demo's summary: one JSON-ready document, and its text rendering."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import _data

if TYPE_CHECKING:
    from ._apps import AppProcess
    from ._scenario import Scenario, Snapshot

OUTCOMES = ("reused", "restored", "fresh")


def summarize(
    *,
    scenario: Scenario,
    before: Snapshot,
    after: Snapshot,
    window: list[dict[str, Any]],
    restarted: AppProcess,
    victim: AppProcess,
    exit_codes: dict[str, int | None],
    output: _data.Totals,
    changelog: _data.Totals,
    elapsed_s: float,
) -> dict[str, Any]:
    """Everything the demo shows. ``window``: the status events from the start of the restart
    until the group was stable again with all input processed (the apps' shutdown is left out);
    ``victim``/``restarted``: the restarted process before and after."""
    o = scenario.options
    expected = _data.reference(scenario.produced)
    (gen_before, parts_before), (gen_after, parts_after) = before, after
    later = [doc for doc in window if doc.get("event") == "assigned"]
    new_generations = {int(d["generation"]) for d in later if int(d["generation"]) > gen_before}
    during = tally(later)
    processed = sum(a.counter("processed") for a in scenario.apps)
    restarted_partitions = sorted(p for t in victim.threads for p in parts_before.get(t, []))
    restart: dict[str, Any] = {
        "process": victim.label,
        "partitions": restarted_partitions,
        **tally(d for d in later if d.get("pid") == restarted.pid),
    }
    output_diff = _data.mismatches(expected, output)
    changelog_diff = _data.mismatches(expected, changelog)
    check = {
        "keys": len(expected),
        "output_matches_reference": not output_diff,
        "changelog_matches_reference": not changelog_diff,
        "processed_exactly_once": processed == len(scenario.produced),
        "mismatches": [f"output {m}" for m in output_diff]
        + [f"changelog {m}" for m in changelog_diff],
    }
    check["passed"] = all(
        check[k]
        for k in (
            "output_matches_reference",
            "changelog_matches_reference",
            "processed_exactly_once",
        )
    )
    codes = {victim.label: victim.returncode, **exit_codes}
    if o.dynamic:  # a streams group's standbys may leave nothing to restore (KIP-1071)
        restores = during["restored"] > 0 or o.protocol == "streams"
        expectation = gen_after > gen_before and restores
    else:
        expectation = (
            gen_after == gen_before
            and parts_after == parts_before
            and restart["reused"] == len(restarted_partitions)
            and restart["restored"] == 0
        )
    return {
        "mode": o.mode,
        "protocol": o.protocol,
        "ok": bool(check["passed"]) and all(c == 0 for c in codes.values()),
        "expectation_met": expectation,
        "bootstrap_servers": scenario.bootstrap,
        "group": scenario.group,
        "topics": dict(scenario.topics),
        "partitions": o.partitions,
        "processes": o.processes,
        "threads_per_process": o.threads,
        "session_timeout_ms": o.session_ms,
        "generation_before": gen_before,
        "generation_after": gen_after,
        "partitions_before": parts_before,
        "partitions_after": parts_after,
        "rebalances_seen": len(new_generations),
        "records_produced": len(scenario.produced),
        "records_processed": processed,
        "records_skipped": sum(a.counter("skipped") for a in scenario.apps),
        "commit_failures": sum(a.counter("commit_failures") for a in scenario.apps),
        "standby_records": sum(a.counter("standby_records") for a in scenario.apps),
        "restart": restart,
        "restart_window_ms": [scenario.restart_started_ms, scenario.restart_ended_ms],
        "state_during_restart": during,
        "exit_codes": codes,
        "check": check,
        "elapsed_s": round(elapsed_s, 1),
    }


def tally(assigned: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many partition assignments reused, restored or started state (and changelog records
    replayed) in ``assigned`` status events."""
    counts = dict.fromkeys((*OUTCOMES, "restored_records"), 0)
    for doc in assigned:
        for state in doc.get("states", {}).values():
            counts[state["outcome"]] += 1
            counts["restored_records"] += int(state["restored_records"])
    return counts


def _yes(flag: object) -> str:
    return "PASS" if flag else "FAIL"


def render_text(doc: dict[str, Any]) -> str:
    static = doc["mode"] == "static"
    lines = [
        f"staticconsumer demo ({doc['mode']} membership"
        + (": group.instance.id per stream thread" if static else ": no group.instance.id")
        + f", {doc.get('protocol', 'classic')} protocol)",
        f"  {doc['processes']} processes x {doc['threads_per_process']} stream threads, "
        f"input {doc['partitions']} partitions, "
        + (
            "session: the broker's group.streams.session.timeout.ms"
            if doc.get("protocol") == "streams"
            else f"session.timeout.ms {doc['session_timeout_ms']}"
        ),
        "",
        f"  {'':24} {'before restart':18} after restart",
        f"  {'generation':24} {doc['generation_before']!s:18} {doc['generation_after']}",
    ]
    for thread in sorted(set(doc["partitions_before"]) | set(doc["partitions_after"])):
        was = doc["partitions_before"].get(thread, [])
        now = doc["partitions_after"].get(thread, [])
        lines.append(f"  {thread:24} {was!s:18} {now}" + ("" if was == now else "  (moved)"))
    r, d, c = doc["restart"], doc["state_during_restart"], doc["check"]
    lines += [
        "",
        f"  rolling restart of {r['process']}: rebalances seen {doc['rebalances_seen']}",
        f"  {r['process']} after the restart: state reused for {r['reused']} partitions, "
        f"restored {r['restored']} ({r['restored_records']} changelog records), "
        f"new {r['fresh']}",
        f"  all processes during the restart: reused {d['reused']}, restored {d['restored']} "
        f"({d['restored_records']} changelog records)",
        f"  records: produced {doc['records_produced']}, processed {doc['records_processed']}, "
        f"replays skipped {doc['records_skipped']}",
        f"  output check ({c['keys']} keys, count and sum per key vs. a reference computed "
        f"from the input): output topic {_yes(c['output_matches_reference'])}, changelog "
        f"{_yes(c['changelog_matches_reference'])}, each record processed once "
        f"{_yes(c['processed_exactly_once'])}",
    ]
    lines += [f"    {m}" for m in c["mismatches"]]
    if static:
        verdict = (
            "generation unchanged, every instance id kept its partitions, state reused, "
            "nothing restored"
            if doc["expectation_met"]
            else "NOT as expected: the restart caused a rebalance or a restore"
        )
    else:
        verdict = (
            "the restart rebalanced the group and state was restored from the changelog"
            if doc["expectation_met"]
            else "no rebalance or no restore was seen (unexpected for dynamic members)"
        )
    lines += [
        f"  => {verdict}",
        f"  result: {'OK' if doc['ok'] else 'FAILED'} in {doc['elapsed_s']}s",
    ]
    return "\n".join(lines) + "\n"
