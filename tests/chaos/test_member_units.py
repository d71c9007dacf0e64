"""The chaos and reliability members' own classification of how they end, without a broker
(issue 44): a fence met inside ``start()`` is a fence (``fenced``, exit status 4), like a fence met
later; any other failed start stays a failure (``start_failed``, 3). The chaos run's member
check agrees: a member replaced while frozen inside ``start()`` that exits 4 is no problem.

Seed 29 of ``test_etl_group_keeps_kafkas_contracts_under_chaos[classic-cooperative]`` froze
``m3#2`` inside ``start()`` and replaced it; on thaw ``start()`` raised ``FencedInstanceIdError``
and the member exited 3 ("replaced while frozen, was not fenced"). These tests fail on that code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from staticconsumer import FencedInstanceIdError
from tests.chaos import _etl_member
from tests.chaos._nemesis import EtlMember, Group
from tests.chaos._run import _member_problems
from tests.reliability import _member
from tests.reliability._harness import Settings

FENCE = FencedInstanceIdError(
    "JoinGroup answered FENCED_INSTANCE_ID: the coordinator has given group.instance.id 'm3' "
    "to another member",
    group_id="g",
    group_instance_id="m3",
    api="JoinGroup",
)


#: What start() raises, and how the member must end: a fence is a fence, the rest a failure.
START_ERRORS = pytest.mark.parametrize(
    ("error", "event", "status"),
    [(FENCE, "fenced", 4), (ConnectionError("no broker"), "start_failed", 3)],
    ids=["fence", "other"],
)


class _StartRaises:
    """A consumer whose ``start()`` raises ``error``; what the member does next is recorded."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.stopped = False

    def subscribe(self, topics: list[str], listener: Any = None) -> None:
        pass

    async def start(self) -> None:
        raise self.error

    async def stop(self, **kwargs: Any) -> None:
        self.stopped = True


class _Producer:
    def __init__(self, **kwargs: Any) -> None:
        self.stopped = False

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        self.stopped = True


def _args(**extra: Any) -> argparse.Namespace:
    return argparse.Namespace(
        kind="staticconsumer", bootstrap="127.0.0.1:1", topic="in", group="g", instance_id="m3",
        session_timeout_ms=45000, group_protocol="classic", auto_commit=False,
        pause_on_assign=False, **extra,
    )  # fmt: skip


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


@START_ERRORS
def test_the_etl_member_counts_a_fence_in_start_as_a_fence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    error: BaseException, event: str, status: int,
) -> None:  # fmt: skip
    consumer = _StartRaises(error)
    monkeypatch.setattr(_etl_member, "make_consumer", lambda args: consumer)
    monkeypatch.setattr(_etl_member, "AIOKafkaProducer", _Producer)
    args = _args(output_topic="out", name="m3", incarnation=2, strategy="")
    assert asyncio.run(_etl_member.run(args)) == status
    events = _events(capsys.readouterr().out)
    ended = [e for e in events if e["ev"] in ("fenced", "start_failed", "started")]
    assert [(e["ev"], e["where"], e["error"]) for e in ended] == [
        (event, "start", type(error).__name__)
    ]


@START_ERRORS
def test_the_reliability_member_counts_a_fence_in_start_as_a_fence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    error: BaseException, event: str, status: int,
) -> None:  # fmt: skip
    monkeypatch.setattr(_member, "make_consumer", lambda args: _StartRaises(error))
    assert asyncio.run(_member.consume(_args())) == status
    events = _events(capsys.readouterr().out)
    assert [e["ev"] for e in events] == [event]


def test_a_fence_is_recognised_through_a_subclass_and_nothing_else_is() -> None:
    class Narrower(FencedInstanceIdError):
        pass

    assert _member.start_failure(Narrower("x")) == ("fenced", 4)
    assert _member.start_failure(RuntimeError("fenced")) == ("start_failed", 3)


class _Exited:
    def __init__(self, returncode: int) -> None:
        self.returncode = returncode


def _member_ended(tmp_path: Path, events: list[str], code: int, ended_by: str) -> EtlMember:
    settings = Settings("staticconsumer", "127.0.0.1:1", "in", "g", static=True)
    member = EtlMember("m3", 2, settings, tmp_path, "out", "")
    member.events = [{"ev": kind, "t": float(i)} for i, kind in enumerate(events)]
    member.process = _Exited(code)  # type: ignore[assignment]
    member.ended_by = ended_by
    return member


async def _never(name: str, incarnation: int) -> EtlMember:
    raise AssertionError("not spawned here")


def test_the_run_accepts_a_member_fenced_in_start_and_still_refuses_the_rest(
    tmp_path: Path,
) -> None:
    def problems(events: list[str], code: int, ended_by: str = "fence") -> list[str]:
        group = Group(_never)  # type: ignore[arg-type]
        group.all.append(_member_ended(tmp_path, events, code, ended_by))
        return _member_problems(group)

    fenced_in_start = ["signals", "joined", "frozen", "thawed", "fenced"]
    assert problems(fenced_in_start, 4) == []
    # The old classification (exit 3, start_failed) stays a problem, twice over.
    old = problems(["signals", "joined", "frozen", "thawed", "start_failed"], 3)
    assert len(old) == 2 and "exited with status 3" in old[0] and "start_failed" in old[1]
    # A fence nobody asked for is still one.
    assert "fenced unasked" in problems(["signals", "joined", "fenced"], 4, ended_by="")[-1]
    # Committing after the thaw is still refused.
    late = ["signals", "joined", "frozen", "thawed", "produced", "commit", "fenced"]
    assert any("committed after" in p for p in problems(late, 4))
