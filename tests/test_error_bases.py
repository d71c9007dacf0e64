"""Where aiokafka has a class for a Kafka error code we map to a class of our own, ours derives
from it too, decided at import by the code (``staticconsumer.errors._aiokafkas``, issue 42): on
the installed aiokafka, and with a stand-in ``aiokafka.errors`` that has a
``FencedInstanceIdError`` (aiokafka PR #1188) and an ``UnreleasedInstanceIdError``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import aiokafka.errors as Errors
import pytest

from staticconsumer import errors
from staticconsumer._error_map import (
    MemberContext,
    admin_error,
    authorization_error,
    fenced_error,
    kafka_error,
    removal_error,
    session_timeout_error,
)
from staticconsumer.protocol import ErrorCode

REPO = Path(__file__).resolve().parents[1]
CTX = MemberContext("g", "i-0", "i-0-1", "c")

#: Every way the error map turns a code into a class of its own: (code, the error it gives).
MAPPED: list[tuple[ErrorCode, Callable[[], Exception]]] = [
    (ErrorCode.FENCED_INSTANCE_ID, lambda: fenced_error(CTX, "Heartbeat")),
    (ErrorCode.INVALID_SESSION_TIMEOUT, lambda: session_timeout_error(1, (6000, 1800000))),
    *[(code, lambda code=code: kafka_error(code, group_id="g")) for code in ErrorCode],
    *[(code, lambda code=code: admin_error("g", "DescribeGroups", code))
      for code in (ErrorCode.INVALID_GROUP_ID, ErrorCode.UNSUPPORTED_VERSION)],
    *[(code, lambda code=code: removal_error("g", (), [("i-1", code.name)]))
      for code in (ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.INVALID_GROUP_ID,
                   ErrorCode.UNSUPPORTED_VERSION)],
    *[(ErrorCode[name], lambda name=name: authorization_error(name, "t", "'app'"))
      for name in errors.AUTHORIZATION_ERRORS],
]  # fmt: skip


@pytest.mark.parametrize(("code", "make"), MAPPED, ids=[f"{c.name}" for c, _ in MAPPED])
def test_what_the_error_map_raises_for_a_code_is_aiokafkas_class_for_it(
    code: ErrorCode, make: Callable[[], Exception]
) -> None:
    aiokafkas = Errors.for_code(code)
    error = make()
    if aiokafkas is not Errors.UnknownError:
        assert isinstance(error, aiokafkas), (code.name, type(error).__mro__)
    if isinstance(error, errors.StaticConsumerError):
        assert str(error) == error.args[0], "our message, no class-name prefix"


def test_without_an_aiokafka_class_for_the_code_there_is_no_second_base() -> None:
    """aiokafka 0.14 has none for FENCED_INSTANCE_ID: ours derives from ours alone (the stand-in
    test below is the other side)."""
    for ours, code in ((errors.FencedInstanceIdError, 82), (errors.UnreleasedInstanceIdError, 111)):
        if Errors.for_code(code) is Errors.UnknownError:
            assert ours.__bases__ == (errors.StaticConsumerError,)


STANDIN = textwrap.dedent("""
    import json, sys, types
    import aiokafka, aiokafka.errors as real

    class FencedInstanceIdError(real.BrokerResponseError):  # aiokafka PR #1188's
        errno = 82
        message = "FENCED_INSTANCE_ID"

    class UnreleasedInstanceIdError(real.BrokerResponseError):  # a release yet to come
        errno = 111
        message = "UNRELEASED_INSTANCE_ID"

    standin = types.ModuleType("aiokafka.errors")
    standin.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__")})
    known = {**real.kafka_errors, 82: FencedInstanceIdError, 111: UnreleasedInstanceIdError}
    standin.kafka_errors = known
    standin.for_code = lambda code: known.get(code, real.UnknownError)
    standin.FencedInstanceIdError = FencedInstanceIdError
    standin.UnreleasedInstanceIdError = UnreleasedInstanceIdError
    sys.modules["aiokafka.errors"] = aiokafka.errors = standin
    assert "staticconsumer" not in sys.modules

    import staticconsumer
    from staticconsumer._error_map import MemberContext, fenced_error, kafka_error

    fenced = fenced_error(MemberContext("g", "i-0", "i-0-1", "c"), "JoinGroup")
    try:
        raise fenced
    except FencedInstanceIdError as caught:  # a service's except for aiokafka's class
        caught_as_aiokafkas = caught is fenced
    print(json.dumps({
        "fenced_is_aiokafkas": issubclass(staticconsumer.FencedInstanceIdError,
                                          FencedInstanceIdError),
        "caught_as_aiokafkas": caught_as_aiokafkas,
        "still_ours_and_fatal": isinstance(fenced, staticconsumer.StaticConsumerError)
                                and fenced.fatal,
        "message": str(fenced).split(":")[0],
        "unreleased_is_aiokafkas": isinstance(kafka_error(111, group_id="g"),
                                              UnreleasedInstanceIdError),
        "session_timeout_unchanged": issubclass(staticconsumer.SessionTimeoutOutOfRangeError,
                                                real.InvalidSessionTimeoutError),
    }))
""")


def test_a_release_with_fenced_instance_id_error_makes_ours_one_of_it() -> None:
    """A stand-in ``aiokafka.errors`` with PR #1188's class for code 82, in a fresh interpreter
    (nothing of this process is touched): ours derives from it, and a service's ``except`` for
    aiokafka's class catches what a fenced StaticConsumer raises."""
    done = subprocess.run([sys.executable, "-c", STANDIN], capture_output=True, text=True,
                          cwd=REPO, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "fenced_is_aiokafkas": True,
        "caught_as_aiokafkas": True,
        "still_ours_and_fatal": True,
        "message": "JoinGroup answered FENCED_INSTANCE_ID",
        "unreleased_is_aiokafkas": True,
        "session_timeout_unchanged": True,
    }
