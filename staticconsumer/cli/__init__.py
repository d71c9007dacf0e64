"""The ``staticconsumer`` command line.

Flags follow Kafka's own tools (``kafka-consumer-groups.sh``): ``--bootstrap-server`` (the plural
``--bootstrap-servers`` is an alias), ``--command-config FILE``, ``--timeout`` in milliseconds,
``--dry-run``/``--execute``.

Exit codes: 0 success; 1 the command ran and failed (broker would not start, member not removed),
with a one-line message (an unexpected error shows its traceback only with ``-v``); 2 usage errors:
argparse's, and a :class:`~staticconsumer.errors.ConfigurationError` (bad flags, an unknown
``--kafka-version``, a client config file that cannot be used), each naming the flag or file.
"""

from __future__ import annotations

import argparse
import logging
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence

import staticconsumer

from ..errors import ConfigurationError, StaticConsumerError
from ..localkafka.errors import LocalKafkaError
from .security import add_cluster_options, options_from_args, resolve_cluster, security_from_args

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_MAVEN_COORDINATE = re.compile(r"^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+:[A-Za-z0-9_.+-]+$")
log = logging.getLogger(__name__)


def _broker_config(values: Sequence[str]) -> dict[str, str]:
    config = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigurationError(f"--broker-config takes key=value, got {item!r}")
        config[key.strip()] = value.strip()
    return config


#: The shortest --timeout taken: below it a value is a leftover in seconds, not a real timeout.
MIN_TIMEOUT_MS = 100


def timeout_ms_arg(value: str) -> int:
    """``--timeout``: whole milliseconds > 0, as ``kafka-consumer-groups.sh`` takes it."""
    try:
        timeout = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"takes whole milliseconds > 0 (e.g. 30000), got {value!r}"
        ) from None
    if timeout <= 0:
        raise argparse.ArgumentTypeError(f"takes milliseconds > 0, got {value!r}")
    if timeout < MIN_TIMEOUT_MS:
        # --timeout was in seconds before it followed Kafka's tools: 30 would now mean 30 ms.
        raise argparse.ArgumentTypeError(
            f"is in milliseconds (as kafka-consumer-groups.sh takes it) and must be at least "
            f"{MIN_TIMEOUT_MS}, got {value!r}: for {timeout} s write {timeout * 1000}"
        )
    return timeout


def _kafka_version_arg(value: str) -> str:
    from ..localkafka import kafka_coordinates

    try:
        kafka_coordinates(value)  # checks the version; downloads nothing
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _maven_coordinate_arg(value: str) -> str:
    """``--artifact``: checked before anything is downloaded."""
    if not _MAVEN_COORDINATE.match(value):
        raise argparse.ArgumentTypeError(
            f"a Maven coordinate is group:artifact:version (e.g. org.apache.kafka:kafka-clients:"
            f"4.0.0), got {value!r}"
        )
    return value


def _local_kafka(args: argparse.Namespace) -> int:
    from ..localkafka import cluster_from_environment

    cluster = cluster_from_environment(
        args.brokers, kafka_version=args.kafka_version,
        broker_config=_broker_config(args.broker_config), security=args.security,
    )  # fmt: skip
    stop = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        log.info("received %s, stopping Kafka", signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        cluster.start()
        if stop.is_set():
            return EXIT_OK
        print(f"BOOTSTRAP_SERVERS={cluster.bootstrap_servers}", flush=True)
        config = getattr(cluster, "client_config_path", None)
        if config is not None:  # --security sasl_ssl: the app user's --command-config file
            print(f"CLIENT_CONFIG={config}", flush=True)
        log.info("Kafka is running; press Ctrl-C (or send SIGTERM) to stop it and remove its data")
        while not stop.wait(0.5):
            pass
    finally:
        cluster.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return EXIT_OK


def _prefetch(args: argparse.Namespace) -> int:
    from ..localkafka import DEFAULT_KAFKA_VERSION, kafka_coordinates, resolve_jars

    for version in args.kafka_version or [DEFAULT_KAFKA_VERSION]:
        jars = resolve_jars(kafka_coordinates(version))
        print(f"kafka {version}: {len(jars)} jars cached", flush=True)
    for coordinate in args.artifact:
        jars = resolve_jars([coordinate])
        print(f"{coordinate}: {len(jars)} jars cached", flush=True)
    return EXIT_OK


def _describe_group(args: argparse.Namespace) -> int:
    import asyncio

    from ..admin import describe_group
    from .render import format_json, format_table

    security = security_from_args(args)
    description = asyncio.run(
        describe_group(
            args.bootstrap_servers,
            args.group,
            timeout_s=args.timeout / 1000,
            security=security,
            **options_from_args(args),
        )
    )
    out = format_json(description.to_dict()) if args.json else format_table(description)
    sys.stdout.write(out)
    sys.stdout.flush()
    return EXIT_OK


def _describe_streams_group(args: argparse.Namespace) -> int:
    import asyncio

    from ..admin import describe_streams_group
    from .render import format_json, format_streams_table

    description = asyncio.run(describe_streams_group(
        args.bootstrap_servers, args.group, timeout_s=args.timeout / 1000,
        security=security_from_args(args),
    ))  # fmt: skip
    if args.instance_id is not None and description.member(args.instance_id) is None:
        print(f"streams group {args.group!r} has no member with instance id "
              f"{args.instance_id!r}", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    if args.json:
        doc = description.to_dict()
        if args.instance_id is not None:
            doc["members"] = [m for m in doc["members"]
                              if m["group_instance_id"] == args.instance_id]  # fmt: skip
        sys.stdout.write(format_json(doc))
    else:
        sys.stdout.write(format_streams_table(description, args.instance_id))
    sys.stdout.flush()
    return EXIT_OK


def _remove_members(args: argparse.Namespace) -> int:
    import asyncio

    from ..admin import try_remove_members
    from .render import format_json, format_removal, removal_document

    removal = try_remove_members(
        args.bootstrap_servers, args.group, args.instance_id, args.reason,
        timeout_s=args.timeout / 1000, security=security_from_args(args),
        **options_from_args(args),
    )  # fmt: skip
    outcome = asyncio.run(removal)
    if args.json:
        out = format_json(removal_document(outcome.group_id, outcome.removed, outcome.failed))
    else:
        out = format_removal(outcome.group_id, outcome.removed, outcome.failed)
    sys.stdout.write(out)
    sys.stdout.flush()
    return EXIT_FAILED if outcome.failed else EXIT_OK


def _reconcile_members(args: argparse.Namespace) -> int:
    import asyncio

    from ..admin import desired_count_ids, reconcile, removal_reason
    from .render import format_json, format_reconcile

    if args.desired is not None:
        desired = tuple(i.strip() for i in args.desired.split(",") if i.strip())
        if not desired:
            raise ConfigurationError("--desired takes a comma-separated list of instance ids")
    elif args.prefix is None:
        raise ConfigurationError("--desired-count needs --prefix (e.g. --prefix orders-)")
    else:
        desired = desired_count_ids(args.prefix, args.desired_count)
    if args.apply:
        print("staticconsumer: note: --apply is deprecated; use --execute (as Kafka's tools do)",
              file=sys.stderr, flush=True)  # fmt: skip
    plan = asyncio.run(reconcile(
        args.bootstrap_servers, args.group, desired, args.reason,
        apply=args.execute or args.apply, allow_empty=args.allow_empty,
        timeout_s=args.timeout / 1000, security=security_from_args(args),
        **options_from_args(args),
    ))  # fmt: skip
    if args.json:
        sys.stdout.write(format_json(plan.to_dict()))
    else:
        sys.stdout.write(format_reconcile(plan, removal_reason(args.reason)))
    sys.stdout.flush()
    return EXIT_FAILED if plan.failed else EXIT_OK


def _add_reconcile_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: Callable[[argparse.ArgumentParser], None],
) -> None:
    reconcile = commands.add_parser(
        "reconcile-members",
        help="remove every static member whose instance id is not desired (dry run by default)",
        description="Compare a group's static members with the instance ids that should exist "
        "and remove the others in one LeaveGroup batch with a reason (KIP-345, KIP-800): the "
        "scale-down step of a StatefulSet, or the cleanup of ghosts after a rename. A member "
        "<id>-thread-<n> counts as <id>. A dry run (--dry-run, the default) only shows what it "
        "would do; --execute removes them.",
    )
    common(reconcile)
    desired = reconcile.add_mutually_exclusive_group(required=True)
    desired.add_argument("--desired", metavar="ID,ID,...", help="the instance ids to keep")
    desired.add_argument(
        "--desired-count", type=int, metavar="N",
        help="keep <prefix>0 ... <prefix>N-1 (a StatefulSet's pod names); needs --prefix",
    )  # fmt: skip
    reconcile.add_argument("--prefix", metavar="PREFIX", help="with --desired-count, e.g. svc-")
    reconcile.add_argument(
        "--reason", default=None,
        help='sent to the broker as "member was removed by an admin: REASON" (KIP-800); '
             'default "member was removed by an admin"',
    )  # fmt: skip
    reconcile.add_argument(
        "--allow-empty", action="store_true",
        help="let an empty desired set (--desired-count 0) remove every static member",
    )  # fmt: skip
    mode = reconcile.add_mutually_exclusive_group()
    mode.add_argument(
        "--dry-run", action="store_true", help="only show what would be removed (the default)"
    )
    mode.add_argument("--execute", action="store_true", help="remove them")
    mode.add_argument("--apply", action="store_true", help="deprecated: use --execute")
    reconcile.set_defaults(run=_reconcile_members)


def _add_admin_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def common(sub: argparse.ArgumentParser) -> None:
        add_cluster_options(sub)
        sub.add_argument("--group", required=True, help="the consumer group id")
        sub.add_argument("--json", action="store_true", help="print one JSON document")
        sub.add_argument(
            "--timeout", type=timeout_ms_arg, default=30_000, metavar="MS",
            help="bound on each request, in milliseconds (default 30000)",
        )  # fmt: skip

    describe = commands.add_parser(
        "describe-group",
        help="show a group's state, protocol and members (instance ids, assignments)",
        description="Describe a consumer group with DescribeGroups v4+: state, selected "
        "protocol, and one row per member: group.instance.id, member id, client id, host, "
        "assigned partitions. An unknown group shows as state Dead with no members.",
    )
    common(describe)
    describe.set_defaults(run=_describe_group)

    streams = commands.add_parser(
        "describe-streams-group",
        help="show a streams group's epochs and members (instance ids, process ids, tasks)",
        description="Describe a streams group (KIP-1071) with StreamsGroupDescribe: state, group "
        "and assignment epochs, and one row per member (stream thread): group.instance.id, "
        "member id, process id, epoch, active, standby and warm-up tasks as subtopology:"
        "[partitions]. --instance-id shows one thread. An unknown group shows as state Dead.",
    )  # fmt: skip
    common(streams)
    streams.add_argument("--instance-id", default=None, help="only this member (a thread id)")
    streams.set_defaults(run=_describe_streams_group)

    remove = commands.add_parser(
        "remove-members",
        help="remove static members by group.instance.id (one LeaveGroup batch, KIP-345)",
        description="Remove static members from a group by group.instance.id, so the group "
        "rebalances now instead of after session.timeout.ms. Exit 1 when some member could not "
        "be removed (the others are still removed).",
    )
    common(remove)
    remove.add_argument(
        "--instance-id", action="append", required=True, metavar="ID",
        help="a group.instance.id to remove, repeatable",
    )  # fmt: skip
    remove.add_argument(
        "--reason", default=None,
        help='sent to the broker as "member was removed by an admin: REASON" (KIP-800); '
             'default "member was removed by an admin"',
    )  # fmt: skip
    remove.set_defaults(run=_remove_members)
    _add_reconcile_command(commands, common)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="staticconsumer",
        description="Kafka static membership (KIP-345) tools: local Kafka, group admin, demo.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {staticconsumer.__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True)

    local = commands.add_parser(
        "local-kafka",
        help="run a real Apache Kafka cluster on 127.0.0.1 until SIGINT/SIGTERM",
        description="Start Apache Kafka (KAFKA_BOOTSTRAP_SERVERS, else Docker, else Java 17+ with "
        "the broker from Maven Central), print BOOTSTRAP_SERVERS=... once it serves, run until "
        "SIGINT/SIGTERM, then stop it and remove its data.",
    )
    local.add_argument("--brokers", type=int, choices=(1, 3), default=1)
    local.add_argument(
        "--kafka-version",
        default=None,
        type=_kafka_version_arg,
        help="Apache Kafka version, 2.8.x to 4.x: KRaft from 3.3, before that a ZooKeeper-mode "
        "broker with its own ZooKeeper (default: $STATICCONSUMER_KAFKA_VERSION or the built-in "
        "default)",
    )
    local.add_argument(
        "--broker-config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra broker config, repeatable",
    )
    local.add_argument(
        "--security", choices=("plaintext", "sasl_ssl"), default="plaintext",
        help="sasl_ssl: TLS from a fresh CA, SCRAM-SHA-512 and PLAIN users, ACLs on; prints "
        "CLIENT_CONFIG=FILE (a --command-config file) after BOOTSTRAP_SERVERS (needs Java and "
        "the 'secure-broker' extra; see docs/security.md)",
    )  # fmt: skip
    local.set_defaults(run=_local_kafka)

    prefetch = commands.add_parser(
        "prefetch", help="resolve Apache Kafka's jars into the cache now (for offline runs / CI)"
    )
    prefetch.add_argument(
        "--kafka-version",
        action="append",
        default=[],
        type=_kafka_version_arg,
        help="a Kafka version to cache, repeatable (default: the default)",
    )
    prefetch.add_argument(
        "--artifact",
        action="append",
        default=[],
        type=_maven_coordinate_arg,
        metavar="G:A:V",
        help="another Maven artifact to cache with its dependencies",
    )
    prefetch.set_defaults(run=_prefetch)
    _add_admin_commands(commands)
    from .roster import add_roster_command  # issue 21: pre-registration (docs/scaling.md)

    add_roster_command(commands)
    from .._demo import add_demo_command  # the demo (issue 6) registers its own sub-command

    add_demo_command(commands)
    from .report import add_report_command  # the Spark report (issue 7); pyspark is lazy

    add_report_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "cluster_parser"):
        resolve_cluster(args)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    try:
        code: int = args.run(args)
    except ConfigurationError as exc:  # our typed validation: a usage error
        print(f"staticconsumer: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (StaticConsumerError, LocalKafkaError) as exc:
        print(f"staticconsumer: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # a bug or an unforeseen failure: not the user's input
        if args.verbose:
            log.exception("unexpected error")
        else:
            first = (str(exc).splitlines() or [""])[0]
            print(f"staticconsumer: error: unexpected {type(exc).__name__}: {first} "
                  "(run with -v for the traceback)", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    return code


if __name__ == "__main__":
    sys.exit(main())
