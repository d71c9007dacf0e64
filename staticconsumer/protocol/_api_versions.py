"""Wire layout of ApiVersions v3 (``features``' module docstring), following Apache Kafka's
``ApiVersionsRequest.json`` / ``ApiVersionsResponse.json`` (kafka-clients 4.4.0). Its tagged
fields (the features) are kept raw by the codec and read by :mod:`.features`."""

from __future__ import annotations

from staticconsumer.protocol._types import Int16, Int32, Schema
from staticconsumer.protocol._wire import Wire

#: The ApiVersions version that carries the features (every broker since Kafka 2.4 answers it).
FEATURES_API_VERSION = 3


def api_versions(v: int) -> tuple[Schema, Schema]:
    """The layout of ApiVersions v3 (``_messages``' table holds it)."""
    assert v == FEATURES_API_VERSION, v
    w = Wire(flexible=True)
    request = w.schema(("client_software_name", w.string), ("client_software_version", w.string))
    response = w.schema(
        ("error_code", Int16),
        ("api_keys", w.array(("api_key", Int16), ("min_version", Int16), ("max_version", Int16))),
        ("throttle_time_ms", Int32),
    )
    return request, response
