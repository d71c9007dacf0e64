"""Shared test setup. The Kafka fixtures come from staticconsumer's own pytest plugin, which this
suite opts into as any user's suite does (installing the package registers no plugin)."""

from __future__ import annotations

import logging
import os

pytest_plugins = ["staticconsumer.testing.pytest_plugin"]

logging.getLogger("aiokafka").setLevel(logging.WARNING)

#: tests/docker runs the launcher's Docker path; .ci/run runs it on its own, with a Docker engine
#: and a locally built image, by setting STATICCONSUMER_DOCKER_TESTS=1. Otherwise it is not
#: collected at all (never skipped).
collect_ignore = [] if os.environ.get("STATICCONSUMER_DOCKER_TESTS") else ["docker"]
