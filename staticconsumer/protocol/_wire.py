"""Messages over our field types (:mod:`._types`): structs, headers, the request we send.

* :class:`Wire` picks the classic or the compact ("flexible", KIP-482) form of each type, and ends
  every flexible struct -- the message itself and each struct inside an array -- with a tagged-field
  section, as Kafka's generated code does. Arrays of primitives carry no tagged fields.
* :class:`Struct` is one message of one API version; :func:`define` declares the request and the
  response struct of one version (``FLEXIBLE_VERSION``: request header v2 and response header v1,
  :func:`request_header` / :func:`read_response_header`).
* :class:`PinnedRequest` is a request of exactly the version
  :func:`~staticconsumer.protocol.negotiate` chose; :meth:`PinnedRequest.check_broker` refuses
  (instead of silently downgrading) a broker that cannot take it. Handing it to aiokafka's
  connection is ``staticconsumer._compat``'s business, not this package's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from io import BytesIO
from typing import Any, ClassVar

from staticconsumer.errors import ProtocolError, UnsupportedBrokerError
from staticconsumer.protocol._types import (
    Array,
    Bytes,
    CompactArray,
    CompactBytes,
    CompactString,
    Field,
    Int16,
    Int32,
    NullableStruct,
    Schema,
    String,
    TaggedFields,
    Text,
    WireType,
)

#: ApiVersions' api key: its response header is v0 in every version.
_API_VERSIONS = 18

#: Name of the tagged-field section that ends every flexible struct.
TAGGED_FIELDS = "tagged_fields"


@dataclass(frozen=True)
class Wire:
    """The field types of one API version: classic, or compact with tagged fields (KIP-482)."""

    flexible: bool

    @property
    def string(self) -> Text:
        return CompactString if self.flexible else String

    @property
    def bytes(self) -> WireType:
        return CompactBytes if self.flexible else Bytes

    def array(self, *fields: Field) -> Array:
        """An array of structs; in flexible versions each element ends with tagged fields."""
        if self.flexible:
            return CompactArray(Schema(*fields, (TAGGED_FIELDS, TaggedFields)))
        return Array(Schema(*fields))

    def array_of(self, item: WireType) -> Array:
        """An array of a primitive type (``[]string``, ``[]int32``)."""
        return CompactArray(item) if self.flexible else Array(item)

    def schema(self, *fields: Field) -> Schema:
        if self.flexible:
            return Schema(*fields, (TAGGED_FIELDS, TaggedFields))
        return Schema(*fields)


def since(version: int, first: int, *fields: Field) -> tuple[Field, ...]:
    """``fields`` when ``version >= first`` (a JSON spec's ``"versions": "<first>+"``)."""
    return fields if version >= first else ()


class Struct:
    """One message of one API version: its fields as attributes, in ``SCHEMA`` order. Built from
    every value in order, or by field name (a field not named is None); struct-array items and
    nullable structs are tuples in their schema's order."""

    SCHEMA: ClassVar[Schema] = Schema()
    API_KEY: ClassVar[int] = -1
    API_VERSION: ClassVar[int] = -1
    FLEXIBLE_VERSION: ClassVar[bool] = False

    def __init__(self, *values: Any, **fields: Any) -> None:
        names = self.SCHEMA.names
        if values:
            if fields or len(values) != len(names):
                raise ValueError(f"{type(self).__name__} takes {len(names)} values in order")
            self.__dict__.update(zip(names, values, strict=True))
            return
        unknown = set(fields) - set(names)
        if unknown:
            raise ValueError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        self.__dict__.update((name, fields.get(name)) for name in names)

    def values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__[name] for name in self.SCHEMA.names)

    def encode(self) -> bytes:
        return self.SCHEMA.encode(self.values())

    @classmethod
    def decode(cls, data: bytes | BytesIO) -> Any:
        buffer = BytesIO(data) if isinstance(data, bytes) else data
        return cls(*cls.SCHEMA.decode(buffer))

    def to_object(self) -> dict[str, Any]:
        """The fields by name; a struct (in an array, or nullable) as a dict of its fields."""
        return _to_object(self.SCHEMA, self.values())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return NotImplemented
        return type(self) is type(other) and self.values() == other.values()

    __hash__ = None  # type: ignore[assignment]  # equal by value, and mutable

    def __repr__(self) -> str:
        return type(self).__name__ + self.SCHEMA.repr(self.values())


class RequestStruct(Struct):
    """A request's body."""


class ResponseStruct(Struct):
    """A response's body."""


def _to_object(schema: Schema, values: tuple[Any, ...]) -> dict[str, Any]:
    return {
        name: _object_value(kind, value)
        for name, kind, value in zip(schema.names, schema.fields, values, strict=True)
    }


def _object_value(kind: WireType, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(kind, NullableStruct):
        return _to_object(kind.schema, value)
    if isinstance(kind, Schema):
        return _to_object(kind, value)
    if isinstance(kind, Array) and isinstance(kind.array_of, Schema):
        return [_to_object(kind.array_of, item) for item in value]
    return value


def define(
    name: str,
    api_key: int,
    version: int,
    *,
    flexible: bool,
    request: Schema,
    response: Schema,
) -> tuple[type[Struct], type[Struct]]:
    """Declare the request struct and the response struct of one API version."""
    made: list[type[Struct]] = []
    for base, schema in ((RequestStruct, request), (ResponseStruct, response)):
        attributes = {"SCHEMA": schema, "API_KEY": api_key, "API_VERSION": version,
                      "FLEXIBLE_VERSION": flexible, "__module__": __name__}  # fmt: skip
        kind = base.__name__.removesuffix("Struct")
        made.append(type(f"{name}{kind}_v{version}", (base,), attributes))
    return made[0], made[1]


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


def request_header(
    api_key: int, version: int, correlation_id: int, client_id: str | None, *, flexible: bool
) -> bytes:
    """Request header v1 (api key, version, correlation id, client id: a classic nullable
    string even in v2), or v2 for a flexible version (then empty tagged fields)."""
    header = Int16.encode(api_key) + Int16.encode(version) + Int32.encode(correlation_id)
    header += String.encode(client_id)
    return header + TaggedFields.encode({}) if flexible else header


@dataclass(frozen=True)
class ResponseHeader:
    """Response header v0 (the correlation id), or v1 for a flexible version (then tagged
    fields)."""

    correlation_id: int
    tags: Mapping[int, bytes]


def read_response_header(data: BytesIO, *, flexible: bool) -> ResponseHeader:
    correlation_id = Int32.decode(data)
    return ResponseHeader(correlation_id, TaggedFields.decode(data) if flexible else {})


class PinnedRequest:
    """A request of one fixed API version: ``struct`` goes on the wire as it is."""

    def __init__(self, struct: Struct) -> None:
        self.struct = struct

    @property
    def api_key(self) -> int:
        return self.struct.API_KEY

    @property
    def api_version(self) -> int:
        return self.struct.API_VERSION

    @property
    def flexible(self) -> bool:
        return self.struct.FLEXIBLE_VERSION

    @property
    def response_header_flexible(self) -> bool:
        """Whether the answer's header is v1 (tagged fields): a flexible version's, except
        ApiVersions' (api key 18), whose response header stays v0 in every version so that a
        client can read a broker's refusal of a version it does not know (KIP-511)."""
        return self.flexible and self.api_key != _API_VERSIONS

    @property
    def name(self) -> str:
        """Kafka's name of the API, e.g. ``JoinGroup``."""
        return type(self.struct).__name__.split("Request_v")[0]

    def encode(self) -> bytes:
        """The body: no size prefix, no header."""
        return self.struct.encode()

    def check_broker(self, versions: Mapping[int, tuple[int, int]]) -> None:
        """Refuse a connection whose broker announced (ApiVersions) no range holding this
        version: :class:`~staticconsumer.errors.UnsupportedBrokerError`."""
        name, api_key, version = self.name, self.api_key, self.api_version
        supported = versions.get(api_key)
        if supported is None:
            raise UnsupportedBrokerError(
                f"{name} v{version}: the broker does not support {name} (api key {api_key}) at all"
            )
        low, high = supported
        if not low <= version <= high:
            raise UnsupportedBrokerError(
                f"{name} v{version}: this broker supports v{low}-v{high} (api key {api_key}); "
                "negotiate versions per broker before sending"
            )

    def __repr__(self) -> str:
        return f"PinnedRequest({self.struct!r})"


def response_object(response: Any, api_key: int, what: str) -> dict[str, Any]:
    """The fields of a decoded response as a dict, after checking it is ``what``."""
    if not isinstance(response, ResponseStruct) or response.API_KEY != api_key:
        raise ProtocolError(f"expected a {what} response (api key {api_key}), got {response!r}")
    return response.to_object()
