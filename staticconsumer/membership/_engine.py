"""What a driver may ask of a membership engine: one typed contract for both group protocols.

:class:`~._classic.ClassicMember` (JoinGroup/SyncGroup, KIP-345/KIP-429) and
:class:`~._consumer_group.ConsumerGroupMember` (KIP-848) both satisfy :class:`Engine` with the
same signatures, so one driver (``staticconsumer.drivers``) holds either: it feeds the clock and
the answers in (``poll``, ``handle``) and performs the actions that come out; commits and
committed-offset fetches ask the engine what an answer means. ``mypy --strict`` checks both
engines against this protocol where the drivers are built (``drivers.classic_driver`` and
``drivers.consumer_group_driver`` hand their engine to a ``Driver``, which takes an ``Engine``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol

from ._io import Action, CommitOutcome, Partitions
from ._log import LogIdentity
from ._status import MembershipState


class EngineConfig(Protocol):
    """The part of an engine's configuration a driver reads."""

    @property
    def group_id(self) -> str: ...

    @property
    def group_instance_id(self) -> str | None: ...


class Engine(Protocol):
    """A group member's state machine, without I/O (module docstring)."""

    @property
    def config(self) -> EngineConfig: ...

    @property
    def identity(self) -> LogIdentity:
        """Who the member is in log lines (``_log``): the driver and its parts log as it."""
        ...

    @property
    def member_id(self) -> str: ...

    @property
    def generation_id(self) -> int:
        """The classic generation, or the consumer protocol's member epoch."""
        ...

    @property
    def owned(self) -> Partitions: ...

    @property
    def coordinator(self) -> int | None: ...

    @property
    def fatal_error(self) -> BaseException | None: ...

    @property
    def terminal(self) -> bool:
        """Finished (fatal or closed): nothing more is sent."""
        ...

    @property
    def in_group(self) -> bool:
        """A member of its group (readiness, ``_status``)."""
        ...

    def poll(self, now: float, topics: Collection[str], idle_s: float = 0.0) -> Sequence[Any]:
        """What is due now (find the coordinator, join, heartbeat, leave on a poll timeout)."""
        ...

    def handle(self, event: Any) -> Sequence[Any]:
        """Feed one input (``_io.Input``, or the KIP-848 engine's ``ConsumerGroupInput``); the
        actions it calls for. Every engine takes ``_io.CoordinatorFound``."""
        ...

    def next_wakeup(self, now: float) -> float | None: ...

    def leave_prepare(self) -> Sequence[Any]:
        """Before ``close``: give the owned partitions back to the application (Java's
        ``onLeavePrepare``): revoked while the membership is valid, else lost."""
        ...

    def close(self, leave_reason: str | None) -> Sequence[Any]:
        """Stop; leave the group for good when ``leave_reason`` is given (a static member that
        only stops stays, KIP-345)."""
        ...

    def fatal(self, error: BaseException) -> None:
        """Record the exception that finished the member (after a ``BecomeFatal``)."""
        ...

    def membership_state(self, *, subscribed: bool, handing_over: bool) -> MembershipState: ...

    # -- commits and committed offsets: what an answer means ----------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None: ...

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, Sequence[Action]]: ...

    def commit_no_answer(self) -> tuple[CommitOutcome, Sequence[Action]]: ...

    def offset_fetch_identity(self) -> tuple[str | None, int]: ...

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, Sequence[Action]]: ...

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, Sequence[Action]]: ...


