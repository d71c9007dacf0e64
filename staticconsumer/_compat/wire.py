"""Our requests through aiokafka's connection (issue 42: the wire is ours, the handing over is
the seam's). :func:`aiokafka_request` wraps a :class:`~staticconsumer.protocol.PinnedRequest` in
what ``AIOKafkaClient.send`` / ``AIOKafkaConnection.send`` call on a request object; the bytes,
headers included, are the protocol layer's."""

from __future__ import annotations

from io import BytesIO
from typing import Any

from ..protocol import (
    PinnedRequest,
    ResponseHeader,
    read_response_header,
    request_header,
    response_class,
)


class _Header:
    """What the connection writes before the body: ``header.encode()``."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw

    def encode(self) -> bytes:
        return self._raw


class AiokafkaRequest:
    """A :class:`PinnedRequest` as aiokafka's connection takes a request (aiokafka 0.12 to 0.14,
    duck-typed: no aiokafka class is needed). The connection calls ``prepare(versions)`` (0.13
    and later: the ranges its broker announced in ApiVersions; a version outside them raises
    ``UnsupportedBrokerError``, never a silent downgrade, then the request is itself its
    "struct"), ``build_request_header``, ``encode``, ``parse_response_header``,
    ``RESPONSE_TYPE.decode`` and ``repr`` (its DEBUG log); the client reads ``API_KEY``."""

    def __init__(self, pinned: PinnedRequest, response_type: Any = None) -> None:
        """``response_type``: what decodes the answer; the protocol layer's for its APIs, given
        for a request whose struct is aiokafka's (:mod:`.requests`)."""
        self.pinned = pinned
        self.API_KEY = pinned.api_key
        self.API_VERSION = pinned.api_version
        self.RESPONSE_TYPE = response_type or response_class(pinned.api_key, pinned.api_version)

    def prepare(self, versions: Any) -> AiokafkaRequest:
        self.pinned.check_broker(versions)
        return self

    def build_request_header(self, correlation_id: int, client_id: str | None) -> _Header:
        pinned = self.pinned
        return _Header(request_header(pinned.api_key, pinned.api_version, correlation_id,
                                      client_id, flexible=pinned.flexible))  # fmt: skip

    def encode(self) -> bytes:
        return self.pinned.encode()

    def parse_response_header(self, data: bytes | BytesIO) -> ResponseHeader:
        buffer = BytesIO(data) if isinstance(data, bytes) else data
        return read_response_header(buffer, flexible=self.pinned.response_header_flexible)

    def expect_response(self) -> bool:
        return True

    def __repr__(self) -> str:
        return repr(self.pinned.struct)


def aiokafka_request(request: Any) -> Any:
    """What to hand aiokafka's client for ``request``: ours wrapped, aiokafka's own as it is."""
    return AiokafkaRequest(request) if isinstance(request, PinnedRequest) else request
