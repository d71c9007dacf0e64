"""FastStream services as static group members (KIP-345): ``docs/faststream.md``.

Change one line of a FastStream Kafka service::

    from staticconsumer.faststream import StaticKafkaBroker   # was: faststream.kafka.KafkaBroker

    broker = StaticKafkaBroker("kafka:9092")                    # base id: InstanceId.from_env()
    app = FastStream(broker)

    @broker.subscriber("orders", group_id="billing")            # -> <pod>-billing-orders
    async def handle(order: dict) -> None: ...

Handlers, routers, middlewares and ``TestKafkaBroker`` tests stay as they are. Needs the
``faststream`` extra (``pip install 'staticconsumer[faststream]'``); every FastStream name
beyond its documented API is read in ``_seam`` alone.
"""

from __future__ import annotations

from ..integrations import UNRELEASED_WAIT_MS
from ._broker import StaticKafkaBroker
from ._consumer import ServiceConsumer
from ._ids import SubscriberKey, derive_key

__all__ = ["UNRELEASED_WAIT_MS", "ServiceConsumer", "StaticKafkaBroker", "SubscriberKey",
           "derive_key"]  # fmt: skip
