"""``partition_assignment_strategy`` (Java ``partition.assignment.strategy``) checked at
construction: assignor objects, classes, protocol names or Java class names, one or a list,
each following the one :class:`assignors.GroupAssignor` contract (with its optional
``on_assignment`` hook checked), or an aiokafka-style assignor run through
:class:`~staticconsumer._compat.AiokafkaGroupAssignor` (issue 41). Pure functions: no I/O."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from assignors import (
    AssignmentReceiver,
    CooperativeStickyAssignor,
    GroupAssignor,
    MemberAssignment,
    RangeAssignor,
    RoundRobinAssignor,
    StickyAssignor,
)

from .. import _compat
from ..errors import ConfigurationError

#: Protocol names (what Java sends in JoinGroup) and Java's class names -> our assignor.
_JAVA_PACKAGE = "org.apache.kafka.clients.consumer."
ASSIGNOR_NAMES: Mapping[str, type[GroupAssignor]] = {
    **{cls.name: cls for cls in (RangeAssignor, RoundRobinAssignor, StickyAssignor,
                                 CooperativeStickyAssignor)},
    **{_JAVA_PACKAGE + cls.__name__: cls for cls in (RangeAssignor, RoundRobinAssignor,
                                                     StickyAssignor, CooperativeStickyAssignor)},
}  # fmt: skip


def default_assignors() -> tuple[GroupAssignor, ...]:
    """The assignors a :class:`StaticConsumer` offers when none are given, in preference order.

    ``range`` first, as the Java client's default list starts with it, so a group mixing
    default-configured Java consumers and StaticConsumers agrees on ``range``; ``roundrobin``
    second, so a group mixing StaticConsumers with default-configured aiokafka consumers (which
    offer only ``roundrobin``) still forms. Both sort members on ``group.instance.id`` first.
    """
    return (RangeAssignor(), RoundRobinAssignor())


def group_assignors(strategies: Any) -> tuple[GroupAssignor, ...]:
    """``partition_assignment_strategy`` checked at construction: each entry must follow the
    one :class:`assignors.GroupAssignor` contract (a class of ours is instantiated, one object
    per consumer), or be an aiokafka-style assignor (``AbstractPartitionAssignor``: aiokafka's,
    faust's, a user's), run through :class:`~staticconsumer._compat.AiokafkaGroupAssignor`,
    which hands it members in instance-id order. One value or a list; a name is a protocol name
    (``"range"``) or Java's class name (``"org.apache.kafka.clients.consumer.RangeAssignor"``);
    a str may list several, comma-separated, as Java's ``partition.assignment.strategy`` does."""
    checked = [_group_assignor(entry) for entry in _entries(strategies)]
    if not checked:
        raise ConfigurationError(
            "partition_assignment_strategy (Java: partition.assignment.strategy) is empty"
        )
    return tuple(checked)


def _group_assignor(entry: Any) -> GroupAssignor:
    """One entry as a GroupAssignor, or :class:`ConfigurationError` saying why not."""
    if _compat.is_aiokafka_assignor(entry):
        why = _compat.unusable_reason(entry)
        if why is not None:
            raise ConfigurationError(
                f"partition_assignment_strategy (Java: partition.assignment.strategy) entry "
                f"{entry!r} is an aiokafka assignor StaticConsumer cannot run: {why}"
            )
        return _compat.AiokafkaGroupAssignor(entry)
    candidate = _named_assignor(entry) if isinstance(entry, str) else entry
    if isinstance(candidate, type) and _is_group_assignor(candidate):
        candidate = candidate()
    if isinstance(candidate, type) or not _is_group_assignor(candidate):
        raise ConfigurationError(
            f"partition_assignment_strategy (Java: partition.assignment.strategy) entry "
            f"{entry!r} is not a GroupAssignor: StaticConsumer takes the assignors of the "
            "`assignors` package (range, roundrobin, sticky, cooperative-sticky, roster), "
            "any object with a `name`, `supported_protocols`, `assign_group(members, "
            "partitions_per_topic, *, partition_racks)` and `subscription_user_data(topics, "
            "owned, generation)`, or an aiokafka assignor (a subclass of aiokafka's "
            "AbstractPartitionAssignor, given members ordered by group instance id, KIP-345)"
        )
    _check_on_assignment(entry, candidate)
    checked: GroupAssignor = candidate
    return checked


def needs_user_data(strategies: Any) -> str:
    """What a refused strategy loses under KIP-848 besides client-side assignment: the
    assignment user data its ``on_assignment`` reads (none there), named."""
    needing = [
        getattr(e, "__name__", None) or type(e).__name__
        for e in _entries(strategies) if isinstance(e, AssignmentReceiver)
    ]  # fmt: skip
    if not needing:
        return ""
    return (
        f". {', '.join(needing)} reads assignment user data in on_assignment, and KIP-848 "
        "assignments carry none (the coordinator assigns, with no user data): run it with "
        "group_protocol='classic'"
    )


def _check_on_assignment(entry: Any, assignor: Any) -> None:
    """An assignor's optional ``on_assignment`` (``assignors.AssignmentReceiver``) must take
    ``(assignment, generation)`` and not be a coroutine function: refused here, not at the
    first assignment."""
    if not isinstance(assignor, AssignmentReceiver):
        return
    hook = assignor.on_assignment
    try:
        inspect.signature(hook).bind(MemberAssignment(()), 0)
        fits = not inspect.iscoroutinefunction(hook)
    except TypeError:
        fits = False
    except ValueError:  # no signature to read (a builtin): called as it is
        fits = True
    if not fits:
        raise ConfigurationError(
            f"partition_assignment_strategy (Java: partition.assignment.strategy) entry "
            f"{entry!r}: on_assignment must be a plain method taking (assignment: "
            "assignors.MemberAssignment, generation: int), as Java's ConsumerPartitionAssignor"
            ".onAssignment(Assignment, ConsumerGroupMetadata) (assignors.AssignmentReceiver)"
        )


def _entries(strategies: Any) -> list[Any]:
    """One value or a list of them; a str is Java's comma-separated list."""
    if isinstance(strategies, str):
        return [name.strip() for name in strategies.split(",") if name.strip()]
    if isinstance(strategies, type) or _is_group_assignor(strategies):
        return [strategies]
    try:
        return list(strategies)
    except TypeError:
        return [strategies]  # not iterable: refused below as not a GroupAssignor


def _named_assignor(name: str) -> type[GroupAssignor]:
    if name in ASSIGNOR_NAMES:
        return ASSIGNOR_NAMES[name]
    if name in ("roster", _JAVA_PACKAGE + "RosterAssignor"):
        raise ConfigurationError(
            "partition_assignment_strategy (Java: partition.assignment.strategy) 'roster' needs "
            "its roster: pass RosterAssignor.with_roster([...]) (or RosterAssignor.for_instance"
            "(group_instance_id, roster=[...])) instead of the name. For a scale-up, register the "
            "new ids instead (staticconsumer roster add, KIP-469; docs/scaling.md): the leader "
            "then plans under the roster with any strategy, 'cooperative-sticky' best"
        )
    known = ", ".join(repr(n) for n in ASSIGNOR_NAMES)
    raise ConfigurationError(
        f"partition_assignment_strategy (Java: partition.assignment.strategy) names no assignor "
        f"of ours: {name!r}; known names: {known} (or pass an assignor object)"
    )


def _is_group_assignor(obj: Any) -> bool:
    methods = ("assign_group", "subscription_user_data")
    return (
        isinstance(getattr(obj, "name", None), str)
        and isinstance(getattr(obj, "supported_protocols", None), tuple)
        and all(callable(getattr(obj, method, None)) for method in methods)
    )
