"""What a driver may ask of a membership engine: one typed contract for both group protocols.

:class:`Engine` is generic over the engine's vocabulary (``_io``): the inputs it takes and the
actions it gives out. :class:`~._classic.ClassicMember` (JoinGroup/SyncGroup, KIP-345/KIP-429)
is an ``Engine[ClassicInput, ClassicAction]``, :class:`~._consumer_group.ConsumerGroupMember`
(KIP-848) an ``Engine[ConsumerGroupInput, ConsumerGroupAction]``. One driver
(``staticconsumer.drivers``) holds either as an ``Engine[CommonInput, CommonAction |
SenderActionT]``: it feeds the clock and the inputs every engine takes (``poll``, ``handle``),
performs the common actions that come out and hands the rest to its protocol's sender, which
feeds that protocol's answers in. Commits and committed-offset fetches ask the engine what an
answer means (common actions only). ``mypy --strict`` checks both engines against this protocol
where the drivers are built (``drivers.classic_driver``, ``drivers.consumer_group_driver``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Never, Protocol, TypeVar

from ..options import ConsumerOptions, MembershipOperation
from ._io import CommitOutcome, CommonAction, Partitions, TopicPartition
from ._log import LogIdentity
from ._status import MembershipState


@dataclass(frozen=True)
class EngineConfig:
    """What both engines' configs hold: the consumer's options value, read by name where each
    option is used (its default, Java key and KIP: its row of ``staticconsumer.options.OPTIONS``);
    each engine's config adds only what is decided from it."""

    options: ConsumerOptions

    @property
    def group_id(self) -> str:
        return self.options.group_id or ""

    @property
    def group_instance_id(self) -> str | None:
        return self.options.group_instance_id


#: The inputs an engine takes (contravariant: an engine that takes more serves a driver that
#: feeds fewer) and the actions it gives out (covariant).
InputT_contra = TypeVar("InputT_contra", contravariant=True)
ActionT_co = TypeVar("ActionT_co", covariant=True)


class Engine(Protocol[InputT_contra, ActionT_co]):
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

    def poll(
        self, now: float, topics: Collection[str], idle_s: float = 0.0
    ) -> Sequence[ActionT_co]:
        """What is due now (find the coordinator, join, heartbeat, leave on a poll timeout)."""
        ...

    def handle(self, event: InputT_contra) -> Sequence[ActionT_co]:
        """Feed one input (``_io.ClassicInput``, ``_io.ConsumerGroupInput``); the actions it
        calls for. Every engine takes ``_io.CommonInput``."""
        ...

    def next_wakeup(self, now: float) -> float | None: ...

    def leave_prepare(self) -> Sequence[ActionT_co]:
        """Before ``close``: give the owned partitions back to the application (Java's
        ``onLeavePrepare``): revoked while the membership is valid, else lost."""
        ...

    def close(
        self, membership: MembershipOperation, reason: str | None = None
    ) -> Sequence[ActionT_co]:
        """Stop; leave the group or stay as ``membership`` says (KIP-1092; by default a static
        member stays, KIP-345), with ``reason`` on the leave (None: the default, KIP-800)."""
        ...

    def fatal(self, error: BaseException) -> None:
        """Record the exception that finished the member (after a ``BecomeFatal``)."""
        ...

    def membership_state(self, *, subscribed: bool, handing_over: bool) -> MembershipState: ...

    # -- commits and committed offsets: what an answer means ----------------------------------

    def commit_identity(self, auto_assigned: bool = True) -> tuple[int, str] | None: ...

    def commit_not_held(self, partitions: Iterable[TopicPartition]) -> Partitions:
        """Of ``partitions`` (an OffsetCommit about to be sent with :meth:`commit_identity`),
        those it must leave out: the member does not hold them at the epoch it sends (KIP-1251;
        a classic commit carries its generation, which covers every partition: none)."""
        ...

    def on_commit_answer(
        self, code: int, generation_sent: int | None = None
    ) -> tuple[CommitOutcome, Sequence[CommonAction]]: ...

    def commit_no_answer(self) -> tuple[CommitOutcome, Sequence[CommonAction]]: ...

    def offset_fetch_identity(self) -> tuple[str | None, int]: ...

    def on_offset_fetch_answer(
        self, codes: Iterable[int]
    ) -> tuple[CommitOutcome, int, Sequence[CommonAction]]: ...

    def offset_fetch_no_answer(self) -> tuple[CommitOutcome, int, Sequence[CommonAction]]: ...


#: Either engine, to a part that neither feeds it a protocol's inputs nor performs a protocol's
#: actions (the driver's mailbox, its offsets keeper): every ``Engine[...]`` is one.
AnyEngine = Engine[Never, object]
