"""``StaticKafkaRouter``: FastStream's FastAPI ``KafkaRouter`` with :class:`StaticKafkaBroker`
underneath (``docs/faststream.md``, "FastAPI"). Needs FastAPI beside the ``faststream`` extra
(``pip install 'staticconsumer[fastapi]'``)."""

from __future__ import annotations

import atexit
import functools
import logging
import os
import signal
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

with warnings.catch_warnings():  # FastStream 0.7 announces the move of this integration to
    warnings.simplefilter("ignore", DeprecationWarning)  # faststream_fastapi: ours to follow
    from faststream.kafka.fastapi import KafkaRouter

from ..events import MembershipEvent
from ..integrations import UNRELEASED_WAIT_MS
from . import _seam
from ._broker import StaticKafkaBroker

log = logging.getLogger(__name__)

#: The process's exit status after a fatal subscriber stopped the ASGI server (FENCED_INSTANCE_ID:
#: another process took the id), so that an orchestrator sees the service failed.
FATAL_EXIT_STATUS = 3


class StaticKafkaRouter(KafkaRouter):
    """``faststream.kafka.fastapi.KafkaRouter`` whose broker is a :class:`StaticKafkaBroker`.
    Every ``KafkaRouter`` argument works; the broker's own keywords (``instance_id``,
    ``group_protocol``, ``group_remote_assignor``, ``instance_takeover``,
    ``partition_assignment_strategy``, ``health_port``/``health_host``, ``on_event``,
    ``consumer_options``, ``unreleased_wait_ms``) mean what they mean there, and are checked
    the same way: each subscriber when declared, all of them at start (the FastAPI lifespan).

    ``exit_status_on_fatal``: a fatal subscriber (fenced by a twin, or refused past
    ``unreleased_wait_ms``) logs one line and stops its subscribers, as the broker does; then
    the router asks the ASGI server to stop (SIGTERM to this process: uvicorn, hypercorn and
    gunicorn workers stop gracefully on it; the lifespan stops the broker, which raises the
    error). A server that then returns ends the process with this status (default
    :data:`FATAL_EXIT_STATUS`); uvicorn (0.29 and later) re-raises the SIGTERM it stopped on,
    so its process ends killed by SIGTERM (status 143 in a shell, -15 to Python), never 0.
    None: neither, for a router run in-process (FastAPI's ``TestClient``);
    ``router.broker.fatal_error`` says what happened.
    """

    broker: StaticKafkaBroker

    def __init__(
        self,
        bootstrap_servers: str | Sequence[str] = "localhost",
        *,
        instance_id: str | None = None,
        group_protocol: str = "classic",
        group_remote_assignor: str | None = None,
        instance_takeover: bool | None = None,
        partition_assignment_strategy: Any = None,
        health_port: int | None = None,
        health_host: str | None = None,
        on_event: Callable[[MembershipEvent], object] | None = None,
        consumer_options: Mapping[str, Any] | None = None,
        unreleased_wait_ms: int = UNRELEASED_WAIT_MS,
        exit_status_on_fatal: int | None = FATAL_EXIT_STATUS,
        **kwargs: Any,
    ) -> None:
        _seam.check_version()
        ours = dict(instance_id=instance_id, group_protocol=group_protocol,
                    group_remote_assignor=group_remote_assignor,
                    instance_takeover=instance_takeover,
                    partition_assignment_strategy=partition_assignment_strategy,
                    health_port=health_port, health_host=health_host, on_event=on_event,
                    consumer_options=consumer_options,
                    unreleased_wait_ms=unreleased_wait_ms)  # fmt: skip
        _seam.use_broker_factory(self, functools.partial(StaticKafkaBroker, **ours))
        super().__init__(bootstrap_servers, **kwargs)
        self._exit_status = exit_status_on_fatal
        if exit_status_on_fatal is not None:
            self.broker.after_fatal = self._stop_the_server
            self.broker.fatal_ends = (f"stopping the ASGI server (the process then exits with "
                                      f"status {exit_status_on_fatal})")  # fmt: skip
        else:
            self.broker.fatal_ends = "stopping the router's subscribers (the server runs on)"

    def _stop_the_server(self) -> None:
        """After a fatal subscriber: the ASGI server stops gracefully (its lifespan stops the
        broker, which raises the error), then the process exits non-zero."""
        status = self._exit_status
        assert status is not None
        log.info("SIGTERM to process %d: the ASGI server stops gracefully", os.getpid())
        atexit.register(_exit_with, status)
        signal.raise_signal(signal.SIGTERM)


def _exit_with(status: int) -> None:
    """The last exit hook: the server has stopped and returned; end with ``status``."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
