"""InstanceId rules (Kafka's topic-name rules for group.instance.id) and construction checks."""

from __future__ import annotations

import pytest

import staticconsumer
from staticconsumer import ConfigurationError, InstanceId, InvalidInstanceIdError, StaticConsumer


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("", "must not be empty"),
        (".", "must not be '.' or '..'"),
        ("..", "must not be '.' or '..'"),
        ("a" * 250, "at most 249"),
        ("pod/0", "may only contain"),
        ("pod 0", "may only contain"),
        ("pöd", "may only contain"),
    ],
)
def test_invalid_ids_name_the_rule(value: str, rule: str) -> None:
    with pytest.raises(InvalidInstanceIdError, match=rule) as info:
        InstanceId.validate(value)
    assert isinstance(info.value, ValueError)
    assert "group.instance.id" in str(info.value)
    assert "KIP-345" in str(info.value)


@pytest.mark.parametrize("value", ["a", "billing-0", "A.b_c-9", "x" * 249])
def test_valid_ids(value: str) -> None:
    assert InstanceId.validate(value) == value


def test_from_env_order(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STATICCONSUMER_INSTANCE_ID", "POD_NAME", "HOSTNAME"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(InvalidInstanceIdError, match="POD_NAME"):
        InstanceId.from_env()
    monkeypatch.setenv("HOSTNAME", "host-1")
    assert InstanceId.from_env() == "host-1"
    monkeypatch.setenv("POD_NAME", "orders-2")
    assert InstanceId.from_env() == "orders-2"
    monkeypatch.setenv("STATICCONSUMER_INSTANCE_ID", "explicit")
    assert InstanceId.from_env() == "explicit"


def test_from_env_rejects_rather_than_rewrites(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STATICCONSUMER_INSTANCE_ID", raising=False)
    monkeypatch.setenv("POD_NAME", "orders/2")
    with pytest.raises(InvalidInstanceIdError, match=r"\$POD_NAME"):
        InstanceId.from_env()


def test_for_thread() -> None:
    assert InstanceId.for_thread("app-0", 3) == "app-0-thread-3"
    with pytest.raises(InvalidInstanceIdError):
        InstanceId.for_thread("app/0", 1)
    with pytest.raises(InvalidInstanceIdError):
        InstanceId.for_thread("app", -1)
    with pytest.raises(InvalidInstanceIdError):
        InstanceId.for_thread("a" * 245, 1)


async def test_constructor_validates_before_any_io() -> None:
    with pytest.raises(InvalidInstanceIdError):
        StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_id="g", group_instance_id="a b")
    with pytest.raises(ConfigurationError, match="group_id"):
        StaticConsumer("t", bootstrap_servers="127.0.0.1:1", group_instance_id="a")
    with pytest.raises(ConfigurationError, match="on_fatal"):
        StaticConsumer(
            "t",
            bootstrap_servers="127.0.0.1:1",
            group_id="g",
            group_instance_id="a",
            on_fatal="nope",
        )  # type: ignore[arg-type]


async def test_stop_with_leave_needs_a_reason() -> None:
    consumer = StaticConsumer(
        "t", bootstrap_servers="127.0.0.1:1", group_id="g", group_instance_id="a"
    )
    with pytest.raises(ConfigurationError, match="reason"):
        await consumer.stop(leave_group=True)
    await consumer.stop()


def test_public_names_are_sorted_and_exported() -> None:
    assert staticconsumer.__all__ == sorted(staticconsumer.__all__)
    for name in staticconsumer.__all__:
        assert hasattr(staticconsumer, name)
    assert staticconsumer.FencedInstanceIdError.fatal is True
    assert issubclass(staticconsumer.FencedInstanceIdError, staticconsumer.StaticConsumerError)


@pytest.mark.parametrize(
    "pod", ["orders-7d4b9c6f5b-x2k8q", "billing-api-5f6b7c8d9-bq2cd", "svc-6d8f4b7c9d-zz4m7"]
)
def test_from_env_refuses_deployment_pod_names(monkeypatch: pytest.MonkeyPatch, pod: str) -> None:
    monkeypatch.delenv("STATICCONSUMER_INSTANCE_ID", raising=False)
    monkeypatch.setenv("POD_NAME", pod)
    with pytest.raises(InvalidInstanceIdError, match="Deployment/ReplicaSet pod name") as caught:
        InstanceId.from_env()
    assert "changes on every rollout" in str(caught.value)
    assert "StatefulSet" in str(caught.value) and "allow_rollout_names=True" in str(caught.value)
    assert InstanceId.from_env(allow_rollout_names=True) == pod  # the explicit opt-out
    monkeypatch.delenv("POD_NAME")
    monkeypatch.setenv("HOSTNAME", pod)  # the same rule for the hostname fallback
    with pytest.raises(InvalidInstanceIdError, match=r"\$HOSTNAME"):
        InstanceId.from_env()


@pytest.mark.parametrize("pod", ["orders-0", "orders-12", "billing-api-3", "my-host", "web-abcde"])
def test_from_env_accepts_statefulset_and_plain_names(
    monkeypatch: pytest.MonkeyPatch, pod: str
) -> None:
    monkeypatch.delenv("STATICCONSUMER_INSTANCE_ID", raising=False)
    monkeypatch.setenv("POD_NAME", pod)
    assert InstanceId.from_env() == pod


def test_explicit_instance_id_is_taken_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATICCONSUMER_INSTANCE_ID", "orders-7d4b9c6f5b-x2k8q")
    monkeypatch.setenv("POD_NAME", "orders-7d4b9c6f5b-x2k8q")
    assert InstanceId.from_env() == "orders-7d4b9c6f5b-x2k8q"


@pytest.mark.parametrize(
    ("value", "legal"),
    [("orders", True), ("a.b_c-9", True), ("x" * 249, True), ("x" * 250, False), ("", False),
     (".", False), ("..", False), ("...", True), ("a b", False), ("é", False), (b"t", False),
     (None, False)],
)  # fmt: skip
def test_is_topic_name_is_kafkas_topic_rule(value: object, legal: bool) -> None:
    """One rule for every topic option (``roster_topic``, ``events_topic``) and, through the
    same characters and length, for instance ids."""
    from staticconsumer._instance_id import is_topic_name

    assert is_topic_name(value) is legal
