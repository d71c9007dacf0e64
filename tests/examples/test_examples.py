"""Each example script runs as users run it (a subprocess from the repository root) against the
test broker, and must end with exit status 0 and print what it claims."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time
from pathlib import Path

from staticconsumer.localkafka import KafkaCluster, LocalKafkaCluster

REPO = Path(__file__).resolve().parents[2]
#: Generous: both scripts take well under 30 s on an idle machine; CI machines are shared.
RUN_TIMEOUT_S = 240

#: "  svc-0  partitions [0, 1]  member id aiokafka-0.14.0-..." (plain_aiokafka_plugin.py)
ROW = re.compile(r"^\s+(svc-\d)\s+partitions \[([\d, ]*)\]\s+member id (\S+)$")


def run_example(script: str, bootstrap: str) -> str:
    done = subprocess.run(
        [sys.executable, f"examples/{script}", "--bootstrap-servers", bootstrap],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"{script} exited {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    )
    return done.stdout


def blocks(stdout: str) -> dict[str, dict[str, tuple[tuple[int, ...], str]]]:
    """Heading line -> {instance id: (partitions, member id)} for the rows under it."""
    found: dict[str, dict[str, tuple[tuple[int, ...], str]]] = {}
    heading = ""
    for line in stdout.splitlines():
        row = ROW.match(line)
        if row is None:
            heading = line.strip()
            continue
        parts = tuple(int(p) for p in row.group(2).split(",") if p.strip())
        found.setdefault(heading, {})[row.group(1)] = (parts, row.group(3))
    return found


def test_plain_aiokafka_plugin_keeps_the_assignment_by_instance_id(kafka_bootstrap: str) -> None:
    """Plain aiokafka consumers made static members by ``static_membership``: a restart gets a
    new member id and the same partitions, and the others are not rebalanced."""
    stdout = run_example("plain_aiokafka_plugin.py", kafka_bootstrap)
    tables = blocks(stdout)
    before = tables["assignment by instance id:"]
    after = tables["assignment by instance id after restarting svc-1:"]

    assert sorted(before) == sorted(after) == ["svc-0", "svc-1", "svc-2"]
    for table in (before, after):
        owned = sorted(p for parts, _ in table.values() for p in parts)
        assert owned == list(range(6)), f"every partition exactly once: {table}"
        # Static members: the broker names each '<group.instance.id>-<uuid>' (KIP-345).
        assert all(member.startswith(f"{i}-") for i, (_, member) in table.items()), table
    # Same partitions per instance id; svc-1 really is a new member.
    assert {i: parts for i, (parts, _) in before.items()} == {
        i: parts for i, (parts, _) in after.items()
    }
    assert before["svc-1"][1] != after["svc-1"][1]
    assert before["svc-0"][1] == after["svc-0"][1] and before["svc-2"][1] == after["svc-2"][1]
    # Range in instance-id order, like Java's: svc-0 gets the first range.
    assert before["svc-0"][0] == (0, 1) and before["svc-2"][0] == (4, 5)
    assert stdout.count("  ValueError: ") == 2, "both refusals shown before any I/O"
    assert "OK: svc-1 came back with a new member id" in stdout
    assert "svc-0 and svc-2 were not rebalanced" in stdout


def _reason_logged(cluster: KafkaCluster, group: str, reason: str) -> bool:
    return any(
        f"[Group {group}]" in line and f"client reason: {reason}" in line
        for line in cluster.logs().splitlines()
    )


def test_scale_down_hands_partitions_over_without_a_session_timeout(
    kafka_cluster: KafkaCluster, kafka_bootstrap: str
) -> None:
    stdout = run_example("scale_down.py", kafka_bootstrap)
    group = re.search(r"^group (scale-down-\w+),", stdout, re.MULTILINE)
    assert group is not None, stdout
    tables = list(blocks(stdout).values())
    assert [sorted(t) for t in tables] == [["svc-0", "svc-1", "svc-2"], ["svc-0", "svc-1"],
                                           ["svc-0"]]  # fmt: skip
    assert tables[1]["svc-0"][0] + tables[1]["svc-1"][0] == tuple(range(6))
    assert tables[2]["svc-0"][0] == tuple(range(6))
    # The same svc-0 member throughout: only the others went away.
    assert len({t["svc-0"][1] for t in tables}) == 1
    assert "still a member: the broker keeps partitions [3, 4, 5] for it" in stdout
    assert stdout.count(": Stable, protocol range, generation") == 3
    assert "OK: both members left at once" in stdout

    if isinstance(kafka_cluster, LocalKafkaCluster):  # its log is ours to read
        reasons = (
            "the consumer is being closed: scale down to 2",
            "member was removed by an admin: scale down to 1",
        )  # KIP-800's words
        deadline = time.monotonic() + 20
        while not all(_reason_logged(kafka_cluster, group.group(1), r) for r in reasons):
            assert time.monotonic() < deadline, "the broker never logged both leave reasons"
            time.sleep(0.2)


#: "  orders-0-mailer  partitions [0, 1, 2]  state stable" (faststream_service.py)
FASTSTREAM_ROW = re.compile(r"^\s+(orders-0-\S+)\s+partitions \[([\d, ]*)\]\s+state (\w+)$")


def test_faststream_service_keeps_ids_and_partitions_across_a_restart(kafka_bootstrap: str) -> None:
    stdout = run_example("faststream_service.py", kafka_bootstrap)
    runs: list[dict[str, tuple[str, str]]] = []
    for line in stdout.splitlines():
        if line.endswith("(/readyz: HTTP/1.1 200 OK):"):
            runs.append({})
        elif (row := FASTSTREAM_ROW.match(line)) is not None:
            runs[-1][row.group(1)] = (row.group(2), row.group(3))
    assert len(runs) == 2, stdout
    first, second = runs
    assert len(first) == 2, stdout
    assert any(i.startswith("orders-0-billing-") for i in first) and "orders-0-mailer" in first
    assert first == second, stdout  # same ids, same partitions, stable, after the restart
    assert all(parts == "0, 1, 2" and state == "stable" for parts, state in first.values())
    assert "handled 36, 0 twice" in stdout
    assert "OK: same instance ids and partitions after the restart" in stdout


#: "after a restart: GET /orders/billed -> {'billed': 18}; (partitions, generation) by
#: instance id: {'orders-0-billing-...': ([0, 1, 2], 1)}" (fastapi_service.py)
FASTAPI_RUN = re.compile(
    r"^(first run|after a restart): GET /orders/billed -> \{'billed': (\d+)\}; "
    r"\(partitions, generation\) by instance id: (\{.*\})$"
)


def test_fastapi_service_keeps_id_partitions_and_generation_across_a_restart(
    kafka_bootstrap: str,
) -> None:
    """examples/fastapi_service.py: StaticKafkaRouter under uvicorn, served twice."""
    stdout = run_example("fastapi_service.py", kafka_bootstrap)
    runs = [m.groups() for line in stdout.splitlines() if (m := FASTAPI_RUN.match(line))]
    assert [(when, n) for when, n, _ in runs] == [("first run", "12"),
                                                 ("after a restart", "18")], stdout  # fmt: skip
    first, second = (ast.literal_eval(members) for *_, members in runs)
    assert first == second and len(first) == 1, stdout  # same id, partitions, generation
    ((iid, (partitions, _generation)),) = first.items()
    assert iid.startswith("orders-0-billing-") and partitions == [0, 1, 2], stdout
    assert "billed 18, 0 twice" in stdout
    assert "OK: same instance id, partitions and generation after the restart" in stdout


def test_faust_app_keeps_its_instance_id_and_partitions_across_a_restart(
    kafka_bootstrap: str,
) -> None:
    stdout = run_example("faust_app.py", kafka_bootstrap)
    runs = stdout.split("after the restart (exit")
    assert len(runs) == 2, stdout
    assert "first run (exit status 0):\n  orders-0  partitions [0, 1, 2]" in runs[0], stdout
    assert runs[1].startswith(" status 0):\n  orders-0  partitions [0, 1, 2]\n"), stdout
    assert "OK: same instance id and partitions after the restart" in stdout
