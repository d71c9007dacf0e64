"""The exception trees drawn in ``staticconsumer.errors``' docstring are the real class tree."""

from __future__ import annotations

import re

import aiokafka.errors as aiokafka_errors
import pytest
from aiokafka.errors import KafkaError

from staticconsumer import errors

_NODE = re.compile(r"^(?P<indent>[ │├└─]*?)(?P<name>[A-Z]\w+)\b")


def _drawn_parents() -> dict[str, str | None]:
    """Class name -> parent name as drawn (None for the root of a tree)."""
    doc = errors.__doc__ or ""
    block = doc.split("::", 1)[1].split("\n\n\n")[0]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        text = line[4:]  # the literal block's indentation
        match = _NODE.match(text)
        if not match or not hasattr(errors, match["name"]):
            continue
        depth = len(match["indent"]) // 4
        del stack[depth:]
        parents[match["name"]] = stack[-1][1] if stack else None
        stack.append((depth, match["name"]))
    return parents


def test_docstring_tree_matches_the_classes() -> None:
    drawn = _drawn_parents()
    defined = {
        name for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, Exception)
    }  # fmt: skip
    assert set(drawn) == defined, "every error class is drawn, and only those"
    for name, parent in drawn.items():
        base = getattr(errors, name).__bases__[0]
        expected = parent or base.__name__
        assert base.__name__ == expected, f"{name} derives from {base.__name__}, not {parent}"
        if parent is None:
            assert base in (Exception, ValueError, KafkaError), f"{name} is drawn as a root"


def _drawn_text() -> dict[str, str]:
    """Class name -> the text drawn for it (its line and the continuation lines below it)."""
    block = (errors.__doc__ or "").split("::", 1)[1].split("\n\n\n")[0]
    text: dict[str, str] = {}
    current = ""
    for line in block.splitlines():
        match = _NODE.match(line[4:])
        if match and hasattr(errors, match["name"]):
            current = match["name"]
        if current:
            text[current] = text.get(current, "") + " " + line.strip(" │├└─")
    return text


def test_a_second_base_is_drawn_as_also() -> None:
    drawn = _drawn_text()
    seconds = {name: [b.__name__ for b in getattr(errors, name).__bases__[1:]] for name in drawn}
    assert seconds["ClusterUnavailableError"] == ["KafkaConnectionError"]
    for name, bases in seconds.items():
        for base in bases:
            assert f"also an {base}" in drawn[name] or f"also aiokafka's {base}" in drawn[name], (
                f"{name} also derives from {base}: draw it"
            )


def test_cluster_unavailable_is_caught_by_an_aiokafka_retry_loop() -> None:
    from aiokafka.errors import KafkaConnectionError

    error = errors.ClusterUnavailableError("start() reached no broker: refused")
    with pytest.raises(KafkaConnectionError):
        raise error
    assert isinstance(error, errors.StaticConsumerError) and not error.fatal
    assert error.retriable  # aiokafka's own mark: retrying may help
    assert str(error) == "start() reached no broker: refused"  # no class-name prefix


@pytest.mark.parametrize(
    "launcher_error",
    [errors.LocalKafkaError, errors.NoBrokerAvailableError, errors.KafkaResolutionError,
     errors.BrokerStartError],
)  # fmt: skip
def test_an_applications_except_static_consumer_error_does_not_swallow_launcher_errors(
    launcher_error: type[Exception],
) -> None:
    assert not issubclass(launcher_error, errors.StaticConsumerError)
    with pytest.raises(launcher_error):
        try:
            raise launcher_error("the broker did not start")
        except errors.StaticConsumerError:  # what an application writes around its consumer
            pytest.fail("a launcher error was caught as a consumer error")


def test_every_runtime_error_is_an_aiokafka_kafka_error() -> None:
    """An application's ``except KafkaError`` around an ``AIOKafkaConsumer`` keeps catching what a
    StaticConsumer raises (aiokafka's tree is the drop-in's contract), and misuse stays a
    ``ValueError``, as aiokafka's argument checks raise."""
    runtime = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, errors.StaticConsumerError)]  # fmt: skip
    assert runtime and all(issubclass(c, KafkaError) for c in runtime)
    assert issubclass(errors.ConfigurationError, ValueError)
    assert str(errors.FencedInstanceIdError("fenced")) == "fenced", "no class-name prefix"


@pytest.mark.parametrize(
    ("ours", "aiokafkas"),
    [
        (errors.SessionTimeoutOutOfRangeError, "InvalidSessionTimeoutError"),
        (errors.UnsupportedBrokerError, "UnsupportedVersionError"),
        (errors.UnknownMemberError, "UnknownMemberIdError"),
        (errors.InvalidGroupIdError, "InvalidGroupIdError"),
        (errors.GroupAdminUnsupportedVersionError, "UnsupportedVersionError"),
        (errors.AuthenticationError, "AuthenticationFailedError"),
        (errors.GroupAuthorizationError, "GroupAuthorizationFailedError"),
        (errors.TopicAuthorizationError, "TopicAuthorizationFailedError"),
        (errors.ClusterAuthorizationError, "ClusterAuthorizationFailedError"),
        (errors.ClusterUnavailableError, "KafkaConnectionError"),
    ],
)
def test_where_aiokafka_raises_its_own_class_ours_is_one_too(ours: type, aiokafkas: str) -> None:
    assert issubclass(ours, getattr(aiokafka_errors, aiokafkas))


@pytest.mark.parametrize("name", sorted(errors.AUTHORIZATION_ERRORS))
def test_an_authorization_error_is_aiokafkas_class_for_its_name(name: str) -> None:
    from staticconsumer._error_map import authorization_error

    error = authorization_error(name, "t", "'app' via PLAIN")
    assert isinstance(error, errors.AuthorizationError) and error.error_name == name
    assert type(error) is errors.AUTHORIZATION_ERRORS[name]
