"""Start the embedded Agent Memory server in its own process, for tests and benchmarks.

    base_url, stop = start_agentmemory_server(tmp_path)   # hashing embedder, extractive
    ...
    stop()

Each call gets a free loopback port; the database is `<tmp_dir>/agentmemory.sqlite3`, so a
second call with the same directory restarts on the same data. Extra keyword arguments are
environment variables for the server process (AGENT_MEMORY_EMBEDDER="minilm", ...).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from harness.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ENV = {
    "AGENT_MEMORY_EMBEDDER": "hashing",
    "AGENT_MEMORY_EXTRACTOR": "extractive",
    "AGENT_MEMORY_EXTRACTION_RETRY_SECONDS": "0.05",
    "AGENT_MEMORY_SWEEP_INTERVAL_SECONDS": "0.5",
    "AGENT_MEMORY_SERVER_TOKEN": "",
    # The suite's servers are open on purpose (a test that wants a door passes a token);
    # the server refuses to start without one unless told so.
    "AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN": "true",
}


@dataclass
class MemoryServerProcess:
    """One run of the server; `kill()` is kill -9, `stop()` a clean shutdown."""

    base_url: str
    port: int
    process: subprocess.Popen
    log_path: Path
    _log: IO[bytes]

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self._log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self._log.close()


def agentmemory_process_start(tmp_dir: str | os.PathLike[str], **env: str) -> MemoryServerProcess:
    """Start `python -m memoryserver` on a free port, wait for /health; the process handle."""
    tmp = Path(tmp_dir)
    tmp.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc_env = {
        **os.environ,
        **DEFAULT_ENV,
        "AGENT_MEMORY_SERVER_DB": str(tmp / "agentmemory.sqlite3"),
        "PYTHONPATH": str(ROOT),
    }
    proc_env.update({k: str(v) for k, v in env.items()})
    log_path = tmp / f"agentmemory-{port}.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memoryserver",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=proc_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    server = MemoryServerProcess(f"http://127.0.0.1:{port}", port, process, log_path, log)
    try:
        _wait_healthy(server.base_url, process, log_path)
    except BaseException:
        server.stop()
        raise
    return server


def start_agentmemory_server(
    tmp_dir: str | os.PathLike[str], **env: str
) -> tuple[str, Callable[[], None]]:
    """Start `python -m memoryserver`, wait for /health, return (base_url, stop)."""
    server = agentmemory_process_start(tmp_dir, **env)
    return server.base_url, server.stop


def _wait_healthy(
    base_url: str, process: subprocess.Popen, log_path: Path, timeout: float = 30.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"agentmemory server exited with {process.returncode}:\n{log_path.read_text()[-3000:]}"
            )
        try:
            if httpx.get(f"{base_url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(
        f"agentmemory server not healthy after {timeout}s:\n{log_path.read_text()[-3000:]}"
    )


class LiveMemory:
    """The embedded Agent Memory server in its own process, with a movable clock."""

    def __init__(self, base_url: str, offset_file) -> None:
        self.base_url = base_url
        self._offset_file = offset_file
        self._offset = 0.0

    def advance(self, seconds: float) -> None:
        self._offset += seconds
        self._offset_file.write_text(str(self._offset))
