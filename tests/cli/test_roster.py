"""``staticconsumer roster ...`` without a broker: flags, dry run by default, output."""

from __future__ import annotations

import json
from typing import Any

import pytest

import staticconsumer.cli.roster as roster_cli
from staticconsumer.cli import EXIT_OK, EXIT_USAGE, main
from staticconsumer.roster import Roster

T0 = 1_732_400_000_000


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    def fake(name: str) -> Any:
        async def call(bootstrap: str, group: str, *args: Any, **kwargs: Any) -> Roster | None:
            seen.append((name, {"bootstrap": bootstrap, "args": args, **kwargs}))
            ids = args[0] if args else ["svc-4"]
            return Roster.create(group, ids, now_ms=T0, wait_ms=kwargs.get("wait_ms") or 1000)

        return call

    for name in ("register_members", "unregister_members", "set_roster", "describe_roster",
                 "delete_roster"):  # fmt: skip
        monkeypatch.setattr(roster_cli, name, fake(name))
    return seen


@pytest.mark.parametrize(
    ("argv", "call", "dry_run"),
    [
        (["add", "--instance-id", "svc-4", "--instance-id", "svc-5"], "register_members", True),
        (["add", "--instance-id", "svc-4", "--execute"], "register_members", False),
        (["set", "--instance-id", "svc-4", "--dry-run"], "set_roster", True),
        (["remove", "--instance-id", "svc-4", "--remove-members", "--execute"],
         "unregister_members", False),
        (["delete", "--execute"], "delete_roster", False),
    ],
)  # fmt: skip
def test_changes_are_a_dry_run_unless_execute(
    calls: list[tuple[str, dict[str, Any]]], argv: list[str], call: str, dry_run: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    code = main(["roster", argv[0], "--bootstrap-server", "b:9092", "--group", "g",
                 "--timeout", "5000", "--json", *argv[1:]])  # fmt: skip
    assert code == EXIT_OK
    [(name, kwargs)] = calls
    assert name == call and kwargs["dry_run"] is dry_run and kwargs["timeout_s"] == 5.0
    assert kwargs.get("remove", True) is True
    document = json.loads(capsys.readouterr().out)
    assert document["applied"] is not dry_run and document["group_id"] == "g"


def test_show_prints_the_registered_ids(
    calls: list[tuple[str, dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["roster", "show", "--bootstrap-servers", "b:9092", "--group", "g"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "ROSTER    g" in out and "svc-4  registered 2024-11-23T22:13:20Z" in out
    assert calls[0][0] == "describe_roster"


@pytest.mark.parametrize(
    "argv",
    [
        ["roster", "add", "--bootstrap-server", "b:9092", "--group", "g"],  # no --instance-id
        ["roster", "add", "--bootstrap-server", "b:9092", "--group", "g", "--instance-id", "a",
         "--dry-run", "--execute"],
        ["roster", "add", "--bootstrap-server", "b:9092", "--group", "g", "--instance-id", "a",
         "--wait-ms", "-1"],
        ["roster", "show", "--group", "g"],  # no bootstrap server
    ],
)  # fmt: skip
def test_bad_input_is_a_usage_error(
    calls: list[tuple[str, dict[str, Any]]], argv: list[str]
) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    assert code == EXIT_USAGE
    assert calls == []


@pytest.mark.parametrize("action", ["add", "set"])
def test_a_registration_names_the_consumer_option_that_reads_it(
    calls: list[tuple[str, dict[str, Any]]], action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pre-registration is opt-in (issue 31): the output tells which option the members need."""
    argv = ["roster", action, "--bootstrap-server", "b:9092", "--group", "g",
            "--instance-id", "svc-4", "--roster-topic", "ops_rosters"]  # fmt: skip
    assert main(argv) == EXIT_OK
    assert "roster_topic='ops_rosters'" in capsys.readouterr().out
    assert main([*argv, "--json"]) == EXIT_OK
    document = json.loads(capsys.readouterr().out)
    assert document["consumer_options"] == {"roster_topic": "ops_rosters"}
