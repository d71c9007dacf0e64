"""``StaticConsumer()``'s keywords for readers and tools: the signature ``inspect``, ``help()``
and IDEs show (:func:`consumer_signature`), made from the rows of
:data:`staticconsumer.options.OPTIONS` (names, order, defaults) and their types
(:class:`~staticconsumer.options.ConsumerKeywords`, which mypy reads); a test checks both
against the rows and the defaults against aiokafka's own."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from .. import _compat
from ..options import AIOKAFKAS_OWN, OPTIONS, ConsumerKeywords


def defaults() -> dict[str, Any]:
    """Each keyword's default: its row's, or the installed aiokafka's own where the row says so
    (``client_id``'s ``aiokafka-<version>``, ``api_version``'s ``"auto"`` or None)."""
    return {
        o.name: _compat.consumer_default(o.name) if o.default is AIOKAFKAS_OWN else o.default
        for o in OPTIONS
    }


def consumer_signature(init: Callable[..., None]) -> inspect.Signature:
    """``init``'s signature with a keyword-only parameter per row, its default and its type."""
    types: Mapping[str, Any] = ConsumerKeywords.__annotations__
    plain = inspect.signature(init)
    self_, topics = list(plain.parameters.values())[:2]
    keywords = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                          annotation=types[name])
        for name, default in defaults().items()
    ]  # fmt: skip
    return plain.replace(parameters=[self_, topics, *keywords])
