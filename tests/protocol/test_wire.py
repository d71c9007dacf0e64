"""Headers and log lines of our messages (``protocol._wire``): flexible versions get request header
v2 and response header v1; every response field type can be shown in a log line. The same
requests through aiokafka's connection: tests/compat/test_wire.py."""

from __future__ import annotations

import io
import struct
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from staticconsumer.errors import UnsupportedBrokerError
from staticconsumer.protocol import ApiKey
from staticconsumer.protocol._messages import _DECLARED, response_class
from staticconsumer.protocol._wire import read_response_header, request_header

from .test_requests import heartbeat


def test_flexible_versions_write_request_header_v2_and_read_response_header_v1() -> None:
    header = request_header(11, 9, 5, "cid", flexible=True)
    # api key, api version, correlation id, client id (classic string), empty tagged fields
    assert header == struct.pack(">hhih", 11, 9, 5, 3) + b"cid" + b"\x00"
    parsed = read_response_header(io.BytesIO(struct.pack(">i", 5) + b"\x00"), flexible=True)
    assert parsed.correlation_id == 5 and parsed.tags == {}


def test_classic_versions_write_request_header_v1_and_read_response_header_v0() -> None:
    assert (
        request_header(11, 5, 5, "cid", flexible=False)
        == struct.pack(">hhih", 11, 5, 5, 3) + b"cid"
    )
    parsed = read_response_header(io.BytesIO(struct.pack(">i", 5)), flexible=False)
    assert parsed.correlation_id == 5


def test_a_request_refuses_a_broker_without_its_version() -> None:
    request = heartbeat(4)
    request.check_broker({ApiKey.HEARTBEAT: (0, 4)})
    with pytest.raises(UnsupportedBrokerError, match=r"Heartbeat v4: this broker supports v0-v3"):
        request.check_broker({ApiKey.HEARTBEAT: (0, 3)})
    with pytest.raises(UnsupportedBrokerError, match="does not support Heartbeat"):
        request.check_broker({})


def _field_kinds(kind: Any) -> Iterator[Any]:
    """``kind`` and every field type nested in it (structs, arrays, nullable structs)."""
    yield kind
    for inner in getattr(kind, "fields", None) or ():  # a Schema
        yield from _field_kinds(inner)
    inner = getattr(kind, "array_of", None) or getattr(kind, "schema", None)
    if inner is not None and inner is not kind:
        yield from _field_kinds(inner)


def test_every_response_field_type_has_the_repr_aiokafkas_debug_log_calls() -> None:
    """aiokafka's connection logs every response at DEBUG with ``repr(response)``, which calls
    ``repr`` on each field type: one without it (the KIP-848 heartbeat's nullable assignment)
    raised there, which closed the connection, so a consumer-protocol member with aiokafka's
    DEBUG log on never got its assignment (its heartbeat's answer lost, then
    UNRELEASED_INSTANCE_ID for its own join)."""
    missing = {
        (key.name, version, type(kind).__name__)
        for key, version in _all_defined()
        for kind in _field_kinds(response_class(key, version).SCHEMA)
        if not hasattr(kind, "repr")
    }
    assert missing == set()


def test_a_kip_848_heartbeat_answer_with_an_assignment_has_a_repr() -> None:
    cls = response_class(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0)
    topic_id = uuid.UUID(int=7)
    answer = cls(throttle_time_ms=0, error_code=0, error_message=None, member_id="m",
                 member_epoch=3, heartbeat_interval_ms=5000,
                 assignment=([(topic_id, [0, 1], {})], {}), tagged_fields={})  # fmt: skip
    decoded = cls.decode(io.BytesIO(answer.encode()))
    assert str(topic_id) in repr(decoded) and "member_epoch=3" in repr(decoded)


def _all_defined() -> Iterator[tuple[ApiKey, int]]:
    for key, version in sorted(_DECLARED):
        yield ApiKey(key), version


def test_api_versions_answers_with_a_v0_response_header_even_when_flexible() -> None:
    """KIP-511: ApiVersions' response header never has tagged fields, so that a client can read
    a refusal of a version the broker does not know; every other flexible API's has them."""
    from staticconsumer.protocol import build_api_versions, build_consumer_group_heartbeat

    api_versions = build_api_versions("1.0")
    assert api_versions.flexible and not api_versions.response_header_flexible
    heartbeat = build_consumer_group_heartbeat(1, group_id="g", member_id="m", member_epoch=0)
    assert heartbeat.flexible and heartbeat.response_header_flexible
