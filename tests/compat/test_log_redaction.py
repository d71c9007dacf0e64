"""SASL/PLAIN passwords stay out of aiokafka's DEBUG log, and nothing is installed at import."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from staticconsumer._compat import start_consumer
from staticconsumer._compat.log_redaction import LOGGER, redact_sasl_logs

REPO = Path(__file__).resolve().parents[2]


class SaslAuthenticateRequest_v1:  # named like aiokafka's request class
    def __repr__(self) -> str:
        return "SaslAuthenticateRequest_v1(sasl_auth_bytes=b'app\\x00app\\x00s3cret')"


def _installed() -> list[logging.Filter | Any]:
    return [f for f in logging.getLogger(LOGGER).filters if type(f).__name__ == "_SaslLogRedaction"]


@pytest.fixture(autouse=True)
def _no_filter() -> Any:
    logger = logging.getLogger(LOGGER)
    before = list(logger.filters)
    for f in _installed():
        logger.removeFilter(f)
    yield
    logger.filters[:] = before


def test_importing_the_sdk_installs_no_log_filter() -> None:
    code = (
        "import logging, staticconsumer, staticconsumer.admin\n"
        f"print(len(logging.getLogger({LOGGER!r}).filters))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, check=True)  # fmt: skip
    assert done.stdout.strip() == "0"


def test_the_filter_is_installed_once_and_only_for_sasl() -> None:
    redact_sasl_logs("PLAINTEXT")
    redact_sasl_logs("SSL")
    assert _installed() == []
    redact_sasl_logs("SASL_SSL")
    redact_sasl_logs("SASL_PLAINTEXT")
    assert len(_installed()) == 1


def test_the_password_is_redacted_and_the_line_kept(caplog: pytest.LogCaptureFixture) -> None:
    redact_sasl_logs("SASL_PLAINTEXT")
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        request = SaslAuthenticateRequest_v1()
        logging.getLogger(LOGGER).debug("%s Request %d: %s", "conn", 3, request)
    assert "s3cret" not in caplog.text
    assert "SaslAuthenticateRequest_v1(sasl_auth_bytes=<redacted>)" in caplog.text
    assert "Request 3" in caplog.text


async def test_a_sasl_consumer_installs_the_filter_before_it_connects() -> None:
    seen: list[int] = []

    class Client:
        async def bootstrap(self) -> None:
            seen.append(len(_installed()))
            raise ConnectionError("no broker here")

    consumer = SimpleNamespace(_fetcher=None, _client=Client(), _subscription=None)
    with pytest.raises(ConnectionError):
        await start_consumer(consumer, {"security_protocol": "SASL_SSL"},
                             lambda seam, versions: None)  # type: ignore[arg-type,return-value]  # fmt: skip
    assert seen == [1]
