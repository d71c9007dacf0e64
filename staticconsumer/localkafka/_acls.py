"""Creating ACLs on a secured local cluster (CreateAcls, API key 30), as its super user.

aiokafka's admin client has no ACL calls, so this sends CreateAcls (one ACL binding per request)
over a bare client, through the seam (``staticconsumer._compat.tooling``). Used by the launcher
to grant its ``app`` users access, and by tests to give a principal exactly the permissions a
case needs.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiokafka import AIOKafkaClient

from .._compat.tooling import AclBinding, create_acl
from ..protocol import error_name
from ..security import SecuritySettings
from .errors import LocalKafkaError

# Kafka's enum codes (org.apache.kafka.common.resource / acl).
RESOURCE_TYPES = {"topic": 2, "group": 3, "cluster": 4, "transactional_id": 5}
PATTERN_TYPES = {"literal": 3, "prefixed": 4}
OPERATIONS = {
    "all": 2, "read": 3, "write": 4, "create": 5, "delete": 6, "alter": 7, "describe": 8,
    "cluster_action": 9, "describe_configs": 10, "alter_configs": 11, "idempotent_write": 12,
}  # fmt: skip
ALLOW = 3


@dataclass(frozen=True)
class Acl:
    """Allow ``principal`` (``"User:app"``) ``operation`` on a resource from any host.
    ``name="*"`` with the literal pattern is Kafka's wildcard: every resource of that type."""

    principal: str
    resource_type: str
    name: str
    operation: str = "all"
    pattern: str = "literal"


def full_access(user: str) -> list[Acl]:
    """ALL on every topic and group, DESCRIBE on the cluster."""
    principal = f"User:{user}"
    return [
        Acl(principal, "topic", "*"),
        Acl(principal, "group", "*"),
        Acl(principal, "cluster", "kafka-cluster", "describe"),
    ]


async def create_acls(
    bootstrap: str, security: SecuritySettings, acls: list[Acl], *, timeout_s: float = 30.0
) -> None:
    """Create every binding in ``acls``; raises :class:`LocalKafkaError` naming a refused one."""
    client = AIOKafkaClient(
        bootstrap_servers=bootstrap, request_timeout_ms=int(timeout_s * 1000),
        client_id="staticconsumer-acls", **security.aiokafka_kwargs(),
    )  # fmt: skip
    await asyncio.wait_for(client.bootstrap(), timeout_s)
    try:
        node_id = client.get_random_node()
        for acl in acls:
            binding = AclBinding(
                RESOURCE_TYPES[acl.resource_type], acl.name, PATTERN_TYPES[acl.pattern],
                acl.principal, "*", OPERATIONS[acl.operation], ALLOW,
            )  # fmt: skip
            answers = await asyncio.wait_for(create_acl(client, node_id, binding), timeout_s)
            for code, message in answers:
                if code:
                    raise LocalKafkaError(
                        f"CreateAcls {acl} failed: {error_name(code)} ({message})"
                    )
    finally:
        await client.close()
