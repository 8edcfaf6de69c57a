"""`make run` gives the demo shoppers the history their blurbs promise, once.

The run is `make run`'s own steps in a copy of the project: scripts/prepare (migrate,
seed_catalog, seed_shoppers, mark_interrupted_turns), then scripts/run, which starts the
embedded memory server and daphne.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from config.devserver import token_file_read
from harness.ports import free_port
from tests.support.make_run import project_copy, run_env


def make_run_prepare(project: Path, env: dict[str, str]) -> None:
    """What `make run` does before scripts/run: scripts/prepare, in one process."""
    done = subprocess.run(
        [sys.executable, "scripts/prepare"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Every step says what it does, and the catalog's line says why the shop shows fewer.
    for step in ("Database:", "Catalog:", "Demo shoppers:", "Chat records:", "Prepared in"):
        assert step in done.stdout, done.stdout
    assert "withdrawn (not shown)" in done.stdout


def scripts_run(project: Path, env: dict[str, str], log_path: Path, shop_port: int) -> str:
    """scripts/run until the shop answers; stop it; return what it printed."""
    with log_path.open("w") as log:
        run = subprocess.Popen(
            ["scripts/run"],
            cwd=project,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 180
            while True:
                assert run.poll() is None, log_path.read_text()
                try:
                    httpx.get(f"http://127.0.0.1:{shop_port}/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, log_path.read_text()
                    time.sleep(0.3)
        finally:
            os.killpg(run.pid, signal.SIGTERM)
            run.wait(timeout=30)
    return log_path.read_text()


def memory_users_of(project: Path) -> dict[str, str]:
    """username -> the Agent Memory user the copy's shop files that account's memory under."""
    with sqlite3.connect(project / "var" / "aisle.sqlite3") as db:
        return dict(
            db.execute(
                "SELECT u.username, m.memory_user_id FROM memoryapp_memoryaccount m"
                " JOIN auth_user u ON u.id = m.user_id"
            )
        )


def sessions_of(memory_url: str, token: str, user_id: str) -> list[dict]:
    response = httpx.get(
        f"{memory_url}/users/{user_id}/sessions",
        params={"limit": 100},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["sessions"]


@pytest.mark.timeout(600)
def test_make_run_writes_the_demo_history_on_the_first_start_only(tmp_path):
    project = project_copy(tmp_path)
    memory_url = f"http://127.0.0.1:{free_port()}"
    shop_port = free_port()
    env = run_env(memory_url, shop_port)

    make_run_prepare(project, env)
    first = scripts_run(project, env, tmp_path / "first.log", shop_port)
    assert "Wrote 8 session(s), 21 exchange(s)" in first, first
    assert first.index("Wrote 8 session(s)") < first.index("open http://127.0.0.1:")

    second = scripts_run(project, env, tmp_path / "second.log", shop_port)
    assert "Nothing to write: all 8 session(s) of 4 shopper(s) are in memory already." in second

    # Between the runs the memory server was stopped and started on its own file again:
    # each demo shopper still has exactly the two visits of their blurb.
    token = token_file_read(project / "var" / "agent-memory.token")
    server = subprocess.Popen(
        [sys.executable, "-m", "memoryserver", "--port", memory_url.rsplit(":", 1)[1]],
        cwd=project,
        env={**env, "AGENT_MEMORY_SERVER_TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{memory_url}/health", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.3)
        memory_users = memory_users_of(project)
        for username in ("ann", "ben", "chloe", "dev"):
            sessions = sessions_of(memory_url, token, memory_users[username])
            assert len(sessions) == 2, (username, sessions)
            assert all(s["metadata"]["seed"].startswith("sha256:") for s in sessions)
    finally:
        server.terminate()
        server.wait(timeout=20)
