"""Metadata recovery (KIP-899, KIP-1102) without a broker: the decision (``_compat/recovery.py``,
fed outcomes and times) and the seam's client around it (``_compat/rebootstrap.py``) on
aiokafka's real client, whose known broker is a closed port on loopback and whose bootstrap
answer is scripted. The move of a whole cluster on a real broker is
``tests/integration/test_rebootstrap.py``."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from staticconsumer import ConfigurationError, StaticConsumer
from staticconsumer._compat import MetadataRecovery, RecoveringClient, RecoverySettings
from staticconsumer._compat.recovery import (
    NO_BROKER_REACHABLE,
    REBOOTSTRAP_REQUIRED,
    TRIGGER_ELAPSED,
)
from staticconsumer.protocol import ErrorCode
from tests._fake_client import metadata

TRIGGER_MS = 300_000


def recovery(strategy: str = "rebootstrap", trigger_ms: int = TRIGGER_MS) -> MetadataRecovery:
    return MetadataRecovery(RecoverySettings(strategy, trigger_ms))


# -- the decision -------------------------------------------------------------------------------


def test_no_known_broker_reachable_rebootstraps_at_once() -> None:
    r = recovery()
    assert r.after_update(ok=False, broker_connected=False, now=100.0) == NO_BROKER_REACHABLE


def test_a_reachable_broker_that_gives_no_metadata_rebootstraps_after_the_trigger() -> None:
    r = recovery(trigger_ms=5_000)
    assert r.after_update(ok=False, broker_connected=True, now=100.0) is None
    assert r.after_update(ok=False, broker_connected=True, now=104.9) is None
    assert r.after_update(ok=False, broker_connected=True, now=105.0) == TRIGGER_ELAPSED.format(
        ms=5_000
    )


def test_a_good_update_restarts_the_trigger_clock() -> None:
    r = recovery(trigger_ms=5_000)
    r.after_update(ok=False, broker_connected=True, now=100.0)
    assert r.after_update(ok=True, broker_connected=True, now=104.0) is None
    assert r.failing_since is None
    assert r.after_update(ok=False, broker_connected=True, now=106.0) is None  # 0 s failing
    assert r.after_update(ok=False, broker_connected=True, now=110.9) is None
    assert r.after_update(ok=False, broker_connected=True, now=111.0) is not None


def test_strategy_none_never_rebootstraps() -> None:
    r = recovery("none", trigger_ms=0)
    assert r.after_update(ok=False, broker_connected=False, now=100.0) is None
    assert r.after_update(ok=False, broker_connected=True, now=1e9) is None
    assert r.server_requested(ErrorCode.REBOOTSTRAP_REQUIRED) is False
    assert r.take_requested() is None


def test_rebootstrap_required_is_owed_to_the_next_update_once() -> None:
    r = recovery()
    assert r.server_requested(ErrorCode.NONE) is False
    assert r.server_requested(ErrorCode.NOT_COORDINATOR) is False
    assert r.take_requested() is None
    assert r.server_requested(129) is True
    assert r.take_requested() == REBOOTSTRAP_REQUIRED
    assert r.take_requested() is None


def test_an_episode_is_announced_once_and_closed_by_metadata() -> None:
    r = recovery()
    r.after_update(ok=False, broker_connected=False, now=1.0)
    assert r.attempting() is True  # the WARNING line
    assert r.rebootstrapped(ok=False) == 0
    assert r.attempting() is False  # the same episode: DEBUG
    assert r.rebootstrapped(ok=True) == 2
    assert (r.total, r.episode_attempts, r.failing_since) == (1, 0, None)
    assert r.attempting() is True  # a new episode


def test_an_episode_the_known_brokers_end_lets_the_next_one_be_announced() -> None:
    """A broker restarted in place answers again before any bootstrap server did: the episode is
    over, and the next outage's first rebootstrap is logged at WARNING again."""
    r = recovery()
    r.after_update(ok=False, broker_connected=False, now=1.0)
    assert r.attempting() is True
    r.rebootstrapped(ok=False)
    assert r.after_update(ok=True, broker_connected=True, now=2.0) is None
    assert r.after_update(ok=False, broker_connected=False, now=3.0) == NO_BROKER_REACHABLE
    assert r.attempting() is True
    assert r.total == 0


@pytest.mark.parametrize(
    ("strategy", "trigger_ms", "words"),
    [
        ("sometimes", TRIGGER_MS, "metadata_recovery_strategy (Java: metadata.recovery.strategy, "
         "KIP-899) must be one of rebootstrap, none"),
        ("rebootstrap", -1, "metadata_recovery_rebootstrap_trigger_ms (Java: "
         "metadata.recovery.rebootstrap.trigger.ms, KIP-1102) must be an int >= 0"),
        ("rebootstrap", True, "metadata_recovery_rebootstrap_trigger_ms"),
    ],
)  # fmt: skip
def test_settings_are_checked_by_their_rows(strategy: Any, trigger_ms: Any, words: str) -> None:
    with pytest.raises(ConfigurationError, match=words.replace("(", r"\(").replace(")", r"\)")):
        RecoverySettings(strategy, trigger_ms)


def test_the_strategy_is_read_in_any_case_as_java_reads_it() -> None:
    assert RecoverySettings("REBOOTSTRAP").rebootstraps
    assert not RecoverySettings("None").rebootstraps


# -- the seam's client --------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ScriptedBootstrap(RecoveringClient):
    """A RecoveringClient whose bootstrap servers answer ``answer`` (None: nobody answers)."""

    answer: Any = None
    asked = 0

    async def _bootstrap_metadata(self, topics: Any) -> Any:
        self.asked += 1
        return self.answer


def client_knowing_a_dead_broker(
    strategy: str = "rebootstrap",
) -> tuple[ScriptedBootstrap, list[str]]:
    heard: list[str] = []
    client = ScriptedBootstrap(
        recovery=RecoverySettings(strategy), on_rebootstrap=heard.append,
        bootstrap_servers=f"127.0.0.1:{closed_port()}", request_timeout_ms=2_000,
    )  # fmt: skip
    dead = metadata([1])
    dead.brokers[0] = (1, "127.0.0.1", closed_port(), None)
    client.cluster.update_metadata(dead)
    return client, heard


async def test_a_cluster_gone_from_every_known_address_is_found_at_the_bootstrap_servers() -> None:
    client, heard = client_knowing_a_dead_broker()
    moved = metadata([1], {"t": {0: [1]}})  # node 1, now on 127.0.0.1:9093
    client.answer = moved
    try:
        assert await client._metadata_update(client.cluster, {"t"}) is True
        assert client.cluster.broker_metadata(1).port == 9093
        assert client.cluster.partitions_for_topic("t") == {0}
        assert heard == [NO_BROKER_REACHABLE]
        assert client.recovery.total == 1
    finally:
        await client.close()


async def test_strategy_none_keeps_asking_the_dead_address() -> None:
    client, heard = client_knowing_a_dead_broker("none")
    client.answer = metadata([1])
    try:
        assert await client._metadata_update(client.cluster, {"t"}) is False
        assert client.asked == 0 and heard == []
        assert client.cluster.broker_metadata(1).port != 9093
    finally:
        await client.close()


async def test_a_rebootstrap_nobody_answers_leaves_the_metadata_as_it_was() -> None:
    client, heard = client_knowing_a_dead_broker()
    port = client.cluster.broker_metadata(1).port
    try:
        assert await client._metadata_update(client.cluster, {"t"}) is False
        assert client.asked == 1 and heard == []
        assert client.cluster.broker_metadata(1).port == port
        assert client.recovery.episode_attempts == 1  # still open: the next failure tries again
    finally:
        await client.close()


async def test_rebootstrap_required_makes_the_next_update_a_rebootstrap() -> None:
    client, heard = client_knowing_a_dead_broker()
    client.answer = metadata([1])
    try:
        client.request_rebootstrap(ErrorCode.REBOOTSTRAP_REQUIRED)
        assert await client._metadata_update(client.cluster, set()) is True
        assert heard == [REBOOTSTRAP_REQUIRED]
    finally:
        await client.close()


class FakeConnection:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port, self.closed = host, port, False

    def connected(self) -> bool:
        return not self.closed

    def close(self, reason: Any = None) -> None:
        self.closed = True


async def test_connections_to_a_broker_that_moved_are_closed_and_others_kept() -> None:
    client, _heard = client_knowing_a_dead_broker()
    client.answer = metadata([1, 2])  # node 1 moved to :9093, node 2 on :9094
    old_1 = FakeConnection("127.0.0.1", client.cluster.broker_metadata(1).port)
    same_2 = FakeConnection("127.0.0.1", 9094)
    client._conns.update({(1, 0): old_1, (2, 1): same_2})
    try:
        client.request_rebootstrap(ErrorCode.REBOOTSTRAP_REQUIRED)
        assert await client._metadata_update(client.cluster, set()) is True
        assert old_1.closed and (1, 0) not in client._conns
        assert not same_2.closed and client._conns[(2, 1)] is same_2
    finally:
        client._conns.clear()
        await client.close()


async def test_the_consumer_gets_a_recovering_client_with_its_own_arguments() -> None:
    consumer = StaticConsumer(
        "t", bootstrap_servers="127.0.0.1:1", group_id="g", group_instance_id="i-0",
        client_id="mine", request_timeout_ms=7_000,
        metadata_recovery_strategy="none", metadata_recovery_rebootstrap_trigger_ms=1_000,
    )  # fmt: skip
    try:
        client = consumer._client
        assert isinstance(client, RecoveringClient)
        assert client.recovery.settings == RecoverySettings("none", 1_000)
        assert client.connection_settings["client_id"] == "mine"
        assert client.connection_settings["request_timeout_ms"] == 7_000
        assert client._topics == {"t"}  # the constructor's topics kept
    finally:
        await consumer.stop()


async def test_the_consumers_default_is_javas() -> None:
    consumer = StaticConsumer(bootstrap_servers="127.0.0.1:1", group_id="g")
    try:
        assert consumer._client.recovery.settings == RecoverySettings("rebootstrap", TRIGGER_MS)
    finally:
        await consumer.stop()
