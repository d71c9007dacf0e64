"""FastStream services as static group members (KIP-345): ``docs/faststream.md``.

Change one line of a FastStream Kafka service::

    from staticconsumer.faststream import StaticKafkaBroker   # was: faststream.kafka.KafkaBroker

    broker = StaticKafkaBroker("kafka:9092")                    # base id: InstanceId.from_env()
    app = FastStream(broker)

    @broker.subscriber("orders", group_id="billing")            # -> <pod>-billing-orders
    async def handle(order: dict) -> None: ...

Handlers, routers, middlewares and ``TestKafkaBroker`` tests stay as they are. A FastAPI
service changes its router the same way: ``StaticKafkaRouter`` (was
``faststream.kafka.fastapi.KafkaRouter``), with the broker's keywords. Needs the
``faststream`` extra (``pip install 'staticconsumer[faststream]'``); every FastStream name
beyond its documented API is read in ``_seam`` alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..integrations import UNRELEASED_WAIT_MS
from ._broker import StaticKafkaBroker
from ._consumer import ServiceConsumer
from ._ids import SubscriberKey, derive_key

if TYPE_CHECKING:  # imported when first asked for (__getattr__): it needs FastAPI
    from ._router import StaticKafkaRouter

__all__ = ["UNRELEASED_WAIT_MS", "ServiceConsumer", "StaticKafkaBroker", "StaticKafkaRouter",
           "SubscriberKey", "derive_key"]  # fmt: skip


def __getattr__(name: str) -> object:
    """``StaticKafkaRouter`` is imported when first asked for: it needs FastAPI, which the
    ``faststream`` extra does not bring (the ``fastapi`` extra does)."""
    if name == "StaticKafkaRouter":
        from ._router import StaticKafkaRouter

        return StaticKafkaRouter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
