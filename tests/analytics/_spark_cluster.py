"""A Spark standalone cluster (one master, N workers) on 127.0.0.1, from the installed pyspark's
own launcher (``bin/spark-class``) and jars, for the report's cluster-mode test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyspark

from staticconsumer.localkafka import free_port

STARTUP_TIMEOUT_S = 120.0


class SparkStandalone:
    """``start()`` launches the master and the workers and waits until every worker is
    registered; ``stop()`` ends them all (each runs in its own process group)."""

    def __init__(self, directory: Path, workers: int = 2) -> None:
        self.directory = directory
        self.workers = workers
        self.port = free_port()
        self.master_url = f"spark://127.0.0.1:{self.port}"
        self._processes: list[tuple[subprocess.Popen[bytes], Path]] = []

    @staticmethod
    def environment() -> dict[str, str]:
        """Loopback only; the executors' Python workers run this interpreter."""
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(Path(pyspark.__file__).parent),
            SPARK_LOCAL_IP="127.0.0.1",
            PYSPARK_PYTHON=sys.executable,
            PYSPARK_DRIVER_PYTHON=sys.executable,
        )
        return env

    def _launch(self, name: str, main_class: str, *args: str) -> Path:
        log = self.directory / f"{name}.log"
        spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [str(spark_class), main_class, *args], stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, env=self.environment(), start_new_session=True,
            )  # fmt: skip
        self._processes.append((process, log))
        return log

    def start(self) -> SparkStandalone:
        self.directory.mkdir(parents=True, exist_ok=True)
        master_log = self._launch(
            "master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
            "--port", str(self.port), "--webui-port", str(free_port()),
        )  # fmt: skip
        self._wait_for(master_log, "I have been elected leader", 1)
        for n in range(self.workers):
            self._launch(
                f"worker-{n}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()),
                "--work-dir", str(self.work_dir(n)), self.master_url,
            )  # fmt: skip
        self._wait_for(master_log, "Registering worker 127.0.0.1", self.workers)
        return self

    def work_dir(self, worker: int) -> Path:
        return self.directory / f"work-{worker}"

    def _wait_for(self, log: Path, line: str, count: int) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if log.read_text(errors="replace").count(line) >= count:
                return
            dead = [p.args for p, _ in self._processes if p.poll() is not None]
            if dead:
                break
            time.sleep(0.5)
        logs = "\n".join(f"--- {path.name}\n{path.read_text(errors='replace')[-2000:]}"
                         for _, path in self._processes)  # fmt: skip
        raise RuntimeError(f"Spark standalone cluster: no {line!r} x{count} in time\n{logs}")

    def stop(self) -> None:
        for process, _ in reversed(self._processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process, _ in self._processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self._processes.clear()
