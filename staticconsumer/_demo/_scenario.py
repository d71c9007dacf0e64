"""The demo scenario: two app processes, a rolling restart of one of them, and the checks.

1. Create the input (``partitions``), output and compacted changelog topics; produce phase 1.
2. Start app-0, wait until it has joined (so the group leader stays in app-0), start app-1, wait
   until the group is stable (one generation, every partition owned once) and phase 1 is
   committed. Snapshot: generation and partitions per stream thread.
3. Rolling restart of app-1 while phase 2 is produced: SIGTERM, wait for a clean exit, start it
   again with the same instance ids and state directory, wait until it owns partitions again.
4. Wait until all input is committed, snapshot again, stop both apps (SIGTERM).
5. Check: the final aggregates read back from the output topic and from the changelog equal the
   reference computed from the produced input, and every record was processed exactly once.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from .. import InstanceId
from ..errors import StaticConsumerError
from ..localkafka import create_topic, delete_topics
from ..options import DEFAULTS
from . import _data, _retry
from ._apps import AppProcess

T = TypeVar("T")
STABLE_TIMEOUT_S = 90.0
PROCESS_TIMEOUT_S = 120.0
PHASE2_CHUNKS = 20
PHASE2_PAUSE_S = 0.25

Say = Callable[[str], None]


class DemoFailure(StaticConsumerError):
    """The demo could not run its scenario (an app died, the group never settled, ...)."""


@dataclass(frozen=True)
class DemoOptions:
    dynamic: bool = False
    records: int = 3000  # per phase: before the restart, and during it
    partitions: int = 8
    processes: int = 2
    threads: int = 2
    session_timeout_ms: int | None = None  # default: 20 s static, 10 s dynamic
    events_topic: str | None = None
    restart_pause_s: float = 3.0  # between the SIGTERM and the start of the new process
    protocol: str = "classic"  # the apps' --group-protocol: classic, consumer or streams
    seed: int = _data.SEED

    @property
    def mode(self) -> str:
        return "dynamic" if self.dynamic else "static"

    @property
    def session_ms(self) -> int:
        if self.session_timeout_ms is not None:
            return self.session_timeout_ms
        return DEFAULTS["session_timeout_ms"] if self.dynamic else 20_000  # aiokafka's: 10 s


Snapshot = tuple[int, dict[str, list[int]]]  # generation, thread -> partitions


class Scenario:
    def __init__(self, bootstrap: str, options: DemoOptions, workdir: Path, say: Say) -> None:
        self.bootstrap, self.options, self.workdir, self.say = bootstrap, options, workdir, say
        run_id = f"{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.group = f"scdemo-{options.mode}-{run_id}"
        self.topics = {kind: f"{self.group}-{kind}" for kind in ("input", "output", "changelog")}
        self.apps: list[AppProcess] = []  # every incarnation, in start order
        self.log: list[tuple[str, dict[str, Any]]] = []  # (app label, status event) in order
        self.produced: list[tuple[str, int]] = []
        self._incarnations: dict[str, int] = {}
        self._admin: Any = None  # for committed offsets (aiokafka is untyped)
        self._ends: Any = None  # a group-less consumer for end offsets
        #: wall clock (epoch ms) from the restarted process's SIGTERM until the group was stable
        #: again with every record processed: the window a report looks at for rebalances
        self.restart_started_ms = self.restart_ended_ms = 0

    # -- app processes ---------------------------------------------------------------------------

    def _app_args(self, index: int) -> list[str]:
        o = self.options
        flags = {
            "--bootstrap-servers": self.bootstrap,
            "--group": self.group,
            "--instance-base": f"demo-app-{index}",
            "--threads": str(o.threads),
            "--state-dir": str(self.workdir / "state" / f"app-{index}"),
            "--input-topic": self.topics["input"],
            "--output-topic": self.topics["output"],
            "--changelog-topic": self.topics["changelog"],
            "--session-timeout-ms": str(o.session_ms),
            "--group-protocol": o.protocol,
        }
        args = [item for pair in flags.items() for item in pair]
        if o.dynamic:
            args.append("--dynamic")
        if o.events_topic:
            args += ["--events-topic", o.events_topic]
        return args

    async def start_app(self, index: int) -> AppProcess:
        label = f"app-{index}"
        n = self._incarnations.get(label, 0)
        self._incarnations[label] = n + 1
        app = AppProcess(
            label=label + (" (restarted)" if n else ""),
            args=self._app_args(index),
            log_path=self.workdir / f"{label}.{n}.log",
            on_event=self._on_event,
        )
        self.apps.append(app)
        await app.start()
        self.say(f"{app.label} started (pid {app.pid}), log {app.log_path}")
        return app

    def _on_event(self, app: AppProcess, doc: dict[str, Any]) -> None:
        self.log.append((app.label, doc))
        if doc.get("event") != "assigned":
            return
        states = doc.get("states", {})
        outcomes = [
            f"{p}: {s['outcome']}"
            + (f" {s['restored_records']} records" if s["outcome"] == "restored" else "")
            for p, s in states.items()
        ]
        self.say(
            f"{app.label} {doc['thread']}: generation {doc['generation']}, partitions "
            f"{doc['partitions']}" + (f" — state {', '.join(outcomes)}" if outcomes else "")
        )

    def live(self) -> list[AppProcess]:
        return [a for a in self.apps if a.running]

    async def until(self, what: str, check: Callable[[], Any], timeout_s: float) -> Any:
        """Poll ``check`` (sync or async) under the ``demo_condition`` policy until it returns
        something truthy; fail fast when an app process dies meanwhile."""

        async def once() -> Any:
            result = check()
            if asyncio.iscoroutine(result):
                result = await result
            if result:
                return result
            self._fail_if_an_app_died(what)
            raise _retry.NotYet(what)

        try:
            async for attempt in _retry.demo_condition(timeout_s):
                with attempt:
                    return await once()
        except _retry.NotYet:
            tails = "\n".join(f"--- {a.label}\n{a.log_tail(10)}" for a in self.live())
            raise DemoFailure(
                f"timed out after {timeout_s:.0f}s waiting for {what}\n{tails}"
            ) from None
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    def _fail_if_an_app_died(self, what: str) -> None:
        for app in self.apps:
            if app.returncode is not None and not (app.stopped or app.killed):
                raise DemoFailure(
                    f"{app.label} exited with status {app.returncode} while waiting for "
                    f"{what}; its log ends:\n{app.log_tail()}"
                )

    def stable(self, apps: Sequence[AppProcess]) -> Snapshot | None:
        """One generation across every stream thread of ``apps``, which together own every
        input partition exactly once; None while that is not (yet) so."""
        views: dict[str, dict[str, Any]] = {}
        for app in apps:
            if not app.threads or app.rebalancing:
                return None
            for thread in app.threads:
                if thread not in app.assigned:
                    return None
                views[thread] = app.assigned[thread]
        generations = {int(v["generation"]) for v in views.values()}
        owned = sorted(p for v in views.values() for p in v["partitions"])
        if len(generations) != 1 or owned != list(range(self.options.partitions)):
            return None
        # Balanced too: under the consumer and streams protocols a newcomer holds nothing, at
        # the group's epoch, until the others have revoked what moves to it.
        counts = [len(v["partitions"]) for v in views.values()]
        if max(counts) - min(counts) > 1:
            return None
        return generations.pop(), {t: list(v["partitions"]) for t, v in sorted(views.items())}

    # -- Kafka -----------------------------------------------------------------------------------

    async def create_topics(self) -> None:
        n = self.options.partitions
        await create_topic(self.bootstrap, self.topics["input"], partitions=n)
        await create_topic(self.bootstrap, self.topics["output"], partitions=n)
        if self.options.protocol == "streams":  # the broker creates it (KIP-1071)
            self.say(f"topics: {self.topics['input']} ({n} partitions), output; the changelog "
                     "is the streams group's, created by the broker")  # fmt: skip
            return
        await create_topic(
            self.bootstrap,
            self.topics["changelog"],
            partitions=n,
            config={"cleanup.policy": "compact"},
        )
        self.say(f"topics: {self.topics['input']} ({n} partitions), output, changelog (compacted)")

    async def clean_up_cluster(self) -> None:
        """Remove the stopped static members (they would otherwise linger in the group until
        their session times out) and delete the demo's topics."""
        if not self.options.dynamic:
            from ..admin import try_remove_members

            ids = [
                InstanceId.for_thread(f"demo-app-{i}", n)
                for i in range(self.options.processes)
                for n in range(self.options.threads)
            ]
            await try_remove_members(self.bootstrap, self.group, ids, "staticconsumer demo ended")
        await delete_topics(self.bootstrap, list(self.topics.values()))

    async def produce(self, records: Sequence[tuple[str, int]]) -> None:
        await _data.produce(self.bootstrap, self.topics["input"], records)
        self.produced.extend(records)

    async def produce_paced(self, records: Sequence[tuple[str, int]]) -> None:
        step = max(1, len(records) // PHASE2_CHUNKS)
        for start in range(0, len(records), step):
            await self.produce(records[start : start + step])
            await asyncio.sleep(PHASE2_PAUSE_S)

    async def committed_everything(self) -> bool:
        """Every input record produced so far is committed by the group."""
        if self._admin is None or self._ends is None:
            self._admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
            self._ends = AIOKafkaConsumer(bootstrap_servers=self.bootstrap)
            await self._admin.start()
            await self._ends.start()
        tps = [TopicPartition(self.topics["input"], p) for p in range(self.options.partitions)]
        committed = await self._admin.list_consumer_group_offsets(self.group, partitions=tps)
        ends = await self._ends.end_offsets(tps)
        done = sum(max(0, int(committed[tp].offset)) for tp in tps if tp in committed)
        total = sum(int(end) for end in ends.values())
        return done >= total >= len(self.produced)

    async def close(self) -> None:
        if self._ends is not None:
            await self._ends.stop()
        if self._admin is not None:
            await self._admin.close()
        self._admin = self._ends = None

    async def wait_processed(self, what: str) -> None:
        last = [0.0]

        async def check() -> bool:
            if time.monotonic() - last[0] > 3:
                last[0] = time.monotonic()
                done = sum(a.counter("processed") for a in self.apps)
                self.say(f"processed {done} of {len(self.produced)} records so far")
            return await self.committed_everything()

        await self.until(what, check, PROCESS_TIMEOUT_S)

    # -- the phases ------------------------------------------------------------------------------

    async def warm_up(self) -> Snapshot:
        """Start the apps (app-0 first, so the group leader lives there) and wait until the group
        is stable and everything produced so far is processed; returns the snapshot."""
        first = await self.start_app(0)
        await self.until("app-0 to join the group", lambda: self.stable([first]), STABLE_TIMEOUT_S)
        for index in range(1, self.options.processes):
            await self.start_app(index)
        await self.until("a stable group", lambda: self.stable(self.live()), STABLE_TIMEOUT_S)
        await self.wait_processed("the records produced before the restart to be processed")
        before: Snapshot = await self.until(
            "a stable group", lambda: self.stable(self.live()), STABLE_TIMEOUT_S
        )
        self.say(f"stable at generation {before[0]}; all {len(self.produced)} records processed")
        return before

    async def rolling_restart(
        self, records: Sequence[tuple[str, int]]
    ) -> tuple[AppProcess, AppProcess]:
        """Restart the last app (SIGTERM, a pause standing for the time a real restart takes,
        start again with the same instance ids and state) while ``records`` are produced; wait
        until it owns partitions again and everything is processed."""
        index = self.options.processes - 1
        victim = next(a for a in self.live() if a.label == f"app-{index}")
        pause = self.options.restart_pause_s
        self.restart_started_ms = int(time.time() * 1000)
        self.say(f"rolling restart of {victim.label} while {len(records)} more records arrive")
        producing = asyncio.create_task(self.produce_paced(records))
        try:
            self.say(f"{victim.label}: SIGTERM")
            code = await victim.terminate()
            if code != 0:
                raise DemoFailure(f"{victim.label} exited with {code}:\n{victim.log_tail()}")
            self.say(
                f"{victim.label} stopped cleanly; it comes back in {pause:g}s "
                "(the time a pod or host takes to restart)"
            )
            await asyncio.sleep(pause)
            if self.options.dynamic:
                # The leave made the others rebalance; normally done within the pause. Waiting
                # for it keeps the two rebalances apart on a slow machine, as on a fast one.
                await self.until(
                    "the remaining members to take over",
                    lambda: self.stable(self.live()),
                    STABLE_TIMEOUT_S,
                )
            restarted = await self.start_app(index)
            await self.until(
                "the restarted process to own partitions in a stable group",
                lambda: restarted.threads and self.stable(self.live()),
                STABLE_TIMEOUT_S,
            )
            await producing
        finally:
            producing.cancel()
        await self.wait_processed("every record to be processed")
        self.restart_ended_ms = int(time.time() * 1000)
        return victim, restarted


async def run_scenario(
    bootstrap: str, options: DemoOptions, workdir: Path, say: Say, *, shared_cluster: bool
) -> dict[str, Any]:
    """Run the whole scenario against ``bootstrap`` and return the summary document.

    ``shared_cluster``: the cluster outlives the demo, so its topics are deleted and its static
    members removed at the end (a cluster the demo started is simply thrown away)."""
    from ._summary import summarize

    s = Scenario(bootstrap, options, workdir, say)
    rng = random.Random(options.seed)
    phase1 = _data.sample_records(options.records, rng)
    phase2 = _data.sample_records(options.records, rng)
    started = time.monotonic()
    await s.create_topics()
    try:
        await s.produce(phase1)
        say(f"produced {len(phase1)} records (seed {options.seed})")
        before = await s.warm_up()
        mark = len(s.log)
        victim, restarted = await s.rolling_restart(phase2)
        after = await s.until("a stable group", lambda: s.stable(s.live()), STABLE_TIMEOUT_S)
        window = [doc for _, doc in s.log[mark:]]
        say(f"all {len(s.produced)} records processed; stopping the apps")
        live = s.live()
        exits = await asyncio.gather(*(a.terminate() for a in live))
        codes = {a.label: code for a, code in zip(live, exits, strict=True)}
        output, changelog = [
            _data.latest_per_key(
                await asyncio.wait_for(
                    _data.read_topic(bootstrap, s.topics[kind], options.partitions), 60
                )
            )
            for kind in ("output", "changelog")
        ]
        return summarize(
            scenario=s,
            before=before,
            after=after,
            window=window,
            restarted=restarted,
            victim=victim,
            exit_codes=codes,
            output=output,
            changelog=changelog,
            elapsed_s=time.monotonic() - started,
        )
    finally:
        for app in s.apps:
            await app.terminate()
        await s.close()
        if shared_cluster:
            try:
                await asyncio.wait_for(s.clean_up_cluster(), 30)
            except Exception as exc:  # best effort: the summary matters more
                say(f"could not remove the demo's topics and members: {exc!r}")
