# FastStream's own Kafka tests (tests/brokers/kafka, marker "kafka") against the broker our pytest
# plugin starts (scripts/faststream_suite.sh), with StaticKafkaBroker swapped in for FastStream's
# KafkaBroker when SWAP=1. FastStream's tests reach Kafka at localhost:9092 (their Settings, and
# clients made with no address): a bootstrap relay listens there and forwards to our broker,
# whose metadata then points the clients at its own port.
import asyncio
import os
import socket
import threading

import pytest

pytest_plugins = ["staticconsumer.testing.pytest_plugin"]

if os.environ.get("SWAP") == "1":
    import faststream.kafka
    import faststream.kafka.broker

    from staticconsumer.faststream import StaticKafkaBroker

    swapped = StaticKafkaBroker
    if os.environ.get("SESSION_TIMEOUT_MS"):  # the remedy docs/faststream.md gives for tests

        class ShortSessionBroker(StaticKafkaBroker):
            def __init__(self, *args, **kwargs):
                options = {"session_timeout_ms": int(os.environ["SESSION_TIMEOUT_MS"])}
                kwargs["consumer_options"] = {**options, **kwargs.get("consumer_options", {})}
                super().__init__(*args, **kwargs)

        swapped = ShortSessionBroker
    faststream.kafka.KafkaBroker = swapped
    faststream.kafka.broker.KafkaBroker = swapped
    # FastStream's FastAPI router (its tests import it from faststream.kafka.fastapi): ours, with
    # the same broker underneath (the session remedy too).
    import faststream.kafka.fastapi

    from staticconsumer.faststream import StaticKafkaRouter

    class SwappedRouter(StaticKafkaRouter):
        def __init__(self, *args, **kwargs):
            if os.environ.get("SESSION_TIMEOUT_MS"):
                options = {"session_timeout_ms": int(os.environ["SESSION_TIMEOUT_MS"])}
                kwargs["consumer_options"] = {**options, **kwargs.get("consumer_options", {})}
            super().__init__(*args, exit_status_on_fatal=None, **kwargs)

    faststream.kafka.fastapi.KafkaRouter = SwappedRouter
    # The base of every subscriber's instance id (a pod name in production).
    os.environ.setdefault("STATICCONSUMER_INSTANCE_ID", "faststream-suite-0")

RELAY_PORT = 9092


class _Relay(threading.Thread):
    """localhost:9092 -> the test broker, one TCP pipe per connection."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(daemon=True)
        self.target = (host, port)
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.failure = None

    def run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            hosts = ["127.0.0.1"] + (["::1"] if _has_ipv6() else [])
            self.server = self.loop.run_until_complete(
                asyncio.start_server(self._pipe, host=hosts, port=RELAY_PORT)
            )
        except OSError as exc:
            self.failure = exc
            self.ready.set()
            return
        self.ready.set()
        self.loop.run_forever()

    async def _pipe(self, reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            _copy(reader, up_writer), _copy(up_reader, writer), return_exceptions=True
        )

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


async def _copy(reader, writer) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


def _has_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.fixture(scope="session", autouse=True)
def _kafka_at_localhost_9092(kafka_cluster):
    host, port = kafka_cluster.bootstrap_servers.split(",")[0].rsplit(":", 1)
    relay = _Relay(host, int(port))
    relay.start()
    relay.ready.wait(10)
    if relay.failure is not None:
        pytest.fail(
            f"localhost:{RELAY_PORT} is taken ({relay.failure}): FastStream's tests need it free",
            pytrace=False,
        )
    yield
    relay.stop()
