"""The classic-protocol driver: performs what :class:`~staticconsumer.membership.ClassicMember`
asks, over aiokafka's connections (through :mod:`staticconsumer._compat`), and feeds the answers
back (the shared part is ``_driver_base``). It holds no policy: when to join, heartbeat, re-join,
give up or fail is the engine's.

One coordination task per consumer runs the loop: find the coordinator, join when the engine says
a join is due, heartbeat when one is due, auto-commit on its interval, sleep until the next of
those or until something wakes it (metadata change, enforced rebalance, subscription change,
close). ``commit()`` and ``committed()`` run on the caller's task and share the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from typing_extensions import override

from .. import _compat
from .._observability.emitter import EventEmitter
from ..errors import StaticConsumerError
from ..membership import (
    ClassicMember,
    CoordinatorFound,
    JoinRequested,
    MemberConfig,
    MembershipState,
    RebalanceProtocol,
    classic_state,
)
from ..membership._reasons import JOIN_REASON_METADATA_CHANGED, JOIN_REASON_SUBSCRIPTION_CHANGED
from ..protocol import (
    GroupApiVersions,
)
from ._classic_actions import ClassicActions

log = logging.getLogger("staticconsumer")

FatalCallback = Callable[[StaticConsumerError], None]


class ClassicDriver(ClassicActions):
    """Drives one :class:`ClassicMember` (module docstring)."""

    def __init__(
        self,
        seam: _compat.ClientSeam,
        versions: GroupApiVersions,
        *,
        group_id: str,
        group_instance_id: str | None,
        client_id: str,
        client_rack: str | None,
        assignors: Sequence[Any],
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        rebalance_timeout_ms: int,
        max_poll_interval_ms: int,
        retry_backoff_ms: int,
        enable_auto_commit: bool,
        auto_commit_interval_ms: int,
        on_fatal: FatalCallback,
        events: EventEmitter | None,
    ) -> None:
        cooperative = all("cooperative" in a.supported_protocols for a in assignors)
        protocol = RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER
        member = ClassicMember(
            MemberConfig(group_id, group_instance_id, session_timeout_ms, heartbeat_interval_ms,
                         max_poll_interval_ms, protocol)
        )  # fmt: skip
        super().__init__(
            member, seam, versions, client_rack=client_rack, assignors=assignors,
            session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=rebalance_timeout_ms,
            client_id=client_id, retry_backoff_ms=retry_backoff_ms,
            enable_auto_commit=enable_auto_commit, auto_commit_interval_ms=auto_commit_interval_ms,
            on_fatal=on_fatal, events=events,
        )  # fmt: skip

    @property
    def is_leader(self) -> bool:
        return self.member.is_leader

    def membership_state(self) -> MembershipState:
        """The engine's state as the application sees it (``membership._status``); a
        coordination loop that died counts as failed."""
        if self._loop_failed():
            return MembershipState.FAILED
        current = self.seam.current_subscription()
        return classic_state(
            self.member.state, self.member.generation_id,
            subscribed=current is not None and current.active and self.seam.auto_assigned(),
            handing_over=self._handing_over, fenced=self._fenced,
        )  # fmt: skip

    @override
    def _coordinator_found(self, node_id: int) -> None:
        self.member.handle(CoordinatorFound(node_id))

    def on_metadata_change(self) -> None:
        self.request_join(JOIN_REASON_METADATA_CHANGED)

    def request_join(self, reason: str, *, enforced: bool = False) -> None:
        self.run_now(self.member.handle(JoinRequested(reason, enforced=enforced)))
        self._wake.set()

    def enforce_rebalance(self, reason: str) -> None:
        self.request_join(reason, enforced=True)

    # -- the coordination loop --------------------------------------------------------------------

    @override
    def _poll_engine(self, now: float, topics: Any) -> list[Any]:
        return list(self.member.poll(now, self.seam.idle_seconds(), topics))

    @override
    def _subscription_changed(self) -> None:
        self.member.handle(JoinRequested(JOIN_REASON_SUBSCRIPTION_CHANGED))

    @override
    def _leave_actions(self) -> list[Any]:
        return list(self.member.close(self.leave_reason))
