"""The app's settings (one object, built from the command line)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from staticconsumer import InstanceId

#: The group protocols a thread can join with (``membership.py``).
GROUP_PROTOCOLS = ("classic", "consumer", "streams")


@dataclass(frozen=True)
class AppConfig:
    bootstrap_servers: str
    group: str
    instance_base: str
    threads: int
    state_dir: Path
    input_topic: str
    output_topic: str
    changelog_topic: str
    dynamic: bool = False
    session_timeout_ms: int = 30_000
    heartbeat_interval_ms: int = 1_000
    events_topic: str | None = None
    max_records: int = 500
    health_port: int | None = None  # one /readyz and /livez for every stream thread
    health_host: str | None = None
    #: ``classic``, ``consumer`` (KIP-848) or ``streams`` (KIP-1071): ``membership.py``.
    group_protocol: str = "classic"

    def __post_init__(self) -> None:
        if self.group_protocol not in GROUP_PROTOCOLS:
            raise ValueError(f"--group-protocol must be one of {', '.join(GROUP_PROTOCOLS)}, "
                             f"got {self.group_protocol!r}")  # fmt: skip
        if self.threads < 1:
            raise ValueError(f"--threads must be at least 1, got {self.threads}")
        InstanceId.validate(self.instance_base, field="--instance-base")
        if self.health_port is None and self.health_host is not None:
            raise ValueError("--health-host needs --health-port")
        if self.health_port is not None and not 0 <= self.health_port <= 65535:
            raise ValueError(f"--health-port must be from 0 to 65535, got {self.health_port}")

    def thread_name(self, n: int) -> str:
        """``<base>-thread-<n>`` (``<base>-<n+1>`` in a streams group, as Java's Kafka Streams
        names its threads): the thread's group.instance.id when static, and the name of its
        state directory in both modes (so a restart finds its state again)."""
        if self.group_protocol == "streams":
            return InstanceId.validate(f"{self.instance_base}-{n + 1}")
        return InstanceId.for_thread(self.instance_base, n)

    def instance_id(self, n: int) -> str | None:
        return None if self.dynamic else self.thread_name(n)
