"""Serve an ASGI application under daphne in its own process, as `make run` does.

    shop = daphne_start("config.asgi:application", env={"DATABASE_URL": ...}, log_dir=tmp)
    shop.http_url, shop.ws_url("/ws/assistant/"), shop.origin
    shop.stop()

The process runs on the shop's own settings (`config.settings.base`), the offline model,
DEBUG off, on a free loopback port; `env` adds or overrides variables.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from harness.ports import free_port

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class DaphneProcess:
    port: int
    process: subprocess.Popen
    log: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str:
        return self.origin

    def ws_url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


def daphne_start(
    application: str, *, env: dict[str, str], log_dir: Path, timeout: float = 60.0
) -> DaphneProcess:
    port = free_port()
    log = log_dir / f"daphne-{port}.log"
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "CHANNEL_", "TEST_DATABASE"))
    }
    process_env = {
        **base,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DJANGO_DEBUG": "false",
        "OPENAI_API_KEY": "",
        "PYTHONPATH": str(ROOT),
        **env,
    }
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), application],
            cwd=ROOT,
            env=process_env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    served = DaphneProcess(port=port, process=process, log=log)
    # Its own word that it listens, not a connect: something else may answer on the port.
    listening = f"Listening on TCP address 127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}:\n{served.log_tail()}")
        if listening in log.read_text(errors="replace"):
            return served
        time.sleep(0.1)
    served.stop()
    raise RuntimeError(f"daphne did not listen within {timeout:.0f}s:\n{served.log_tail()}")
