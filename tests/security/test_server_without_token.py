"""`python -m memoryserver` never serves without a token unless told so, and says why."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from harness.memoryserver import DEFAULT_ENV
from harness.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


def server_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        **DEFAULT_ENV,
        "AGENT_MEMORY_SERVER_DB": str(tmp_path / "agentmemory.sqlite3"),
        "AGENT_MEMORY_SERVER_TOKEN": "",
        "AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN": "",
    }
    env.update(extra)
    return env


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_without_a_token_the_server_refuses_to_start_and_says_why(tmp_path, host):
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "memoryserver", "--host", host, "--port", str(port)],
        cwd=ROOT,
        env=server_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "Refusing to start: AGENT_MEMORY_SERVER_TOKEN is not set" in done.stderr
    assert "--no-token" in done.stderr and "AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN=true" in done.stderr
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
    # Refused before anything was written.
    assert not (tmp_path / "agentmemory.sqlite3").exists()


@pytest.mark.parametrize(
    ("args", "extra", "named"),
    [
        (["--no-token"], {}, "--no-token"),
        ([], {"AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN": "true"}, "AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN"),
    ],
    ids=["flag", "environment"],
)
def test_an_explicit_opt_out_serves_open_and_warns_every_start(tmp_path, args, extra, named):
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "memoryserver", "--port", str(port), *args],
            cwd=ROOT,
            env=server_env(tmp_path, **extra),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, log.read_text()
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/users/nobody", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        assert response.status_code == 404  # open: no 401
        text = log.read_text()
        assert "WARNING: serving without a token" in text and named in text
    finally:
        server.terminate()
        server.wait(timeout=20)
