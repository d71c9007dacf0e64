"""Shared test setup. The Kafka fixtures come from staticconsumer's own pytest plugin, which this
suite opts into as any user's suite does (installing the package registers no plugin)."""

from __future__ import annotations

import gc
import importlib.metadata
import logging
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests import _processes

PLUGIN = "staticconsumer.testing.pytest_plugin"

# An install made before the fixtures became opt-in still registers the plugin through a pytest11
# entry point, and pytest refuses the same module twice. Opt in only when that is not the case, so
# such a stale install fails tests/packaging (reinstall: pip install -e .) instead of every run.
# Every distribution, as pytest loads them (importlib.metadata.entry_points() keeps one per name).
if not any(
    ep.group == "pytest11" and ep.value == PLUGIN
    for dist in importlib.metadata.distributions()
    for ep in dist.entry_points
):
    pytest_plugins = [PLUGIN]

logging.getLogger("aiokafka").setLevel(logging.WARNING)

# Speed goals live in benchmarks, not in timed assertions: the property tests have no per-example
# deadline, and a machine that generates inputs slowly (loaded, or traced: PYTHONTRACEMALLOC made
# tests/assignors fail Hypothesis's too_slow health check) is not a failure. What each property
# asserts is unchanged.
settings.register_profile(
    "staticconsumer", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("staticconsumer")

#: tests/docker runs the launcher's Docker path; .ci/run runs it on its own, with a Docker engine
#: and a locally built image, by setting STATICCONSUMER_DOCKER_TESTS=1. Otherwise it is not
#: collected at all (never skipped).
collect_ignore = [] if os.environ.get("STATICCONSUMER_DOCKER_TESTS") else ["docker"]


@pytest.fixture(autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    """A worker, service or member process a harness started (``tests/_processes.py``) and the
    test left running is killed with its process group, and the test errors naming it: it
    would share the machine with every later test (issue 52)."""
    yield
    left = _processes.kill_leftovers()
    if left:
        pytest.fail(f"the test left processes running (killed now): {', '.join(left)}")


@pytest.fixture(autouse=True)
def _no_earlier_garbage_in_caplog(request: pytest.FixtureRequest) -> Iterator[None]:
    """A consumer an earlier test left unclosed is reported (``Unclosed AIOKafkaConsumer``, on the
    asyncio logger) whenever the garbage collector reaches it, possibly inside a later test that
    reads every captured record. Collect before each test that asks for ``caplog``
    (tests/harness/test_caplog_isolation.py)."""
    if "caplog" in request.fixturenames:
        gc.collect()
    yield
