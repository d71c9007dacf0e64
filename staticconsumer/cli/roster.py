"""``staticconsumer roster show|add|remove|set|delete``: a group's pre-registered instance ids
(docs/scaling.md). Flags follow Kafka's tools: ``--bootstrap-server`` (the plural is an alias),
``--command-config FILE``, ``--timeout`` in milliseconds, ``--dry-run`` (the default for the
commands that change the roster) or ``--execute``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ..admin import (
    DEFAULT_ROSTER_TOPIC,
    Roster,
    delete_roster,
    describe_roster,
    register_members,
    set_roster,
    unregister_members,
)
from ..errors import ConfigurationError
from . import timeout_ms_arg
from .render import format_utc
from .security import add_cluster_options, security_from_args

_CHANGES = ("add", "remove", "set", "delete")
#: The commands that register ids: their output says which consumer option reads the roster.
_REGISTERS = ("add", "set")


def consumer_hint(roster_topic: str) -> str:
    """Pre-registration is opt-in (issue 31): the members read a roster only when built with
    this option, so a registration says so."""
    return (
        f"MEMBERS   read it only when built with StaticConsumer(..., "
        f"roster_topic={roster_topic!r}) (docs/scaling.md)"
    )


def _ms(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes whole milliseconds, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"takes milliseconds >= 0, got {value!r}")
    return number


def format_roster(group_id: str, roster: Roster | None, *, action: str = "") -> str:
    """The text a roster command prints."""
    head = f"{action}: " if action else ""
    if roster is None:
        return f"{head}group {group_id} has no roster\n"
    lines = [
        f"{head}ROSTER    {group_id}",
        f"UPDATED   {format_utc(roster.updated_at_ms)} ({roster.updated_at_ms})",
        f"WAIT      {roster.wait_ms} ms (until {format_utc(roster.deadline_ms)})",
        f"IDS       {len(roster.registered)}",
    ]
    lines += [f"  {i}  registered {format_utc(at)}" for i, at in roster.registered]
    return "\n".join(lines) + "\n"


def roster_document(group_id: str, roster: Roster | None, *, applied: bool) -> dict[str, Any]:
    """The ``--json`` document: ``roster`` is null when there is none."""
    body = None
    if roster is not None:
        body = {
            "registered": [{"group_instance_id": i, "registered_at_ms": at}
                           for i, at in roster.registered],
            "updated_at_ms": roster.updated_at_ms, "wait_ms": roster.wait_ms,
            "deadline_ms": roster.deadline_ms,
        }  # fmt: skip
    return {"group_id": group_id, "applied": applied, "roster": body}


async def _run(args: argparse.Namespace) -> tuple[Roster | None, bool]:
    common: dict[str, Any] = {
        "timeout_s": args.timeout / 1000, "security": security_from_args(args),
        "roster_topic": args.roster_topic,
    }  # fmt: skip
    execute = bool(getattr(args, "execute", False))
    if args.action == "show":
        return await describe_roster(args.bootstrap_servers, args.group, **common), False
    if args.action in ("add", "remove") and not getattr(args, "instance_id", None):
        raise ConfigurationError(f"roster {args.action} needs --instance-id (repeatable)")
    ids = getattr(args, "instance_id", None) or []
    change = {"dry_run": not execute, **common}
    roster: Roster | None
    if args.action == "add":
        roster = await register_members(
            args.bootstrap_servers, args.group, ids, wait_ms=args.wait_ms, **change
        )
    elif args.action == "set":
        roster = await set_roster(
            args.bootstrap_servers, args.group, ids, wait_ms=args.wait_ms, **change
        )
    elif args.action == "remove":
        roster = await unregister_members(
            args.bootstrap_servers, args.group, ids, remove=args.remove_members,
            reason=args.reason, **change,
        )  # fmt: skip
    else:
        roster = await delete_roster(args.bootstrap_servers, args.group, **change)
    return roster, execute


def run_roster(args: argparse.Namespace) -> int:
    import json

    roster, applied = asyncio.run(_run(args))
    if args.json:
        document = roster_document(args.group, roster, applied=applied)
        if args.action in _REGISTERS:
            document["consumer_options"] = {"roster_topic": args.roster_topic}
        out = json.dumps(document, sort_keys=True)
        sys.stdout.write(out + "\n")
    else:
        action = "done" if applied else "dry run (--execute to apply)"
        action = "" if args.action == "show" else action
        if args.action == "delete" and roster is not None:
            action += ", deleted"
        sys.stdout.write(format_roster(args.group, roster, action=action))
        if args.action in _REGISTERS and roster is not None:
            sys.stdout.write(consumer_hint(args.roster_topic) + "\n")
    sys.stdout.flush()
    return 0


def add_roster_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    roster = commands.add_parser(
        "roster",
        help="show or change a group's pre-registered instance ids (scale-ups, docs/scaling.md)",
        description="A group's roster: the group.instance.ids it should have, kept in a "
        "compacted topic and changed while the group runs. The leader waits for missing "
        "registered members (up to --wait-ms from the last change) so that N arrivals cost one "
        "move. Members read it only when built with StaticConsumer(roster_topic=...) (default "
        f"None: off); pass {DEFAULT_ROSTER_TOPIC!r} or your --roster-topic. Changes are a dry "
        "run unless --execute is given.",
    )
    actions = roster.add_subparsers(dest="action", required=True)
    for action, text in (
        ("show", "print the roster"), ("add", "register instance ids"),
        ("remove", "unregister instance ids (--remove-members also removes them from the group)"),
        ("set", "make the roster exactly these instance ids"), ("delete", "delete the roster"),
    ):  # fmt: skip
        sub = actions.add_parser(action, help=text, description=text)
        _common(sub)
        if action in ("add", "remove", "set"):
            sub.add_argument("--instance-id", action="append", metavar="ID",
                             help="a group.instance.id, repeatable")  # fmt: skip
        if action in ("add", "set"):
            sub.add_argument("--wait-ms", type=_ms, default=None, metavar="MS",
                             help="how long the leader waits for missing ids after a change "
                             "(default: the roster's, 120000 for a new one)")  # fmt: skip
        if action == "remove":
            sub.add_argument("--remove-members", action="store_true",
                             help="also remove these static members from the group now "
                             "(LeaveGroup with a reason, KIP-800)")  # fmt: skip
            sub.add_argument("--reason", default=None, help="the LeaveGroup reason (KIP-800)")
        if action in _CHANGES:
            mode = sub.add_mutually_exclusive_group()
            mode.add_argument("--dry-run", action="store_true",
                              help="only show the result (the default)")  # fmt: skip
            mode.add_argument("--execute", action="store_true", help="write it")
        sub.set_defaults(run=run_roster)


def _common(sub: argparse.ArgumentParser) -> None:
    add_cluster_options(sub)
    sub.add_argument("--group", required=True, help="the consumer group id")
    sub.add_argument("--json", action="store_true", help="print one JSON document")
    sub.add_argument("--timeout", type=timeout_ms_arg, default=30_000, metavar="MS",
                     help="bound on each request, in milliseconds (default 30000)")  # fmt: skip
    sub.add_argument("--roster-topic", default=DEFAULT_ROSTER_TOPIC, metavar="TOPIC",
                     help=f"the roster topic (default {DEFAULT_ROSTER_TOPIC}); the members "
                     "read the one their roster_topic option names")  # fmt: skip
