"""Metadata recovery on aiokafka's client: :class:`RecoveringClient`, an ``AIOKafkaClient`` that
goes back to its bootstrap servers as Java's client does (KIP-899, KIP-1102; when:
:mod:`.recovery`).

aiokafka's metadata update (``AIOKafkaClient._metadata_update``, the same in 0.12, 0.13 and 0.14)
asks the brokers of the last metadata, one after another; when none answers it logs "Unable to
update metadata" and gives up until the next try, which asks the same addresses again. A cluster
whose every broker moved (a node replaced, a cluster moved behind a DNS name) is never found
again. Here that update is aiokafka's, followed by the recovery's decision; a rebootstrap:

1. connects to each bootstrap address in turn (resolved again: a DNS name may point elsewhere
   now), with the client's own connection settings (TLS, SASL), and asks it Metadata for the
   client's topics (Metadata v5, as the roster's read asks: never creating a topic);
2. takes that answer as the cluster's metadata (``ClusterMetadata.update_metadata``: the
   topics' partition counts are those of a normal update, so a leader's watch sees no change);
3. closes every connection to a broker whose address is not the one the new metadata gives (or
   that the new metadata no longer lists): the fetcher and the group requests reconnect by node
   id to the new address, and the member finds its coordinator again through it.

Each rebootstrap's first attempt is logged at WARNING with why (the bootstrap addresses, never a
setting); the attempts of the same episode at DEBUG; its end at INFO; ``on_rebootstrap`` (the
consumer's metrics) hears each one that got metadata.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from aiokafka import AIOKafkaClient
from aiokafka.conn import create_conn
from aiokafka.errors import KafkaError
from typing_extensions import override

from .features import CLIENT_ARGUMENTS, CONNECTION_VERSION_HINT
from .recovery import MetadataRecovery, RecoverySettings
from .requests import metadata_request

log = logging.getLogger(__name__)

#: The client's arguments a connection is opened with (``AIOKafkaClient.bootstrap``'s), by the
#: client's names; ``connections_max_idle_ms`` is the connection's ``max_idle_ms``.
_CONNECTION_ARGUMENTS = (
    "client_id", "request_timeout_ms", "ssl_context", "security_protocol", "sasl_mechanism",
    "sasl_plain_username", "sasl_plain_password", "sasl_kerberos_service_name",
    "sasl_kerberos_domain_name", "sasl_oauth_token_provider",
)  # fmt: skip


class RecoveringClient(AIOKafkaClient):  # type: ignore[misc]
    """``AIOKafkaClient`` with metadata recovery (module docstring). ``recovery``: the settings;
    ``on_rebootstrap(reason)``: told after each rebootstrap that got metadata. Its other
    arguments are ``AIOKafkaClient``'s."""

    def __init__(
        self, *, recovery: RecoverySettings,
        on_rebootstrap: Callable[[str], None] | None = None, **client: Any,
    ) -> None:  # fmt: skip
        super().__init__(**client)
        self.recovery = MetadataRecovery(recovery)
        self.on_rebootstrap = on_rebootstrap
        given = {**_defaults(), **client}
        self.connection_settings: dict[str, Any] = {
            name: given[name] for name in _CONNECTION_ARGUMENTS
        }
        self.connection_settings["max_idle_ms"] = given["connections_max_idle_ms"]

    def request_rebootstrap(self, error_code: int) -> None:
        """A Metadata answer's top-level error code (v13+, read by our protocol layer):
        REBOOTSTRAP_REQUIRED makes the next metadata update a rebootstrap, which starts now."""
        if self.recovery.server_requested(error_code):
            self.force_metadata_update()

    @override
    async def _metadata_update(self, cluster_metadata: Any, topics: Any) -> bool:
        requested = self.recovery.take_requested()
        if requested is not None:
            return await self._rebootstrap(cluster_metadata, topics, requested)
        ok = bool(await super()._metadata_update(cluster_metadata, topics))
        reason = self.recovery.after_update(
            ok=ok, broker_connected=self._connected_to_a_broker(), now=time.monotonic()
        )
        if reason is None:
            return ok
        return await self._rebootstrap(cluster_metadata, topics, reason)

    def _connected_to_a_broker(self) -> bool:
        """Whether a connection to a broker of the last metadata is up."""
        known = {broker.nodeId for broker in self.cluster.brokers()}
        return any(node in known and conn.connected()
                   for (node, _group), conn in list(self._conns.items()))  # fmt: skip

    async def _rebootstrap(self, cluster_metadata: Any, topics: Any, reason: str) -> bool:
        addresses = ", ".join(f"{host}:{port}" for host, port, _family in self.hosts)
        if self.recovery.attempting():
            log.warning("rebootstrap: %s; asking the bootstrap servers %s for metadata",
                        reason, addresses)  # fmt: skip
        else:
            log.debug("rebootstrap: again (%s), asking %s", reason, addresses)
        answer = await self._bootstrap_metadata(topics)
        if answer is None:
            self.recovery.rebootstrapped(ok=False)
            return False
        cluster_metadata.update_metadata(answer)
        if cluster_metadata is self.cluster:
            self._close_moved_connections()
        attempts = self.recovery.rebootstrapped(ok=True)
        log.info("rebootstrap: metadata from the bootstrap servers after %d attempt(s): "
                 "brokers %s", attempts, _brokers(self.cluster))  # fmt: skip
        if self.on_rebootstrap is not None:
            self.on_rebootstrap(reason)
        return True

    async def _bootstrap_metadata(self, topics: Any) -> Any:
        """The first answer of a bootstrap address to Metadata for ``topics`` (all when empty),
        or None when none answered with brokers."""
        request = metadata_request(sorted(topics) if topics else None)
        for host, port, _family in self.hosts:
            try:
                conn = await create_conn(host, port, **self.connection_settings)
            except (TimeoutError, OSError, KafkaError) as exc:
                log.debug("rebootstrap: %s:%s unreachable: %r", host, port, exc)
                continue
            try:
                answer = await conn.send(request)
            except (TimeoutError, KafkaError) as exc:
                log.debug("rebootstrap: %s:%s did not answer Metadata: %r", host, port, exc)
                continue
            finally:
                conn.close()
            if answer.brokers:
                return answer
        return None

    def _close_moved_connections(self) -> None:
        """Close each connection to a node the new metadata lists elsewhere, or not at all
        (the bootstrap connection aiokafka may keep included)."""
        for (node, group), conn in list(self._conns.items()):
            broker = self.cluster.broker_metadata(node) if node != "bootstrap" else None
            if broker is None or (broker.host, broker.port) != (conn.host, conn.port):
                del self._conns[(node, group)]
                conn.close()


def _defaults() -> Mapping[str, Any]:
    """``AIOKafkaClient``'s own defaults for the connection arguments."""
    return {name: CLIENT_ARGUMENTS[name]
            for name in (*_CONNECTION_ARGUMENTS, "connections_max_idle_ms")}  # fmt: skip


def _brokers(cluster: Any) -> str:
    return ", ".join(sorted(f"{b.nodeId}@{b.host}:{b.port}" for b in cluster.brokers()))


def client_arguments(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``AIOKafkaClient``'s arguments from a consumer's (``AIOKafkaConsumer.__init__``'s names,
    each given or defaulted), as ``AIOKafkaConsumer.__init__`` makes its client: ``api_version``
    only on aiokafka 0.12, which uses it (0.14 warns on it as a no-op, 0.13 lacks it)."""
    names = set(CLIENT_ARGUMENTS) - ({"api_version"} if not CONNECTION_VERSION_HINT else set())
    return {name: settings[name] for name in names if name in settings}


def install_recovering_client(
    consumer: Any, settings: Mapping[str, Any], recovery: RecoverySettings,
    on_rebootstrap: Callable[[str], None] | None = None,
) -> None:  # fmt: skip
    """Give a consumer just made (``AIOKafkaConsumer.__init__`` returned; nothing connected
    yet) a :class:`RecoveringClient` with the same arguments in place of aiokafka's client,
    the topics given to the constructor kept."""
    client = RecoveringClient(
        recovery=recovery, on_rebootstrap=on_rebootstrap, **client_arguments(settings)
    )
    subscription = consumer._subscription.subscription
    if subscription is not None and consumer._subscription.partitions_auto_assigned():
        client.set_topics(subscription.topics)
    consumer._client = client


__all__ = ["RecoveringClient", "client_arguments", "install_recovering_client"]
