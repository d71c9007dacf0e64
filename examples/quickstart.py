"""The quickstart's consumer (docs/quickstart.md): read a topic as a static group member, commit
after each record, and stop on SIGTERM or Ctrl-C without leaving the group, so a restart within
``session.timeout.ms`` gets the same partitions back with no rebalance.

    python examples/quickstart.py --bootstrap-server HOST:PORT --topic T --group G
        [--instance-id ID] [--command-config client.properties] [--max-records N]

Without ``--bootstrap-server`` it reads ``KAFKA_BOOTSTRAP_SERVERS``; without ``--instance-id``,
``InstanceId.from_env()`` (``STATICCONSUMER_INSTANCE_ID``, then ``POD_NAME``, then
``HOSTNAME``). With ``--max-records N`` it exits after N records (the test in
tests/examples/test_quickstart.py does).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from typing import Any

from staticconsumer import InstanceId, SecuritySettings, StaticConsumer


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--bootstrap-server", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"),
        metavar="HOST:PORT[,...]", help="default: $KAFKA_BOOTSTRAP_SERVERS",
    )  # fmt: skip
    parser.add_argument("--topic", default="quickstart")
    parser.add_argument("--group", default="quickstart", help="the consumer group id")
    parser.add_argument("--instance-id", help="group.instance.id (default: InstanceId.from_env())")
    parser.add_argument(
        "--command-config", metavar="FILE",
        help="Java client properties with the security settings (docs/security.md)",
    )  # fmt: skip
    parser.add_argument("--max-records", type=int, default=0, help="exit after N (0: never)")
    args = parser.parse_args(argv)
    if not args.bootstrap_server:
        parser.error("give --bootstrap-server or set KAFKA_BOOTSTRAP_SERVERS")
    return args


async def consume(consumer: StaticConsumer, max_records: int) -> int:
    """Print and commit each record; return how many were read."""
    count = 0
    async for record in consumer:
        print(f"{record.topic}[{record.partition}]@{record.offset} "
              f"key={record.key!r} value={record.value!r}", flush=True)  # fmt: skip
        await consumer.commit()  # commit after processing: at-least-once
        count += 1
        if count == max_records:
            break
    return count


async def main(args: argparse.Namespace) -> None:
    security: dict[str, Any] = {}
    if args.command_config:
        security = SecuritySettings.from_properties(args.command_config).aiokafka_kwargs()
    consumer = StaticConsumer(
        args.topic,
        bootstrap_servers=args.bootstrap_server,
        group_id=args.group,
        group_instance_id=args.instance_id or InstanceId.from_env(),
        session_timeout_ms=60_000,  # a restart shorter than this moves no partition
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        **security,
    )
    async with consumer:  # start(); stop() on the way out, which sends no LeaveGroup
        consuming = asyncio.create_task(consume(consumer, args.max_records))
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, consuming.cancel)
        await asyncio.wait([consuming])  # until --max-records, a signal or an error
        why = "a signal" if consuming.cancelled() else f"{consuming.result()} records"
        joined = consumer.membership  # consuming.result() raised if consuming failed
        print(f"stopping after {why}: instance id {consumer.group_instance_id}, "
              f"member id {joined.member_id}, generation {joined.generation_id}",
              file=sys.stderr, flush=True)  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
