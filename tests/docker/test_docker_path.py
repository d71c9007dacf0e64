"""The launcher's Docker path (step b of the broker resolution), for real.

Collected only when ``STATICCONSUMER_DOCKER_TESTS=1`` (``tests/conftest.py``): ``.ci/run`` starts a
Docker engine on a private socket, builds the Kafka image locally (``scripts/kafka_image.sh``) and
runs this module together with a smoke subset of ``tests/integration`` against the session broker,
which must then be the container (checked here, so the subset cannot pass on another broker).
"""

from __future__ import annotations

import os

from staticconsumer.localkafka import DockerCluster, KafkaCluster


def test_session_broker_is_the_container_on_the_hosts_loopback(
    kafka_cluster: KafkaCluster,
) -> None:
    assert isinstance(kafka_cluster, DockerCluster), f"not the Docker path: {kafka_cluster!r}"
    assert kafka_cluster.image == os.environ["STATICCONSUMER_KAFKA_IMAGE"]
    assert kafka_cluster.bootstrap_servers.startswith("127.0.0.1:")
    container = kafka_cluster._container.get_wrapped_container()
    container.reload()
    assert container.status == "running"
    assert container.attrs["HostConfig"]["NetworkMode"] == "host", "host networking only"
    log = kafka_cluster.container_log()
    port = kafka_cluster.bootstrap_servers.rsplit(":", 1)[1]
    assert f"advertised.listeners = [PLAINTEXT://127.0.0.1:{port}]" in log
    # The pytest plugin's broker config reached the broker through the image's KAFKA_* contract.
    assert "group.min.session.timeout.ms = 1000" in log
    assert "group.initial.rebalance.delay.ms = 0" in log
