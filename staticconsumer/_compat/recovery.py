"""When a client goes back to its bootstrap servers: Java's metadata recovery (KIP-899,
KIP-1102), decided without I/O (no asyncio, no aiokafka: fed outcomes and times, it answers
"rebootstrap now, because ..." or nothing). :mod:`.rebootstrap` runs it on aiokafka's client.

Java's client (``NetworkClient``, ``Metadata``; ``metadata.recovery.strategy=rebootstrap``, the
default since Kafka 4.0) repeats its bootstrap with ``bootstrap.servers``:

* when none of the brokers it knows can be reached (KIP-899): here, a metadata update that no
  known broker answered while no connection to one is up;
* when metadata could not be refreshed from any known broker for
  ``metadata.recovery.rebootstrap.trigger.ms`` (KIP-1102, 300 000 by default): counted from the
  first failed update since the last good one;
* when a broker answers Metadata with REBOOTSTRAP_REQUIRED (129, Metadata v13+, KIP-1102).

With ``metadata.recovery.strategy=none`` nothing of this happens: the client keeps asking the
brokers it last saw (aiokafka's own behaviour). A rebootstrap that reaches no bootstrap server
leaves the episode open: the next failed update tries again, and the first line of an episode
is the one logged at WARNING (:attr:`MetadataRecovery.episode_attempts`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..options import BY_NAME, NO_RECOVERY, REBOOTSTRAP, check_value
from ..protocol import ErrorCode

__all__ = [
    "NO_BROKER_REACHABLE",
    "REBOOTSTRAP_REQUIRED",
    "TRIGGER_ELAPSED",
    "MetadataRecovery",
    "RecoverySettings",
]

#: Why a rebootstrap happens (the log line and the metric's reason say it).
NO_BROKER_REACHABLE = "none of the brokers in the last metadata could be reached (KIP-899)"
TRIGGER_ELAPSED = (
    "metadata could not be refreshed for {ms} ms "
    "(metadata_recovery_rebootstrap_trigger_ms, KIP-1102)"
)
REBOOTSTRAP_REQUIRED = "a broker answered Metadata with REBOOTSTRAP_REQUIRED (129, KIP-1102)"


@dataclass(frozen=True)
class RecoverySettings:
    """``metadata_recovery_strategy`` and ``metadata_recovery_rebootstrap_trigger_ms``, checked
    by their rows of :data:`staticconsumer.options.OPTIONS`."""

    strategy: str = BY_NAME["metadata_recovery_strategy"].default
    rebootstrap_trigger_ms: int = BY_NAME["metadata_recovery_rebootstrap_trigger_ms"].default

    def __post_init__(self) -> None:
        check_value("metadata_recovery_strategy", self.strategy, optional=False)
        check_value("metadata_recovery_rebootstrap_trigger_ms", self.rebootstrap_trigger_ms,
                    optional=False)  # fmt: skip
        object.__setattr__(self, "strategy", self.strategy.lower())

    @property
    def rebootstraps(self) -> bool:
        return self.strategy == REBOOTSTRAP


#: No recovery: aiokafka's behaviour (the tests' "before").
NONE = RecoverySettings(NO_RECOVERY)


class MetadataRecovery:
    """One client's recovery state. Times are seconds on a monotonic clock, given by the caller.

    :meth:`after_update` is told each metadata update's outcome and answers a reason to
    rebootstrap now, or None; :meth:`server_requested` notes a REBOOTSTRAP_REQUIRED answer,
    which :meth:`take_requested` hands to the next update; :meth:`rebootstrapped` closes an
    episode when the bootstrap servers answered."""

    def __init__(self, settings: RecoverySettings) -> None:
        self.settings = settings
        #: When updates began failing (Java's ``metadataAttemptStartMs``); None after a success.
        self.failing_since: float | None = None
        #: Rebootstraps tried in the open episode (0: none open).
        self.episode_attempts = 0
        #: Rebootstraps that got metadata from a bootstrap server, since the client was made.
        self.total = 0
        self._requested: str | None = None

    def after_update(self, *, ok: bool, broker_connected: bool, now: float) -> str | None:
        """A metadata update ended: ``ok`` (metadata came), ``broker_connected`` (a connection
        to a broker of the last metadata is up after it). The reason to rebootstrap, or None."""
        if ok:  # the known brokers answer again: an open episode ends without a rebootstrap
            self.failing_since = None
            self.episode_attempts = 0
            return None
        if self.failing_since is None:
            self.failing_since = now
        if not self.settings.rebootstraps:
            return None
        if not broker_connected:
            return NO_BROKER_REACHABLE
        trigger_ms = self.settings.rebootstrap_trigger_ms
        if (now - self.failing_since) * 1000 >= trigger_ms:
            return TRIGGER_ELAPSED.format(ms=trigger_ms)
        return None

    def server_requested(self, error_code: int) -> bool:
        """A Metadata answer's top-level ``error_code``: True (and a rebootstrap is owed to the
        next update) when it is REBOOTSTRAP_REQUIRED and the strategy rebootstraps."""
        if error_code != ErrorCode.REBOOTSTRAP_REQUIRED or not self.settings.rebootstraps:
            return False
        self._requested = REBOOTSTRAP_REQUIRED
        return True

    def take_requested(self) -> str | None:
        """The rebootstrap a broker asked for, once."""
        requested, self._requested = self._requested, None
        return requested

    def attempting(self) -> bool:
        """A rebootstrap begins: True when it is the first of its episode (log it loudly)."""
        self.episode_attempts += 1
        return self.episode_attempts == 1

    def rebootstrapped(self, *, ok: bool) -> int:
        """The rebootstrap ended; ``ok``: a bootstrap server answered with metadata. Returns the
        attempts the episode took (0 while it stays open)."""
        if not ok:
            return 0
        attempts, self.episode_attempts = self.episode_attempts, 0
        self.failing_since = None
        self.total += 1
        return attempts
