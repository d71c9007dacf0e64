"""Every entry point on a real SASL_SSL broker with ACLs (tests/security/conftest.py): the right
credentials work; a missing ACL, a wrong password or an untrusted certificate each give a typed
error, fast, that names what is wrong and holds no secret."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from staticconsumer import StaticConsumer
from staticconsumer.admin import describe_group, remove_members
from staticconsumer.errors import (
    AuthenticationError,
    AuthorizationError,
    GroupAdminAuthorizationError,
)
from staticconsumer.localkafka import create_topic
from staticconsumer.localkafka._acls import Acl, create_acls
from staticconsumer.security import SecuritySettings

from .conftest import SecuredKafka

pytestmark = pytest.mark.kafka
#: A refused login or a missing ACL must surface well within this (no retry loop, no hang).
FAST_FAILURE_S = 15.0
FAST = {"session_timeout_ms": 10000, "heartbeat_interval_ms": 300,
        "auto_offset_reset": "earliest", "enable_auto_commit": False}  # fmt: skip


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "staticconsumer", *args], capture_output=True, text=True,
        timeout=timeout, stdin=subprocess.DEVNULL,
    )  # fmt: skip


async def _produce(kafka: SecuredKafka, topic: str, n: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=kafka.bootstrap,
                                **kafka.settings().aiokafka_kwargs())  # fmt: skip
    await producer.start()
    try:
        for i in range(n):
            await producer.send_and_wait(topic, f"v{i}".encode(), partition=i % 2)
    finally:
        await producer.stop()


async def _read_all(kafka: SecuredKafka, topic: str, at_least: int) -> list[bytes]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=kafka.bootstrap,
                                auto_offset_reset="earliest",
                                **kafka.settings().aiokafka_kwargs())  # fmt: skip
    await consumer.start()
    values: list[bytes] = []
    try:
        deadline = time.monotonic() + 30
        while len(values) < at_least and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500)
            values += [r.value for records in batch.values() for r in records]
    finally:
        await consumer.stop()
    return values


async def test_static_consumer_events_admin_and_cli_work_with_scram(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    kafka, topic, events, group = secured_kafka, _name("orders"), _name("events"), _name("billing")
    admin = kafka.settings("admin")
    await create_topic(kafka.bootstrap, topic, partitions=2, security=admin)
    await create_topic(kafka.bootstrap, events, partitions=1, security=admin)
    await _produce(kafka, topic, 10)
    consumer = StaticConsumer(
        topic, bootstrap_servers=kafka.bootstrap, group_id=group, group_instance_id="svc-0",
        events_topic=events, **FAST, **kafka.settings().aiokafka_kwargs(),
    )  # fmt: skip
    await consumer.start()
    try:
        seen: list[bytes] = []
        deadline = time.monotonic() + 30
        while len(seen) < 10 and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500)
            seen += [r.value for records in batch.values() for r in records]
        assert sorted(seen) == sorted(f"v{i}".encode() for i in range(10))
        await consumer.commit()
        # Python admin API with aiokafka's keyword names.
        described = await describe_group(
            kafka.bootstrap, group, **kafka.settings().aiokafka_kwargs()
        )
        assert [m.group_instance_id for m in described.members] == ["svc-0"]
        assert described.state == "Stable"
    finally:
        await consumer.stop()
    # The events producer inherited the consumer's SASL_SSL settings: its records are there.
    records = [json.loads(v) for v in await _read_all(kafka, events, 2)]
    assert any(r.get("type") == "joined" and r.get("group_instance_id") == "svc-0"
               for r in records), records  # fmt: skip
    assert consumer.events_published >= 2 and consumer.events_publish_errors == 0
    # The CLI with --command-config (the launcher's file): describe, then remove the member.
    done = _cli("describe-group", "--bootstrap-server", kafka.bootstrap, "--group", group,
                "--json", "--command-config", str(kafka.client_config))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [m["group_instance_id"] for m in json.loads(done.stdout)["members"]] == ["svc-0"]
    done = _cli("remove-members", "--bootstrap-server", kafka.bootstrap, "--group", group,
                "--instance-id", "svc-0", "--reason", "scale down",
                "--command-config", str(kafka.config("app_plain")))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (await describe_group(kafka.bootstrap, group, security=kafka.settings())).members == ()


async def test_plain_user_removes_members_from_python(secured_kafka: SecuredKafka) -> None:
    kafka, topic, group = secured_kafka, _name("plain"), _name("plain-group")
    await create_topic(kafka.bootstrap, topic, security=kafka.settings("admin"))
    plain = kafka.settings("app_plain")
    assert plain.sasl_mechanism == "PLAIN"
    consumer = StaticConsumer(topic, bootstrap_servers=kafka.bootstrap, group_id=group,
                              group_instance_id="p-0", **FAST,
                              **plain.aiokafka_kwargs())  # fmt: skip
    await consumer.start()
    await consumer.getmany(timeout_ms=1000)
    await consumer.stop()
    result = await remove_members(kafka.bootstrap, group, ["p-0"], security=plain)
    assert result.removed == ("p-0",)


async def test_wrong_password_is_an_authentication_error_not_a_timeout(
    secured_kafka: SecuredKafka,
) -> None:
    kafka = secured_kafka
    good = kafka.settings()
    wrong = SecuritySettings(
        security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username="app", sasl_plain_password="not-the-password",
        ssl_cafile=good.ssl_cafile,
    )  # fmt: skip
    started = time.monotonic()
    with pytest.raises(AuthenticationError) as caught:
        await describe_group(kafka.bootstrap, _name("g"), security=wrong, timeout_s=60)
    assert time.monotonic() - started < FAST_FAILURE_S
    assert "'app' via SCRAM-SHA-512" in str(caught.value)
    assert "not-the-password" not in str(caught.value)

    consumer = StaticConsumer(_name("t"), bootstrap_servers=kafka.bootstrap, group_id="g",
                              group_instance_id="w-0", request_timeout_ms=60000,
                              **wrong.aiokafka_kwargs())  # fmt: skip
    started = time.monotonic()
    failed = r"authentication as 'app' via SCRAM-SHA-512 failed"
    with pytest.raises(AuthenticationError, match=failed):
        await asyncio.wait_for(consumer.start(), 60)
    assert time.monotonic() - started < FAST_FAILURE_S

    path = kafka.client_config.parent / "wrong.properties"
    path.write_text(
        kafka.client_config.read_text().replace(good.sasl_plain_password or "?", "nope")
    )
    done = _cli("describe-group", "--bootstrap-server", kafka.bootstrap, "--group", "g",
                "--command-config", str(path))  # fmt: skip
    assert (
        done.returncode == 1 and "authentication as 'app' via SCRAM-SHA-512 failed" in done.stderr
    )


async def test_untrusted_broker_certificate_is_an_authentication_error(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    from staticconsumer.localkafka._secure import make_certificates

    other_ca, _ = make_certificates(tmp_path)  # a CA that did not sign the broker's certificate
    settings = secured_kafka.settings()
    untrusted = SecuritySettings(
        security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_plain_username="app",
        sasl_plain_password=settings.sasl_plain_password, ssl_cafile=str(other_ca),
    )  # fmt: skip
    with pytest.raises(AuthenticationError, match="TLS handshake failed"):
        await describe_group(secured_kafka.bootstrap, "g", security=untrusted, timeout_s=30)


async def _limited_consumer_fails(
    kafka: SecuredKafka, topic: str, group: str, grant: Acl
) -> AuthorizationError:
    """Start a StaticConsumer as ``limited`` with only ``grant``; the AuthorizationError it
    raises, within :data:`FAST_FAILURE_S`."""
    await create_topic(kafka.bootstrap, topic, security=kafka.settings("admin"))
    await create_acls(kafka.bootstrap, kafka.settings("admin"), [grant])
    consumer = StaticConsumer(topic, bootstrap_servers=kafka.bootstrap, group_id=group,
                              group_instance_id="l-0", **FAST,
                              **kafka.settings("limited").aiokafka_kwargs())  # fmt: skip
    started = time.monotonic()
    with pytest.raises(AuthorizationError) as caught:
        await asyncio.wait_for(consumer.start(), 60)
    assert time.monotonic() - started < FAST_FAILURE_S
    assert "'limited' via SCRAM-SHA-512" in str(caught.value)
    return caught.value


async def test_missing_group_acl_is_group_authorization_failed(secured_kafka: SecuredKafka) -> None:
    kafka, topic, group = secured_kafka, _name("t-ok"), _name("g-denied")
    error = await _limited_consumer_fails(kafka, topic, group, Acl("User:limited", "topic", topic))
    assert error.error_name == "GROUP_AUTHORIZATION_FAILED"
    assert group in str(error)

    limited = kafka.settings("limited")
    with pytest.raises(GroupAdminAuthorizationError) as admin_caught:
        await describe_group(kafka.bootstrap, group, security=limited)
    assert admin_caught.value.error_name == "GROUP_AUTHORIZATION_FAILED"
    with pytest.raises(GroupAdminAuthorizationError, match="GROUP_AUTHORIZATION_FAILED"):
        await remove_members(kafka.bootstrap, group, ["x-0"], security=limited)
    done = _cli("describe-group", "--bootstrap-server", kafka.bootstrap, "--group", group,
                "--command-config", str(kafka.config("limited")))  # fmt: skip
    assert done.returncode == 1 and "GROUP_AUTHORIZATION_FAILED" in done.stderr


async def test_missing_topic_acl_is_topic_authorization_failed(secured_kafka: SecuredKafka) -> None:
    kafka, topic, group = secured_kafka, _name("t-denied"), _name("g-ok")
    error = await _limited_consumer_fails(kafka, topic, group, Acl("User:limited", "group", group))
    assert error.error_name == "TOPIC_AUTHORIZATION_FAILED"
    assert topic in str(error)


def test_report_reads_the_events_topic_over_sasl_ssl(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    kafka, events, group = secured_kafka, _name("events"), _name("reported")

    async def scenario() -> None:
        await create_topic(kafka.bootstrap, events, security=kafka.settings("admin"))
        topic = _name("in")
        await create_topic(kafka.bootstrap, topic, partitions=2, security=kafka.settings("admin"))
        consumer = StaticConsumer(topic, bootstrap_servers=kafka.bootstrap, group_id=group,
                                  group_instance_id="r-0", events_topic=events, **FAST,
                                  **kafka.settings().aiokafka_kwargs())  # fmt: skip
        await consumer.start()
        await consumer.getmany(timeout_ms=1000)
        await consumer.stop()

    asyncio.run(scenario())
    out = tmp_path / "report"
    env = {**os.environ}
    done = subprocess.run(
        [sys.executable, "-m", "staticconsumer", "report", "--bootstrap-server", kafka.bootstrap,
         "--events-topic", events, "--out", str(out), "--command-config", str(kafka.client_config)],
        capture_output=True, text=True, timeout=280, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"group {group}:" in done.stdout
    assert (out / "report.html").is_file()
    for secret in kafka.secrets():
        assert secret not in done.stdout + done.stderr


def test_repr_of_every_settings_object_hides_passwords(secured_kafka: SecuredKafka) -> None:
    for user in ("app", "app_plain", "limited", "admin"):
        settings = secured_kafka.settings(user)
        text: Any = (repr(settings), str(settings))
        for secret in settings.secrets():
            assert all(secret not in t for t in text)


async def test_a_managed_service_client_file_alone_drives_describe_group(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    """Issue 23: the client.properties a managed service hands out (comment lines, a continued
    JAAS line, bootstrap.servers inside, client keys this tool does not use) is all the CLI
    needs besides --group."""
    kafka, topic, group = secured_kafka, _name("managed"), _name("managed-group")
    settings = kafka.settings()
    password = settings.sasl_plain_password or "?"
    await create_topic(kafka.bootstrap, topic, security=kafka.settings("admin"))
    path = tmp_path / "client.properties"
    path.write_bytes((
        "# Required connection configs for Kafka producer, consumer, and admin\n"
        f"bootstrap.servers={kafka.bootstrap}\n"
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
        f"    username='app' \\\n    password='{password}';\n"
        "ssl.truststore.type=PEM\n"
        f"ssl.truststore.location={settings.ssl_cafile}\n"
        "! Best practice for higher availability in Apache Kafka clients prior to 3.0\n"
        "client.dns.lookup=use_all_dns_ips\n"
        "session.timeout.ms=45000\n"
        "acks=all\n"
        "client.id=caf\xe9\n"  # ISO-8859-1, as java.util.Properties reads it
    ).encode("iso-8859-1"))  # fmt: skip
    consumer = StaticConsumer(topic, bootstrap_servers=kafka.bootstrap, group_id=group,
                              group_instance_id="managed-0", **FAST,
                              **settings.aiokafka_kwargs())  # fmt: skip
    await consumer.start()
    try:
        await consumer.getmany(timeout_ms=1000)
        done = await asyncio.to_thread(
            _cli, "describe-group", "--command-config", str(path), "--group", group, "--json"
        )
    finally:
        await consumer.stop()
    assert done.returncode == 0, done.stderr
    assert [m["group_instance_id"] for m in json.loads(done.stdout)["members"]] == ["managed-0"]
    notes = [line for line in done.stderr.splitlines() if "ignoring client keys" in line]
    assert len(notes) == 1 and "session.timeout.ms" in notes[0] and "client.id" in notes[0]
    assert password not in done.stderr + done.stdout
