"""Real processes for the multi-host tests: each host (a Celery worker, the web server,
beat, the object store) is a separate process with its own working directory and its own
local folders, started with ``subprocess.Popen`` in a process group of its own so that a
test can kill it, and every child it forked, with SIGKILL as an operator's ``kill -9``
or the OOM killer would.

Every wait is bounded; when one runs out it fails naming what it waited for, with the
tails of every process's log, instead of hanging."""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Process:
    """One host's process: its command, environment, working directory and log file."""

    def __init__(self, name: str, argv: list[str], *, env: dict[str, str], cwd: Path):
        self.name, self.argv, self.env, self.cwd = name, argv, env, cwd
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.log_path = cwd / f"{name}.log"
        self.popen: subprocess.Popen | None = None

    def start(self) -> "Process":
        with self.log_path.open("ab") as log:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killpg reaches its children
            )
        return self

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log().splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL to the whole process group: nothing gets to clean up."""
        if self.popen is None:
            return
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=10)

    def stop(self, grace: float = 3) -> None:
        """SIGTERM to the group, SIGKILL after ``grace`` seconds. The group is signalled even
        when its leader is already dead: its children (gunicorn's workers, a worker's pool)
        may outlive it."""
        if self.popen is None:
            return
        if self.alive:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)
                self.popen.wait(timeout=grace)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        # Whatever is left of the group goes, leader or not.
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=10)


class Processes:
    """The processes of one test's hosts; ``report()`` shows what each logged last."""

    def __init__(self):
        self.all: list[Process] = []

    def add(self, process: Process) -> Process:
        self.all.append(process)
        return process.start()

    def report(self, lines: int = 30) -> str:
        parts = []
        for process in self.all:
            state = "running" if process.alive else f"exited ({process.popen.returncode if process.popen else '-'})"
            parts.append(f"--- {process.name} ({state}), {process.log_path}:\n{process.tail(lines)}")
        return "\n".join(parts)

    def wait_for(self, check: Callable, what: str, timeout: float, pause: float = 0.25, needs: tuple = ()):
        """Poll ``check`` until it returns something true (returned). Fails naming ``what``
        with every log's tail when the time is up, or at once when a process of ``needs``
        exited."""
        deadline = time.monotonic() + timeout
        last_error = ""
        while time.monotonic() < deadline:
            for process in needs:
                if not process.alive:
                    raise AssertionError(f"{process.name} exited while waiting for {what}.\n{self.report()}")
            try:
                if result := check():
                    return result
            except Exception as exc:  # noqa: BLE001 - not ready yet (connection refused...)
                last_error = f"{type(exc).__name__}: {exc}"
            time.sleep(pause)
        raise AssertionError(
            f"Timed out after {timeout:.0f} s waiting for {what}"
            f"{f' (last error: {last_error})' if last_error else ''}.\n{self.report()}"
        )

    def stop_all(self) -> None:
        for process in reversed(self.all):
            process.stop()
