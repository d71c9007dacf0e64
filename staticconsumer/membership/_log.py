"""Log lines a reader can attribute to one consumer (``docs/logging.md``), without asyncio.

One process often runs several consumers of one group (one per stream thread), so every line a
consumer logs names it, twice:

- as ``extra`` fields of the record, for structured handlers: ``group_id``,
  ``group_instance_id``, ``member_id``, ``client_id`` (:data:`FIELDS`);
- as a prefix of the message, for plain text: ``[group=billing instance=billing-0
  member=billing-0-4f2a...] `` (``-`` for an instance id or member id not known).

A :class:`LogIdentity` is built once per member from its configuration; it reads the member id
when a line is logged, so lines after a (re-)join name the new member id. Each module that logs
for a consumer keeps its module logger (``logging.getLogger(__name__)``) and logs through
``identity.logger(log)``, a :class:`MemberLog` adapter for that logger: the engine, the driver,
its sender, offsets keeper and hand-over all share the consumer's one identity.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping
from typing import Any

#: The ``extra`` fields of every record a consumer logs.
FIELDS = ("group_id", "group_instance_id", "member_id", "client_id")
#: The parent of every module logger of the package (``staticconsumer.drivers.driver``, ...):
#: ``logging.getLogger("staticconsumer").setLevel(...)`` sets them all. No handler is added here:
#: the application configures logging.
PARENT = logging.getLogger("staticconsumer")


class LogIdentity:
    """Who logs: a group member, its member id read at call time (module docstring)."""

    def __init__(
        self, group_id: str, group_instance_id: str | None, client_id: str,
        member_id: Callable[[], str],
    ) -> None:  # fmt: skip
        self.group_id = group_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self._member_id = member_id
        self._adapters: dict[str, MemberLog] = {}

    def fields(self) -> dict[str, str | None]:
        """The record's ``extra`` fields now (:data:`FIELDS`)."""
        return {"group_id": self.group_id, "group_instance_id": self.group_instance_id,
                "member_id": self._member_id(), "client_id": self.client_id}  # fmt: skip

    def logger(self, logger: logging.Logger) -> MemberLog:
        """The adapter that logs to ``logger`` as this member (one per logger, kept)."""
        adapter = self._adapters.get(logger.name)
        if adapter is None:
            adapter = self._adapters[logger.name] = MemberLog(logger, self)
        return adapter


def prefix(fields: dict[str, str | None]) -> str:
    """``[group=G instance=I member=M]``: the message prefix of :data:`FIELDS`' values."""
    return (f"[group={fields['group_id'] or '-'} instance={fields['group_instance_id'] or '-'} "
            f"member={fields['member_id'] or '-'}]")  # fmt: skip


class MemberLog(logging.LoggerAdapter[logging.Logger]):
    """A logger adapter that adds its member's identity to each record: the ``extra`` fields
    and the message prefix (module docstring). A caller's own ``extra`` is kept beside them."""

    def __init__(self, logger: logging.Logger, identity: LogIdentity) -> None:
        super().__init__(logger)
        self.identity = identity

    def process(
        self, msg: Any, kwargs: MutableMapping[str, Any]
    ) -> tuple[Any, MutableMapping[str, Any]]:
        fields = self.identity.fields()
        kwargs["extra"] = {**fields, **(kwargs.get("extra") or {})}
        return f"{prefix(fields)} {msg}", kwargs
