"""The admin's roster calls (``roster/_admin.py``, ``roster/_store.py``) without a broker: the
admin client is the scripted broker of ``tests/compat/test_roster_log.py`` (Metadata,
ListOffsets, Fetch, CreateTopics), the producer's write is recorded. The read is the member's
(``_reader``): the same records, the same typed errors."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from staticconsumer.errors import (
    ConfigurationError,
    GroupAdminError,
    InvalidInstanceIdError,
    RosterAuthorizationError,
    RosterUnreadableError,
)
from staticconsumer.roster import (
    Roster,
    delete_roster,
    describe_roster,
    read_roster,
    register_members,
    set_roster,
)
from staticconsumer.roster import _admin as admin_module
from staticconsumer.roster import _store as store_module
from tests.compat.test_roster_log import TOPIC, FakeBroker, batch

GROUP = "orders"
NOW = Roster.create(GROUP, ["orders-4"], now_ms=1_000, wait_ms=60_000)


class AdminBroker(FakeBroker):
    """The scripted broker, also answering CreateTopics and telling its brokers."""

    def __init__(self, *args: Any, create_error: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.create_error = create_error
        # aiokafka's metadata of the scripted broker, telling no controller and one broker
        self.cluster.controller = None
        self.cluster.brokers = lambda: [1]

    async def send(self, node_id: int, request: Any, *, group: Any = None) -> Any:
        if type(request.pinned.struct).__name__ == "CreateTopicsRequest_v3":
            self.sent.append((node_id, "CreateTopicsRequest_v3", group))
            rows = [{"topic": TOPIC, "error_code": self.create_error, "error_message": None}]
            return SimpleNamespace(to_object=lambda: {"topic_errors": rows})
        return await super().send(node_id, request, group=group)


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[bytes | None]:
    """Values the admin produced (write_value), in order."""
    values: list[bytes | None] = []

    async def write_value(*args: Any) -> None:
        values.append(args[4])

    monkeypatch.setattr(admin_module, "write_value", write_value)
    return values


def serve(monkeypatch: pytest.MonkeyPatch, broker: Any) -> None:
    async def open_client(*args: Any) -> Any:
        if isinstance(broker, Exception):
            raise broker
        return broker

    async def close_client(client: Any) -> None:
        pass

    monkeypatch.setattr(store_module, "open_client", open_client)
    monkeypatch.setattr(store_module, "close_client", close_client)


def holding(roster: Roster | None) -> AdminBroker:
    value = None if roster is None else roster.to_json()
    return AdminBroker({0: batch(0, [(GROUP.encode(), value)])}, high_watermark=1)


def kinds(broker: FakeBroker) -> list[str]:
    return [kind for _, kind, _ in broker.sent]


async def test_register_adds_to_the_stored_roster_and_writes_it(
    monkeypatch: pytest.MonkeyPatch, written: list[bytes | None]
) -> None:
    broker = holding(NOW)
    serve(monkeypatch, broker)
    stored = await register_members("b:9092", GROUP, ["orders-5"], roster_topic=TOPIC)
    assert stored.instance_ids == ("orders-4", "orders-5")
    assert written == [stored.to_json()]
    assert "CreateTopicsRequest_v3" not in kinds(broker), "the topic exists"


async def test_a_dry_run_reads_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, written: list[bytes | None]
) -> None:
    broker = holding(NOW)
    serve(monkeypatch, broker)
    new = await set_roster("b:9092", GROUP, ["orders-9"], dry_run=True, roster_topic=TOPIC)
    assert new.instance_ids == ("orders-9",) and written == []
    assert kinds(broker)[0] == "MetadataRequest_v5"
    assert "CreateTopicsRequest_v3" not in kinds(broker)


async def test_the_first_registration_creates_the_topic(
    monkeypatch: pytest.MonkeyPatch, written: list[bytes | None]
) -> None:
    broker = AdminBroker({}, metadata_error=3)
    serve(monkeypatch, broker)
    stored = await register_members("b:9092", GROUP, ["orders-4"], roster_topic=TOPIC)
    assert "CreateTopicsRequest_v3" in kinds(broker) and written == [stored.to_json()]


async def test_a_refused_topic_creation_names_the_acl(
    monkeypatch: pytest.MonkeyPatch, written: list[bytes | None]
) -> None:
    serve(monkeypatch, AdminBroker({}, metadata_error=3, create_error=29))
    with pytest.raises(RosterAuthorizationError, match="creating the topic for"):
        await register_members("b:9092", GROUP, ["orders-4"], roster_topic=TOPIC)
    assert written == []


async def test_describe_reads_the_roster_and_a_tombstone_is_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    serve(monkeypatch, holding(NOW))
    assert await describe_roster("b:9092", GROUP, roster_topic=TOPIC) == NOW
    serve(monkeypatch, holding(None))
    assert await describe_roster("b:9092", GROUP, roster_topic=TOPIC) is None


async def test_delete_writes_a_tombstone_and_nothing_without_a_topic(
    monkeypatch: pytest.MonkeyPatch, written: list[bytes | None]
) -> None:
    serve(monkeypatch, holding(NOW))
    assert await delete_roster("b:9092", GROUP, roster_topic=TOPIC) == NOW
    assert written == [None]
    serve(monkeypatch, AdminBroker({}, metadata_error=3))
    assert await delete_roster("b:9092", GROUP, roster_topic=TOPIC) is None
    assert written == [None]


async def test_read_roster_is_bounded_and_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    serve(monkeypatch, holding(NOW))
    assert await read_roster("b:9092", GROUP, roster_topic=TOPIC) == NOW
    serve(monkeypatch, AdminBroker({}, metadata_error=29))
    with pytest.raises(RosterAuthorizationError):
        await read_roster("b:9092", GROUP, roster_topic=TOPIC)
    serve(monkeypatch, GroupAdminError("could not reach Kafka at 'b:9092'"))
    with pytest.raises(RosterUnreadableError, match="could not reach Kafka") as caught:
        await read_roster("b:9092", GROUP, roster_topic=TOPIC)
    assert isinstance(caught.value.__cause__, GroupAdminError)


@pytest.mark.parametrize("bad", ["", ".", "a b", "x" * 250, 7])
@pytest.mark.parametrize("call", [read_roster, describe_roster, delete_roster])
async def test_a_bad_roster_topic_is_refused_as_a_topic_name_not_an_instance_id(
    call: Any, bad: object
) -> None:
    """The roster topic is checked as a Kafka topic name before any request, and the message
    names the ``roster_topic`` option; it used to be checked as a ``group.instance.id``
    (``InvalidInstanceIdError`` saying "Java: group.instance.id, KIP-345")."""
    with pytest.raises(ConfigurationError) as raised:
        await call("127.0.0.1:9", GROUP, roster_topic=bad)
    assert not isinstance(raised.value, InvalidInstanceIdError)
    message = str(raised.value)
    assert message.startswith("roster_topic ") and "topic name" in message, message
    assert "group.instance.id" not in message, message
