"""Kafka's CLI conventions (issue 23 item 2), as ``kafka-consumer-groups.sh`` has them:
``--bootstrap-server`` (the plural an alias), ``--timeout`` in ms, ``--dry-run``/``--execute``
(``--apply`` a deprecated alias of ``--execute``)."""

from __future__ import annotations

from typing import Any

import pytest

import staticconsumer.admin
from staticconsumer.admin import GroupDescription, ReconcilePlan
from staticconsumer.cli import EXIT_OK, EXIT_USAGE, build_parser, main


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    async def describe_group(bootstrap: str, group: str, **kwargs: Any) -> GroupDescription:
        seen.append({"bootstrap": bootstrap, **kwargs})
        return GroupDescription(group, "Empty", "consumer", "", ())

    async def reconcile(bootstrap: str, group: str, desired: Any, reason: Any,
                        **kwargs: Any) -> ReconcilePlan:  # fmt: skip
        seen.append({"bootstrap": bootstrap, "desired": desired, **kwargs})
        return ReconcilePlan(group, tuple(desired), (), (), (), applied=kwargs["apply"])

    monkeypatch.setattr(staticconsumer.admin, "describe_group", describe_group)
    monkeypatch.setattr(staticconsumer.admin, "reconcile", reconcile)
    return seen


@pytest.mark.parametrize("flag", ["--bootstrap-server", "--bootstrap-servers"])
def test_bootstrap_server_and_timeout_in_ms(calls: list[dict[str, Any]], flag: str) -> None:
    assert main(["describe-group", flag, "b1:9092, b2:9093", "--group", "g",
                 "--timeout", "1500"]) == EXIT_OK  # fmt: skip
    assert (calls[0]["bootstrap"], calls[0]["timeout_s"]) == ("b1:9092,b2:9093", 1.5)


def test_default_timeout_is_30000_ms(calls: list[dict[str, Any]]) -> None:
    assert main(["describe-group", "--bootstrap-server", "b:9092", "--group", "g"]) == EXIT_OK
    assert calls[0]["timeout_s"] == 30.0


def test_no_bootstrap_server_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["describe-group", "--group", "g"])
    assert caught.value.code == EXIT_USAGE
    assert "--bootstrap-server is required" in capsys.readouterr().err


RECONCILE = ["reconcile-members", "--bootstrap-server", "b:9092", "--group", "g",
             "--desired", "svc-0"]  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "apply", "deprecated"),
    [([], False, False), (["--dry-run"], False, False), (["--execute"], True, False),
     (["--apply"], True, True)],
)  # fmt: skip
def test_dry_run_execute_and_the_deprecated_apply(
    calls: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    apply: bool,
    deprecated: bool,
) -> None:
    assert main([*RECONCILE, *flags]) == EXIT_OK
    assert calls[0]["apply"] is apply
    notes = [line for line in capsys.readouterr().err.splitlines() if "deprecated" in line]
    assert notes == (["staticconsumer: note: --apply is deprecated; use --execute (as Kafka's "
                      "tools do)"] if deprecated else [])  # fmt: skip


def test_dry_run_and_execute_exclude_each_other() -> None:
    with pytest.raises(SystemExit) as caught:
        main([*RECONCILE, "--dry-run", "--execute"])
    assert caught.value.code == EXIT_USAGE


def test_desired_count_zero_needs_allow_empty(calls: list[dict[str, Any]]) -> None:
    argv = ["reconcile-members", "--bootstrap-server", "b:9092", "--group", "g",
            "--desired-count", "0", "--prefix", "svc-", "--allow-empty"]  # fmt: skip
    assert main(argv) == EXIT_OK
    assert calls[0]["desired"] == () and calls[0]["allow_empty"] is True


def test_report_takes_the_singular_and_the_alias() -> None:
    parser = build_parser()
    for flag in ("--bootstrap-server", "--bootstrap-servers"):
        args = parser.parse_args(["report", flag, "b:9092", "--events-topic", "t", "--out", "o"])
        assert args.bootstrap_servers == "b:9092"
