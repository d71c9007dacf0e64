"""FastStream services on a real broker, run by FastStream's own runner (``app.run()`` in
subprocesses, ``_service.py``): a rolling restart moves nothing, a duplicated pod stops the
older holder, on the classic and the consumer protocol."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from staticconsumer.faststream._router import FATAL_EXIT_STATUS
from staticconsumer.localkafka import KafkaCluster, LocalKafkaCluster

from ..reliability._harness import PARTITIONS, Settings, rebalance_reasons
from ._scenario import duplicate_base_id, rolling_restart

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(400)]


def _settings(kafka_cluster: KafkaCluster, group: str, protocol: str,
              kind: str = "static") -> Settings:  # fmt: skip
    topics = [kafka_cluster.create_topic(f"{group}-t{i}", partitions=PARTITIONS)
              for i in (1, 2)]  # fmt: skip
    return Settings(kind, kafka_cluster.bootstrap_servers, ",".join(topics), group,
                    session_timeout_ms=30000, group_protocol=protocol)  # fmt: skip


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
async def test_rolling_restart_moves_nothing(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path,
    protocol: str,
) -> None:  # fmt: skip
    settings = _settings(kafka_cluster, unique_group_id("fs"), protocol)
    found = await rolling_restart(settings, tmp_path)
    assert (found.rebalances, found.duplicates, found.lost, found.moved) == (0, 0, 0, []), found
    if protocol == "classic" and isinstance(kafka_cluster, LocalKafkaCluster):  # its log is ours
        logs, since = kafka_cluster.logs(), found.extra["since_epoch"]
        assert rebalance_reasons(logs, settings.group, 0), "the first joins rebalanced: seen"
        assert rebalance_reasons(logs, settings.group, since) == []


@pytest.mark.parametrize(("protocol", "mid_commit"),
                         [("classic", False), ("consumer", False), ("classic", True)])  # fmt: skip
async def test_a_duplicated_pod_stops_the_older_holder(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path,
    protocol: str, mid_commit: bool,
) -> None:  # fmt: skip
    """``mid_commit`` (issue 52): the fence lands while the older's commit waits for an answer
    (held a minute): the commit ends with the fatal error at once, the older exits as fast."""
    settings = _settings(kafka_cluster, unique_group_id("fsdup"), protocol)
    found = await duplicate_base_id(settings, tmp_path, takeover=protocol == "consumer",
                                    mid_commit=mid_commit)  # fmt: skip
    extra = found.extra
    assert extra["older_exit_s"] is not None and extra["older_exit_s"] < 15, found
    assert extra["older_rc"] not in (0, None), found
    assert extra["fatal_lines"] == 1, found
    assert extra["newer_rc"] is None, found  # the newcomer and svc-1 go on
    assert found.lost == 0, found


# -- the same service as a FastAPI app (StaticKafkaRouter) under uvicorn ---------------------


async def test_a_fastapi_service_s_rolling_restart_moves_nothing(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path,
) -> None:  # fmt: skip
    """``_asgi_service``: the subscribers declared on a StaticKafkaRouter, the app run by
    uvicorn; each process stopped (SIGTERM: uvicorn's graceful shutdown, the lifespan stops
    the broker) and started again: no rebalance, nothing lost or handled twice."""
    settings = _settings(kafka_cluster, unique_group_id("fsapi"), "classic", kind="fastapi")
    found = await rolling_restart(settings, tmp_path)
    assert (found.rebalances, found.duplicates, found.lost, found.moved) == (0, 0, 0, []), found


async def test_a_duplicated_fastapi_pod_stops_the_older_and_it_exits_non_zero(
    kafka_cluster: KafkaCluster, unique_group_id: Callable[..., str], tmp_path: Path,
) -> None:  # fmt: skip
    """A twin with the same base id: the older is fenced, says so in one line, and uvicorn
    stops (SIGTERM, which uvicorn re-raises once it has stopped: the process ends killed by
    it, as a server that returns would end with status 3); the twin and the other go on."""
    settings = _settings(kafka_cluster, unique_group_id("fsapidup"), "classic", kind="fastapi")
    found = await duplicate_base_id(settings, tmp_path)
    extra = found.extra
    assert extra["older_exit_s"] is not None and extra["older_exit_s"] < 15, found
    assert extra["older_rc"] in (-signal.SIGTERM, FATAL_EXIT_STATUS), found
    assert extra["fatal_lines"] == 1, found
    assert extra["newer_rc"] is None, found
    assert found.lost == 0, found
