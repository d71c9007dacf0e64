"""StaticConsumer's constructor: every aiokafka argument explicit, typed and with aiokafka's
default (issue 22 item 4), so a misspelt keyword fails ``mypy --strict``; ``security=`` takes a
SecuritySettings as every admin call does."""

from __future__ import annotations

import inspect
import ssl
import textwrap
from pathlib import Path

from aiokafka import AIOKafkaConsumer

from staticconsumer import StaticConsumer
from staticconsumer.security import SecuritySettings

REPO = Path(__file__).resolve().parents[2]
OURS = {"partition_assignment_strategy": None}  # default_assignors(); aiokafka: its roundrobin


def test_every_aiokafka_argument_is_explicit_with_aiokafkas_default() -> None:
    theirs = inspect.signature(AIOKafkaConsumer.__init__).parameters
    ours = inspect.signature(StaticConsumer.__init__).parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in ours.values()), "no **kwargs catch-all"
    for name, parameter in theirs.items():
        if name in ("self", "topics"):
            continue
        assert ours[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        expected = OURS.get(name, parameter.default)
        assert ours[name].default == expected, name
        assert ours[name].annotation is not inspect.Parameter.empty, name


async def test_security_settings_give_the_aiokafka_security_arguments() -> None:
    context = ssl.create_default_context()
    settings = SecuritySettings(security_protocol="SASL_SSL", ssl_context=context,
                                sasl_mechanism="SCRAM-SHA-512", sasl_plain_username="u",
                                sasl_plain_password="p")  # fmt: skip
    consumer = StaticConsumer("t", group_id="g", security=settings)
    client = consumer._client
    assert client._security_protocol == "SASL_SSL" and client._ssl_context is context
    assert client._sasl_mechanism == "SCRAM-SHA-512" and client._sasl_plain_username == "u"


def _mypy(tmp_path: Path, body: str) -> tuple[str, int]:
    from mypy import api

    program = tmp_path / "user_app.py"
    program.write_text(textwrap.dedent(body))
    out, err, status = api.run(["--strict", "--no-incremental", "--config-file",
                                str(REPO / "pyproject.toml"), str(program)])  # fmt: skip
    return out + err, status


PROGRAM = """
    from aiokafka.structs import TopicPartition
    from staticconsumer import StaticConsumer


    async def consume() -> int:
        consumer = StaticConsumer("t", group_id="g", {argument}=120_000)
        record = await consumer.getone()
        batches = await consumer.getmany(TopicPartition("t", 0), timeout_ms=100)
        return record.offset + sum(len(records) for records in batches.values())
"""


def test_a_misspelt_argument_fails_mypy_strict_and_the_right_one_passes(tmp_path: Path) -> None:
    output, status = _mypy(tmp_path, PROGRAM.format(argument="sesion_timeout_ms"))
    assert status == 1 and 'Unexpected keyword argument "sesion_timeout_ms"' in output, output
    output, status = _mypy(tmp_path, PROGRAM.format(argument="session_timeout_ms"))
    assert status == 0, output


def test_records_are_typed_for_mypy(tmp_path: Path) -> None:
    body = PROGRAM.format(argument="session_timeout_ms").replace("record.offset", "record.ofset")
    output, status = _mypy(tmp_path, body)
    assert status == 1 and '"ConsumerRecord[Any, Any]" has no attribute "ofset"' in output, output


def test_the_keywords_are_the_option_rows_in_their_order_with_their_defaults() -> None:
    """Issue 49: the signature is made from the rows (names, order, defaults); the types mypy
    reads name the same keywords."""
    from staticconsumer._consumer.keywords import defaults
    from staticconsumer.options import OPTIONS, ConsumerKeywords

    ours = inspect.signature(StaticConsumer.__init__).parameters
    keywords = [name for name in ours if name not in ("self", "topics")]
    assert keywords == [o.name for o in OPTIONS]
    assert list(ConsumerKeywords.__annotations__) == keywords
    assert {name: ours[name].default for name in keywords} == defaults()
