"""Shared test setup. The Kafka fixtures come from staticconsumer's own pytest plugin
(``staticconsumer.testing.pytest_plugin``), registered through the pytest11 entry point."""

from __future__ import annotations

import logging

logging.getLogger("aiokafka").setLevel(logging.WARNING)
