"""``group_protocol="auto"`` (issue 51): the consumer protocol (KIP-848) where the broker offers
it and the options allow it, else the classic protocol, decided once at ``start()`` from the
broker's ApiVersions and said once in the log and on the consumer
(``consumer.group_protocol``, ``consumer.group_protocol_reason``).

The options are checked at construction as the classic protocol's; :class:`AutoProtocol` holds
the value each protocol would run with. The options that only the classic protocol takes
(:func:`staticconsumer.options.classic_only_given`) decide for it before any broker is asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UnsupportedBrokerError
from ..options import CLASSIC, CONSUMER, ConsumerOptions, classic_only_given
from ..protocol import GroupApiVersions


@dataclass(frozen=True)
class AutoProtocol:
    """The two values ``"auto"`` chooses between, and why it must be classic (None: the
    broker decides)."""

    classic: ConsumerOptions
    consumer: ConsumerOptions | None
    why_classic: str | None

    @classmethod
    def of(cls, options: ConsumerOptions, given: Mapping[str, Any]) -> AutoProtocol:
        """From the options checked as the classic protocol's and the keywords given."""
        classic = dataclasses.replace(options, group_protocol=CLASSIC, instance_takeover=False)
        only = classic_only_given(given)
        if only:
            why = (f"{', '.join(only)} {'was' if len(only) == 1 else 'were'} given, which only "
                   "the classic protocol takes")  # fmt: skip
            return cls(classic, None, why)
        consumer = dataclasses.replace(options, group_protocol=CONSUMER,
                                       partition_assignment_strategy=())  # fmt: skip
        return cls(classic, consumer, None)

    def choose(self, versions: GroupApiVersions) -> tuple[ConsumerOptions, str]:
        """The value to run with, and why (a sentence for the log)."""
        if self.consumer is None:
            return self.classic, f"classic: {self.why_classic}"
        try:
            chosen = versions.for_consumer_protocol()
        except UnsupportedBrokerError as exc:
            return self.classic, f"classic: the broker has no consumer protocol ({exc})"
        return self.consumer, (
            "consumer: the broker offers it (ConsumerGroupHeartbeat "
            f"v{chosen.consumer_group_heartbeat}, Metadata v{chosen.metadata}) and no option "
            "given needs the classic protocol"
        )
