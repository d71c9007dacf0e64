"""The checks a row of :data:`staticconsumer.options.OPTIONS` names (issue 49: an option is one
row): each refuses a value through its row (:meth:`~staticconsumer.options.Option.refuse`), so
that every message names the field, the Java key and the KIP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .options import Option


@dataclass(frozen=True)
class Whole:
    """An int (not a bool) at least ``least``; None too when ``optional``."""

    least: int
    optional: bool = False

    def check(self, option: Option, value: Any) -> None:
        if value is None and self.optional:
            return
        if isinstance(value, bool) or not isinstance(value, int) or value < self.least:
            allowed = " or None" if self.optional else ""
            option.refuse(f"must be an int >= {self.least}{allowed}, got {value!r}", value)


@dataclass(frozen=True)
class OneOf:
    """One of ``values`` (any case, as aiokafka compares them)."""

    values: tuple[str, ...]

    def check(self, option: Option, value: Any) -> None:
        if not isinstance(value, str) or value.lower() not in self.values:
            option.refuse(f"must be one of {', '.join(self.values)}, got {value!r}", value)


@dataclass(frozen=True)
class Flag:
    """True or False (``optional``: None too, meaning "decide for me")."""

    optional: bool = False

    def check(self, option: Option, value: Any) -> None:
        if isinstance(value, bool) or (value is None and self.optional):
            return
        allowed = " (or None: " + option.doc + ")" if self.optional else ""
        option.refuse(f"must be True or False{allowed}, got {value!r}", value)


@dataclass(frozen=True)
class CallableOrNone:
    def check(self, option: Option, value: Any) -> None:
        if value is not None and not callable(value):
            option.refuse(f"must be callable, got {value!r}", value)


@dataclass(frozen=True)
class MadeBy:
    """Checked where its value is made (``where``): several keywords make one value there."""

    where: str

    def check(self, option: Option, value: Any) -> None:
        """Nothing here (the row names where)."""


@dataclass(frozen=True)
class Aiokafkas:
    """Passed to aiokafka unchecked (a loop, a deserializer, bootstrap addresses)."""

    def check(self, option: Option, value: Any) -> None:
        """aiokafka's own."""


Check = Whole | OneOf | Flag | CallableOrNone | MadeBy | Aiokafkas
