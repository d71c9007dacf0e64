"""Bad input (issue 22 item 5, CLI and admin rows): ONE table. Each row is refused at parse time
or before any I/O with a typed error naming the flag or argument; the CLI shows no traceback, and
only our ConfigurationError (and argparse's errors) are usage errors (exit 2)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

import staticconsumer.admin
import staticconsumer.localkafka
from staticconsumer.admin import reconcile, remove_members
from staticconsumer.cli import EXIT_FAILED, EXIT_USAGE, main
from staticconsumer.errors import ConfigurationError

NOWHERE = "127.0.0.1:1"  # nothing listens: a row that reaches I/O fails with another error
GROUP = ("--bootstrap-server", NOWHERE, "--group", "g")


@dataclass(frozen=True)
class Row:
    name: str
    argv: tuple[str, ...] = ()
    call: Callable[[], Awaitable[Any]] | None = None
    expect: int | type[Exception] = EXIT_USAGE
    words: tuple[str, ...] = ()


def _describe(*flags: str) -> tuple[str, ...]:
    return ("describe-group", "--group", "g", *flags)


def _internal_failure(*_args: Any, **_kwargs: Any) -> Any:
    raise ValueError("list index went wrong inside")


ROWS = [
    Row("timeout inf", _describe("--bootstrap-server", NOWHERE, "--timeout", "inf"),
        words=("--timeout", "'inf'")),
    Row("timeout nan", _describe("--bootstrap-server", NOWHERE, "--timeout", "nan"),
        words=("--timeout", "'nan'")),
    Row("timeout negative", _describe("--bootstrap-server", NOWHERE, "--timeout", "-5"),
        words=("--timeout", "'-5'")),
    Row("timeout zero", _describe("--bootstrap-server", NOWHERE, "--timeout", "0"),
        words=("--timeout", "'0'")),
    Row("timeout in seconds", _describe("--bootstrap-server", NOWHERE, "--timeout", "30"),
        words=("--timeout", "milliseconds", "30000")),
    Row("port not a number", _describe("--bootstrap-server", "notaport:abc"),
        words=("--bootstrap-server", "notaport:abc", "port")),
    Row("plural alias, bad port", _describe("--bootstrap-servers", "notaport:abc"),
        words=("--bootstrap-server", "notaport:abc")),
    Row("no port", _describe("--bootstrap-server", "host:"), words=("--bootstrap-server", "host:")),
    Row("no host", _describe("--bootstrap-server", ":9092"), words=("--bootstrap-server", ":9092")),
    Row("port out of range", _describe("--bootstrap-server", "host:99999"),
        words=("--bootstrap-server", "host:99999")),
    Row("prefetch checks the coordinate before downloading", ("prefetch", "--artifact", "foo"),
        words=("--artifact", "group:artifact:version", "'foo'")),
    Row("remove-members empty reason", ("remove-members", *GROUP, "--instance-id", "a",
                                        "--reason", ""), words=("reason", "KIP-800")),
    Row("reconcile-members empty reason", ("reconcile-members", *GROUP, "--desired", "a",
                                           "--reason", ""), words=("reason", "KIP-800")),
    Row("an internal ValueError is no usage error", _describe("--bootstrap-server", NOWHERE),
        expect=EXIT_FAILED, words=("unexpected ValueError", "went wrong inside", "-v")),
    Row("reconcile apply='no'",
        call=lambda: reconcile(NOWHERE, "g", ["a"], apply="no"),  # type: ignore[arg-type]
        expect=ConfigurationError, words=("apply", "'no'")),
    Row("reconcile desired=[]", call=lambda: reconcile(NOWHERE, "g", [], apply=True),
        expect=ConfigurationError, words=("allow_empty", "every static member")),
    Row("remove_members reason=''", call=lambda: remove_members(NOWHERE, "g", ["a"], reason=""),
        expect=ConfigurationError, words=("reason", "KIP-800")),
    Row("reconcile reason=''", call=lambda: reconcile(NOWHERE, "g", ["a"], reason=""),
        expect=ConfigurationError, words=("reason", "KIP-800")),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_bad_input(
    row: Row, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_download(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("resolve_jars called before the input was checked")

    monkeypatch.setattr(staticconsumer.localkafka, "resolve_jars", no_download)
    monkeypatch.setattr(staticconsumer.admin, "describe_group", _internal_failure)
    if row.call is not None:
        assert isinstance(row.expect, type)
        with pytest.raises(row.expect) as caught:
            asyncio.run(asyncio.wait_for(row.call(), 20))
        message = str(caught.value)
    else:
        try:
            code = main(list(row.argv))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code  # type: ignore[assignment]
        message = capsys.readouterr().err
        assert code == row.expect, message
        assert "Traceback" not in message
    for word in row.words:
        assert word in message, (word, message)


def test_an_unexpected_error_keeps_its_traceback_with_verbose(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(staticconsumer.admin, "describe_group", _internal_failure)
    assert main(["-v", *_describe("--bootstrap-server", NOWHERE)]) == EXIT_FAILED
    errors = [r for r in caplog.records if r.exc_info]
    assert errors and isinstance(errors[0].exc_info[1], ValueError)  # type: ignore[index]
