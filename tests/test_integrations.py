"""``staticconsumer.integrations``: what faust's and FastStream's integrations share, once."""

from __future__ import annotations

import asyncio

import pytest

from staticconsumer.errors import (
    ConfigurationError,
    FencedInstanceIdError,
    UnreleasedInstanceIdError,
)
from staticconsumer.integrations import (
    bounded_start,
    check_supported,
    fatal_line,
    installed_version,
    unreleased_wait_s,
)


def test_a_framework_outside_its_checked_versions_is_refused_naming_the_extra() -> None:
    installed = installed_version("faust-streaming")
    check_supported("faust-streaming", ((0, 15, 3), (0, 16, 0)), installed, package="p", extra="x")
    with pytest.raises(ConfigurationError, match=r"p supports faust-streaming>=0\.16,<0\.17; "):
        check_supported("faust-streaming", ((0, 16), (0, 17)), installed, package="p", extra="x")


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "60000"])
def test_the_unreleased_wait_is_an_int_above_zero(bad: object) -> None:
    with pytest.raises(ConfigurationError, match=r"unreleased_wait_ms .* must be an int > 0"):
        unreleased_wait_s(bad)
    assert unreleased_wait_s(60_000) == 60.0


async def test_a_start_past_its_bound_raises_the_error_made_for_it() -> None:
    made: list[UnreleasedInstanceIdError] = []

    def error() -> UnreleasedInstanceIdError:
        made.append(UnreleasedInstanceIdError("still held", group_id="g"))
        return made[-1]

    with pytest.raises(UnreleasedInstanceIdError) as info:
        await bounded_start(asyncio.sleep(5), 0.05, error)
    assert info.value is made[0]
    await bounded_start(asyncio.sleep(0), None, error)  # no bound: the start's own time
    assert len(made) == 1


def test_the_fatal_line_names_the_holder_and_how_the_worker_ends() -> None:
    fenced = FencedInstanceIdError("x", group_id="g", group_instance_id="w-1", member_id="m",
                                   api="Heartbeat")  # fmt: skip
    fenced.holder = "member w-1-abc"
    words = {"fenced": "fenced{holder}; check", "unreleased": "refused", "ends": "exit 1"}
    assert (
        fatal_line("w", fenced, **words) == "w fenced (now held by member w-1-abc); check; exit 1"
    )
    unreleased = UnreleasedInstanceIdError("x", group_id="g")
    assert fatal_line("w", unreleased, **words) == "w refused; exit 1"
