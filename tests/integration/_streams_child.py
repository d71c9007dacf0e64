"""A stream thread in a process of its own, for the streams-group tests that freeze one
(SIGSTOP): ``python -m tests.integration._streams_child BOOTSTRAP GROUP TOPIC INSTANCE PROCESS``.
Prints one JSON line when it holds its first assignment, one per record batch it reads
(``{"ev": "read", "n": ...}``), and one with the error that ends it; exits 3 on a fatal error,
0 on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import signal
import sys

from staticconsumer import StaticConsumer

from .test_streams_group import topology


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


async def main(bootstrap: str, group: str, topic: str, instance: str, process: str) -> int:
    consumer = StaticConsumer(
        bootstrap_servers=bootstrap, group_id=group, group_instance_id=instance,
        group_protocol="streams", streams_topology=topology(topic), streams_process_id=process,
        auto_offset_reset="earliest",
    )  # fmt: skip
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await consumer.start()
    say(ev="started", epoch=consumer.generation_id,
        tasks=sorted(consumer.streams.tasks.active) if consumer.streams else [])  # fmt: skip
    try:
        while not stop.is_set():
            batches = await consumer.getmany(timeout_ms=200)
            if batches:
                say(ev="read", n=sum(len(b) for b in batches.values()))
    except Exception as exc:
        say(ev="fatal", error=type(exc).__name__, message=str(exc))
        await consumer.stop()
        return 3
    await consumer.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:6])))
