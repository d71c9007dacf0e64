"""``roster_topic`` (issue 21; opt-in since issue 31): where the classic leader reads the group's
roster; checked at construction, None (the default) turns pre-registration off, and the read is
made as the consumer is."""

from __future__ import annotations

import pytest

from staticconsumer import ConfigurationError, SecuritySettings, StaticConsumer
from staticconsumer.roster import DEFAULT_ROSTER_TOPIC
from staticconsumer.roster import roster_reader as roster_source


@pytest.mark.parametrize("bad", ["", "has space", "a" * 250, ".", "..", 7, b"_rosters"])
async def test_a_bad_roster_topic_is_refused_naming_the_field_and_the_kip(bad: object) -> None:
    with pytest.raises(ConfigurationError, match=r"roster_topic .*KIP-469.*got") as info:
        StaticConsumer("t", group_id="g", group_instance_id="i-0", roster_topic=bad)  # type: ignore[arg-type]
    assert "Java" in str(info.value)


async def test_a_roster_topic_reads_it_and_none_reads_nothing() -> None:
    on = StaticConsumer("t", group_id="g", group_instance_id="i-0",
                        roster_topic=DEFAULT_ROSTER_TOPIC)  # fmt: skip
    off = StaticConsumer("t", group_id="g", group_instance_id="i-1", roster_topic=None)
    try:
        assert on._roster is not None and off._roster is None
    finally:
        await on.stop()
        await off.stop()


def test_the_read_uses_the_consumers_cluster_and_security_and_nothing_else() -> None:
    kwargs = {
        "bootstrap_servers": "b:9093", "group_id": "g", "session_timeout_ms": 120_000,
        **SecuritySettings(security_protocol="SASL_PLAINTEXT", sasl_mechanism="PLAIN",
                           sasl_plain_username="app", sasl_plain_password="pw").aiokafka_kwargs(),
    }  # fmt: skip
    source = roster_source("_rosters", "g", kwargs)
    assert source is not None and (source.group_id, source.roster_topic) == ("g", "_rosters")
    client_kwargs = source.client_kwargs
    assert client_kwargs["bootstrap_servers"] == "b:9093"
    assert client_kwargs["sasl_plain_username"] == "app"
    assert "group_id" not in client_kwargs and "session_timeout_ms" not in client_kwargs
    assert source.principal == "'app' via PLAIN" and "pw" not in repr(source)
    assert roster_source(None, "g", kwargs) is None and roster_source("_r", None, kwargs) is None


async def test_pre_registration_is_off_unless_a_roster_topic_is_given() -> None:
    """Issue 31: a group that never registered a roster pays nothing for the feature."""
    default = StaticConsumer("t", group_id="g", group_instance_id="i-0")
    try:
        assert default._roster is None
    finally:
        await default.stop()
