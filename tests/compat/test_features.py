"""What the seam reads from the installed aiokafka (``_compat/features.py``), one test per
difference between aiokafka 0.12, 0.13 and 0.14: each asserts what the installed release has,
so the suite run on each release (``scripts/aiokafka_versions.sh``) checks every row of the
table in the module's docstring. And the version gate."""

from __future__ import annotations

import inspect
import warnings

import aiokafka
import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.consumer.fetcher import Fetcher

from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer._compat import features
from staticconsumer._consumer.checks import check_lacking_arguments

RELEASE = features.release(aiokafka.__version__)


def test_the_installed_aiokafka_is_a_supported_release() -> None:
    assert RELEASE in features.SUPPORTED_AIOKAFKA
    features.check_aiokafka_version()


@pytest.mark.parametrize(
    ("version", "release"),
    [("0.12.0", (0, 12)), ("0.13.0", (0, 13)), ("0.14.0", (0, 14)), ("0.14.1.dev0", (0, 14)),
     ("0.14.0b1", (0, 14)), ("0.14.0rc2", (0, 14)), ("0.15.0", (0, 15)), ("0.11.0", (0, 11)),
     ("1.0", (1, 0)), ("0.140.0", (0, 140)), ("garbage", None)],
)  # fmt: skip
def test_the_gate_reads_the_minor_release(version: str, release: tuple[int, int] | None) -> None:
    assert features.release(version) == release


@pytest.mark.parametrize("version", ["0.11.0", "0.15.0", "0.140.0", "1.0.0", "garbage"])
def test_the_gate_refuses_a_release_we_did_not_test(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setattr(aiokafka, "__version__", version)
    with pytest.raises(Exception, match=f"0.12.x, 0.13.x, 0.14.x; aiokafka {version} is"):
        features.check_aiokafka_version()


@pytest.mark.parametrize("version", ["0.12.0", "0.13.1", "0.14.0", "0.14.3.dev0", "0.14.0b1"])
def test_the_gate_takes_every_patch_of_a_supported_release(
    monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setattr(aiokafka, "__version__", version)
    features.check_aiokafka_version()


# -- one test per difference: what the installed release has ------------------------------------


def test_requests_are_builders_the_connection_versions_from_013() -> None:
    """aiokafka PR #1136 (0.13): ``Request`` is a builder the connection calls ``prepare`` on;
    before it, ``Request`` is the struct the connection sends as it is."""
    from aiokafka.protocol import api

    assert features.CONNECTION_PICKS_VERSIONS is (RELEASE >= (0, 13))
    assert hasattr(api, "RequestStruct") is features.CONNECTION_PICKS_VERSIONS


def test_client_rack_from_014() -> None:
    """aiokafka PR #1159 (0.14): ``client_rack`` on the consumer and its fetcher (KIP-392)."""
    assert features.CLIENT_RACK is (RELEASE >= (0, 14))
    assert ("client_rack" in inspect.signature(Fetcher.__init__).parameters) is features.CLIENT_RACK
    assert ("client_rack" in features.LACKING_ARGUMENTS) is (not features.CLIENT_RACK)


def test_api_version_is_012s_auto_gone_in_013_a_no_op_in_014() -> None:
    """aiokafka PR #1136 removed it (0.13); PR #1150 brought it back, deprecated (0.14)."""
    expected = {(0, 12): "auto", (0, 13): None, (0, 14): None}[RELEASE]  # type: ignore[index]
    assert features.consumer_default("api_version") == expected
    signature = inspect.signature(AIOKafkaConsumer.__init__).parameters
    assert ("api_version" in signature) is (RELEASE != (0, 13))
    assert ("api_version" in features.LACKING_ARGUMENTS) is (RELEASE == (0, 13))


async def test_an_argument_the_installed_aiokafka_lacks_is_refused_naming_it() -> None:
    for field, (java_key, _kip, why) in features.LACKING_ARGUMENTS.items():
        with pytest.raises(ConfigurationError) as raised:
            StaticConsumer("t", group_id="g", **{field: "x"})
        message = str(raised.value)
        assert message.startswith(f"{field} (") and java_key in message and why in message
        assert f"aiokafka {aiokafka.__version__}, which is installed" in message


async def test_an_argument_the_installed_aiokafka_has_is_passed_on() -> None:
    if features.CLIENT_RACK:
        assert StaticConsumer("t", group_id="g", client_rack="az-1")._client_rack == "az-1"
    if "api_version" in features.LACKING_ARGUMENTS:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        consumer = StaticConsumer("t", group_id="g", api_version="2.8.0")
    if RELEASE == (0, 12):
        assert consumer._client._api_version == (2, 8, 0)
    else:  # 0.14: aiokafka got it, and says it does nothing
        assert any("api_version" in str(w.message) for w in caught
                   if issubclass(w.category, DeprecationWarning))  # fmt: skip


def test_the_refusal_holds_for_every_versioned_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself on every release, as if the installed aiokafka lacked every versioned
    argument: a given one is refused, none given passes."""
    from staticconsumer._consumer import checks as options

    monkeypatch.setattr(options, "LACKING_ARGUMENTS", features._VERSIONED_ARGUMENTS)
    unset = dict.fromkeys(features._VERSIONED_ARGUMENTS)
    check_lacking_arguments(unset)
    for field in features._VERSIONED_ARGUMENTS:
        with pytest.raises(ConfigurationError, match=f"^{field} .* is not available with aiokafka"):
            check_lacking_arguments({**unset, field: "x"})
