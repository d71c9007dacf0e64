"""A cluster's finalized features (KIP-584), from ApiVersions v3: which group protocols its
group coordinator runs, asked once at start by a member of the consumer or streams protocol.

From Kafka 4.0 a broker announces ConsumerGroupHeartbeat whatever the cluster's ``group.version``,
and StreamsGroupHeartbeat (4.2) whatever its ``streams.version``; at level 0 the coordinator
answers every heartbeat UNSUPPORTED_VERSION (measured on 4.4.0, a cluster formatted with
``group.version=0``, as one upgraded from 3.x keeps until ``kafka-features.sh upgrade``). The
finalized levels say so before the first heartbeat, so that ``group_protocol="auto"`` chooses
the classic protocol there and ``"consumer"`` / ``"streams"`` are refused in one sentence.

==================  ===  ========  ========  ==============================================
API                 key  versions  flexible  notes
==================  ===  ========  ========  ==============================================
ApiVersions         18   3         3+        the features are tagged fields: 1 the finalized
                                             epoch (-1: unknown), 2 the finalized features;
                                             the *response* header stays v0 (no tagged
                                             fields), as for every ApiVersions version
==================  ===  ========  ========  ==============================================

Source: Kafka's ``ApiVersionsRequest.json`` / ``ApiVersionsResponse.json`` (kafka-clients
4.4.0). v3 is what every broker since Kafka 2.4 answers; an older one is never asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from io import BytesIO
from types import MappingProxyType
from typing import Any

from staticconsumer.errors import ProtocolError, UnsupportedBrokerError
from staticconsumer.protocol._api_versions import FEATURES_API_VERSION as FEATURES_API_VERSION
from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._types import Int16, Int64
from staticconsumer.protocol._wire import PinnedRequest, Wire

#: The tags of the two features fields we read.
_FINALIZED_EPOCH_TAG = 1
_FINALIZED_FEATURES_TAG = 2

#: KIP-848's feature: 1 and up, the group coordinator runs the consumer protocol.
GROUP_VERSION = "group.version"
#: KIP-1071's feature: 1 and up, the group coordinator runs streams groups.
STREAMS_VERSION = "streams.version"

_W = Wire(flexible=True)
_FINALIZED = _W.array(("name", _W.string), ("max_version_level", Int16),
                      ("min_version_level", Int16))  # fmt: skip


@dataclass(frozen=True)
class FinalizedFeatures:
    """The cluster-wide finalized feature levels a broker reported; a feature finalized at 0
    is not listed (level 0 is the feature off)."""

    #: -1: the broker does not know them yet (then nothing is concluded from them).
    epoch: int = -1
    levels: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def known(self) -> bool:
        return self.epoch >= 0

    def level(self, name: str) -> int | None:
        """``name``'s finalized level (0 when not listed), or None while the epoch is unknown."""
        return self.levels.get(name, 0) if self.known else None


def build_api_versions(client_software_version: str) -> PinnedRequest:
    """ApiVersions v3 from this client (KIP-511's name and version, which the broker logs)."""
    return build_request(ApiKey.API_VERSIONS, FEATURES_API_VERSION, {
        "client_software_name": "staticconsumer",
        "client_software_version": client_software_version,
    })  # fmt: skip


def parse_finalized_features(response: Any) -> FinalizedFeatures:
    """The finalized features of an ApiVersions v3 response (:func:`build_api_versions`'s)."""
    if response.error_code != 0:
        raise ProtocolError(f"ApiVersions v3 failed (error code {response.error_code})")
    tagged: Mapping[int, bytes] = response.tagged_fields
    epoch = -1
    if _FINALIZED_EPOCH_TAG in tagged:
        epoch = Int64.decode(BytesIO(tagged[_FINALIZED_EPOCH_TAG]))
    rows = []
    if _FINALIZED_FEATURES_TAG in tagged:
        rows = _FINALIZED.decode(BytesIO(tagged[_FINALIZED_FEATURES_TAG])) or []
    levels = {str(name): int(high) for name, high, _low, *_ in rows}
    return FinalizedFeatures(epoch, MappingProxyType(levels))


def require_feature(
    features: FinalizedFeatures | None, name: str, needed_by: str, way_out: str = ""
) -> None:
    """Refuse (:class:`~staticconsumer.errors.UnsupportedBrokerError`) when the cluster
    finalized ``name`` at 0: ``needed_by`` (e.g. ``"group_protocol='consumer' (KIP-848)"``) would
    be answered UNSUPPORTED_VERSION by the group coordinator; ``way_out`` ends the message when
    given. Unknown features refuse nothing."""
    level = None if features is None else features.level(name)
    if level is None or level >= 1:
        return
    raise UnsupportedBrokerError(
        f"{needed_by} needs the cluster's {name} feature at 1 or more, and it is finalized at "
        f"{level} here (a cluster upgraded from an older Kafka keeps 0 until "
        f"'kafka-features.sh --bootstrap-server ... upgrade --feature {name}=1'), so its group "
        "coordinator would refuse every heartbeat (UNSUPPORTED_VERSION)"
        + (f": {way_out}" if way_out else "")
    )
