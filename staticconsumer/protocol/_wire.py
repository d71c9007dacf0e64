"""Schema helpers over aiokafka's codec, and the request wrapper that pins an API version.

We reuse aiokafka's ``Struct``/``Schema`` types (``aiokafka.protocol.types``) for the bytes; this
module only adds what aiokafka 0.14 lacks for our messages:

* :class:`Wire` picks the classic or the compact ("flexible", KIP-482) form of each type, and ends
  every flexible struct -- the message itself and each struct inside an array -- with a tagged-field
  section, as Kafka's generated code does. Arrays of primitives carry no tagged fields.
* :func:`define` declares one request/response pair per API version. A request struct with
  ``FLEXIBLE_VERSION = True`` makes aiokafka's connection write request header v2 (client id, then
  tagged fields) and read response header v1 (correlation id, then tagged fields); this is the only
  switch aiokafka 0.14 has (``RequestStruct.build_request_header`` / ``parse_response_header``).
* :class:`PinnedRequest` is what ``AIOKafkaClient.send(node_id, request)`` accepts. aiokafka's own
  ``Request.prepare`` picks the highest version of a request that the connection's broker supports;
  ours sends exactly the version that :func:`~staticconsumer.protocol.negotiate` chose, and refuses
  (instead of silently downgrading) when that connection's broker cannot take it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from aiokafka.protocol import api as _aiokafka_api
from aiokafka.protocol.api import Response
from aiokafka.protocol.types import (
    AbstractType,
    Array,
    Bytes,
    CompactArray,
    CompactBytes,
    CompactString,
    Int8,
    Schema,
    String,
    TaggedFields,
)

from staticconsumer.errors import ProtocolError, UnsupportedBrokerError

#: The base of a request struct of one API version: aiokafka 0.13's ``RequestStruct``; in 0.12,
#: ``Request`` is that struct (``staticconsumer._compat.features``: the releases we support).
RequestStruct: Any = getattr(_aiokafka_api, "RequestStruct", _aiokafka_api.Request)

#: Name of the tagged-field section that ends every flexible struct.
TAGGED_FIELDS = "tagged_fields"

Field = tuple[str, Any]


@dataclass(frozen=True)
class Wire:
    """The field types of one API version: classic, or compact with tagged fields (KIP-482)."""

    flexible: bool

    @property
    def string(self) -> String:
        return CompactString("utf-8") if self.flexible else String("utf-8")

    @property
    def bytes(self) -> Any:
        return CompactBytes if self.flexible else Bytes

    def array(self, *fields: Field) -> Array:
        """An array of structs; in flexible versions each element ends with tagged fields."""
        if self.flexible:
            return CompactArray(*fields, (TAGGED_FIELDS, TaggedFields))
        return Array(*fields)

    def array_of(self, item: Any) -> Array:
        """An array of a primitive type (``[]string``, ``[]int32``)."""
        return CompactArray(item) if self.flexible else Array(item)

    def schema(self, *fields: Field) -> Schema:
        if self.flexible:
            return Schema(*fields, (TAGGED_FIELDS, TaggedFields))
        return Schema(*fields)


class Uuid(AbstractType[uuid.UUID]):  # type: ignore[misc]  # aiokafka is untyped
    """Kafka's ``uuid`` field type: 16 bytes, most significant first (topic ids, KIP-516)."""

    @classmethod
    def encode(cls, value: uuid.UUID) -> bytes:
        return value.bytes

    @classmethod
    def decode(cls, data: BytesIO) -> uuid.UUID:
        raw = data.read(16)
        if len(raw) != 16:
            raise ValueError("a uuid field needs 16 bytes")
        return uuid.UUID(bytes=raw)


class NullableStruct:
    """A struct field that may be null (``"nullableVersions"`` on a struct in the JSON specs):
    int8 -1 for null, 1 then the struct. Values are tuples in schema order, as aiokafka's."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def encode(self, value: Any) -> bytes:
        if value is None:
            return bytes(Int8.encode(-1))
        return bytes(Int8.encode(1)) + bytes(self.schema.encode(value))

    def decode(self, data: BytesIO) -> Any:
        return None if Int8.decode(data) < 0 else self.schema.decode(data)

    def repr(self, value: Any) -> str:
        """aiokafka's field types all have it: its connection logs each response at DEBUG with
        ``repr(response)``, and a field without it raised there, which closed the connection."""
        return "None" if value is None else str(self.schema.repr(value))


def since(version: int, first: int, *fields: Field) -> tuple[Field, ...]:
    """``fields`` when ``version >= first`` (a JSON spec's ``"versions": "<first>+"``)."""
    return fields if version >= first else ()


def define(
    name: str,
    api_key: int,
    version: int,
    *,
    flexible: bool,
    request: Schema,
    response: Schema,
) -> tuple[type[Any], type[Any]]:
    """Declare the aiokafka request struct and response struct of one API version."""

    class _Response(Response):  # type: ignore[misc]  # aiokafka is untyped
        API_KEY = api_key
        API_VERSION = version
        SCHEMA = response

    class _Request(RequestStruct):  # type: ignore[misc]  # aiokafka is untyped
        API_KEY = api_key
        API_VERSION = version
        FLEXIBLE_VERSION = flexible
        RESPONSE_TYPE = _Response
        SCHEMA = request

    for cls, kind in ((_Request, "Request"), (_Response, "Response")):
        cls.__name__ = cls.__qualname__ = f"{name}{kind}_v{version}"
    return _Request, _Response


def to_values(schema: Schema, obj: Mapping[str, Any]) -> list[Any]:
    """Lay out ``obj`` (field name -> value, nested dicts for struct arrays) in ``schema`` order.

    Keys the schema lacks are ignored: that is how a field such as ``reason`` is left out of the
    versions that do not carry it (Kafka marks those fields ignorable). A field the schema has but
    ``obj`` lacks is a bug in a builder and raises ``KeyError``.
    """
    values: list[Any] = []
    for name, field in zip(schema.names, schema.fields, strict=True):
        if name == TAGGED_FIELDS:
            values.append({})
            continue
        value = obj[name]
        if isinstance(field, Array) and isinstance(field.array_of, Schema) and value is not None:
            value = [tuple(to_values(field.array_of, item)) for item in value]
        elif isinstance(field, NullableStruct) and value is not None:
            value = tuple(to_values(field.schema, value))
        values.append(value)
    return values


class PinnedRequest:
    """A request of one fixed API version, sendable with ``AIOKafkaClient.send(node_id, request)``.

    ``struct`` is the aiokafka ``RequestStruct`` that goes on the wire; :meth:`encode` gives its
    body bytes (no size prefix, no header). aiokafka 0.13 and 0.14's connection calls
    :meth:`prepare`; 0.12's takes the request as the struct itself (its header, its response
    type), which the members below the constructor give it.
    """

    def __init__(self, struct: Any) -> None:
        self.API_KEY = struct.API_KEY
        self.API_VERSION = struct.API_VERSION
        self.RESPONSE_TYPE = struct.RESPONSE_TYPE
        self.struct = struct

    def build_request_header(self, correlation_id: int, client_id: str) -> Any:
        return self.struct.build_request_header(correlation_id=correlation_id, client_id=client_id)

    def parse_response_header(self, read_buffer: Any) -> Any:
        return self.struct.parse_response_header(read_buffer)

    @property
    def api_key(self) -> int:
        return int(self.struct.API_KEY)

    @property
    def api_version(self) -> int:
        return int(self.struct.API_VERSION)

    @property
    def flexible(self) -> bool:
        return bool(self.struct.FLEXIBLE_VERSION)

    def encode(self) -> bytes:
        return bytes(self.struct.encode())

    def build(self, request_struct_class: Any) -> Any:
        return self.struct

    def prepare(self, versions: Mapping[int, tuple[int, int]]) -> Any:
        """Called by aiokafka's connection with the ranges its broker announced in ApiVersions."""
        name = type(self.struct).__name__.split("Request_v")[0]
        supported = versions.get(self.api_key)
        if supported is None:
            raise UnsupportedBrokerError(
                f"{name} v{self.api_version}: the broker does not support {name} "
                f"(api key {self.api_key}) at all"
            )
        low, high = supported
        if not low <= self.api_version <= high:
            raise UnsupportedBrokerError(
                f"{name} v{self.api_version}: this broker supports v{low}-v{high} "
                f"(api key {self.api_key}); negotiate versions per broker before sending"
            )
        return self.struct

    def __repr__(self) -> str:
        return f"PinnedRequest({self.struct!r})"


def response_object(response: Any, api_key: int, what: str) -> dict[str, Any]:
    """The fields of a decoded aiokafka response as a dict, after checking it is ``what``."""
    if not isinstance(response, Response) or response.API_KEY != api_key:
        raise ProtocolError(f"expected a {what} response (api key {api_key}), got {response!r}")
    obj: dict[str, Any] = response.to_object()
    return obj
